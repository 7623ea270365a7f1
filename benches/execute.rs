//! Cost of running tool calls (issue 10's target: a batch of 10 calls to a host function that
//! returns at once costs at most 5 µs per call over the C ABI with JSON, schema checks included).
//!
//! `cargo bench --bench execute` prints, per variant, the median over 15 rounds of the time per
//! call (each round runs 400 batches of 10 calls): through `tr_registry_execute` with a
//! 10-property schema (the target), the same with an empty schema (what the schema check costs),
//! through the Rust API, and through the two steps over the C ABI (`tr_registry_prepare_calls`,
//! the host answering each host call of the plan at once, `tr_registry_finish_calls`: the async
//! loop's own cost, against `tr_registry_execute` on the same batch; issue 31's target is within
//! 10%). All variants run in one process, one after another per round, so
//! their ratios are comparable on a noisy machine.

use serde_json::json;
use std::ffi::{CString, c_char, c_void};
use std::hint::black_box;
use std::ptr;
use std::sync::Arc;
use std::time::Instant;
use toolregistry::ffi::*;
use toolregistry::{ExecuteOptions, HostFn, Registry, Tool, execute_json};

const CALLS: usize = 10;
const BATCHES: usize = 400;
const ROUNDS: usize = 15;

unsafe extern "C" fn answer_at_once(
    _: *mut c_void,
    _: *const c_char,
    _: *const c_char,
    call: *mut tr_call,
) {
    unsafe { tr_call_return(call, c"ok".as_ptr()) };
}

fn tool(name: &str, with_schema: bool) -> serde_json::Value {
    let mut properties = serde_json::Map::new();
    let mut args = serde_json::Map::new();
    for i in 0..10 {
        let (schema, value) = match i % 4 {
            0 => (
                json!({"type": "string", "description": "A text."}),
                json!(format!("value {i}")),
            ),
            1 => (json!({"type": "integer", "minimum": 0}), json!(i)),
            2 => (
                json!({"type": "string", "enum": ["a", "b", "c"]}),
                json!("b"),
            ),
            _ => (
                json!({"type": "array", "items": {"type": "string"}}),
                json!(["x", "y"]),
            ),
        };
        properties.insert(format!("p{i}"), schema);
        args.insert(format!("p{i}"), value);
    }
    let parameters = if with_schema {
        json!({"type": "object", "properties": properties, "required": ["p0", "p1", "p2"]})
    } else {
        json!({"type": "object", "properties": {}})
    };
    json!({"tool": {"name": name, "description": "Benchmark tool.", "parameters": parameters}, "args": args})
}

fn batch(name: &str, args: &serde_json::Value) -> String {
    let calls: Vec<_> = (0..CALLS)
        .map(|i| {
            json!({"id": format!("call_{i}"), "type": "function",
                        "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    json!({"role": "assistant", "tool_calls": calls}).to_string()
}

fn c_registry() -> *mut tr_registry {
    let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) },
        tr_status::TR_STATUS_OK
    );
    for (name, schema) in [("checked", true), ("unchecked", false)] {
        let t = CString::new(tool(name, schema)["tool"].to_string()).unwrap();
        let mut names = ptr::null_mut();
        let s = unsafe {
            tr_registry_register_callable(
                r,
                t.as_ptr(),
                Some(answer_at_once),
                ptr::null_mut(),
                None,
                &mut names,
                &mut err,
            )
        };
        assert_eq!(s, tr_status::TR_STATUS_OK);
        unsafe { tr_string_free(names) };
    }
    r
}

fn per_call_ns(mut run: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..BATCHES {
        run();
    }
    start.elapsed().as_nanos() as f64 / (BATCHES * CALLS) as f64
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let r = c_registry();
    let args = tool("checked", true)["args"].clone();
    let checked = CString::new(batch("checked", &args)).unwrap();
    let unchecked = CString::new(batch("unchecked", &json!({}))).unwrap();
    let rust = Registry::new();
    let t = Tool::parse_many(&tool("checked", true)["tool"].to_string())
        .unwrap()
        .remove(0);
    let h: HostFn = Arc::new(|_: &str, _: &str| Ok("ok".to_string()));
    rust.register_host(t, h).unwrap();
    let rust_batch = batch("checked", &args);
    let c_execute = |calls: &CString| {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let s = unsafe { tr_registry_execute(r, calls.as_ptr(), ptr::null(), &mut out, &mut err) };
        assert_eq!(s, tr_status::TR_STATUS_OK);
        unsafe { tr_string_free(black_box(out)) };
    };
    // The two steps' own cost: prepare, then finish with results the host already has (the ids
    // are the batch's own), so only the library's work is timed.
    let ready: Vec<_> = (0..CALLS)
        .map(|i| json!({"id": format!("call_{i}"), "content": "ok"}))
        .collect();
    let ready = CString::new(serde_json::Value::Array(ready).to_string()).unwrap();
    let c_own = |calls: &CString| {
        let (mut plan, mut err, mut out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let s = unsafe {
            tr_registry_prepare_calls(r, calls.as_ptr(), ptr::null(), &mut plan, &mut err)
        };
        assert_eq!(s, tr_status::TR_STATUS_OK);
        let s = unsafe { tr_registry_finish_calls(r, plan, ready.as_ptr(), &mut out, &mut err) };
        assert_eq!(s, tr_status::TR_STATUS_OK);
        unsafe { tr_string_free(plan) };
        unsafe { tr_string_free(black_box(out)) };
    };
    // A whole host of the two steps: reads the plan, answers every host call "ok", finishes.
    let c_steps = |calls: &CString| {
        let (mut plan, mut err) = (ptr::null_mut(), ptr::null_mut());
        let s = unsafe {
            tr_registry_prepare_calls(r, calls.as_ptr(), ptr::null(), &mut plan, &mut err)
        };
        assert_eq!(s, tr_status::TR_STATUS_OK);
        let text = unsafe { std::ffi::CStr::from_ptr(plan) }.to_str().unwrap();
        let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
        let results: Vec<_> = parsed["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| json!({"id": c["id"], "content": "ok"}))
            .collect();
        let results = CString::new(serde_json::Value::Array(results).to_string()).unwrap();
        let mut out = ptr::null_mut();
        let s = unsafe { tr_registry_finish_calls(r, plan, results.as_ptr(), &mut out, &mut err) };
        assert_eq!(s, tr_status::TR_STATUS_OK);
        unsafe { tr_string_free(plan) };
        unsafe { tr_string_free(black_box(out)) };
    };
    let options = ExecuteOptions::default();
    let (mut a, mut b, mut c, mut d, mut e) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        a.push(per_call_ns(|| c_execute(&checked)));
        b.push(per_call_ns(|| c_execute(&unchecked)));
        c.push(per_call_ns(|| {
            black_box(execute_json(&rust, &rust_batch, &options).unwrap());
        }));
        d.push(per_call_ns(|| c_steps(&checked)));
        e.push(per_call_ns(|| c_own(&checked)));
    }
    let (a, b, c, d, e) = (median(a), median(b), median(c), median(d), median(e));
    println!(
        "execute: batch of {CALLS} calls, host answers at once; median of {ROUNDS} rounds x {BATCHES} batches"
    );
    println!("{:<58} {:>10}", "variant", "per call");
    println!(
        "{:<58} {:>8.2} µs",
        "C ABI, JSON in/out, 10-property schema checked (target <= 5 µs)",
        a / 1000.0
    );
    println!(
        "{:<58} {:>8.2} µs",
        "C ABI, JSON in/out, empty schema",
        b / 1000.0
    );
    println!(
        "{:<58} {:>8.2} µs",
        "Rust API (execute_json), 10-property schema",
        c / 1000.0
    );
    println!(
        "{:<58} {:>8.2} µs",
        "C ABI, prepare + host reads the plan + finish, same schema",
        d / 1000.0
    );
    println!(
        "{:<58} {:>8.2} µs",
        "C ABI, prepare + finish alone (the library's own cost)",
        e / 1000.0
    );
    println!("target {}", if a <= 5000.0 { "met" } else { "missed" });
    println!(
        "two steps' own cost / execute: {:.2} (within 10%: {})",
        e / a,
        if e <= a * 1.1 { "met" } else { "missed" }
    );
    unsafe { tr_registry_free(r) };
}
