//! The test-only C entry point of the lock-poisoning test (`poison_tests.rs`): compiled only in this
//! crate's own test build, so never exported by a library anyone links, nor in the header.

use super::boundary::run;
use super::registry::{registry_ref, tr_registry};
use super::status::tr_status;
use std::ffi::c_char;

/// Panics inside the library while holding `r`'s write lock, poisoning it. Returns
/// TR_STATUS_PANIC; every later call on the registry (and its discoverers) fails with
/// TR_STATUS_INTERNAL.
///
/// cbindgen:ignore
///
/// # Safety
/// `r` is NULL or a live handle; `err_out` is NULL or writable.
pub unsafe extern "C" fn tr_test_panic_while_locked(
    r: *mut tr_registry,
    err_out: *mut *mut c_char,
) -> tr_status {
    run(err_out, || {
        // SAFETY: caller passes NULL or a live handle.
        let registry = unsafe { registry_ref(r) }?;
        Ok(registry.test_panic_while_locked()?)
    })
}
