//! Tool registration JSON, through the C ABI (raw bytes: invalid UTF-8 and embedded NULs included).
//!
//! Oracles: the call never panics; on success every registered name is found again by exact name,
//! the index equals a rebuild, and every output is valid JSON that registers again to the same
//! tools; on failure the registry is unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ffi::{CStr, CString, c_char};
use std::ptr;
use toolregistry::ffi::*;
use toolregistry::{ApiFormat, DiscoverRequest, DiscoveryOptions, Registry, SchemaOptions, Tool};
use toolregistry_fuzz::{assert_input_error, assert_json, snapshot};

fn take(p: *mut c_char) -> String {
    assert!(!p.is_null());
    let s = unsafe { CStr::from_ptr(p) }
        .to_str()
        .expect("UTF-8 out")
        .to_string();
    unsafe { tr_string_free(p) };
    s
}

fuzz_target!(|data: &[u8]| {
    // The C ABI sees the bytes up to the first NUL.
    let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let c = CString::new(&data[..end]).unwrap();
    let (mut r, mut err, mut names) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let status = unsafe { tr_registry_register(r, c.as_ptr(), &mut names, &mut err) };
    let text = std::str::from_utf8(&data[..end]);
    if status != tr_status::TR_STATUS_OK {
        assert!(names.is_null(), "output written on failure");
        let msg = take(err);
        assert!(!msg.contains('\n'), "message is one line");
        assert_ne!(status, tr_status::TR_STATUS_PANIC, "{msg}");
        assert_ne!(status, tr_status::TR_STATUS_INTERNAL, "{msg}");
        assert_eq!(status == tr_status::TR_STATUS_INVALID_UTF8, text.is_err());
        unsafe { tr_registry_free(r) };
        if let Ok(text) = text {
            // The Rust API agrees, and a failed call leaves a populated registry unchanged.
            let e = Tool::parse_many(text).err();
            let fixture = toolregistry_fuzz::fixture_registry();
            let before = snapshot(&fixture);
            let e2 = fixture.register_json(text).expect_err("C ABI refused it");
            assert_input_error(&e2);
            if let Some(e) = e {
                assert_eq!(e, e2);
            }
            assert_eq!(
                before,
                snapshot(&fixture),
                "failed register changed the registry"
            );
            let _ = Tool::parse_catalog(text);
        }
        return;
    }
    assert!(err.is_null(), "err_out written on success");
    let names: Vec<String> = serde_json::from_str(&take(names)).expect("names JSON");
    unsafe { tr_registry_free(r) };
    let text = text.expect("accepted text is UTF-8");
    let tools = Tool::parse_many(text).expect("Rust API accepts what the C ABI accepted");
    assert_eq!(
        names,
        tools
            .iter()
            .map(|t| t.name().to_string())
            .collect::<Vec<_>>()
    );

    let registry = Registry::new();
    registry.register_json(text).unwrap();
    assert!(registry.verify_index().unwrap());
    let mut distinct = names.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(registry.len().unwrap(), distinct.len());
    let d = registry.discoverer(DiscoveryOptions::default());
    for name in &distinct {
        let hits = d.discover(name, &DiscoverRequest::default()).unwrap();
        assert_eq!(hits.len(), 1, "exact name {name:?}");
        assert_eq!(&hits[0].name, name);
        assert_eq!(hits[0].score, 1.0);
        assert_json(
            hits[0]
                .schema
                .as_deref()
                .expect("exact match carries its schema"),
        );
    }
    for format in ["openai-chat", "openai-responses", "anthropic", "gemini"] {
        let api_format = ApiFormat::parse(format).unwrap();
        let options = SchemaOptions {
            api_format,
            ..Default::default()
        };
        assert_json(&registry.schemas_json(&options).unwrap());
        if toolregistry::schema::has_strict_mode(api_format) {
            let strict = SchemaOptions {
                strict: true,
                ..options
            };
            assert_json(&registry.schemas_json(&strict).unwrap());
        }
    }
    assert_json(&registry.deferred_summaries_json().unwrap());

    // The schemas we hand out register again as the same tools (names, descriptions, and the
    // parameters as we emitted them: cleaned).
    let schemas = registry.schemas_json(&SchemaOptions::default()).unwrap();
    let again = Registry::new();
    again
        .register_json(&schemas)
        .expect("our own schemas register again");
    for name in &distinct {
        let (a, b) = (
            registry.tool(name).unwrap().unwrap(),
            again.tool(name).unwrap().expect("same names"),
        );
        assert_eq!(a.description(), b.description());
        assert_eq!(
            a.cleaned_parameters(toolregistry::schema::Form::Flattened)
                .parameters,
            b.parameters_json()
        );
    }
});
