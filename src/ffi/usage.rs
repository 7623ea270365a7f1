//! Co-use (usage) on a registry handle: turn it on, record a task, save, report.

use super::boundary::run;
use super::registry::{registry_ref, tr_registry};
use super::status::tr_status;
use super::strings::{arg_str, opt_arg_str, out_ptr, write_string};
use std::ffi::c_char;
use std::path::Path;

/// Turns usage (co-use learning) on: from now on the tool calls the library runs are recorded
/// as tasks (one model reply's calls that ran through `tr_registry_execute` or the two steps, a
/// conversation's recent calls), and discovers let their best hits bring in the tools they are
/// used with, each such hit saying why in its `"brought_in"` field (`"used with `X` in 12 of
/// its 15 tasks"`). The same as `{"usage": {"path": ...}}` (or `{"usage": true}` without a
/// path) in `tr_registry_new`'s options.
///
/// `path` may be NULL: no file (the counts live in memory, or keep the path set before). With a
/// path, the counts are loaded from that file now (replacing the ones in memory) and written back
/// to it atomically, at most every 5 seconds while tasks are recorded, by `tr_registry_save_usage`,
/// and when the last handle of the registry is freed. A missing file is an empty start; a
/// corrupt, foreign or oversized one is an empty start too (not an error):
/// `tr_registry_usage_status` shows its `warning`, and the file is overwritten at the next
/// write. Calling it again with another path switches to it.
/// Thread-safe. Errors: NULL_ARGUMENT (`r`), INVALID_UTF8, INVALID_ARGUMENT (an empty path).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_enable_usage(
    r: *mut tr_registry,
    path: *const c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let path = unsafe { opt_arg_str(path, "path") }?;
        if path == Some("") {
            return Err(
                crate::error::Error::invalid("path: expected a file path, got \"\"").into(),
            );
        }
        registry.enable_usage(path.map(Path::new))?;
        Ok(())
    })
}

/// Records one task: the tools in `names_json`, a JSON array of registered names
/// (`["get_user_token", "add_agenda"]`), were used together. For hosts that run tools
/// themselves; it records whether or not usage is on (`tr_registry_enable_usage` only adds the
/// library's own calls and a file). Names of no registered tool, repeated names and empty names
/// do not count, nor names past the task's first 32 registered ones; a task where none counts
/// records nothing. Only names and counts are kept. `*counted_out` (may be NULL) receives how
/// many names counted (0 to 32).
/// Thread-safe: tasks may be recorded from many threads while others discover.
/// Errors: NULL_ARGUMENT (`r`, `names_json`), INVALID_UTF8, INVALID_JSON, TOO_LARGE (over
/// 64 MiB), INVALID_ARGUMENT (not an array of strings: the message names the first bad
/// element, e.g. `usage[2]: expected a string, got a number`). On error nothing is recorded.
///
/// ```c
/// size_t counted = 0;
/// char *err = NULL;
/// if (tr_registry_record_usage(r, "[\"get_user_token\", \"add_agenda\"]", &counted, &err) != TR_STATUS_OK) {
///     fprintf(stderr, "record_usage: %s\n", err);
///     tr_string_free(err);
/// }
/// ```
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_record_usage(
    r: *mut tr_registry,
    names_json: *const c_char,
    counted_out: *mut usize,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or live handles and strings.
        let registry = unsafe { registry_ref(r) }?;
        let names = unsafe { arg_str(names_json, "names_json") }?;
        let counted = registry.record_usage_json(names)?;
        if !counted_out.is_null() {
            // SAFETY: non-NULL, writable per the contract.
            unsafe { *counted_out = counted };
        }
        Ok(())
    })
}

/// Writes the usage file now (atomically: a temporary file renamed over it), if usage has a path
/// and tasks were recorded since the last write; otherwise does nothing. Thread-safe.
/// Errors: NULL_ARGUMENT (`r`), INTERNAL (the file could not be written: the message says why,
/// and the counts stay in memory for the next try).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_save_usage(
    r: *const tr_registry,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        Ok(registry.save_usage()?)
    })
}

/// What usage holds, as JSON: `{"recording": bool (the library's own calls are recorded),
/// "path": str | null (the usage file), "tasks": int (tasks recorded, loaded ones included),
/// "tools": int (tools with counts), "memory_bytes": int (about), "warning": str | null (why the
/// file was ignored at start, or why the last write failed)}`.
/// On success `*json_out` receives it; free it with `tr_string_free`. Thread-safe.
/// Errors: NULL_ARGUMENT (`r`, `json_out`).
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_registry_usage_status(
    r: *const tr_registry,
    json_out: *mut *mut c_char,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        let out = out_ptr(json_out, "json_out")?;
        let json = registry.usage_status()?.to_json();
        // SAFETY: `out` checked non-NULL.
        unsafe { write_string(out, json) }
    })
}
