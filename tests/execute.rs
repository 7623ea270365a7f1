//! Running tool calls through the Rust API and the C ABI: re-entrancy, parallel mode, tools that
//! must run alone, host-function ownership, the error table of the new exports, and a stress test.
#![allow(unsafe_code)]

mod common;

use common::{check, cstr, take};
use serde_json::{Value, json};
use std::ffi::{CStr, c_char, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use toolregistry::ffi::*;
use toolregistry::{DiscoveryOptions, ExecuteOptions, HostFn, Registry, Tool, execute_json};

fn tool(json: Value) -> Tool {
    Tool::parse_many(&json.to_string()).unwrap().remove(0)
}

fn chat_calls(calls: &[(&str, &str, Value)]) -> String {
    json!({"role": "assistant", "tool_calls": calls.iter().map(|(id, name, args)| json!({
        "id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}
    })).collect::<Vec<_>>()})
    .to_string()
}

fn contents(messages: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(messages).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_host_function_may_register_and_discover_on_the_same_registry() {
    for parallel in [1, 4] {
        let registry = Arc::new(Registry::new());
        registry
            .enable_discovery(DiscoveryOptions::default())
            .unwrap();
        let weak = Arc::downgrade(&registry);
        registry
            .register_callable(
                tool(json!({"name": "install", "description": "Install a plugin."})),
                move |_args| {
                    let r = weak.upgrade().ok_or("registry gone")?;
                    r.register_json(
                        r#"{"name": "plugin_tool", "description": "Frobnicate widgets.", "metadata": {"defer": true}}"#,
                    )
                    .map_err(|e| e.to_string())?;
                    r.call_json("discover_tools", r#"{"query": "frobnicate widgets"}"#)
                        .map_err(|e| e.to_string())
                },
            )
            .unwrap();
        let options = ExecuteOptions {
            parallel,
            ..Default::default()
        };
        let calls = chat_calls(&[
            ("a", "install", json!({})),
            ("b", "discover_tools", json!({"query": "frobnicate"})),
        ]);
        let out = contents(&execute_json(&registry, &calls, &options).unwrap());
        assert!(out[0].contains("\"plugin_tool\""), "{}", out[0]);
        let found = registry
            .call_json("discover_tools", r#"{"query": "plugin_tool"}"#)
            .unwrap();
        assert!(found.contains("\"score\":1.0"), "{found}");
    }
}

#[test]
fn parallel_results_keep_call_order_and_unsafe_tools_run_alone() {
    let registry = Registry::new();
    let running = Arc::new(AtomicUsize::new(0));
    let overlap_with_exclusive = Arc::new(AtomicBool::new(false));
    let max_running = Arc::new(AtomicUsize::new(0));
    for (name, safe) in [("fast", true), ("exclusive", false)] {
        let running = Arc::clone(&running);
        let overlap = Arc::clone(&overlap_with_exclusive);
        let max_running = Arc::clone(&max_running);
        registry
            .register_callable(
                tool(json!({"name": name, "description": "t",
                            "parameters": {"type": "object", "properties": {"i": {"type": "integer"}}},
                            "metadata": {"concurrency_safe": safe}})),
                move |args| {
                    let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                    max_running.fetch_max(now, Ordering::SeqCst);
                    if !safe && now > 1 {
                        overlap.store(true, Ordering::SeqCst);
                    }
                    std::thread::sleep(Duration::from_millis(15));
                    if !safe && running.load(Ordering::SeqCst) > 1 {
                        overlap.store(true, Ordering::SeqCst);
                    }
                    running.fetch_sub(1, Ordering::SeqCst);
                    Ok(args.to_string())
                },
            )
            .unwrap();
    }
    let calls: Vec<(String, &str, Value)> = (0..12)
        .map(|i| {
            let name = if i % 4 == 3 { "exclusive" } else { "fast" };
            (format!("c{i}"), name, json!({"i": i}))
        })
        .collect();
    let borrowed: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, n, a)| (id.as_str(), *n, a.clone()))
        .collect();
    let options = ExecuteOptions {
        parallel: 3,
        ..Default::default()
    };
    let out = contents(&execute_json(&registry, &chat_calls(&borrowed), &options).unwrap());
    let want: Vec<String> = (0..12).map(|i| format!("{{\"i\":{i}}}")).collect();
    assert_eq!(out, want);
    assert!(!overlap_with_exclusive.load(Ordering::SeqCst));
    assert!(
        max_running.load(Ordering::SeqCst) > 1,
        "parallel mode ran calls at once"
    );
}

#[test]
fn a_panicking_rust_host_becomes_an_error_result() {
    let registry = Registry::new();
    registry
        .register_callable(tool(json!({"name": "boom", "description": "b"})), |_| {
            panic!("oh no")
        })
        .unwrap();
    let messages = execute_json(
        &registry,
        &chat_calls(&[("1", "boom", json!({}))]),
        &ExecuteOptions::default(),
    )
    .unwrap();
    assert_eq!(
        contents(&messages)[0],
        "Error: the host function of \"boom\" panicked: oh no"
    );
}

#[test]
fn a_replaced_tool_is_checked_against_its_new_schema() {
    let registry = Registry::new();
    let def = |t: &str| {
        tool(json!({"name": "set", "description": "s",
                    "parameters": {"type": "object", "properties": {"v": {"type": t}}, "required": ["v"]}}))
    };
    registry
        .register_callable(def("string"), |a| Ok(a.to_string()))
        .unwrap();
    let calls = chat_calls(&[("1", "set", json!({"v": 3}))]);
    let before = contents(&execute_json(&registry, &calls, &ExecuteOptions::default()).unwrap());
    assert!(
        before[0].contains("is not of type \"string\""),
        "{}",
        before[0]
    );
    registry
        .register_callable(def("integer"), |a| Ok(a.to_string()))
        .unwrap();
    let after = contents(&execute_json(&registry, &calls, &ExecuteOptions::default()).unwrap());
    assert_eq!(after[0], r#"{"v":3}"#);
    registry.unregister("set").unwrap();
    registry
        .register_callable(def("boolean"), |a| Ok(a.to_string()))
        .unwrap();
    let again = contents(&execute_json(&registry, &calls, &ExecuteOptions::default()).unwrap());
    assert!(
        again[0].contains("is not of type \"boolean\""),
        "{}",
        again[0]
    );
}

#[test]
fn fallback_runs_tools_without_a_function_and_status_says_so() {
    let registry = Registry::new();
    registry
        .register_json(r#"[{"name": "github-create_issue", "description": "c"}, {"name": "own", "description": "o"}]"#)
        .unwrap();
    let calls = chat_calls(&[("1", "github-create_issue", json!({"title": "x"}))]);
    let before = contents(&execute_json(&registry, &calls, &ExecuteOptions::default()).unwrap());
    assert!(before[0].contains("has no host function"), "{}", before[0]);
    let status: Value = serde_json::from_str(&registry.tools_status_json().unwrap()).unwrap();
    assert_eq!(status[0]["callable"], false);
    let fallback: HostFn = Arc::new(|name: &str, args: &str| Ok(format!("routed {name} {args}")));
    registry.set_fallback(Some(fallback)).unwrap();
    let after = contents(&execute_json(&registry, &calls, &ExecuteOptions::default()).unwrap());
    assert_eq!(after[0], r#"routed github-create_issue {"title":"x"}"#);
    registry.disable("own", Some("quota exhausted")).unwrap();
    let status: Value = serde_json::from_str(&registry.tools_status_json().unwrap()).unwrap();
    assert_eq!(
        status,
        json!([
            {"name": "github-create_issue", "namespace": null, "enabled": true, "reason": null,
             "deferred": false, "tags": [], "callable": true},
            {"name": "own", "namespace": null, "enabled": false, "reason": "quota exhausted",
             "deferred": false, "tags": [], "callable": true},
        ])
    );
    registry.set_enabled("own", true).unwrap();
    let status: Value = serde_json::from_str(&registry.tools_status_json().unwrap()).unwrap();
    assert_eq!(status[1]["reason"], Value::Null);
}

#[test]
fn a_namespace_disabled_with_a_reason_tells_the_model() {
    let registry = Registry::new();
    registry
        .register_json(r#"{"name": "list", "namespace": "linear", "description": "l"}"#)
        .unwrap();
    registry
        .disable("linear", Some("server disconnected"))
        .unwrap();
    let out = contents(
        &execute_json(
            &registry,
            &chat_calls(&[("1", "linear-list", json!({}))]),
            &ExecuteOptions::default(),
        )
        .unwrap(),
    );
    assert_eq!(
        out[0],
        "Error: tool \"linear-list\" is disabled: server disconnected"
    );
}

#[test]
fn a_call_list_that_is_no_providers_fails_with_its_path() {
    let registry = Registry::new();
    for (calls, needle) in [
        ("{\"role\": \"user\"}", "not a tool-call list"),
        (
            "[{\"id\": \"1\", \"function\": {\"arguments\": \"{}\"}}]",
            "calls[0].function.name: missing",
        ),
        (
            "{\"tool_calls\": [{\"function\": {\"name\": \"x\"}}]}",
            "calls.tool_calls[0].id: missing",
        ),
        ("{\"tool_calls\": 5}", "calls.tool_calls: expected an array"),
        ("[1, 2]", "not a tool-call list"),
        (
            "[{\"type\": \"tool_use\", \"name\": \"x\"}]",
            "calls[0].id: missing",
        ),
        (
            "{\"parts\": [{\"functionCall\": 3}]}",
            "calls.parts[0].functionCall: expected an object",
        ),
    ] {
        let e = execute_json(&registry, calls, &ExecuteOptions::default()).unwrap_err();
        assert!(e.to_string().contains(needle), "{calls}: {e}");
    }
    assert_eq!(
        execute_json(&registry, "[]", &ExecuteOptions::default()).unwrap(),
        "[]"
    );
    // A forced format refuses another provider's calls instead of answering none of them.
    let chat = r#"[{"id": "1", "type": "function", "function": {"name": "x", "arguments": "{}"}}]"#;
    for format in ["anthropic", "gemini", "openai-responses"] {
        let options =
            ExecuteOptions::from_json(Some(&format!(r#"{{"api_format": "{format}"}}"#))).unwrap();
        let e = execute_json(&registry, chat, &options).unwrap_err();
        assert!(
            e.to_string()
                .contains(&format!("not a {format} tool-call list")),
            "{e}"
        );
    }
}

/// A reply recognised as a provider's that carries a call the library cannot read or run fails
/// the batch, naming it; `null` fields and text-only replies are no calls, not errors.
#[test]
fn a_call_the_library_cannot_run_is_an_error_never_a_silent_empty_answer() {
    let registry = Registry::new();
    for (calls, needle) in [
        (
            r#"{"output": [{"type": "custom_tool_call", "call_id": "c", "name": "x", "input": "y"}]}"#,
            r#"calls.output[0].type: a "custom_tool_call" item"#,
        ),
        (
            r#"[{"type": "message", "content": []}, {"type": "computer_call", "call_id": "c"}]"#,
            r#"calls[1].type: a "computer_call" item"#,
        ),
        (
            r#"{"role": "assistant", "tool_calls": [{"id": "1", "type": "custom", "custom": {"name": "x", "input": "y"}}]}"#,
            r#"calls.tool_calls[0].type: a "custom" tool call"#,
        ),
        (
            r#"{"role": "assistant", "content": null, "tool_calls": null, "function_call": {"name": "x", "arguments": "{}"}}"#,
            "calls.function_call: the deprecated function_call is not read",
        ),
        (
            r#"{"choices": [{"message": {"role": "assistant", "tool_calls": null, "function_call": {"name": "x", "arguments": "{}"}}}]}"#,
            "calls.choices[0].message.function_call",
        ),
        (
            r#"{"parts": [{"function_call": {"name": "x", "partial_args": [{"json_path": "$.a"}], "will_continue": true}}]}"#,
            "calls.parts[0].function_call: a streamed call with partialArgs only",
        ),
        (
            r#"{"parts": [{"function_call": 3}]}"#,
            "calls.parts[0].function_call: expected an object",
        ),
    ] {
        let e = execute_json(&registry, calls, &ExecuteOptions::default()).unwrap_err();
        assert!(e.to_string().contains(needle), "{calls}: {e}");
    }
    // Text replies as the SDKs dump them (every unset field null): no calls, no error.
    for calls in [
        r#"{"role": "assistant", "content": "Hi.", "refusal": null, "tool_calls": null, "function_call": null}"#,
        r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi.", "tool_calls": null}}]}"#,
        r#"{"parts": [{"function_call": null, "text": "Hi.", "thought_signature": null}], "role": "model"}"#,
        r#"{"candidates": [{"content": {"parts": null, "role": "model"}, "finish_reason": "SAFETY"}]}"#,
        r#"{"output": [{"type": "tool_search_call", "call_id": null, "execution": "server", "arguments": {}}]}"#,
    ] {
        assert_eq!(
            execute_json(&registry, calls, &ExecuteOptions::default()).unwrap(),
            "[]",
            "{calls}"
        );
    }
}

// ---- C ABI: ownership of user data, the error table, the stress test ----

static FREES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_free(user_data: *mut c_void) {
    FREES.fetch_add(1, Ordering::SeqCst);
    drop(unsafe { Box::from_raw(user_data as *mut u64) });
}

unsafe extern "C" fn echo_host(
    _user_data: *mut c_void,
    tool_name: *const c_char,
    args_json: *const c_char,
    call: *mut tr_call,
) {
    let name = unsafe { CStr::from_ptr(tool_name) }.to_str().unwrap();
    let args = unsafe { CStr::from_ptr(args_json) }.to_str().unwrap();
    unsafe { tr_call_return(call, cstr(&format!("{name} <- {args}")).as_ptr()) };
}

unsafe extern "C" fn silent_host(
    _: *mut c_void,
    _: *const c_char,
    _: *const c_char,
    _: *mut tr_call,
) {
}

static SECOND_ANSWER: Mutex<Option<tr_status>> = Mutex::new(None);

unsafe extern "C" fn double_host(
    _: *mut c_void,
    _: *const c_char,
    _: *const c_char,
    call: *mut tr_call,
) {
    unsafe { tr_call_return(call, c"first".as_ptr()) };
    let second = unsafe { tr_call_fail(call, c"second".as_ptr()) };
    *SECOND_ANSWER.lock().unwrap() = Some(second);
}

fn data() -> *mut c_void {
    Box::into_raw(Box::new(7u64)) as *mut c_void
}

fn exec_c(r: *mut tr_registry, calls: &str) -> String {
    let mut out = std::ptr::null_mut();
    let mut err = std::ptr::null_mut();
    let calls = cstr(calls);
    check(
        unsafe { tr_registry_execute(r, calls.as_ptr(), std::ptr::null(), &mut out, &mut err) },
        &mut err,
    )
    .unwrap();
    take(out)
}

#[test]
fn c_abi_frees_user_data_exactly_once_in_every_path() {
    // One test owns FREES, so the counts are exact.
    let mut err = std::ptr::null_mut();
    let mut r = std::ptr::null_mut();
    check(
        unsafe { tr_registry_new(std::ptr::null(), &mut r, &mut err) },
        &mut err,
    )
    .unwrap();
    let register = |json: &str, f: tr_tool_fn, err: &mut *mut c_char| {
        let mut names = std::ptr::null_mut();
        let status = unsafe {
            tr_registry_register_callable(
                r,
                cstr(json).as_ptr(),
                f,
                data(),
                Some(count_free),
                &mut names,
                err,
            )
        };
        if !names.is_null() {
            take(names);
        }
        status
    };
    let t = r#"{"name": "t", "description": "d"}"#;
    // Failed registrations free at once.
    for (json, f) in [
        ("{", Some(echo_host as _)),
        (r#"{"name": "discover_tools"}"#, Some(echo_host as _)),
        (r#"[{"name": "a"}, {"name": "b"}]"#, Some(echo_host as _)),
        (t, None),
    ] {
        let before = FREES.load(Ordering::SeqCst);
        assert_ne!(register(json, f, &mut err), tr_status::TR_STATUS_OK);
        take(err);
        err = std::ptr::null_mut();
        assert_eq!(FREES.load(Ordering::SeqCst), before + 1, "{json}");
    }
    let base = FREES.load(Ordering::SeqCst);
    assert_eq!(
        register(t, Some(echo_host), &mut err),
        tr_status::TR_STATUS_OK
    );
    assert_eq!(FREES.load(Ordering::SeqCst), base);
    // Replacing frees the old one.
    assert_eq!(
        register(t, Some(echo_host), &mut err),
        tr_status::TR_STATUS_OK
    );
    assert_eq!(FREES.load(Ordering::SeqCst), base + 1);
    // A plain register of the same name replaces the function too.
    let mut names = std::ptr::null_mut();
    check(
        unsafe { tr_registry_register(r, cstr(t).as_ptr(), &mut names, &mut err) },
        &mut err,
    )
    .unwrap();
    take(names);
    assert_eq!(FREES.load(Ordering::SeqCst), base + 2);
    assert_eq!(
        register(t, Some(echo_host), &mut err),
        tr_status::TR_STATUS_OK
    );
    check(
        unsafe { tr_registry_unregister(r, c"t".as_ptr(), &mut err) },
        &mut err,
    )
    .unwrap();
    assert_eq!(FREES.load(Ordering::SeqCst), base + 3);
    // Fallback: replaced, removed (NULL fn frees the given data at once), freed with the registry.
    for f in [Some(echo_host as _), Some(echo_host as _), None] {
        check(
            unsafe { tr_registry_set_fallback(r, f, data(), Some(count_free), &mut err) },
            &mut err,
        )
        .unwrap();
    }
    assert_eq!(FREES.load(Ordering::SeqCst), base + 6);
    assert_eq!(
        register(t, Some(echo_host), &mut err),
        tr_status::TR_STATUS_OK
    );
    check(
        unsafe { tr_registry_set_fallback(r, Some(echo_host), data(), Some(count_free), &mut err) },
        &mut err,
    )
    .unwrap();
    unsafe { tr_registry_free(r) };
    assert_eq!(FREES.load(Ordering::SeqCst), base + 8);
    // A NULL registry: ownership still passes, and the data is freed.
    assert_eq!(
        unsafe {
            tr_registry_register_callable(
                std::ptr::null_mut(),
                cstr(t).as_ptr(),
                Some(echo_host),
                data(),
                Some(count_free),
                &mut std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        },
        tr_status::TR_STATUS_NULL_ARGUMENT
    );
    assert_eq!(FREES.load(Ordering::SeqCst), base + 9);
}

#[test]
fn c_abi_answers_no_result_and_keeps_the_first_of_two() {
    let mut err = std::ptr::null_mut();
    let mut r = std::ptr::null_mut();
    check(
        unsafe { tr_registry_new(std::ptr::null(), &mut r, &mut err) },
        &mut err,
    )
    .unwrap();
    for (name, f) in [
        ("silent", silent_host as unsafe extern "C" fn(_, _, _, _)),
        ("double", double_host),
    ] {
        let mut names = std::ptr::null_mut();
        let json = cstr(&format!(r#"{{"name": "{name}", "description": "d"}}"#));
        check(
            unsafe {
                tr_registry_register_callable(
                    r,
                    json.as_ptr(),
                    Some(f),
                    std::ptr::null_mut(),
                    None,
                    &mut names,
                    &mut err,
                )
            },
            &mut err,
        )
        .unwrap();
        take(names);
    }
    let out = contents(&exec_c(
        r,
        &chat_calls(&[("1", "silent", json!({})), ("2", "double", json!({}))]),
    ));
    assert_eq!(
        out,
        ["Error: the host function returned no result", "first"]
    );
    assert_eq!(
        *SECOND_ANSWER.lock().unwrap(),
        Some(tr_status::TR_STATUS_INVALID_ARGUMENT)
    );
    // NULL handles and strings.
    assert_eq!(
        unsafe { tr_call_return(std::ptr::null_mut(), c"x".as_ptr()) },
        tr_status::TR_STATUS_NULL_ARGUMENT
    );
    assert_eq!(
        unsafe { tr_call_fail(std::ptr::null_mut(), c"x".as_ptr()) },
        tr_status::TR_STATUS_NULL_ARGUMENT
    );
    unsafe { tr_registry_free(r) };
}

#[test]
fn c_abi_error_table_of_the_new_exports() {
    let mut err = std::ptr::null_mut();
    let mut r = std::ptr::null_mut();
    check(
        unsafe { tr_registry_new(std::ptr::null(), &mut r, &mut err) },
        &mut err,
    )
    .unwrap();
    let mut out = std::ptr::null_mut();
    let bad_utf8 = c"\xff\xfe".as_ptr();
    #[allow(clippy::type_complexity)]
    let cases: Vec<(
        Box<dyn Fn(&mut *mut c_char, &mut *mut c_char) -> tr_status>,
        tr_status,
    )> = vec![
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(
                    std::ptr::null_mut(),
                    c"[]".as_ptr(),
                    std::ptr::null(),
                    out,
                    err,
                )
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(r, std::ptr::null(), std::ptr::null(), out, err)
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
        (
            Box::new(|_out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(
                    r,
                    c"[]".as_ptr(),
                    std::ptr::null(),
                    std::ptr::null_mut(),
                    err,
                )
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(r, bad_utf8, std::ptr::null(), out, err)
            }),
            tr_status::TR_STATUS_INVALID_UTF8,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(r, c"[{".as_ptr(), std::ptr::null(), out, err)
            }),
            tr_status::TR_STATUS_INVALID_JSON,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(
                    r,
                    c"{\"role\":\"user\"}".as_ptr(),
                    std::ptr::null(),
                    out,
                    err,
                )
            }),
            tr_status::TR_STATUS_INVALID_ARGUMENT,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(r, c"[]".as_ptr(), c"{\"parallel\": 0}".as_ptr(), out, err)
            }),
            tr_status::TR_STATUS_INVALID_ARGUMENT,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(
                    r,
                    c"[]".as_ptr(),
                    c"{\"api_format\": \"cohere\"}".as_ptr(),
                    out,
                    err,
                )
            }),
            tr_status::TR_STATUS_INVALID_ARGUMENT,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_execute(r, c"[]".as_ptr(), c"{\"speed\": 1}".as_ptr(), out, err)
            }),
            tr_status::TR_STATUS_INVALID_ARGUMENT,
        ),
        (
            Box::new(|_out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_disable(r, c"nope".as_ptr(), std::ptr::null(), err)
            }),
            tr_status::TR_STATUS_NOT_FOUND,
        ),
        (
            Box::new(|_out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_disable(r, std::ptr::null(), std::ptr::null(), err)
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
        (
            Box::new(|_out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_disable(r, c"x".as_ptr(), bad_utf8, err)
            }),
            tr_status::TR_STATUS_INVALID_UTF8,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_tools_status(std::ptr::null(), out, err)
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
        (
            Box::new(|_out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_tools_status(r, std::ptr::null_mut(), err)
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
        (
            Box::new(|out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_get_schemas(r, c"{\"names\": [\"ghost\"]}".as_ptr(), out, err)
            }),
            tr_status::TR_STATUS_NOT_FOUND,
        ),
        (
            Box::new(|_out: &mut *mut c_char, err: &mut *mut c_char| unsafe {
                tr_registry_set_fallback(
                    std::ptr::null_mut(),
                    None,
                    std::ptr::null_mut(),
                    None,
                    err,
                )
            }),
            tr_status::TR_STATUS_NULL_ARGUMENT,
        ),
    ];
    for (i, (call, want)) in cases.into_iter().enumerate() {
        let got = call(&mut out, &mut err);
        assert_eq!(got, want, "case {i}");
        assert!(!err.is_null(), "case {i}: no message");
        let message = take(err);
        assert!(
            !message.is_empty() && !message.contains('\n'),
            "case {i}: {message:?}"
        );
        err = std::ptr::null_mut();
        assert!(out.is_null(), "case {i}: output written on failure");
    }
    unsafe { tr_registry_free(r) };
}

#[test]
fn eight_executors_and_two_mutators_never_mix_results() {
    let registry = Arc::new(Registry::new());
    registry
        .enable_discovery(DiscoveryOptions::default())
        .unwrap();
    for i in 0..20 {
        registry
            .register_callable(
                tool(json!({"name": format!("echo_{i}"), "description": "Echo the input.",
                            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}})),
                move |args| Ok(format!("echo_{i} {args}")),
            )
            .unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut handles = Vec::new();
    for m in 0..2 {
        let registry = Arc::clone(&registry);
        let stop = Arc::clone(&stop);
        handles.push(std::thread::spawn(move || {
            let mut k = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let name = format!("churn_{m}_{}", k % 7);
                registry
                    .register_callable(tool(json!({"name": name, "description": "churn"})), |_| {
                        Ok("c".into())
                    })
                    .unwrap();
                if k % 2 == 0 {
                    registry.unregister(&name).unwrap();
                }
                k += 1;
            }
            k
        }));
    }
    let executors: Vec<_> = (0..8)
        .map(|t| {
            let registry = Arc::clone(&registry);
            std::thread::spawn(move || {
                let deadline = Instant::now() + Duration::from_millis(700);
                let mut batches = 0;
                while Instant::now() < deadline {
                    let calls: Vec<(String, String, Value)> = (0..6)
                        .map(|j| {
                            (
                                format!("{t}-{j}"),
                                format!("echo_{}", (t * 3 + j) % 20),
                                json!({"n": t * 100 + j}),
                            )
                        })
                        .collect();
                    let borrowed: Vec<(&str, &str, Value)> = calls
                        .iter()
                        .map(|(a, b, c)| (a.as_str(), b.as_str(), c.clone()))
                        .collect();
                    let options = ExecuteOptions {
                        parallel: 3,
                        ..Default::default()
                    };
                    let out: Value = serde_json::from_str(
                        &execute_json(&registry, &chat_calls(&borrowed), &options).unwrap(),
                    )
                    .unwrap();
                    for (j, message) in out.as_array().unwrap().iter().enumerate() {
                        assert_eq!(message["tool_call_id"], format!("{t}-{j}"));
                        assert_eq!(
                            message["content"],
                            format!("echo_{} {{\"n\":{}}}", (t * 3 + j) % 20, t * 100 + j)
                        );
                    }
                    batches += 1;
                }
                batches
            })
        })
        .collect();
    let batches: usize = executors.into_iter().map(|h| h.join().unwrap()).sum();
    stop.store(true, Ordering::Relaxed);
    let churned: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(batches > 0 && churned > 0);
    assert!(registry.verify_index().unwrap());
}
