//! Status codes returned by every fallible export.

use crate::error::Error;
use std::ffi::{CStr, c_char};

/// The outcome of a call. Values are part of the ABI and are never renumbered; a retired value
/// stays reserved.
#[allow(non_camel_case_types)]
#[repr(i32)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum tr_status {
    /// Success: output parameters were written.
    TR_STATUS_OK = 0,
    /// A required pointer argument was NULL.
    TR_STATUS_NULL_ARGUMENT = 1,
    /// A string argument was not valid UTF-8.
    TR_STATUS_INVALID_UTF8 = 2,
    /// A JSON argument was malformed or nested too deeply.
    TR_STATUS_INVALID_JSON = 3,
    /// Well-formed input with wrong content: a missing name, a wrong type, a value out of range,
    /// an empty query, `top_k` 0.
    TR_STATUS_INVALID_ARGUMENT = 4,
    /// An unknown tool, namespace or built-in name.
    TR_STATUS_NOT_FOUND = 5,
    /// An input over a documented size limit (64 MiB of JSON, 64 KiB of query,
    /// 1 KiB of name, 1 MiB of searchable text per tool).
    TR_STATUS_TOO_LARGE = 6,
    /// A broken invariant, such as a lock poisoned by an earlier panic.
    TR_STATUS_INTERNAL = 7,
    /// A panic was caught at the boundary; the message says where.
    TR_STATUS_PANIC = 8,
}

impl tr_status {
    /// The status a core error maps to.
    pub fn from_error(e: &Error) -> Self {
        match e {
            Error::InvalidJson(_) => tr_status::TR_STATUS_INVALID_JSON,
            Error::InvalidArgument(_) => tr_status::TR_STATUS_INVALID_ARGUMENT,
            Error::NotFound(_) => tr_status::TR_STATUS_NOT_FOUND,
            Error::TooLarge(_) => tr_status::TR_STATUS_TOO_LARGE,
            Error::Internal(_) => tr_status::TR_STATUS_INTERNAL,
        }
    }

    /// The status's name as a static NUL-terminated string.
    pub fn name(code: i32) -> &'static CStr {
        match code {
            0 => c"TR_STATUS_OK",
            1 => c"TR_STATUS_NULL_ARGUMENT",
            2 => c"TR_STATUS_INVALID_UTF8",
            3 => c"TR_STATUS_INVALID_JSON",
            4 => c"TR_STATUS_INVALID_ARGUMENT",
            5 => c"TR_STATUS_NOT_FOUND",
            6 => c"TR_STATUS_TOO_LARGE",
            7 => c"TR_STATUS_INTERNAL",
            8 => c"TR_STATUS_PANIC",
            _ => c"TR_STATUS_UNKNOWN",
        }
    }
}

/// Name of a status code, e.g. `"TR_STATUS_NOT_FOUND"`; `"TR_STATUS_UNKNOWN"` for any other value.
///
/// The returned string is static: do not free it. Thread-safe.
#[unsafe(no_mangle)]
pub extern "C" fn tr_status_name(status: i32) -> *const c_char {
    tr_status::name(status).as_ptr()
}
