//! `tr_registry`: the registry handle.

use super::boundary::{Failure, run, run_silently};
use super::status::tr_status;
use super::strings::{arg_str, null_argument, opt_arg_str, out_ptr, write_string};
use crate::format::{into_string, write_str};
use crate::registry::{Registry, SchemaOptions};
use std::ffi::c_char;

/// A tool registry: the tools, their metadata and enabled state, and the search index.
///
/// Opaque. Create with `tr_registry_new`, free with `tr_registry_free`. Thread-safe: any function
/// may be called on one registry from many threads at once; discovers run in parallel, mutations
/// (register, unregister, set_metadata, set_enabled, enable_discovery) are serialized.
pub struct tr_registry {
    pub(crate) inner: Registry,
}

/// Borrows the registry behind a handle.
///
/// # Safety
/// `r` is NULL or a live handle from `tr_registry_new`.
pub(crate) unsafe fn registry_ref<'a>(r: *const tr_registry) -> Result<&'a Registry, Failure> {
    // SAFETY: per the contract above.
    unsafe { r.as_ref() }
        .map(|r| &r.inner)
        .ok_or_else(|| null_argument("registry"))
}

/// Creates an empty registry.
///
/// `options_json` may be NULL (defaults) or `{"embedding"?: {"model_dir": str, "cache_path"?: str,
/// "threads"?: int} | null, "discovery"?: {...discovery options...}, "usage"?: true | false |
/// {"path"?: str}}`. `usage` turns co-use learning on at once, kept in `path` when given (see
/// `tr_registry_enable_usage`; an unreadable usage file is an empty start, not an error).
/// `discovery` enables `discover_tools` at once (see `tr_registry_enable_discovery`). `embedding`
/// loads the built-in sentence encoder from a sentence-transformers model directory (config.json,
/// model.safetensors, tokenizer.json; all-MiniLM-L6-v2 and other BERT models) and finds tools by
/// meaning with the `hybrid` profile (see `tr_registry_set_embedder` for how tools are embedded);
/// `cache_path` keeps the catalog's vectors across restarts, `threads` caps the cores used to embed
/// the catalog. When the options do not say `"embedding"` and the environment variable
/// TOOLREGISTRY_MODEL_DIR names a directory, that model is loaded (`"embedding": null` opts out).
/// Nothing is ever downloaded.
/// On success `*out` receives the handle; free it with `tr_registry_free`.
/// Errors: NULL_ARGUMENT (`out`), INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (unknown key, bad
/// option, a missing or malformed model directory: the message names the file).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_new(
    options_json: *const c_char,
    out: *mut *mut tr_registry,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        let out = out_ptr(out, "out")?;
        // SAFETY: caller passes NULL or a valid string.
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let inner = Registry::from_options_json(options)?;
        // SAFETY: `out` checked non-NULL and writable by contract.
        unsafe { *out = Box::into_raw(Box::new(tr_registry { inner })) };
        Ok(())
    })
}

/// Frees a registry handle. NULL is a no-op. Discoverers created from it stay valid (they share
/// the state) and may be freed before or after. Do not use `r` afterwards, nor free it twice.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_free(r: *mut tr_registry) {
    run_silently(|| {
        if !r.is_null() {
            // SAFETY: `r` came from `tr_registry_new` and is freed once.
            drop(unsafe { Box::from_raw(r) });
        }
    });
}

/// Registers one tool or an array of tools (all or nothing).
///
/// `tools_json`: a tool object or an array of them, each in any accepted shape:
/// flat `{"name", "description", "parameters"}`, OpenAI chat `{"type": "function", "function": {...}}`,
/// OpenAI responses `{"type": "function", "name", ...}`, Anthropic `{"name", "description", "input_schema"}`,
/// MCP `{"name", "description", "inputSchema"}`; each may add `"namespace": "github"` (registered name
/// `github-<name>`) and `"metadata": {"defer": bool, "tags": [str], "search_hint": str}`.
/// Example: `{"name": "read_file", "description": "Read a file.", "metadata": {"defer": true}}`.
/// A name already registered is replaced in place. `discover_tools` is reserved.
/// On success `*names_json_out` receives the registered names as a JSON array (`["read_file"]`);
/// free it with `tr_string_free`.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (with the JSON path of the
/// offending field), TOO_LARGE (input over 64 MiB, name over 1 KiB, a tool's description, search
/// hint, tags and parameter names together over 1 MiB). On error nothing is registered.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_register(
    r: *mut tr_registry,
    tools_json: *const c_char,
    names_json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let json = unsafe { arg_str(tools_json, "tools_json") }?;
        let out = out_ptr(names_json_out, "names_json_out")?;
        let names = registry.register_json(json)?;
        let mut buf = vec![b'['];
        for (i, n) in names.iter().enumerate() {
            if i > 0 {
                buf.push(b',');
            }
            write_str(&mut buf, n);
        }
        buf.push(b']');
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, into_string(buf)) }
    })
}

/// Removes a tool by registered name. Unregistering `discover_tools` turns discovery off.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, NOT_FOUND (no such tool).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_unregister(
    r: *mut tr_registry,
    name: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let name = unsafe { arg_str(name, "name") }?;
        Ok(registry.unregister(name)?)
    })
}

/// Replaces the given metadata fields of a tool; absent fields keep their values.
///
/// `metadata_json`: `{"defer"?: bool, "tags"?: [str], "search_hint"?: str}`; unknown keys are refused.
/// Example: `{"search_hint": "mail smtp"}`.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT, NOT_FOUND, TOO_LARGE (the
/// tool's searchable text would exceed 1 MiB).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_set_metadata(
    r: *mut tr_registry,
    name: *const c_char,
    metadata_json: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let name = unsafe { arg_str(name, "name") }?;
        let json = unsafe { arg_str(metadata_json, "metadata_json") }?;
        Ok(registry.set_metadata_json(name, json)?)
    })
}

/// Enables or disables a tool, or every tool of a namespace (a tool name wins over a namespace of
/// the same spelling). Disabled tools are left out of schemas, summaries and discovery, and keep
/// their position for when they come back.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, NOT_FOUND (neither a tool nor a namespace).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_set_enabled(
    r: *mut tr_registry,
    name: *const c_char,
    enabled: bool,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let name = unsafe { arg_str(name, "name") }?;
        Ok(registry.set_enabled(name, enabled)?)
    })
}

/// The schemas of the enabled tools, sorted by name, as a JSON array (`discover_tools` and
/// `call_deferred` included when discovery is on). Each parameters schema is cleaned for the
/// provider as the reference does (`$ref` inlined, `allOf` merged, null unions simplified,
/// unsupported keys stripped; Gemini's subset with upper-case types); the registered definition is
/// kept as it was.
///
/// `options_json` may be NULL or `{"include_deferred"?: bool (default true), "api_format"?:
/// "openai-chat" | "openai-responses" | "anthropic" | "gemini", "tags"?: [str] (keep tools with any),
/// "exclude_tags"?: [str], "names"?: [str], "strict"?: bool (default false)}`. Example:
/// `{"include_deferred": false, "api_format": "anthropic"}`. With `names`, exactly those tools in
/// that order, disabled ones included (the other filters are ignored). On success `*json_out`
/// receives the array; free it with `tr_string_free`. With `"strict": true` (OpenAI strict mode,
/// openai-chat or openai-responses only) it receives `{"tools": [...], "warnings": [{"name",
/// "reason"}]}`: every object closed (`additionalProperties: false`), every property required,
/// optional ones nullable; a tool that cannot be made strict is still in `tools`, non-strict, and
/// named in `warnings`.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (also `strict` with
/// anthropic or gemini), NOT_FOUND (a name in `names` that is not registered; the message names it).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_get_schemas(
    r: *const tr_registry,
    options_json: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = registry.schemas_json(&SchemaOptions::from_json(options)?)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// One-line summaries of the enabled deferred tools, in registration order, for a system prompt:
/// `[{"name": "send_email", "description": "Send an email.", "namespace": null}]` (the description
/// is the first sentence of the tool's description).
/// On success `*json_out` receives the array; free it with `tr_string_free`.
/// Errors: NULL_ARGUMENT.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_deferred_summaries(
    r: *const tr_registry,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = registry.deferred_summaries_json()?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Registers the built-ins `discover_tools` and `call_deferred` (never deferred, never indexed,
/// never in discover answers or deferred summaries) with ranking options; calling it again replaces
/// them. `call_deferred` (`{"_target_tool": name, ...the tool's own arguments}`) runs a deferred
/// tool by name, for clients that cannot add discovered tools to their tool list; pass
/// `"call_deferred": false` to leave it out.
///
/// `options_json` may be NULL (defaults) or `{"profile"?: "enhanced", "field_weights"?: {"name":
/// 3.0, "description": 2.0, "tags": 1.5, "params": 1.0, "search_hint": 2.0, "param_docs": 1.0},
/// "min_score_ratio"?: 0.3, "max_df_ratio"?: 0.5, "k1"?: 1.5, "b"?: 0.75, "delta"?: 0.0,
/// "fusion"?: "zscore", "intents"?: true, "call_deferred"?: true}`. Ratios and `b` must be in
/// [0, 1]; weights, `k1` and `delta` in [0, 1e6]; unknown keys are refused. `intents` false ranks
/// every query as one list; by default a query holding several needs ("convert 100 dollars to
/// euros and then tell me the weather in Paris") is searched whole and per need, and each hit
/// says which need it answers (`enhanced` and `hybrid`; `reference` never splits).
///
/// `profile` is `"hybrid"` (the default on a registry with an embedder, and only there: the
/// `enhanced` ranking fused with the cosine similarity of the query's and each tool's vectors, so a
/// tool is found by meaning where the words differ; a tool not embedded yet is found by words),
/// `"enhanced"` (the default without an embedder: identifier splitting, stemming, NFKC, parameter
/// descriptions as a sixth field `param_docs` (weight 1.0), English function words dropped from
/// queries, repeated query words saturated, each field's length normalized on its own (BM25F),
/// the IDF of words more common in general English than in the catalog discounted, and `delta` 0) or `"reference"` (the Python reference engine's ranking, bit for bit,
/// with `delta` 1.0 and no `param_docs` field: pass `{"profile": "reference"}` for exact parity);
/// it sets the defaults of the other options. A registry holds an index only for the profiles its
/// discoverers and `discover_tools` rank with: each is built the first time a profile is used and
/// kept in step from then on.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (also `"profile":
/// "hybrid"` on a registry without an embedder).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_enable_discovery(
    r: *mut tr_registry,
    options_json: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let options = unsafe { opt_arg_str(options_json, "options_json") }?;
        Ok(registry.enable_discovery_json(options)?)
    })
}

/// Runs a built-in tool, as a model's tool call would.
///
/// `discover_tools` takes `args_json` `{"query": str, "top_k"?: int >= 1 (default 10),
/// "api_format"?: str, "namespace"?: str | [str], "tags"?: [str] | str}` and answers like
/// `tr_discoverer_discover` (`namespace` and `tags` are its `namespaces` and `tags` filters);
/// `call_deferred` takes `{"_target_tool": str, ...}` and answers with the tool's output (a failure
/// of the tool is INVALID_ARGUMENT with its message). Registered tools run through
/// `tr_registry_execute` (INVALID_ARGUMENT here).
/// On success `*json_out` receives the result; free it with `tr_string_free`.
/// Errors: NULL_ARGUMENT, INVALID_UTF8, INVALID_JSON, INVALID_ARGUMENT (bad arguments, empty
/// query), NOT_FOUND (unknown built-in, or discovery not enabled), TOO_LARGE.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_call(
    r: *mut tr_registry,
    tool_name: *const c_char,
    args_json: *const c_char,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let name = unsafe { arg_str(tool_name, "tool_name") }?;
        let args = unsafe { arg_str(args_json, "args_json") }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = registry.call_json(name, args)?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}

/// Disables a tool or a namespace like `tr_registry_set_enabled(r, name, false)`, recording why:
/// a model that calls it gets `tool "x" is disabled: REASON`, and `tr_registry_tools_status`
/// shows it. `reason` may be NULL or empty: no reason (it reads back as `null` in
/// `tr_registry_tools_status`, and the model's error has none). Enabling again clears the reason.
/// Errors: NULL_ARGUMENT (`r`, `name`), INVALID_UTF8, NOT_FOUND (neither a tool nor a namespace).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_disable(
    r: *mut tr_registry,
    name: *const c_char,
    reason: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let name = unsafe { arg_str(name, "name") }?;
        let reason = unsafe { opt_arg_str(reason, "reason") }?;
        Ok(registry.disable(name, reason)?)
    })
}

/// The status of every registered tool, disabled ones included, sorted by name:
/// `[{"name", "namespace": str|null, "enabled": bool, "reason": str|null, "deferred": bool,
/// "tags": [str], "callable": bool}]`. `enabled` counts the namespace too; `callable` is true when
/// a call would reach a host function (the tool's own or the fallback). With an embedder each
/// entry also has `"embedding": "ready" | "pending" | "failed" | "none"`: `pending` and `failed`
/// tools are found by words only (`none`: disabled, so not embedded).
/// On success `*json_out` receives the array; free it with `tr_string_free`.
/// Errors: NULL_ARGUMENT.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_tools_status(
    r: *const tr_registry,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = registry.tools_status_json()?;
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}
