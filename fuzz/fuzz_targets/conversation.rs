//! Conversation entry points through the C ABI: the first byte picks the conversation options
//! (every mode and provider, some invalid), the rest is split at the first `\n` into a calls list
//! for `tr_conversation_execute` and a names list for `tr_conversation_reveal`.
//!
//! Oracles: nothing panics or reports PANIC/INTERNAL; failures write no output and a one-line
//! message; `tr_conversation_tools` always answers JSON with a 64-hex-digit fingerprint that is
//! the same when asked twice; the loaded list never shrinks and has no duplicates.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::ffi::{CStr, CString, c_char};
use std::ptr;
use std::sync::OnceLock;
use toolregistry::ffi::*;

const OPTIONS: [&str; 12] = [
    "{}",
    r#"{"mode": "stable"}"#,
    r#"{"api_format": "anthropic", "mode": "native"}"#,
    r#"{"api_format": "openai-responses", "mode": "native"}"#,
    r#"{"api_format": "openai-responses", "mode": "native", "search": "server"}"#,
    r#"{"api_format": "gemini", "mode": "auto", "defer_threshold_tokens": 50}"#,
    r#"{"api_format": "anthropic", "mode": "stable", "max_tokens": 30, "loaded": ["send_email", "ghost"]}"#,
    r#"{"api_format": "openai-responses", "strict": true, "top_k": 2}"#,
    r#"{"api_format": "gemini", "mode": "native"}"#,
    r#"{"mode": "bogus"}"#,
    r#"{"mode": "stable", "summary_max_tokens": 0}"#,
    r#"{"summary_max_tokens": 5, "loaded": ["list_issues"]}"#,
];

const TOOLS: &str = r#"[
  {"name": "get_weather", "description": "Weather for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
  {"name": "send_email", "description": "Send an email.", "parameters": {"type": "object", "properties": {"to": {"type": "array"}}}, "metadata": {"defer": true}},
  {"name": "list_issues", "namespace": "github", "description": "List issues.", "metadata": {"defer": true}}
]"#;

struct Handle(*mut tr_registry);
// SAFETY: the registry handle is thread-safe by contract.
unsafe impl Send for Handle {}
unsafe impl Sync for Handle {}

fn registry() -> *mut tr_registry {
    static R: OnceLock<Handle> = OnceLock::new();
    R.get_or_init(|| {
        let (mut r, mut err, mut names) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let options = c"{\"discovery\": {\"profile\": \"reference\"}}";
        assert_eq!(
            unsafe { tr_registry_new(options.as_ptr(), &mut r, &mut err) },
            tr_status::TR_STATUS_OK
        );
        let tools = CString::new(TOOLS).unwrap();
        assert_eq!(
            unsafe { tr_registry_register(r, tools.as_ptr(), &mut names, &mut err) },
            tr_status::TR_STATUS_OK
        );
        unsafe { tr_string_free(names) };
        Handle(r)
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

fn check_failure(status: tr_status, out_written: bool, err: *mut c_char) {
    assert!(!out_written, "output written on failure");
    let message = take(err);
    assert!(!message.contains('\n'));
    assert_ne!(status, tr_status::TR_STATUS_PANIC, "{message}");
    assert_ne!(status, tr_status::TR_STATUS_INTERNAL, "{message}");
}

fn tools(c: *mut tr_conversation) -> String {
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_conversation_tools(c, &mut out, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let text = take(out);
    let v: serde_json::Value = serde_json::from_str(&text).expect("tools answer is JSON");
    assert_eq!(v["fingerprint"].as_str().map(str::len), Some(64));
    assert!(v["tools"].is_array() && v["system_text"].is_string());
    text
}

fn loaded(c: *mut tr_conversation) -> Vec<String> {
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_conversation_loaded(c, &mut out, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let names: Vec<String> = serde_json::from_str(&take(out)).unwrap();
    let unique: std::collections::HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "no duplicates");
    names
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let options = CString::new(OPTIONS[pick as usize % OPTIONS.len()]).unwrap();
    let (mut c, mut err) = (ptr::null_mut(), ptr::null_mut());
    let status = unsafe { tr_conversation_new(registry(), options.as_ptr(), &mut c, &mut err) };
    if status != tr_status::TR_STATUS_OK {
        check_failure(status, !c.is_null(), err);
        return;
    }
    let first = tools(c);
    assert_eq!(tools(c), first, "same state, same bytes");
    let before = loaded(c);
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    let rest = &rest[..end];
    let split = rest.iter().position(|&b| b == b'\n').unwrap_or(rest.len());
    let calls = CString::new(&rest[..split]).unwrap();
    let mut out = ptr::null_mut();
    let status =
        unsafe { tr_conversation_execute(c, calls.as_ptr(), ptr::null(), &mut out, &mut err) };
    if status == tr_status::TR_STATUS_OK {
        let messages: serde_json::Value =
            serde_json::from_str(&take(out)).expect("messages are JSON");
        assert!(messages.is_array());
    } else {
        check_failure(status, !out.is_null(), err);
    }
    if split < rest.len() {
        let names = CString::new(&rest[split + 1..]).unwrap();
        let mut err = ptr::null_mut();
        let status = unsafe { tr_conversation_reveal(c, names.as_ptr(), &mut err) };
        if status != tr_status::TR_STATUS_OK {
            check_failure(status, false, err);
        }
    }
    let after = loaded(c);
    assert!(after.starts_with(&before), "the loaded list only grows");
    tools(c);
    unsafe { tr_conversation_free(c) };
});
