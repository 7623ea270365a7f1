//! The tool loop in two steps, for hosts that run the calls themselves (an event loop, a thread
//! pool, another process): prepare answers a plan, the host runs its calls, finish answers the
//! messages. The plan is plain JSON that the host hands back unchanged; nothing is kept in the
//! library between the two steps, so nothing is to be freed but the strings.

use super::boundary::run;
use super::conversation::{conversation_ref, tr_conversation};
use super::registry::{registry_ref, tr_registry};
use super::status::tr_status;
use super::strings::{arg_str, opt_arg_str, out_ptr, write_string};
use crate::exec::ExecuteOptions;
use std::ffi::c_char;

/// Step one of the tool loop: reads a batch of the model's tool calls and answers a plan of what
/// to run, without running anything.
///
/// `calls_json` and `options_json` are read exactly as by `tr_registry_execute` (every provider
/// shape; `{"api_format"?, "include_assistant"?, "parallel"?}`; `parallel` is accepted and has no
/// effect here: the host decides how its calls run). On success `*plan_json_out` receives the
/// plan, `{"toolregistry_plan": 1, "api_format", "include_assistant", "calls": [...], ...}`; free
/// it with `tr_string_free`. Each entry of `calls`, in the model's order, is either
/// - `{"run": "host", "id": str, "name": str, "arguments": {...}, "concurrency_safe": bool, ...}`:
///   a call for the host to run. `name` is the registered tool (a `call_deferred` call's target,
///   resolved), `arguments` the parsed object, already checked against the tool's schema, `id`
///   unique within the plan (the provider's call id when the batch has it once, else `"#<index>"`).
///   `concurrency_safe` false (the tool's metadata): run it alone, after the earlier host calls
///   finished and before later ones start; the others may run at once; or
/// - `{"run": "done", ...}`: a call the library has answered (`discover_tools`, an unknown or
///   disabled tool, arguments that are not an object or break the schema): skip it.
///
/// Every other field is the library's, for `tr_registry_finish_calls`. Give the plan back
/// unchanged; it may be finished on any thread, or in another process with the same registry.
///
/// Errors: as `tr_registry_execute` (NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON,
/// INVALID_ARGUMENT, TOO_LARGE). Thread-safe; runs no host function (`discover_tools` runs here,
/// and a host embedder may run for it).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_prepare_calls(
    r: *mut tr_registry,
    calls_json: *const c_char,
    options_json: *const c_char,
    plan_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let calls = unsafe { arg_str(calls_json, "calls_json") }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(plan_json_out, "plan_json_out")?;
        let options = ExecuteOptions::from_json(options)?;
        let json = crate::exec::prepare_json(registry, calls, &options)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Step two of the tool loop: the host's results for a plan of `tr_registry_prepare_calls`,
/// answered as the messages of the next turn.
///
/// `results_json` is a JSON array with exactly one entry per host call of the plan, in any order:
/// `{"id": str, "content": str}` (the text the model sees), `{"id": str, "error": str}` (an error
/// result: the model sees `Error: ` and the message) or `{"id": str, "unhandled": true}` (the host
/// has no function for that tool: the same error result `tr_registry_execute` gives a tool with no
/// host function). On success `*messages_json_out` receives the messages, byte for byte what
/// `tr_registry_execute` answers for the same outcomes (with the assistant turn first if the plan
/// was prepared with `include_assistant`); free it with `tr_string_free`. A host call whose tool
/// was unregistered since prepare becomes the unknown-tool error result.
///
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, TOO_LARGE, INVALID_ARGUMENT (with the path
/// of the problem: a plan this library did not write or that was changed, a host call with no
/// result, a second result for an id, an id that is no host call of the plan, a result that is
/// none of the three shapes). Thread-safe; changes nothing.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_finish_calls(
    r: *mut tr_registry,
    plan_json: *const c_char,
    results_json: *const c_char,
    messages_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let plan = unsafe { arg_str(plan_json, "plan_json") }?;
        let results = unsafe { arg_str(results_json, "results_json") }?;
        let out = out_ptr(messages_json_out, "messages_json_out")?;
        let json = crate::exec::finish_json(registry, plan, results)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// `tr_registry_prepare_calls` for a conversation: the calls read in the conversation's format
/// (`options_json` as for `tr_conversation_execute`), `discover_tools` calls and the provider's
/// own search calls (Responses `tool_search_call`) answered with the conversation's search options
/// and in its mode's shape. Nothing is loaded yet: `tr_conversation_finish_calls` loads what the
/// batch revealed. Errors and threads as `tr_registry_prepare_calls`.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_prepare_calls(
    c: *mut tr_conversation,
    calls_json: *const c_char,
    options_json: *const c_char,
    plan_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let conversation = unsafe { conversation_ref(c) }?;
        let calls = unsafe { arg_str(calls_json, "calls_json") }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(plan_json_out, "plan_json_out")?;
        let options = ExecuteOptions::from_json(options)?;
        let json = conversation.prepare_json(calls, &options)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// `tr_registry_finish_calls` for a conversation's plan: the messages, byte for byte what
/// `tr_conversation_execute` answers for the same outcomes, and the tools the batch revealed
/// loaded in the model's order (a search's finds; a deferred tool whose call succeeded), as
/// `tr_conversation_execute` loads them. Bad input (as `tr_registry_finish_calls`, or a plan of
/// another format) is INVALID_ARGUMENT and loads nothing. Thread-safe.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_finish_calls(
    c: *mut tr_conversation,
    plan_json: *const c_char,
    results_json: *const c_char,
    messages_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let conversation = unsafe { conversation_ref(c) }?;
        let plan = unsafe { arg_str(plan_json, "plan_json") }?;
        let results = unsafe { arg_str(results_json, "results_json") }?;
        let out = out_ptr(messages_json_out, "messages_json_out")?;
        let json = conversation.finish_json(plan, results)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}
