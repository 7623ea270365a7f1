//! Tool-call batches, through the C ABI (raw bytes: invalid UTF-8 and embedded NULs included), in
//! every provider's shape. The first byte picks the execute options; the rest is `calls_json`.
//!
//! Oracles: the call never panics, never reports PANIC or INTERNAL; a failure writes no output and
//! a one-line message; a success is a JSON array of messages whose call ids are the input's, and
//! the Rust API gives the same bytes; a host function runs only with arguments that are a JSON
//! object conforming to its schema (the echo host checks what it receives). The two steps agree
//! with execute: `tr_registry_prepare_calls`, the host calls run by the fuzzer, then
//! `tr_registry_finish_calls` give the same bytes; finish given the input as its results (or as
//! its plan) fails cleanly or answers JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr;
use std::sync::{Arc, OnceLock};
use toolregistry::ffi::*;
use toolregistry::{ExecuteOptions, HostFn, Registry, Tool, execute_json};

const TOOLS: &str = r#"[
  {"name": "get_weather", "description": "Weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}}, "required": ["city"]}},
  {"name": "send_email", "description": "Send an email.", "parameters": {"type": "object", "properties": {"to": {"type": "array", "items": {"type": "string"}}}, "required": ["to"]}, "metadata": {"defer": true}},
  {"name": "fail", "description": "Fails.", "metadata": {"concurrency_safe": false}}
]"#;

const OPTIONS: [&str; 6] = [
    "{}",
    r#"{"include_assistant": true}"#,
    r#"{"parallel": 3}"#,
    r#"{"api_format": "anthropic"}"#,
    r#"{"api_format": "gemini", "include_assistant": true}"#,
    r#"{"api_format": "openai-responses", "parallel": 2}"#,
];

fn host(name: &str, args: &str) -> Result<String, String> {
    let value: serde_json::Value = serde_json::from_str(args).expect("hosts get JSON");
    assert!(value.is_object(), "hosts get an object");
    if name == "get_weather" {
        assert!(
            value["city"].is_string(),
            "schema checked before the host runs: {args}"
        );
    }
    if name == "fail" {
        return Err(format!("failed with {args}"));
    }
    Ok(format!("{name} <- {args}"))
}

fn rust_registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        let r = Registry::new();
        r.enable_discovery_json(Some(r#"{"profile": "reference"}"#))
            .unwrap();
        for t in Tool::parse_many(TOOLS).unwrap() {
            let h: HostFn = Arc::new(host);
            r.register_host(t, h).unwrap();
        }
        r
    })
}

unsafe extern "C" fn c_host(
    _: *mut c_void,
    name: *const c_char,
    args: *const c_char,
    call: *mut tr_call,
) {
    let name = unsafe { CStr::from_ptr(name) }.to_str().unwrap();
    let args = unsafe { CStr::from_ptr(args) }.to_str().unwrap();
    let status = match host(name, args) {
        Ok(text) => unsafe { tr_call_return(call, CString::new(text).unwrap().as_ptr()) },
        Err(message) => unsafe { tr_call_fail(call, CString::new(message).unwrap().as_ptr()) },
    };
    assert_eq!(status, tr_status::TR_STATUS_OK);
}

struct CRegistry(*mut tr_registry);
// SAFETY: the registry handle is thread-safe by contract.
unsafe impl Send for CRegistry {}
unsafe impl Sync for CRegistry {}

fn c_registry() -> *mut tr_registry {
    static REGISTRY: OnceLock<CRegistry> = OnceLock::new();
    REGISTRY
        .get_or_init(|| {
            let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
            let options = c"{\"discovery\": {\"profile\": \"reference\"}}";
            assert_eq!(
                unsafe { tr_registry_new(options.as_ptr(), &mut r, &mut err) },
                tr_status::TR_STATUS_OK
            );
            for t in serde_json::from_str::<Vec<serde_json::Value>>(TOOLS).unwrap() {
                let json = CString::new(t.to_string()).unwrap();
                let mut names = ptr::null_mut();
                let status = unsafe {
                    tr_registry_register_callable(
                        r,
                        json.as_ptr(),
                        Some(c_host),
                        ptr::null_mut(),
                        None,
                        &mut names,
                        &mut err,
                    )
                };
                assert_eq!(status, tr_status::TR_STATUS_OK);
                unsafe { tr_string_free(names) };
            }
            CRegistry(r)
        })
        .0
}

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
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let options = OPTIONS[pick as usize % OPTIONS.len()];
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let calls = CString::new(&rest[..end]).unwrap();
    let c_options = CString::new(options).unwrap();
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    let status = unsafe {
        tr_registry_execute(
            c_registry(),
            calls.as_ptr(),
            c_options.as_ptr(),
            &mut out,
            &mut err,
        )
    };
    let text = std::str::from_utf8(&rest[..end]);
    let rust = text.ok().map(|t| {
        execute_json(
            rust_registry(),
            t,
            &ExecuteOptions::from_json(Some(options)).unwrap(),
        )
    });
    if status != tr_status::TR_STATUS_OK {
        assert!(out.is_null(), "output written on failure");
        let message = take(err);
        assert!(!message.contains('\n'), "message is one line");
        assert_ne!(status, tr_status::TR_STATUS_PANIC, "{message}");
        assert_ne!(status, tr_status::TR_STATUS_INTERNAL, "{message}");
        assert_eq!(status == tr_status::TR_STATUS_INVALID_UTF8, text.is_err());
        if let Some(rust) = rust {
            assert_eq!(rust.expect_err("C ABI refused it").to_string(), message);
        }
        return;
    }
    let messages = take(out);
    let value: serde_json::Value = serde_json::from_str(&messages).expect("messages are JSON");
    assert!(value.is_array());
    assert_eq!(
        rust.expect("UTF-8 input").expect("Rust accepts it too"),
        messages
    );
    let plan = prepare(&calls, &c_options);
    assert_eq!(
        finish(&plan, &host_results(&plan)).expect("finish takes its own plan"),
        messages
    );
    // Arbitrary results for a real plan, and the input as a plan: clean failures or JSON.
    let _ = finish(&plan, &calls);
    let _ = finish(&calls, &CString::new("[]").unwrap());
});

fn prepare(calls: &CString, options: &CString) -> CString {
    let (mut plan, mut err) = (ptr::null_mut(), ptr::null_mut());
    let status = unsafe {
        tr_registry_prepare_calls(
            c_registry(),
            calls.as_ptr(),
            options.as_ptr(),
            &mut plan,
            &mut err,
        )
    };
    assert_eq!(
        status,
        tr_status::TR_STATUS_OK,
        "prepare accepts what execute accepted"
    );
    CString::new(take(plan)).unwrap()
}

/// The plan's host calls run with `host`, as a host that runs them itself answers.
fn host_results(plan: &CString) -> CString {
    let plan: serde_json::Value = serde_json::from_str(plan.to_str().unwrap()).unwrap();
    let results: Vec<serde_json::Value> = plan["calls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["run"] == "host")
        .map(|c| {
            let args = serde_json::to_string(&c["arguments"]).unwrap();
            match host(c["name"].as_str().unwrap(), &args) {
                Ok(text) => serde_json::json!({"id": c["id"], "content": text}),
                Err(message) => serde_json::json!({"id": c["id"], "error": message}),
            }
        })
        .collect();
    CString::new(serde_json::Value::Array(results).to_string()).unwrap()
}

fn finish(plan: &CString, results: &CString) -> Result<String, String> {
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    let status = unsafe {
        tr_registry_finish_calls(
            c_registry(),
            plan.as_ptr(),
            results.as_ptr(),
            &mut out,
            &mut err,
        )
    };
    if status == tr_status::TR_STATUS_OK {
        let messages = take(out);
        let value: serde_json::Value = serde_json::from_str(&messages).expect("messages are JSON");
        assert!(value.is_array());
        return Ok(messages);
    }
    assert!(out.is_null(), "output written on failure");
    assert_ne!(status, tr_status::TR_STATUS_PANIC);
    assert_ne!(status, tr_status::TR_STATUS_INTERNAL);
    let message = take(err);
    assert!(!message.contains('\n'), "message is one line");
    Err(message)
}
