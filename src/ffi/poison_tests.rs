//! Lock poisoning: a panic while the registry lock is held is reported as TR_STATUS_PANIC, and every
//! later call on that registry fails cleanly with TR_STATUS_INTERNAL and a message (no cascade of
//! panics, no crash), while other registries are unaffected.
//!
//! A unit test, so the test-only hook (`tr_test_panic_while_locked`) exists only in this crate's
//! own test build: never in a library anyone links, and no build of its own in the suite.

use super::test_hooks::tr_test_panic_while_locked;
use super::*;
use std::ffi::{CStr, CString, c_char};
use std::ptr;

fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Takes ownership of a library string and frees it.
fn take(p: *mut c_char) -> String {
    assert!(!p.is_null());
    let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
    unsafe { tr_string_free(p) };
    s
}

/// Ok(()) or Err((status name, message)); resets `*err` to NULL after taking the message.
fn check(status: tr_status, err: &mut *mut c_char) -> Result<(), (String, String)> {
    if status == tr_status::TR_STATUS_OK {
        assert!(err.is_null(), "err_out written on success");
        return Ok(());
    }
    let msg = take(std::mem::replace(err, ptr::null_mut()));
    assert!(
        !msg.is_empty() && !msg.contains('\n'),
        "message must be one non-empty line: {msg:?}"
    );
    Err((status_name(status), msg))
}

fn new_registry_with(options_json: Option<&str>, tools_json: &str) -> (*mut tr_registry, String) {
    let (mut r, mut err, mut names) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    let options = options_json.map(cstr);
    let options_ptr = options.as_ref().map_or(ptr::null(), |o| o.as_ptr());
    check(
        unsafe { tr_registry_new(options_ptr, &mut r, &mut err) },
        &mut err,
    )
    .unwrap();
    let tools = cstr(tools_json);
    check(
        unsafe { tr_registry_register(r, tools.as_ptr(), &mut names, &mut err) },
        &mut err,
    )
    .unwrap();
    (r, take(names))
}

fn status_name(s: tr_status) -> String {
    unsafe { std::ffi::CStr::from_ptr(tr_status_name(s as i32)) }
        .to_str()
        .unwrap()
        .to_string()
}

/// Checks a call failed with INTERNAL, a one-line message about the poisoned lock, and no output.
fn assert_internal(what: &str, status: tr_status, err: &mut *mut c_char, out: *mut c_char) {
    assert_eq!(
        status_name(status),
        "TR_STATUS_INTERNAL",
        "{what} after the panic"
    );
    assert!(out.is_null(), "{what}: output written on failure");
    let (_, msg) = check(status, err).unwrap_err();
    assert!(msg.contains("poisoned"), "{what}: {msg}");
}

fn new_registry() -> *mut tr_registry {
    let tools = r#"[{"name": "read_file", "description": "Read a file."}, {"name": "send_email", "namespace": "mail", "metadata": {"defer": true}}]"#;
    new_registry_with(Some(r#"{"discovery": {}}"#), tools).0
}

#[test]
fn a_panic_under_the_lock_gives_internal_errors_afterwards() {
    let r = new_registry();
    let other = new_registry();
    let (mut d, mut err) = (ptr::null_mut(), ptr::null_mut());
    unsafe {
        check(
            tr_discoverer_new(r, ptr::null(), &mut d, &mut err),
            &mut err,
        )
        .unwrap();

        let status = tr_test_panic_while_locked(r, &mut err);
        assert_eq!(status_name(status), "TR_STATUS_PANIC");
        let (_, msg) = check(status, &mut err).unwrap_err();
        assert!(msg.contains("panic inside toolregistry"), "{msg}");
        assert!(msg.contains("write lock"), "{msg}");

        let mut out: *mut c_char = ptr::null_mut();
        let s = tr_registry_register(r, c"{\"name\": \"x\"}".as_ptr(), &mut out, &mut err);
        assert_internal("register", s, &mut err, out);
        let s = tr_registry_unregister(r, c"read_file".as_ptr(), &mut err);
        assert_internal("unregister", s, &mut err, ptr::null_mut());
        let s = tr_registry_set_metadata(
            r,
            c"read_file".as_ptr(),
            c"{\"defer\": true}".as_ptr(),
            &mut err,
        );
        assert_internal("set_metadata", s, &mut err, ptr::null_mut());
        let s = tr_registry_set_enabled(r, c"mail".as_ptr(), false, &mut err);
        assert_internal("set_enabled", s, &mut err, ptr::null_mut());
        let s = tr_registry_get_schemas(r, ptr::null(), &mut out, &mut err);
        assert_internal("get_schemas", s, &mut err, out);
        let s = tr_registry_deferred_summaries(r, &mut out, &mut err);
        assert_internal("deferred_summaries", s, &mut err, out);
        let s = tr_registry_enable_discovery(r, ptr::null(), &mut err);
        assert_internal("enable_discovery", s, &mut err, ptr::null_mut());
        let s = tr_registry_call(
            r,
            c"discover_tools".as_ptr(),
            c"{\"query\": \"read\"}".as_ptr(),
            &mut out,
            &mut err,
        );
        assert_internal("call", s, &mut err, out);
        let s = tr_discoverer_discover(d, c"read file".as_ptr(), ptr::null(), &mut out, &mut err);
        assert_internal("discover (existing discoverer)", s, &mut err, out);
        let s = tr_discoverer_rebuild_index(d, &mut err);
        assert_internal("rebuild_index", s, &mut err, ptr::null_mut());
        let mut counted = 7usize;
        let s = tr_registry_record_usage(r, c"[\"read_file\"]".as_ptr(), &mut counted, &mut err);
        assert_internal("record_usage", s, &mut err, ptr::null_mut());
        assert_eq!(counted, 7, "a failed record_usage wrote counted_out");
        let s = tr_test_panic_while_locked(r, &mut err);
        assert_internal("a second panic hook", s, &mut err, ptr::null_mut());

        // A discoverer made after the panic fails the same way when used.
        let mut d2 = ptr::null_mut();
        if tr_discoverer_new(r, ptr::null(), &mut d2, &mut err) == tr_status::TR_STATUS_OK {
            let s = tr_discoverer_discover(d2, c"read".as_ptr(), ptr::null(), &mut out, &mut err);
            assert_internal("discover (new discoverer)", s, &mut err, out);
            tr_discoverer_free(d2);
        } else {
            let (name, _) = check(tr_status::TR_STATUS_INTERNAL, &mut err).unwrap_err();
            assert_eq!(name, "TR_STATUS_INTERNAL");
        }

        // Static functions and other registries are unaffected.
        assert!(!tr_version().is_null());
        let s = tr_registry_call(
            other,
            c"discover_tools".as_ptr(),
            c"{\"query\": \"read file\"}".as_ptr(),
            &mut out,
            &mut err,
        );
        check(s, &mut err).unwrap();
        assert!(take(out).contains("read_file"));

        // Freeing a poisoned registry and its discoverer is clean, in either order.
        tr_registry_free(r);
        tr_discoverer_free(d);
        tr_registry_free(other);
    }
}

#[test]
fn the_rust_api_reports_internal_too() {
    let registry = crate::Registry::new();
    registry.register_json(r#"{"name": "read_file"}"#).unwrap();
    let discoverer = registry.discoverer(Default::default());
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        registry.test_panic_while_locked()
    }));
    assert!(caught.is_err(), "the hook panics");
    for result in [
        registry.len().map(|_| ()),
        registry.unregister("read_file"),
        registry.set_enabled("read_file", false),
        discoverer.discover("read", &Default::default()).map(|_| ()),
    ] {
        match result {
            Err(crate::Error::Internal(msg)) => {
                assert!(msg.contains("recreate the registry"))
            }
            other => panic!("expected Internal, got {other:?}"),
        }
    }
}
