//! `tr_conversation`: the conversation handle.

use super::boundary::{run, run_silently};
use super::registry::{registry_ref, tr_registry};
use super::status::tr_status;
use super::strings::{arg_str, null_argument, opt_arg_str, out_ptr, write_string};
use crate::conversation::Conversation;
use crate::exec::ExecuteOptions;
use std::ffi::c_char;

/// One conversation with a model over a registry: the tool list of each request, and the model's
/// tool calls run with the tools it finds staying loaded.
///
/// Opaque. Create with `tr_conversation_new`, free with `tr_conversation_free`. It shares the
/// registry's state (it may outlive the registry handle). Thread-safe: any function may be called
/// on one conversation from several threads; calls on one conversation are serialized, calls on
/// different conversations run in parallel. A conversation costs its options plus its loaded
/// tools' names; the parts of the tool list common to all conversations with the same options
/// are rendered once per registry change and shared.
pub struct tr_conversation {
    inner: Conversation,
}

/// Borrows the conversation behind a handle.
///
/// # Safety
/// `c` is NULL or a live handle from `tr_conversation_new`.
pub(super) unsafe fn conversation_ref<'a>(
    c: *const tr_conversation,
) -> Result<&'a Conversation, super::boundary::Failure> {
    // SAFETY: per the contract above.
    unsafe { c.as_ref() }
        .map(|c| &c.inner)
        .ok_or_else(|| null_argument("conversation"))
}

/// Starts a conversation over `r`.
///
/// `options_json` may be NULL or `{"api_format"?: "openai-chat" (default) | "openai-responses" |
/// "anthropic" | "gemini", "mode"?: "summaries" (default) | "stable" | "native" | "auto",
/// "search"?: "client" (default) | "server", "loaded"?: [str] (restore a saved conversation),
/// "strict"?: bool, "defer_threshold_tokens"?: int (auto mode, default 10000),
/// "summary_max_tokens"?: int | null, "discovery"?: {ranking options as for
/// tr_registry_enable_discovery}, "top_k"?, "max_tokens"?, "namespaces"?, "tags"?}` (the last
/// four apply to every search). `summary_max_tokens` caps the list of deferred tools wherever the
/// mode writes it (UTF-8 bytes / 4): whole lines in registration order, then `- ... and N more
/// (call discover_tools to find them)`. Default: no cap in `summaries` (as the reference), 2000
/// in `stable` and `auto`. Modes:
/// - `summaries`: enabled non-deferred tools (registration order), `discover_tools` (and
///   `call_deferred` when the registry has it) with the deferred tools listed in its description,
///   then the loaded deferred tools;
/// - `stable`: the same tools, but the built-ins' descriptions never change and the deferred tools
///   are listed in `system_text`: a new deferred tool changes only `system_text`, loading a tool
///   only appends to `tools`;
/// - `native` (anthropic and openai-responses only, else INVALID_ARGUMENT): the search tool, then
///   every enabled tool in registration order, deferred ones with `"defer_loading": true`. The
///   search tool is `discover_tools` (Anthropic; its results come back as `tool_reference` blocks)
///   or `{"type": "tool_search", "execution": "client", ...}` (Responses; its `tool_search_call`
///   items are answered with `tool_search_output` items); with `"search": "server"`, the
///   provider's hosted search tool instead;
/// - `auto`: every enabled tool and no search tool while they total under
///   `defer_threshold_tokens` (UTF-8 bytes / 4), else as `stable`.
///
/// On success `*out` receives the handle. Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON,
/// INVALID_ARGUMENT.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_new(
    r: *mut tr_registry,
    options_json: *const c_char,
    out: *mut *mut tr_conversation,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(out, "out")?;
        let inner = Conversation::from_json(registry, options)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { *out = Box::into_raw(Box::new(tr_conversation { inner })) };
        Ok(())
    })
}

/// The next request's tools: `{"tools": [...], "system_text": "...", "fingerprint": "..."}`:
/// the exact `tools` array to send (Gemini: `[{"functionDeclarations": [...]}]`, one `Tool`
/// holding the declarations, or `[]`), the text to add to the system prompt (or `""`), and the
/// SHA-256 (64 hex digits) of the bytes `{"tools":<tools>,"system_text":<system_text>}` as written
/// here, which changes exactly when those bytes change (a prompt-cache break). Costs no work
/// proportional to the catalog when the registry has not changed.
/// On success `*json_out` receives it; free it with `tr_string_free`. Errors: NULL_ARGUMENT.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_tools(
    c: *const tr_conversation,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let conversation = unsafe { conversation_ref(c) }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = conversation.tools_json()?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Runs the model's tool calls like `tr_registry_execute`, in the conversation's format, and
/// keeps what the model found: tools returned by `discover_tools` or a Responses
/// `tool_search_call`, and deferred tools it called directly or through `call_deferred`, become
/// loaded (the next `tr_conversation_tools` appends them). In native mode a search answers with
/// `tool_reference` blocks (Anthropic) or a `{"type": "tool_search_output", "call_id",
/// "execution": "client", "status": "completed", "tools": [...]}` item (Responses).
/// `options_json` as for `tr_registry_execute` (`api_format`, if given, must be the
/// conversation's). Searches and calls run one after another.
/// On success `*messages_json_out` receives the messages; free it with `tr_string_free`.
/// Errors: as `tr_registry_execute`; INVALID_ARGUMENT for another provider's call list.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_execute(
    c: *mut tr_conversation,
    calls_json: *const c_char,
    options_json: *const c_char,
    messages_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let conversation = unsafe { conversation_ref(c) }?;
        let calls = unsafe { arg_str(calls_json, "calls_json") }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(messages_json_out, "messages_json_out")?;
        let options = ExecuteOptions::from_json(options)?;
        let json = conversation.execute_json(calls, &options)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Loads these tools (`names_json`: a JSON array of registered names) as if the model had found
/// them. All or none: an unknown name is NOT_FOUND (the message names it) and loads nothing.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT, NOT_FOUND.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_reveal(
    c: *mut tr_conversation,
    names_json: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let conversation = unsafe { conversation_ref(c) }?;
        let names = unsafe { arg_str(names_json, "names_json") }?;
        Ok(conversation.reveal_json(names)?)
    })
}

/// The deferred tools loaded so far, in load order, as a JSON array (pass it back as the
/// `loaded` option to restore the conversation). A loaded tool that is unregistered or disabled
/// stays listed (it returns to the tool list when it comes back).
/// On success `*json_out` receives it; free it with `tr_string_free`. Errors: NULL_ARGUMENT.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_loaded(
    c: *const tr_conversation,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let conversation = unsafe { conversation_ref(c) }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = conversation.loaded_json()?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Frees a conversation. NULL is a no-op. The registry is not affected.
///
/// # Safety
/// `c` is NULL or a live handle from `tr_conversation_new`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_conversation_free(c: *mut tr_conversation) {
    run_silently(|| {
        if !c.is_null() {
            // SAFETY: `c` came from `tr_conversation_new` and is freed once.
            drop(unsafe { Box::from_raw(c) });
        }
    });
}
