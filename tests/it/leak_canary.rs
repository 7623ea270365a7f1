//! Proves the memory check can fail: with TR_LEAK_CANARY=1 this test leaks one registry through the
//! C ABI on purpose, and scripts/test-parts/50-memcheck.sh requires valgrind to report it.
//! Without the variable it frees everything and is an ordinary (trivial) test.
#![allow(unsafe_code)]

use std::ptr;
use toolregistry::ffi::*;

#[test]
fn leaks_only_when_asked() {
    let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
    let status = unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) };
    assert_eq!(status, tr_status::TR_STATUS_OK);
    assert!(!r.is_null() && err.is_null());
    if std::env::var_os("TR_LEAK_CANARY").is_none() {
        unsafe { tr_registry_free(r) };
    }
}
