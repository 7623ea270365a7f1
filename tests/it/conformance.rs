//! The tool-call conformance corpus (`tests/conformance/execute/`): for each provider and case,
//! the calls a model made go in, and the messages must come out byte for byte as hand-written in
//! `expected.json`. Run through the Rust API and through the C ABI; the bindings run the same
//! corpus (see `tests/conformance/README.md`).
#![allow(unsafe_code)]

use crate::common;

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

#[test]
fn corpus_through_the_c_abi() {
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
