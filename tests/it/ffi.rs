//! The C ABI's error table: every bad input gets its status and a one-line message, never a crash,
//! and leaves the registry exactly as it was.
#![allow(unsafe_code)]

use crate::common;

use common::*;
use std::ffi::{CStr, c_char};
use std::ptr;
use toolregistry::ffi::*;

const TOOLS: &str = r#"[
  {"name": "read_file", "description": "Read a file from disk.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}},
  {"name": "send_email", "description": "Send an email message. Uses SMTP.", "metadata": {"defer": true, "tags": ["network"]}},
  {"name": "list_issues", "namespace": "github", "description": "List issues in a repository.", "metadata": {"defer": true}}
]"#;

struct Reg(*mut tr_registry);

impl Drop for Reg {
    fn drop(&mut self) {
        unsafe { tr_registry_free(self.0) }
    }
}

fn registry() -> Reg {
    let (r, names) = new_registry_with(None, TOOLS);
    let mut err = ptr::null_mut();
    assert_eq!(names, r#"["read_file","send_email","github-list_issues"]"#);
    check(
        unsafe { tr_registry_enable_discovery(r, ptr::null(), &mut err) },
        &mut err,
    )
    .unwrap();
    Reg(r)
}

/// Everything observable about a registry, to prove a failed call changed nothing.
fn snapshot(r: &Reg) -> String {
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    check(
        unsafe { tr_registry_get_schemas(r.0, ptr::null(), &mut out, &mut err) },
        &mut err,
    )
    .unwrap();
    let schemas = take(out);
    check(
        unsafe { tr_registry_deferred_summaries(r.0, &mut out, &mut err) },
        &mut err,
    )
    .unwrap();
    let summaries = take(out);
    let args = cstr(r#"{"query": "read file email issues", "top_k": 10}"#);
    check(
        unsafe {
            tr_registry_call(
                r.0,
                c"discover_tools".as_ptr(),
                args.as_ptr(),
                &mut out,
                &mut err,
            )
        },
        &mut err,
    )
    .unwrap();
    format!("{schemas}\n{summaries}\n{}", take(out))
}

/// Asserts a call failed with `status` and a message containing `needle`; output untouched.
fn expect_failure(status: tr_status, err: &mut *mut c_char, want: &str, needle: &str) {
    let (name, message) = check(status, err).expect_err("call should fail");
    assert_eq!(name, want, "message: {message}");
    assert!(
        message.contains(needle),
        "{want}: message {message:?} lacks {needle:?}"
    );
}

const INVALID_UTF8: &[u8] = b"\xff\xfe{}\0";

fn bad_utf8() -> *const c_char {
    INVALID_UTF8.as_ptr().cast()
}

#[test]
fn static_strings() {
    let version = unsafe { CStr::from_ptr(tr_version()) }.to_str().unwrap();
    assert_eq!(version, env!("CARGO_PKG_VERSION"));
    for (code, name) in [
        (0, "TR_STATUS_OK"),
        (5, "TR_STATUS_NOT_FOUND"),
        (8, "TR_STATUS_PANIC"),
        (99, "TR_STATUS_UNKNOWN"),
        (-1, "TR_STATUS_UNKNOWN"),
    ] {
        assert_eq!(
            unsafe { CStr::from_ptr(tr_status_name(code)) }
                .to_str()
                .unwrap(),
            name
        );
    }
}

#[test]
fn free_functions_accept_null() {
    unsafe {
        tr_string_free(ptr::null_mut());
        tr_registry_free(ptr::null_mut());
        tr_discoverer_free(ptr::null_mut());
    }
}

#[test]
fn null_arguments() {
    let r = registry();
    let before = snapshot(&r);
    let mut out: *mut c_char = ptr::null_mut();
    let mut err = ptr::null_mut();
    let nul = "TR_STATUS_NULL_ARGUMENT";
    unsafe {
        expect_failure(
            tr_registry_new(ptr::null(), ptr::null_mut(), &mut err),
            &mut err,
            nul,
            "out",
        );
        expect_failure(
            tr_registry_register(ptr::null_mut(), cstr(TOOLS).as_ptr(), &mut out, &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_register(r.0, ptr::null(), &mut out, &mut err),
            &mut err,
            nul,
            "tools_json",
        );
        expect_failure(
            tr_registry_register(
                r.0,
                cstr(r#"{"name":"x"}"#).as_ptr(),
                ptr::null_mut(),
                &mut err,
            ),
            &mut err,
            nul,
            "names_json_out",
        );
        expect_failure(
            tr_registry_unregister(ptr::null_mut(), c"read_file".as_ptr(), &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_unregister(r.0, ptr::null(), &mut err),
            &mut err,
            nul,
            "name",
        );
        expect_failure(
            tr_registry_set_metadata(
                ptr::null_mut(),
                c"read_file".as_ptr(),
                c"{}".as_ptr(),
                &mut err,
            ),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_set_metadata(r.0, ptr::null(), c"{}".as_ptr(), &mut err),
            &mut err,
            nul,
            "name",
        );
        expect_failure(
            tr_registry_set_metadata(r.0, c"read_file".as_ptr(), ptr::null(), &mut err),
            &mut err,
            nul,
            "metadata_json",
        );
        expect_failure(
            tr_registry_set_enabled(ptr::null_mut(), c"read_file".as_ptr(), false, &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_set_enabled(r.0, ptr::null(), false, &mut err),
            &mut err,
            nul,
            "name",
        );
        expect_failure(
            tr_registry_get_schemas(ptr::null(), ptr::null(), &mut out, &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_get_schemas(r.0, ptr::null(), ptr::null_mut(), &mut err),
            &mut err,
            nul,
            "json_out",
        );
        expect_failure(
            tr_registry_deferred_summaries(ptr::null(), &mut out, &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_deferred_summaries(r.0, ptr::null_mut(), &mut err),
            &mut err,
            nul,
            "json_out",
        );
        expect_failure(
            tr_registry_enable_discovery(ptr::null_mut(), ptr::null(), &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_call(
                ptr::null_mut(),
                c"discover_tools".as_ptr(),
                c"{}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_registry_call(r.0, ptr::null(), c"{}".as_ptr(), &mut out, &mut err),
            &mut err,
            nul,
            "tool_name",
        );
        expect_failure(
            tr_registry_call(
                r.0,
                c"discover_tools".as_ptr(),
                ptr::null(),
                &mut out,
                &mut err,
            ),
            &mut err,
            nul,
            "args_json",
        );
        expect_failure(
            tr_registry_call(
                r.0,
                c"discover_tools".as_ptr(),
                c"{\"query\":\"x\"}".as_ptr(),
                ptr::null_mut(),
                &mut err,
            ),
            &mut err,
            nul,
            "json_out",
        );
        let mut d = ptr::null_mut();
        expect_failure(
            tr_discoverer_new(ptr::null_mut(), ptr::null(), &mut d, &mut err),
            &mut err,
            nul,
            "registry",
        );
        expect_failure(
            tr_discoverer_new(r.0, ptr::null(), ptr::null_mut(), &mut err),
            &mut err,
            nul,
            "out",
        );
        expect_failure(
            tr_discoverer_discover(ptr::null(), c"x".as_ptr(), ptr::null(), &mut out, &mut err),
            &mut err,
            nul,
            "discoverer",
        );
        check(
            tr_discoverer_new(r.0, ptr::null(), &mut d, &mut err),
            &mut err,
        )
        .unwrap();
        expect_failure(
            tr_discoverer_discover(d, ptr::null(), ptr::null(), &mut out, &mut err),
            &mut err,
            nul,
            "query",
        );
        expect_failure(
            tr_discoverer_discover(d, c"x".as_ptr(), ptr::null(), ptr::null_mut(), &mut err),
            &mut err,
            nul,
            "json_out",
        );
        expect_failure(
            tr_discoverer_rebuild_index(ptr::null_mut(), &mut err),
            &mut err,
            nul,
            "discoverer",
        );
        tr_discoverer_free(d);
        // err_out may be NULL: the status still comes back.
        assert_eq!(
            tr_registry_unregister(r.0, ptr::null(), ptr::null_mut()),
            tr_status::TR_STATUS_NULL_ARGUMENT
        );
    }
    assert!(out.is_null(), "outputs are written only on success");
    assert_eq!(snapshot(&r), before);
}

#[test]
fn invalid_utf8() {
    let r = registry();
    let before = snapshot(&r);
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    let bad = "TR_STATUS_INVALID_UTF8";
    unsafe {
        expect_failure(
            tr_registry_register(r.0, bad_utf8(), &mut out, &mut err),
            &mut err,
            bad,
            "tools_json: invalid UTF-8 at byte 0",
        );
        expect_failure(
            tr_registry_unregister(r.0, bad_utf8(), &mut err),
            &mut err,
            bad,
            "name",
        );
        expect_failure(
            tr_registry_set_metadata(r.0, c"read_file".as_ptr(), bad_utf8(), &mut err),
            &mut err,
            bad,
            "metadata_json",
        );
        expect_failure(
            tr_registry_set_enabled(r.0, bad_utf8(), false, &mut err),
            &mut err,
            bad,
            "name",
        );
        expect_failure(
            tr_registry_get_schemas(r.0, bad_utf8(), &mut out, &mut err),
            &mut err,
            bad,
            "options_json",
        );
        expect_failure(
            tr_registry_enable_discovery(r.0, bad_utf8(), &mut err),
            &mut err,
            bad,
            "options_json",
        );
        expect_failure(
            tr_registry_call(
                r.0,
                c"discover_tools".as_ptr(),
                bad_utf8(),
                &mut out,
                &mut err,
            ),
            &mut err,
            bad,
            "args_json",
        );
        let mut d = ptr::null_mut();
        expect_failure(
            tr_discoverer_new(r.0, bad_utf8(), &mut d, &mut err),
            &mut err,
            bad,
            "options_json",
        );
        check(
            tr_discoverer_new(r.0, ptr::null(), &mut d, &mut err),
            &mut err,
        )
        .unwrap();
        expect_failure(
            tr_discoverer_discover(d, bad_utf8(), ptr::null(), &mut out, &mut err),
            &mut err,
            bad,
            "query",
        );
        tr_discoverer_free(d);
    }
    assert_eq!(snapshot(&r), before);
}

#[test]
fn bad_json_and_bad_content() {
    let r = registry();
    let before = snapshot(&r);
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    let (json, arg, missing) = (
        "TR_STATUS_INVALID_JSON",
        "TR_STATUS_INVALID_ARGUMENT",
        "TR_STATUS_NOT_FOUND",
    );
    let register = |text: &str, err: &mut *mut c_char, out: &mut *mut c_char| unsafe {
        tr_registry_register(r.0, cstr(text).as_ptr(), out, err)
    };
    expect_failure(
        register("[{\"name\": ", &mut err, &mut out),
        &mut err,
        json,
        "line 1",
    );
    expect_failure(
        register(r#"{"description": "no name"}"#, &mut err, &mut out),
        &mut err,
        arg,
        "tool.name: missing",
    );
    expect_failure(
        register(r#"{"name": 7}"#, &mut err, &mut out),
        &mut err,
        arg,
        "expected a string, got a number",
    );
    expect_failure(
        register(r#"{"name": "ok", "parameters": "x"}"#, &mut err, &mut out),
        &mut err,
        arg,
        "tool.parameters",
    );
    // An array is all or nothing: the good first tool must not be registered.
    expect_failure(
        register(
            r#"[{"name": "new_tool"}, {"name": "bad name"}]"#,
            &mut err,
            &mut out,
        ),
        &mut err,
        arg,
        "tools[1].name",
    );
    expect_failure(
        register(r#"{"name": "discover_tools"}"#, &mut err, &mut out),
        &mut err,
        arg,
        "reserved",
    );
    unsafe {
        expect_failure(
            tr_registry_unregister(r.0, c"nope".as_ptr(), &mut err),
            &mut err,
            missing,
            "nope",
        );
        expect_failure(
            tr_registry_set_enabled(r.0, c"nope".as_ptr(), false, &mut err),
            &mut err,
            missing,
            "nope",
        );
        expect_failure(
            tr_registry_set_metadata(r.0, c"nope".as_ptr(), c"{}".as_ptr(), &mut err),
            &mut err,
            missing,
            "nope",
        );
        expect_failure(
            tr_registry_set_metadata(
                r.0,
                c"read_file".as_ptr(),
                c"{\"defer\": 1}".as_ptr(),
                &mut err,
            ),
            &mut err,
            arg,
            "metadata.defer",
        );
        expect_failure(
            tr_registry_set_metadata(
                r.0,
                c"read_file".as_ptr(),
                c"{\"tags\": [\"a\", 2]}".as_ptr(),
                &mut err,
            ),
            &mut err,
            arg,
            "tags[1]",
        );
        expect_failure(
            tr_registry_get_schemas(
                r.0,
                c"{\"api_format\": \"openai\"}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
            arg,
            "openai",
        );
        expect_failure(
            tr_registry_get_schemas(r.0, c"{\"colour\": 1}".as_ptr(), &mut out, &mut err),
            &mut err,
            arg,
            "unknown option",
        );
        for (options, needle) in [
            ("{\"min_score_ratio\": 1.5}", "min_score_ratio"),
            ("{\"max_df_ratio\": -0.1}", "max_df_ratio"),
            ("{\"field_weights\": {\"name\": -1}}", "field_weights.name"),
            ("{\"field_weights\": {\"colour\": 1}}", "unknown field"),
            ("{\"k1\": \"big\"}", "k1: expected a number"),
            ("{\"b\": 2}", "options.b"),
            ("{\"min_score_ratio\": true}", "expected a number"),
            ("{\"speed\": 1}", "unknown option"),
        ] {
            expect_failure(
                tr_registry_enable_discovery(r.0, cstr(options).as_ptr(), &mut err),
                &mut err,
                arg,
                needle,
            );
        }
        let call = |args: &str, out: &mut *mut c_char, err: &mut *mut c_char| {
            tr_registry_call(
                r.0,
                c"discover_tools".as_ptr(),
                cstr(args).as_ptr(),
                out,
                err,
            )
        };
        expect_failure(
            call("{\"query\": \"\"}", &mut out, &mut err),
            &mut err,
            arg,
            "query: empty",
        );
        expect_failure(
            call("{\"query\": \"  \\n\"}", &mut out, &mut err),
            &mut err,
            arg,
            "query: empty",
        );
        expect_failure(
            call("{\"query\": \"x\", \"top_k\": 0}", &mut out, &mut err),
            &mut err,
            arg,
            "top_k",
        );
        expect_failure(
            call("{\"query\": \"x\", \"top_k\": -3}", &mut out, &mut err),
            &mut err,
            arg,
            "top_k",
        );
        expect_failure(
            call("{\"query\": 5}", &mut out, &mut err),
            &mut err,
            arg,
            "arguments.query",
        );
        expect_failure(
            call("{\"top_k\": 5}", &mut out, &mut err),
            &mut err,
            arg,
            "arguments.query: missing",
        );
        expect_failure(
            call("[]", &mut out, &mut err),
            &mut err,
            arg,
            "expected an object",
        );
        expect_failure(
            call("{\"query\": \"x\", \"mode\": 1}", &mut out, &mut err),
            &mut err,
            arg,
            "unknown argument",
        );
        expect_failure(call("{", &mut out, &mut err), &mut err, json, "arguments");
        expect_failure(
            tr_registry_call(
                r.0,
                c"read_file".as_ptr(),
                c"{}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
            arg,
            "run it with execute",
        );
        expect_failure(
            tr_registry_call(r.0, c"launch".as_ptr(), c"{}".as_ptr(), &mut out, &mut err),
            &mut err,
            missing,
            "launch",
        );
        let mut d = ptr::null_mut();
        check(
            tr_discoverer_new(r.0, ptr::null(), &mut d, &mut err),
            &mut err,
        )
        .unwrap();
        expect_failure(
            tr_discoverer_discover(
                d,
                c"x".as_ptr(),
                c"{\"top_k\": 0}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
            arg,
            "top_k",
        );
        expect_failure(
            tr_discoverer_discover(d, c"".as_ptr(), ptr::null(), &mut out, &mut err),
            &mut err,
            arg,
            "query",
        );
        tr_discoverer_free(d);
    }
    assert!(out.is_null());
    assert_eq!(snapshot(&r), before);
}

#[test]
fn too_large_inputs() {
    let r = registry();
    let before = snapshot(&r);
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    let huge = format!("[{}]", " ".repeat(65 * 1024 * 1024));
    unsafe {
        expect_failure(
            tr_registry_register(r.0, cstr(&huge).as_ptr(), &mut out, &mut err),
            &mut err,
            "TR_STATUS_TOO_LARGE",
            "64 MiB",
        );
        let long_name = format!(r#"{{"name": "{}"}}"#, "n".repeat(100 * 1024));
        expect_failure(
            tr_registry_register(r.0, cstr(&long_name).as_ptr(), &mut out, &mut err),
            &mut err,
            "TR_STATUS_TOO_LARGE",
            "name",
        );
        let mut d = ptr::null_mut();
        check(
            tr_discoverer_new(r.0, ptr::null(), &mut d, &mut err),
            &mut err,
        )
        .unwrap();
        let long_query = "word ".repeat(20_000);
        expect_failure(
            tr_discoverer_discover(
                d,
                cstr(&long_query).as_ptr(),
                ptr::null(),
                &mut out,
                &mut err,
            ),
            &mut err,
            "TR_STATUS_TOO_LARGE",
            "query",
        );
        // Many tokens within the byte limit: answered from the first TR_MAX_QUERY_TOKENS.
        let many_tokens = "a ".repeat(5_000);
        check(
            tr_discoverer_discover(
                d,
                cstr(&many_tokens).as_ptr(),
                ptr::null(),
                &mut out,
                &mut err,
            ),
            &mut err,
        )
        .unwrap();
        take(out);
        // top_k far beyond the catalog is fine.
        check(
            tr_discoverer_discover(
                d,
                c"file".as_ptr(),
                c"{\"top_k\": 4294967295}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
        )
        .unwrap();
        assert!(take(out).contains("read_file"));
        tr_discoverer_free(d);
    }
    assert_eq!(snapshot(&r), before);
}

#[test]
fn discoverer_outlives_its_registry_and_follows_changes() {
    let r = registry();
    let (mut d, mut err, mut out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    unsafe {
        check(
            tr_discoverer_new(r.0, c"{\"min_score_ratio\": 0}".as_ptr(), &mut d, &mut err),
            &mut err,
        )
        .unwrap();
        let mut names = ptr::null_mut();
        let tool = cstr(
            r#"{"name": "convert_currency", "description": "Convert money between currencies."}"#,
        );
        check(
            tr_registry_register(r.0, tool.as_ptr(), &mut names, &mut err),
            &mut err,
        )
        .unwrap();
        take(names);
        check(
            tr_discoverer_discover(d, c"currency".as_ptr(), ptr::null(), &mut out, &mut err),
            &mut err,
        )
        .unwrap();
        assert!(
            take(out).contains("convert_currency"),
            "a discoverer follows registrations made after it"
        );
        check(
            tr_registry_set_enabled(r.0, c"convert_currency".as_ptr(), false, &mut err),
            &mut err,
        )
        .unwrap();
        check(
            tr_discoverer_discover(d, c"currency".as_ptr(), ptr::null(), &mut out, &mut err),
            &mut err,
        )
        .unwrap();
        assert_eq!(take(out), "[]");
        check(tr_discoverer_rebuild_index(d, &mut err), &mut err).unwrap();
        drop(r); // frees the registry handle
        check(
            tr_discoverer_discover(d, c"read_file".as_ptr(), ptr::null(), &mut out, &mut err),
            &mut err,
        )
        .unwrap();
        let answer: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        assert_eq!(answer[0]["name"], "read_file");
        assert_eq!(answer[0]["score"], 1.0);
        tr_discoverer_free(d);
    }
}

#[test]
fn schemas_summaries_and_namespaces() {
    let r = registry();
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    unsafe {
        check(
            tr_registry_deferred_summaries(r.0, &mut out, &mut err),
            &mut err,
        )
        .unwrap();
        assert_eq!(
            take(out),
            r#"[{"name":"send_email","description":"Send an email message.","namespace":null},{"name":"github-list_issues","description":"List issues in a repository.","namespace":"github"}]"#
        );
        check(
            tr_registry_get_schemas(
                r.0,
                c"{\"include_deferred\": false}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
        )
        .unwrap();
        let schemas: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        let names: Vec<&str> = schemas
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["function"]["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["call_deferred", "discover_tools", "read_file"]);
        let description = schemas[1]["function"]["description"].as_str().unwrap();
        assert!(
            description.contains("- send_email: Send an email message."),
            "{description}"
        );
        // Disabling the namespace hides its tools everywhere, and the built-in's list follows.
        check(
            tr_registry_set_enabled(r.0, c"github".as_ptr(), false, &mut err),
            &mut err,
        )
        .unwrap();
        check(
            tr_registry_get_schemas(
                r.0,
                c"{\"api_format\": \"anthropic\"}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
        )
        .unwrap();
        let text = take(out);
        assert!(!text.contains("github-list_issues"), "{text}");
        assert!(text.contains("\"input_schema\""));
        check(
            tr_registry_get_schemas(
                r.0,
                c"{\"tags\": [\"network\"]}".as_ptr(),
                &mut out,
                &mut err,
            ),
            &mut err,
        )
        .unwrap();
        let tagged: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        assert_eq!(tagged.as_array().unwrap().len(), 1);
        assert_eq!(tagged[0]["function"]["name"], "send_email");
        check(
            tr_registry_set_enabled(r.0, c"github".as_ptr(), true, &mut err),
            &mut err,
        )
        .unwrap();
        check(
            tr_registry_deferred_summaries(r.0, &mut out, &mut err),
            &mut err,
        )
        .unwrap();
        assert!(take(out).contains("github-list_issues"));
    }
}
