//! The panic and error boundary every export runs its body in.

use super::status::tr_status;
use crate::error::Error;
use std::ffi::{CString, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Why an export failed: a status and a one-line message for `err_out`.
pub(crate) struct Failure {
    pub status: tr_status,
    pub message: String,
}

impl Failure {
    pub(crate) fn new(status: tr_status, message: impl Into<String>) -> Self {
        Failure {
            status,
            message: message.into(),
        }
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure {
            status: tr_status::from_error(&e),
            message: e.to_string(),
        }
    }
}

/// Runs `body`, catching panics, and reports failure through `err_out` (which may be NULL).
///
/// `body` must check every argument before it changes anything and write its outputs last, so
/// that a failed call leaves all state and all output parameters untouched.
pub(crate) fn run(
    err_out: *mut *mut c_char,
    body: impl FnOnce() -> Result<(), Failure>,
) -> tr_status {
    let failure = match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => return tr_status::TR_STATUS_OK,
        Ok(Err(f)) => f,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_string());
            Failure::new(
                tr_status::TR_STATUS_PANIC,
                format!("panic inside toolregistry: {what}"),
            )
        }
    };
    if !err_out.is_null() {
        // SAFETY: the caller passes either NULL or a valid, writable `char **`.
        #[allow(unsafe_code)]
        unsafe {
            *err_out = message_to_c(&failure.message);
        }
    }
    failure.status
}

/// Runs a function that returns nothing and must never unwind into C (the `_free` functions).
pub(crate) fn run_silently(body: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(body));
}

/// A message as an owned C string: one line, no interior NUL.
fn message_to_c(message: &str) -> *mut c_char {
    let line: String = message
        .chars()
        .map(|c| match c {
            '\0' => '\u{FFFD}',
            '\n' | '\r' => ' ',
            c => c,
        })
        .collect();
    CString::new(line)
        .map(CString::into_raw)
        .unwrap_or(std::ptr::null_mut())
}
