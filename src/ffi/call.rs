//! `tr_call` and host functions: how a C host runs the tool calls the registry routes to it.
//!
//! On the SQLite model: the library calls the host's `tr_tool_fn` with a `tr_call` handle, and the
//! host hands its result to `tr_call_return` or `tr_call_fail`, which copy it. No string crosses
//! allocators, and the host never frees anything the library made during a call.

use super::boundary::{Failure, run, run_silently};
use super::registry::registry_ref;
use super::status::tr_status;
use super::strings::{arg_str, null_argument, opt_arg_str, out_ptr, write_string};
use crate::format::{into_string, write_str};
use crate::registry::{HostFn, HostResult};
use crate::tool::Tool;
use std::ffi::{CString, c_char, c_void};
use std::sync::Arc;

/// One tool call in flight, handed to a `tr_tool_fn`.
///
/// Opaque. Valid only during the callback that received it: do not keep it, nor use it from
/// another thread after the callback returns. Give it exactly one result, with `tr_call_return`
/// or `tr_call_fail`.
pub struct tr_call {
    result: Option<HostResult>,
}

/// A host function that runs calls of a tool.
///
/// `user_data` is the pointer given at registration. `tool_name` and `args_json` (the arguments,
/// compact JSON of an object, already checked against the tool's schema) are NUL-terminated UTF-8
/// owned by the library and valid only during the call. Answer through `call` with
/// `tr_call_return` (the text the model sees) or `tr_call_fail` (an error result for the model);
/// answering neither gives the model "the host function returned no result".
///
/// Threads: sequential execution calls it on the thread that called `tr_registry_execute`;
/// `{"parallel": N}` calls it on threads the library starts (joined before execute returns), so it
/// may run on several threads at once. No library lock is held while it runs: it may call any
/// function of this library, on the same registry too. It must not unwind (C++ exceptions, Rust
/// panics, longjmp) into the library: catch them and call `tr_call_fail`.
pub type tr_tool_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        tool_name: *const c_char,
        args_json: *const c_char,
        call: *mut tr_call,
    ),
>;

/// Frees a host function's `user_data`; called exactly once, never during a call of the function.
pub type tr_free_fn = Option<unsafe extern "C" fn(user_data: *mut c_void)>;

/// The host's function pointer and data, owned by the registry. Dropping the last reference (the
/// registry's, or a running call's) frees the user data: never while a call is running.
struct HostCallback {
    function: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char, *mut tr_call),
    user_data: UserData,
}

/// The host's `user_data` and how to free it.
pub(super) struct UserData {
    pub(super) ptr: *mut c_void,
    pub(super) free: tr_free_fn,
}

// SAFETY: the header's contract: a host function and its user data may be used from any thread
// (parallel execution calls it from library threads), and freed from any thread.
unsafe impl Send for UserData {}
// SAFETY: as above; the library never touches `ptr` itself, it only passes it back to the host.
unsafe impl Sync for UserData {}

impl Drop for UserData {
    fn drop(&mut self) {
        if let Some(free) = self.free {
            let ptr = self.ptr;
            // SAFETY: the host gave `free` for `ptr`; it runs once, here.
            run_silently(|| unsafe { free(ptr) });
        }
    }
}

impl HostCallback {
    fn call(&self, tool_name: &str, args_json: &str) -> HostResult {
        let (Ok(name), Ok(args)) = (CString::new(tool_name), CString::new(args_json)) else {
            return Err("the tool name or arguments contain a NUL byte".into());
        };
        let mut call = tr_call { result: None };
        // SAFETY: the host's function, called with its own user data and pointers valid for the
        // duration of the call, per the `tr_tool_fn` contract.
        unsafe {
            (self.function)(self.user_data.ptr, name.as_ptr(), args.as_ptr(), &mut call);
        }
        call.result
            .unwrap_or_else(|| Err("the host function returned no result".into()))
    }
}

/// Takes ownership of the host's function and data; without a function, frees the data at once.
fn host_fn(function: tr_tool_fn, user_data: *mut c_void, free: tr_free_fn) -> Option<HostFn> {
    let user_data = UserData {
        ptr: user_data,
        free,
    };
    let function = function?;
    let callback = HostCallback {
        function,
        user_data,
    };
    Some(Arc::new(move |name: &str, args: &str| {
        callback.call(name, args)
    }))
}

/// Records the result of `call`; the first answer counts.
///
/// # Safety
/// `call` is NULL or the handle passed to a running callback.
unsafe fn answer(
    call: *mut tr_call,
    text: *const c_char,
    what: &str,
    wrap: fn(String) -> HostResult,
) -> Result<(), Failure> {
    // SAFETY: per the contract above.
    let call = unsafe { call.as_mut() }.ok_or_else(|| null_argument("call"))?;
    if call.result.is_some() {
        return Err(Failure::new(
            tr_status::TR_STATUS_INVALID_ARGUMENT,
            "this call already has a result (the first one is kept)",
        ));
    }
    // SAFETY: per the contract above.
    match unsafe { arg_str(text, what) } {
        Ok(text) => {
            call.result = Some(wrap(text.to_string()));
            Ok(())
        }
        Err(failure) => {
            // The model still hears that the call went wrong, not "no result".
            call.result = Some(Err(format!(
                "the host function gave an unusable result: {}",
                failure.message
            )));
            Err(failure)
        }
    }
}

/// Gives a call its successful result: `content` is the text the model sees (copied; the host
/// keeps ownership of its string).
///
/// Call it at most once per call, and only inside the callback that received `call`. A second
/// answer (this or `tr_call_fail`) keeps the first and returns INVALID_ARGUMENT.
/// Errors: NULL_ARGUMENT, INVALID_UTF8 (the call then fails with a message saying so),
/// INVALID_ARGUMENT.
///
/// # Safety
/// `call` is NULL or the handle of a running callback; `content` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_call_return(call: *mut tr_call, content: *const c_char) -> tr_status {
    // SAFETY: forwarded contract.
    run(std::ptr::null_mut(), || unsafe {
        answer(call, content, "content", Ok)
    })
}

/// Fails a call: `message` (copied) becomes an error result the model reads ("Error: " and the
/// message; Anthropic's `is_error`, Gemini's `error`). The batch goes on.
///
/// Same rules as `tr_call_return`: once per call, inside the callback.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_ARGUMENT (already answered).
///
/// # Safety
/// `call` is NULL or the handle of a running callback; `message` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_call_fail(call: *mut tr_call, message: *const c_char) -> tr_status {
    // SAFETY: forwarded contract.
    run(std::ptr::null_mut(), || unsafe {
        answer(call, message, "message", Err)
    })
}

/// Registers one tool with the host function that runs its calls (see `tr_tool_fn`).
///
/// `tool_json`: one tool in any shape `tr_registry_register` takes. A tool of the same name is
/// replaced, with its function. On success `*names_json_out` receives `["name"]`; free it with
/// `tr_string_free`.
///
/// Ownership of `user_data` passes to the library on every call, success or not: `free_user_data`
/// (may be NULL) runs exactly once with it, when the tool is unregistered or replaced, when the
/// registry is freed, or before this function returns if registration fails. Never while a call
/// of the tool is running (a call in flight keeps it alive). It may run on any thread.
/// Errors: NULL_ARGUMENT (`r`, `tool_json`, `fn`, `names_json_out`), INVALID_UTF8, INVALID_JSON,
/// INVALID_ARGUMENT (not exactly one tool, a reserved name), TOO_LARGE. On error nothing changes.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable; `fn` and `free_user_data` follow
/// their types' contracts.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_register_callable(
    r: *mut super::registry::tr_registry,
    tool_json: *const c_char,
    r#fn: tr_tool_fn,
    user_data: *mut c_void,
    free_user_data: tr_free_fn,
    names_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    // Owned from here on: dropped (and freed) on every early return.
    let host = host_fn(r#fn, user_data, free_user_data);
    run(err_out, move || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let json = unsafe { arg_str(tool_json, "tool_json") }?;
        let out = out_ptr(names_json_out, "names_json_out")?;
        let host = host.ok_or_else(|| null_argument("fn"))?;
        let mut tools = Tool::parse_many(json)?;
        if tools.len() != 1 {
            return Err(Failure::new(
                tr_status::TR_STATUS_INVALID_ARGUMENT,
                format!(
                    "tool_json: expected exactly one tool, got {} (register a function per tool)",
                    tools.len()
                ),
            ));
        }
        let name = registry.register_host(tools.remove(0), host)?;
        let mut buf = vec![b'['];
        write_str(&mut buf, &name);
        buf.push(b']');
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, into_string(buf)) }
    })
}

/// Sets the fallback host function: it runs calls of registered tools that have no function of
/// their own (a gateway that routes by `tool_name` to MCP servers registers definitions only, plus
/// one fallback). `fn` NULL removes the fallback (and frees `user_data` at once, if given).
///
/// The previous fallback's `free_user_data` runs once no call of it is running. Same ownership,
/// threading and re-entrancy rules as `tr_registry_register_callable`.
/// Errors: NULL_ARGUMENT (`r`); `user_data` is freed then too.
///
/// # Safety
/// As for `tr_registry_register_callable`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_set_fallback(
    r: *mut super::registry::tr_registry,
    r#fn: tr_tool_fn,
    user_data: *mut c_void,
    free_user_data: tr_free_fn,
    err_out: *mut *mut c_char,
) -> tr_status {
    let host = host_fn(r#fn, user_data, free_user_data);
    run(err_out, move || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        Ok(registry.set_fallback(host)?)
    })
}

/// Runs a batch of the model's tool calls and answers with the messages of the next turn.
///
/// `calls_json` is what the provider returned, in any of these shapes (detected, or forced with
/// `{"api_format": ...}`): OpenAI chat (an assistant message with `tool_calls`, that array, or a
/// whole completion); OpenAI Responses (the response, its `output`, or `function_call` items;
/// other items are skipped); Anthropic (an assistant message, or its `content`: `tool_use`
/// blocks; text skipped); Gemini (a `Content`, its `parts` with `functionCall`, or a whole
/// response; camelCase or snake_case, as the SDKs dump them). A `null` field counts as absent.
/// `options_json` may be NULL or `{"api_format"?: str, "include_assistant"?: bool (false: also
/// return the rebuilt assistant turn first: the calls with what the provider needs back, i.e.
/// Responses' `reasoning` items, Anthropic's `thinking`/`redacted_thinking` blocks in order,
/// Gemini's `thoughtSignature` parts), "parallel"?: 1..64 (default 1)}`.
///
/// On success `*messages_json_out` receives a JSON array of the messages to append after the
/// assistant turn, in the same provider's shape, one result per call in call order: OpenAI chat
/// `{"role":"tool","tool_call_id","content"}` per call; Responses `{"type":
/// "function_call_output","call_id","output"}` per call; Anthropic one `{"role":"user","content":
/// [{"type":"tool_result","tool_use_id","content"[,"is_error":true]}]}`; Gemini one
/// `{"role":"user","parts":[{"functionResponse":{["id",]"name","response":{"output"|"error"}}}]}`.
/// Free it with `tr_string_free`.
///
/// One bad call never fails the batch: arguments that are not a JSON object or break the tool's
/// JSON Schema, an unknown tool ("did you mean" up to 3 names), a disabled tool (with its
/// reason), a tool with no host function, `tr_call_fail`, no answer: each becomes an error result
/// ("Error: ..."). `discover_tools` and `call_deferred` run in the library. Calls run one after
/// another on the caller's thread, or with `parallel` N up to N at once on library threads
/// (tools with metadata `"concurrency_safe": false` always alone); results keep call order.
/// Errors (the batch as a whole): NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT
/// (`calls_json` is no provider's tool-call list, with the JSON path; a call the library cannot
/// read or run, such as a Responses `custom_tool_call` or a chat `function_call`, named; bad
/// options), TOO_LARGE.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_execute(
    r: *mut super::registry::tr_registry,
    calls_json: *const c_char,
    options_json: *const c_char,
    messages_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let calls = unsafe { arg_str(calls_json, "calls_json") }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(messages_json_out, "messages_json_out")?;
        let options = crate::exec::ExecuteOptions::from_json(options)?;
        let json = crate::exec::execute_json(registry, calls, &options)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}
