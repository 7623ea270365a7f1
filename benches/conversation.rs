//! Cost of a conversation (issue 11's targets): `tr_conversation_tools` at 10,000 registered
//! tools with 20 loaded costs at most 20 µs p50 when nothing changed, and a conversation costs at
//! most 1 KB plus its loaded names.
//!
//! `cargo bench --bench conversation` prints, for each mode, p50/p95 of `tr_conversation_tools`
//! over 3,000 calls (after a warm-up that renders the shared part once), the p50 of the first call
//! after a registry change (the shared part rendered again), and the heap bytes one conversation
//! holds (a counting allocator, averaged over 1,000 conversations with 20 loaded tools each).

use std::alloc::{GlobalAlloc, Layout, System};
use std::ffi::CString;
use std::hint::black_box;
use std::ptr;
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;
use toolregistry::ffi::*;

struct Counting;
static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: forwards to the system allocator, counting bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

const N: usize = 10_000;
const LOADED: usize = 20;

fn catalog() -> String {
    let tools: Vec<String> = (0..N)
        .map(|i| {
            let defer = i >= 5;
            format!(
                r#"{{"name":"tool_{i:05}","description":"Operation {i} on widgets of kind {}.","parameters":{{"type":"object","properties":{{"id":{{"type":"string"}},"count":{{"type":"integer"}}}},"required":["id"]}},"metadata":{{"defer":{defer}}}}}"#,
                i % 97
            )
        })
        .collect();
    format!("[{}]", tools.join(","))
}

fn percentile(mut xs: Vec<f64>, p: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() - 1) as f64 * p) as usize]
}

fn main() {
    let (mut r, mut err, mut names) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let catalog = CString::new(catalog()).unwrap();
    assert_eq!(
        unsafe { tr_registry_register(r, catalog.as_ptr(), &mut names, &mut err) },
        tr_status::TR_STATUS_OK
    );
    unsafe { tr_string_free(names) };
    assert_eq!(
        unsafe { tr_registry_enable_discovery(r, ptr::null(), &mut err) },
        tr_status::TR_STATUS_OK
    );
    let loaded: Vec<String> = (0..LOADED)
        .map(|i| format!("\"tool_{:05}\"", 100 + i * 37))
        .collect();
    let loaded = format!("[{}]", loaded.join(","));
    println!(
        "conversation: {N} registered tools (5 core), {LOADED} loaded; tr_conversation_tools through the C ABI"
    );
    println!(
        "{:<52} {:>10} {:>9} {:>9} {:>14}",
        "options", "answer KB", "p50 µs", "p95 µs", "changed p50 µs"
    );
    for options in [
        r#"{"mode": "stable"}"#,
        r#"{"mode": "stable", "namespaces": ["none"]}"#,
        r#"{"mode": "summaries"}"#,
        r#"{"mode": "summaries", "summary_max_tokens": 2000}"#,
        r#"{"mode": "auto"}"#,
        r#"{"api_format": "anthropic", "mode": "stable"}"#,
        r#"{"api_format": "openai-responses", "mode": "native"}"#,
    ] {
        let o = CString::new(options).unwrap();
        let mut c = ptr::null_mut();
        assert_eq!(
            unsafe { tr_conversation_new(r, o.as_ptr(), &mut c, &mut err) },
            tr_status::TR_STATUS_OK
        );
        let names = CString::new(loaded.as_str()).unwrap();
        assert_eq!(
            unsafe { tr_conversation_reveal(c, names.as_ptr(), &mut err) },
            tr_status::TR_STATUS_OK
        );
        let call = || {
            let mut out = ptr::null_mut();
            let mut err = ptr::null_mut();
            assert_eq!(
                unsafe { tr_conversation_tools(c, &mut out, &mut err) },
                tr_status::TR_STATUS_OK
            );
            unsafe { tr_string_free(black_box(out)) };
        };
        for _ in 0..50 {
            call();
        }
        let size = {
            let mut out = ptr::null_mut();
            assert_eq!(
                unsafe { tr_conversation_tools(c, &mut out, &mut err) },
                tr_status::TR_STATUS_OK
            );
            let n = unsafe { std::ffi::CStr::from_ptr(out) }.to_bytes().len();
            unsafe { tr_string_free(out) };
            n
        };
        let mut times = Vec::with_capacity(3000);
        for _ in 0..3000 {
            let t = Instant::now();
            call();
            times.push(t.elapsed().as_nanos() as f64 / 1000.0);
        }
        // After a change: one metadata update, then the first call renders the shared part again.
        let mut changed = Vec::new();
        for i in 0..20 {
            let hint = CString::new(format!(r#"{{"search_hint": "h{i}"}}"#)).unwrap();
            assert_eq!(
                unsafe {
                    tr_registry_set_metadata(r, c"tool_09999".as_ptr(), hint.as_ptr(), &mut err)
                },
                tr_status::TR_STATUS_OK
            );
            let t = Instant::now();
            call();
            changed.push(t.elapsed().as_nanos() as f64 / 1000.0);
        }
        println!(
            "{:<52} {:>10.1} {:>9.2} {:>9.2} {:>14.1}",
            options,
            size as f64 / 1024.0,
            percentile(times.clone(), 0.5),
            percentile(times, 0.95),
            percentile(changed, 0.5)
        );
        unsafe { tr_conversation_free(c) };
    }
    // Memory: 1,000 conversations with 20 loaded tools each.
    let o = CString::new(r#"{"mode": "stable"}"#).unwrap();
    let names = CString::new(loaded.as_str()).unwrap();
    // One conversation first, so the shared part for these options is rendered before counting.
    let mut warm = ptr::null_mut();
    assert_eq!(
        unsafe { tr_conversation_new(r, o.as_ptr(), &mut warm, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let mut out = ptr::null_mut();
    assert_eq!(
        unsafe { tr_conversation_tools(warm, &mut out, &mut err) },
        tr_status::TR_STATUS_OK
    );
    unsafe { tr_string_free(out) };
    let before = LIVE.load(Ordering::Relaxed);
    let mut convs = Vec::new();
    for _ in 0..1000 {
        let mut c = ptr::null_mut();
        assert_eq!(
            unsafe { tr_conversation_new(r, o.as_ptr(), &mut c, &mut err) },
            tr_status::TR_STATUS_OK
        );
        assert_eq!(
            unsafe { tr_conversation_reveal(c, names.as_ptr(), &mut err) },
            tr_status::TR_STATUS_OK
        );
        let mut out = ptr::null_mut();
        assert_eq!(
            unsafe { tr_conversation_tools(c, &mut out, &mut err) },
            tr_status::TR_STATUS_OK
        );
        unsafe { tr_string_free(out) };
        convs.push(c);
    }
    let per = (LIVE.load(Ordering::Relaxed) - before) as f64 / 1000.0;
    // The names as a conversation holds them: a String (24 bytes) and its text each.
    let names_bytes: usize = (0..LOADED).map(|_| 24 + "tool_00000".len()).sum();
    println!(
        "memory: {per:.0} bytes per conversation with {LOADED} loaded names ({names_bytes} bytes of names): {:.0} bytes besides the names (target <= 1024)",
        per - names_bytes as f64
    );
    for c in convs {
        unsafe { tr_conversation_free(c) };
    }
    unsafe { tr_conversation_free(warm) };
    unsafe { tr_registry_free(r) };
}
