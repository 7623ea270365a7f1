//! The tool-call conformance corpus (`tests/conformance/execute/`): for each provider and case,
//! the calls a model made go in, and the messages must come out byte for byte as hand-written in
//! `expected.json`. Run through the Rust API and through the C ABI; the bindings run the same
//! corpus (see `tests/conformance/README.md`).
#![allow(unsafe_code)]

mod common;

use common::{check, cstr, take};
use serde_json::Value;
use std::ffi::{CStr, c_char, c_void};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use toolregistry::ffi::*;
use toolregistry::{ExecuteOptions, HostFn, Registry, Tool, execute_json};

fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/execute")
}

fn fixture() -> Value {
    let text = std::fs::read_to_string(corpus_dir().join("fixture.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Every case directory, as (provider/case, path).
fn cases() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for provider in std::fs::read_dir(corpus_dir()).unwrap() {
        let provider = provider.unwrap().path();
        if !provider.is_dir() {
            continue;
        }
        for case in std::fs::read_dir(&provider).unwrap() {
            let case = case.unwrap().path();
            let name = format!(
                "{}/{}",
                provider.file_name().unwrap().to_str().unwrap(),
                case.file_name().unwrap().to_str().unwrap()
            );
            out.push((name, case));
        }
    }
    out.sort();
    assert!(out.len() >= 50, "the corpus has {} cases", out.len());
    out
}

fn read(case: &Path, file: &str) -> Option<String> {
    std::fs::read_to_string(case.join(file)).ok()
}

/// What every binding's scripted host function does with a call.
fn scripted(kind: &str, name: &str, args: &str) -> Result<String, String> {
    match kind {
        "echo" => Ok(format!("{name} <- {args}")),
        "fail" => Err("upstream returned 503".into()),
        "panic" => panic!("kaboom"),
        other => panic!("unknown host kind {other}"),
    }
}

fn rust_registry() -> Registry {
    let f = fixture();
    let registry = Registry::new();
    for entry in f["tools"].as_array().unwrap() {
        let tool = Tool::parse_many(&entry["tool"].to_string())
            .unwrap()
            .remove(0);
        match entry["host"].as_str() {
            None => {
                registry.register(vec![tool]).unwrap();
            }
            Some(kind) => {
                let kind = kind.to_string();
                let host: HostFn =
                    Arc::new(move |name: &str, args: &str| scripted(&kind, name, args));
                registry.register_host(tool, host).unwrap();
            }
        }
    }
    for d in f["disable"].as_array().unwrap() {
        registry
            .disable(d["name"].as_str().unwrap(), d["reason"].as_str())
            .unwrap();
    }
    registry
        .enable_discovery_json(Some(&f["discovery"].to_string()))
        .unwrap();
    registry
}

#[test]
fn corpus_through_the_rust_api() {
    // The panicking host prints through the panic hook; the result is what counts here.
    let registry = rust_registry();
    let mut failures = Vec::new();
    for (name, case) in cases() {
        let calls = read(&case, "calls.json").unwrap();
        let options = ExecuteOptions::from_json(read(&case, "options.json").as_deref()).unwrap();
        let want = read(&case, "expected.json").unwrap();
        let got = execute_json(&registry, &calls, &options).unwrap();
        if got != want.trim_end() {
            failures.push(format!("{name}\n  want {}\n  got  {got}", want.trim_end()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

unsafe extern "C" fn c_host(
    user_data: *mut c_void,
    tool_name: *const c_char,
    args_json: *const c_char,
    call: *mut tr_call,
) {
    let kind = unsafe { CStr::from_ptr(user_data as *const c_char) }
        .to_str()
        .unwrap();
    let name = unsafe { CStr::from_ptr(tool_name) }.to_str().unwrap();
    let args = unsafe { CStr::from_ptr(args_json) }.to_str().unwrap();
    let status = match kind {
        "echo" => unsafe { tr_call_return(call, cstr(&format!("{name} <- {args}")).as_ptr()) },
        "fail" => unsafe { tr_call_fail(call, c"upstream returned 503".as_ptr()) },
        // A C host cannot unwind into the library; like every binding, it reports what it caught.
        "panic" => unsafe {
            tr_call_fail(
                call,
                cstr(&format!("the host function of \"{name}\" panicked: kaboom")).as_ptr(),
            )
        },
        _ => unreachable!(),
    };
    assert_eq!(status, tr_status::TR_STATUS_OK);
}

unsafe extern "C" fn free_kind(user_data: *mut c_void) {
    drop(unsafe { std::ffi::CString::from_raw(user_data as *mut c_char) });
}

/// The fixture registered through the C ABI.
fn c_registry() -> *mut tr_registry {
    let f = fixture();
    let mut err = std::ptr::null_mut();
    let mut r = std::ptr::null_mut();
    check(
        unsafe { tr_registry_new(std::ptr::null(), &mut r, &mut err) },
        &mut err,
    )
    .unwrap();
    for entry in f["tools"].as_array().unwrap() {
        let tool = cstr(&entry["tool"].to_string());
        let mut names = std::ptr::null_mut();
        let status = match entry["host"].as_str() {
            None => unsafe { tr_registry_register(r, tool.as_ptr(), &mut names, &mut err) },
            Some(kind) => unsafe {
                tr_registry_register_callable(
                    r,
                    tool.as_ptr(),
                    Some(c_host),
                    cstr(kind).into_raw() as *mut c_void,
                    Some(free_kind),
                    &mut names,
                    &mut err,
                )
            },
        };
        check(status, &mut err).unwrap();
        take(names);
    }
    for d in f["disable"].as_array().unwrap() {
        let name = cstr(d["name"].as_str().unwrap());
        let reason = cstr(d["reason"].as_str().unwrap());
        check(
            unsafe { tr_registry_disable(r, name.as_ptr(), reason.as_ptr(), &mut err) },
            &mut err,
        )
        .unwrap();
    }
    let discovery = cstr(&f["discovery"].to_string());
    check(
        unsafe { tr_registry_enable_discovery(r, discovery.as_ptr(), &mut err) },
        &mut err,
    )
    .unwrap();
    r
}

#[test]
fn corpus_through_the_c_abi() {
    let mut err = std::ptr::null_mut();
    let r = c_registry();
    let mut failures = Vec::new();
    for (name, case) in cases() {
        let calls = cstr(&read(&case, "calls.json").unwrap());
        let options = read(&case, "options.json").map(|o| cstr(&o));
        let want = read(&case, "expected.json").unwrap();
        let mut out = std::ptr::null_mut();
        let status = unsafe {
            tr_registry_execute(
                r,
                calls.as_ptr(),
                options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr()),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err).unwrap();
        let got = take(out);
        if got != want.trim_end() {
            failures.push(format!("{name}\n  want {}\n  got  {got}", want.trim_end()));
        }
    }
    unsafe { tr_registry_free(r) };
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What a host that runs the calls itself answers for a plan: the scripted kinds of the fixture,
/// keyed by tool name; a tool without a host kind is `unhandled`.
fn host_results(plan: &Value) -> String {
    let f = fixture();
    let kind_of = |name: &str| {
        f["tools"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["tool"]["name"] == name)
            .and_then(|t| t["host"].as_str())
            .map(str::to_string)
    };
    let results: Vec<Value> = plan["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["run"] == "host")
        // Answered back to front: finish matches by id, not by position.
        .rev()
        .map(|c| {
            let name = c["name"].as_str().unwrap();
            let args = serde_json::to_string(&c["arguments"]).unwrap();
            let id = c["id"].clone();
            match kind_of(name).as_deref() {
                None => serde_json::json!({"id": id, "unhandled": true}),
                Some("panic") => serde_json::json!({"id": id,
                    "error": format!("the host function of \"{name}\" panicked: kaboom")}),
                Some(kind) => match scripted(kind, name, &args) {
                    Ok(text) => serde_json::json!({"id": id, "content": text}),
                    Err(message) => serde_json::json!({"id": id, "error": message}),
                },
            }
        })
        .collect();
    Value::Array(results).to_string()
}

/// Runs prepare, the scripted host, then finish through the C ABI.
fn two_steps(r: *mut tr_registry, calls: &str, options: Option<&str>) -> (String, String) {
    let mut err = std::ptr::null_mut();
    let calls = cstr(calls);
    let options = options.map(cstr);
    let mut plan = std::ptr::null_mut();
    let status = unsafe {
        tr_registry_prepare_calls(
            r,
            calls.as_ptr(),
            options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr()),
            &mut plan,
            &mut err,
        )
    };
    check(status, &mut err).unwrap();
    let plan = take(plan);
    let results = host_results(&serde_json::from_str(&plan).unwrap());
    let (p, res) = (cstr(&plan), cstr(&results));
    let mut out = std::ptr::null_mut();
    let status =
        unsafe { tr_registry_finish_calls(r, p.as_ptr(), res.as_ptr(), &mut out, &mut err) };
    check(status, &mut err).unwrap();
    (plan, take(out))
}

fn finish_error(r: *mut tr_registry, plan: &str, results: &str) -> (tr_status, String) {
    let mut err = std::ptr::null_mut();
    let mut out = std::ptr::null_mut();
    let (p, res) = (cstr(plan), cstr(results));
    let status =
        unsafe { tr_registry_finish_calls(r, p.as_ptr(), res.as_ptr(), &mut out, &mut err) };
    assert!(out.is_null(), "no messages on failure");
    (status, take(err))
}

#[test]
fn corpus_through_prepare_and_finish() {
    let registry = rust_registry();
    let r = c_registry();
    let mut failures = Vec::new();
    for (name, case) in cases() {
        let calls = read(&case, "calls.json").unwrap();
        let options = read(&case, "options.json");
        let want = read(&case, "expected.json").unwrap();
        let (plan, got) = two_steps(r, &calls, options.as_deref());
        if got != want.trim_end() {
            failures.push(format!(
                "{name}\n  want {}\n  got  {got}\n  plan {plan}",
                want.trim_end()
            ));
        }
        let executed = execute_json(
            &registry,
            &calls,
            &ExecuteOptions::from_json(options.as_deref()).unwrap(),
        )
        .unwrap();
        assert_eq!(got, executed, "{name}: prepare+finish = execute");
    }
    unsafe { tr_registry_free(r) };
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn finish_refuses_bad_results_and_plans_and_names_the_problem() {
    let r = c_registry();
    let calls = r#"[{"id":"a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},
                   {"id":"b","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}},
                   {"id":"c","type":"function","function":{"name":"nope","arguments":"{}"}}]"#;
    let (plan, _) = two_steps(r, calls, None);
    let parsed: Value = serde_json::from_str(&plan).unwrap();
    let hosts: Vec<&str> = parsed["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["run"] == "host")
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(hosts, ["a", "b"], "{plan}");
    let invalid = tr_status::TR_STATUS_INVALID_ARGUMENT;
    let cases: &[(&str, &str, tr_status, &str)] = &[
        (
            &plan,
            r#"[{"id":"a","content":"x"}]"#,
            invalid,
            "no result for host call \"b\"",
        ),
        (
            &plan,
            r#"[{"id":"a","content":"x"},{"id":"b","content":"y"},{"id":"a","error":"z"}]"#,
            invalid,
            "a second result for call \"a\"",
        ),
        (
            &plan,
            r#"[{"id":"a","content":"x"},{"id":"c","content":"y"}]"#,
            invalid,
            "results[1].id: the plan has no host call \"c\"",
        ),
        (
            &plan,
            r#"[{"id":"a","content":"x","error":"y"},{"id":"b","content":"y"}]"#,
            invalid,
            "only one of content, error or unhandled",
        ),
        (
            &plan,
            r#"[{"id":"a","content":3},{"id":"b","content":"y"}]"#,
            invalid,
            "results[0].content: expected a string, got a number",
        ),
        (
            &plan,
            r#"[{"id":"a","unhandled":false},{"id":"b","content":"y"}]"#,
            invalid,
            "results[0].unhandled: expected true",
        ),
        (
            &plan,
            r#"{"id":"a"}"#,
            invalid,
            "results: expected an array",
        ),
        (&plan, "[", tr_status::TR_STATUS_INVALID_JSON, "results"),
        ("{}", "[]", invalid, "not a plan from prepare_calls"),
        (
            r#"{"toolregistry_plan":1,"api_format":"openai-chat","include_assistant":false,"calls":[{"run":"host"}]}"#,
            "[]",
            invalid,
            "missing field `call_name`",
        ),
        (
            r#"{"toolregistry_plan":1,"api_format":"klingon","include_assistant":false,"calls":[]}"#,
            "[]",
            invalid,
            "plan.api_format: unknown format",
        ),
    ];
    for (plan, results, status, message) in cases {
        let (got, err) = finish_error(r, plan, results);
        assert_eq!(got, *status, "{results}: {err}");
        assert!(
            err.contains(message),
            "{results}: {err:?} lacks {message:?}"
        );
    }
    // A duplicated host id inside a changed plan is refused too.
    let doubled = plan.replace("\"id\":\"b\"", "\"id\":\"a\"");
    let (got, err) = finish_error(r, &doubled, r#"[{"id":"a","content":"x"}]"#);
    assert_eq!(got, invalid, "{err}");
    assert!(err.contains("the id of an earlier call"), "{err}");
    unsafe { tr_registry_free(r) };
}

#[test]
fn a_tool_unregistered_between_prepare_and_finish_is_an_unknown_tool() {
    let registry = rust_registry();
    let calls = r#"[{"id":"a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]"#;
    let plan = toolregistry::prepare_json(&registry, calls, &ExecuteOptions::default()).unwrap();
    registry.unregister("get_weather").unwrap();
    let messages =
        toolregistry::finish_json(&registry, &plan, r#"[{"id":"a","content":"sunny"}]"#).unwrap();
    assert!(
        messages.contains("Error: tool \\\"get_weather\\\" is not registered"),
        "{messages}"
    );
}

#[test]
fn host_ids_stay_unique_when_the_model_repeats_or_omits_them() {
    let registry = rust_registry();
    // Gemini calls may carry no id; a repeated id must not make two host calls share one.
    let calls = r##"{"role":"model","parts":[
        {"functionCall":{"name":"get_weather","args":{"city":"A"}}},
        {"functionCall":{"id":"x","name":"get_weather","args":{"city":"B"}}},
        {"functionCall":{"id":"x","name":"get_weather","args":{"city":"C"}}},
        {"functionCall":{"id":"#0","name":"get_weather","args":{"city":"D"}}}]}"##;
    let plan: Value = serde_json::from_str(
        &toolregistry::prepare_json(&registry, calls, &ExecuteOptions::default()).unwrap(),
    )
    .unwrap();
    let ids: Vec<&str> = plan["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), 4, "{ids:?}");
    assert_eq!(ids[3], "#0", "a unique provider id is kept: {ids:?}");
}
