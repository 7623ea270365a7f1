//! Where a C string becomes a `&str`, and a Rust `String` becomes a C string the caller owns.

use super::boundary::Failure;
use super::status::tr_status;
use std::ffi::{CStr, CString, c_char};

/// Borrows a NUL-terminated UTF-8 argument; `what` names it in messages.
///
/// # Safety
/// `ptr` is NULL or points to a NUL-terminated string that stays valid and unchanged for `'a`.
pub(crate) unsafe fn arg_str<'a>(ptr: *const c_char, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(null_argument(what));
    }
    // SAFETY: non-NULL and NUL-terminated per the contract above.
    let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
    std::str::from_utf8(bytes).map_err(|e| {
        Failure::new(
            tr_status::TR_STATUS_INVALID_UTF8,
            format!("{what}: invalid UTF-8 at byte {}", e.valid_up_to()),
        )
    })
}

/// Like [`arg_str`], but NULL means "not given".
///
/// # Safety
/// As for [`arg_str`].
pub(crate) unsafe fn opt_arg_str<'a>(
    ptr: *const c_char,
    what: &str,
) -> Result<Option<&'a str>, Failure> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: forwarded contract.
    unsafe { arg_str(ptr, what) }.map(Some)
}

/// The failure for a NULL required pointer.
pub(crate) fn null_argument(what: &str) -> Failure {
    Failure::new(
        tr_status::TR_STATUS_NULL_ARGUMENT,
        format!("{what} is NULL"),
    )
}

/// Checks an output pointer before any work is done, so a NULL one fails the call up front.
pub(crate) fn out_ptr<T>(ptr: *mut *mut T, what: &str) -> Result<*mut *mut T, Failure> {
    if ptr.is_null() {
        Err(null_argument(what))
    } else {
        Ok(ptr)
    }
}

/// Hands `s` to C as an owned string, freed with `tr_string_free`.
pub(crate) fn into_c_string(s: String) -> Result<*mut c_char, Failure> {
    CString::new(s).map(CString::into_raw).map_err(|_| {
        // Our JSON writers escape U+0000, so only a broken invariant gets here.
        Failure::new(tr_status::TR_STATUS_INTERNAL, "output contains a NUL byte")
    })
}

/// Writes a successful output string into `out`.
///
/// # Safety
/// `out` is a valid, writable pointer (checked non-NULL by [`out_ptr`]).
pub(crate) unsafe fn write_string(out: *mut *mut c_char, s: String) -> Result<(), Failure> {
    let c = into_c_string(s)?;
    // SAFETY: per the contract above.
    unsafe { *out = c };
    Ok(())
}

/// Frees a string that this library returned. NULL is a no-op.
///
/// Every `char *` this library hands out (outputs and `err_out` messages) must be freed with this
/// function exactly once, never with `free()`: it comes from Rust's allocator. Thread-safe.
///
/// # Safety
/// Every pointer argument is NULL or valid: handles come from this library and are not yet freed,
/// strings are NUL-terminated, output pointers are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tr_string_free(s: *mut c_char) {
    super::boundary::run_silently(|| {
        if !s.is_null() {
            // SAFETY: `s` came from `CString::into_raw` in this library and is freed once.
            drop(unsafe { CString::from_raw(s) });
        }
    });
}
