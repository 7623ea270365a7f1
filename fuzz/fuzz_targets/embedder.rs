//! Host embedders through the C ABI: `tr_registry_set_embedder` with fuzzed options JSON (raw
//! bytes: invalid UTF-8 included) and a fake embedder whose every batch behaves as the input says
//! (the deterministic word-hash vectors, a failure with a message, an over-long message without
//! NUL, nothing written, NaN, zeros), then registrations, hybrid discovers and explains,
//! `tr_registry_wait_embeddings`, `tr_registry_embedding_status` and `tr_registry_tools_status`.
//!
//! Oracles: no call panics or reports PANIC or INTERNAL; a refused option writes a one-line
//! message; the status is valid JSON whose counts add up to the enabled tools once the embedder
//! is done; hybrid discovers succeed with a well-formed ranking whatever the embedder does; the
//! embedder's user data is freed exactly once per `tr_registry_set_embedder` call.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::ffi::{CStr, CString, c_char, c_void};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use toolregistry::ffi::*;
use toolregistry_fuzz::{FIXTURE, QUERIES, assert_json};

const DIM: usize = 16;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Options JSON for the first `tr_registry_set_embedder`; a valid one follows.
    options: Vec<u8>,
    /// How each batch behaves, in turn (cycled).
    behaviours: Vec<u8>,
    ops: Vec<Op>,
    /// Bytes given to `tr_registry_put_embeddings` of a pulled embedder.
    pull_results: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
enum Op {
    Discover { query: u8, hybrid: bool },
    Explain { query: u8, tool: u8 },
    Register { words: Vec<u8> },
    SetEnabled { tool: u8, enabled: bool },
    Status,
    Wait,
}

/// The fake embedder's state: the behaviour script and its counters.
struct Fake {
    script: Vec<u8>,
    calls: AtomicUsize,
    freed: &'static AtomicUsize,
}

fn word_vector(text: &str, out: &mut [f32]) {
    out.fill(0.0);
    let mut any = false;
    for w in text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let mut h: u32 = 0x811c_9dc5;
        for b in w.to_ascii_lowercase().bytes() {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
        out[h as usize % out.len()] += 1.0;
        any = true;
    }
    if !any {
        out[0] = 1.0;
    }
}

unsafe extern "C" fn embed(
    user_data: *mut c_void,
    texts: *const *const c_char,
    count: usize,
    vectors: *mut f32,
    dim: usize,
    error: *mut c_char,
    error_cap: usize,
) -> i32 {
    let fake = unsafe { &*(user_data as *const Fake) };
    let n = fake.calls.fetch_add(1, Ordering::Relaxed);
    let behaviour = match fake.script.len() {
        0 => 0,
        len => fake.script[n % len] % 6,
    };
    let texts = unsafe { std::slice::from_raw_parts(texts, count) };
    let out = unsafe { std::slice::from_raw_parts_mut(vectors, count * dim) };
    assert!(error_cap > 0);
    match behaviour {
        1 => {
            let msg = b"the fake refuses\0";
            unsafe {
                ptr::copy_nonoverlapping(msg.as_ptr().cast(), error, msg.len().min(error_cap))
            };
            3
        }
        2 => {
            unsafe { ptr::write_bytes(error, b'x', error_cap) };
            -1
        }
        3 => 0, // nothing written
        4 => {
            out.fill(f32::NAN);
            0
        }
        5 => {
            out.fill(0.0);
            0
        }
        _ => {
            for (i, &t) in texts.iter().enumerate() {
                let text = unsafe { CStr::from_ptr(t) }
                    .to_str()
                    .expect("texts are UTF-8");
                word_vector(text, &mut out[i * dim..(i + 1) * dim]);
            }
            0
        }
    }
}

unsafe extern "C" fn free_fake(user_data: *mut c_void) {
    let fake = unsafe { Box::from_raw(user_data as *mut Fake) };
    fake.freed.fetch_add(1, Ordering::SeqCst);
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

fn fake(script: &[u8], freed: &'static AtomicUsize) -> *mut c_void {
    Box::into_raw(Box::new(Fake {
        script: script.iter().take(16).copied().collect(),
        calls: AtomicUsize::new(0),
        freed,
    }))
    .cast()
}

fn check_failure(status: tr_status, err: *mut c_char) {
    let msg = take(err);
    assert!(!msg.contains('\n'), "message is one line: {msg}");
    assert_ne!(status, tr_status::TR_STATUS_PANIC, "{msg}");
    assert_ne!(status, tr_status::TR_STATUS_INTERNAL, "{msg}");
}

/// Frees counted per input (libFuzzer runs one input at a time, and each run frees its registry,
/// which joins the embedding thread, before the next starts).
static FREED: AtomicUsize = AtomicUsize::new(0);

fuzz_target!(|input: Input| {
    let freed: &'static AtomicUsize = &FREED;
    freed.store(0, Ordering::SeqCst);
    let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let fixture = CString::new(FIXTURE).unwrap();
    let mut out = ptr::null_mut();
    assert_eq!(
        unsafe { tr_registry_register(r, fixture.as_ptr(), &mut out, &mut err) },
        tr_status::TR_STATUS_OK
    );
    take(out);

    // The fuzzed options: refused cleanly, or an embedder set.
    let end = input
        .options
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(input.options.len());
    let mut bytes = &input.options[..end];
    // A fuzzed cache path could name any file on the machine: those options are not tried.
    let names_a_file = serde_json::from_slice::<serde_json::Value>(bytes)
        .ok()
        .and_then(|v| v.as_object().map(|o| o.contains_key("cache_path")))
        .unwrap_or(false);
    if names_a_file {
        bytes = b"{}";
    }
    let options = CString::new(bytes).unwrap();
    let mut sets = 1;
    let status = unsafe {
        tr_registry_set_embedder(
            r,
            options.as_ptr(),
            Some(embed),
            fake(&input.behaviours, freed),
            Some(free_fake),
            &mut err,
        )
    };
    if status != tr_status::TR_STATUS_OK {
        check_failure(status, err);
        err = ptr::null_mut();
        assert_eq!(
            freed.load(Ordering::SeqCst),
            1,
            "refused embedder freed at once"
        );
        let valid = CString::new(format!("{{\"dim\": {DIM}}}")).unwrap();
        sets += 1;
        assert_eq!(
            unsafe {
                tr_registry_set_embedder(
                    r,
                    valid.as_ptr(),
                    Some(embed),
                    fake(&input.behaviours, freed),
                    Some(free_fake),
                    &mut err,
                )
            },
            tr_status::TR_STATUS_OK
        );
    }

    let mut extra = 0;
    for op in input.ops.into_iter().take(24) {
        match op {
            Op::Discover { query, hybrid } => {
                let q = CString::new(QUERIES[query as usize % QUERIES.len()]).unwrap();
                let options = CString::new(if hybrid {
                    r#"{"profile": "hybrid"}"#
                } else {
                    "{}"
                })
                .unwrap();
                let (mut d, mut out) = (ptr::null_mut(), ptr::null_mut());
                assert_eq!(
                    unsafe { tr_discoverer_new(r, options.as_ptr(), &mut d, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                let status = unsafe {
                    tr_discoverer_discover(d, q.as_ptr(), ptr::null(), &mut out, &mut err)
                };
                assert_eq!(
                    status,
                    tr_status::TR_STATUS_OK,
                    "{}",
                    if err.is_null() {
                        String::new()
                    } else {
                        take(err)
                    }
                );
                let hits = assert_json(&take(out));
                let mut last = f64::INFINITY;
                for h in hits.as_array().expect("an array") {
                    let s = h["score"].as_f64().expect("a score");
                    assert!(
                        s.is_finite() && s > 0.0 && s <= last + 1e-12,
                        "bad ranking {hits}"
                    );
                    last = s;
                }
                unsafe { tr_discoverer_free(d) };
            }
            Op::Explain { query, tool } => {
                let q = CString::new(QUERIES[query as usize % QUERIES.len()]).unwrap();
                let name = CString::new(
                    ["read_file", "send_email", "web/search", "missing"][tool as usize % 4],
                )
                .unwrap();
                let (mut d, mut out) = (ptr::null_mut(), ptr::null_mut());
                assert_eq!(
                    unsafe { tr_discoverer_new(r, ptr::null(), &mut d, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                let status = unsafe {
                    tr_discoverer_explain(
                        d,
                        q.as_ptr(),
                        name.as_ptr(),
                        ptr::null(),
                        &mut out,
                        &mut err,
                    )
                };
                if status == tr_status::TR_STATUS_OK {
                    let why = assert_json(&take(out));
                    assert_eq!(why["profile"], "hybrid");
                    assert!(
                        why["hybrid"].is_object() || why["exact_match"].is_string(),
                        "{why}"
                    );
                } else {
                    assert_eq!(status, tr_status::TR_STATUS_NOT_FOUND);
                    check_failure(status, err);
                    err = ptr::null_mut();
                }
                unsafe { tr_discoverer_free(d) };
            }
            Op::Register { words } => {
                let desc: Vec<&str> = words
                    .iter()
                    .take(8)
                    .map(|&w| QUERIES[w as usize % QUERIES.len()])
                    .collect();
                extra += 1;
                let tool = serde_json::json!({"name": format!("extra_{}", extra % 3), "description": desc.join(" ")});
                let c = CString::new(tool.to_string()).unwrap();
                let mut out = ptr::null_mut();
                assert_eq!(
                    unsafe { tr_registry_register(r, c.as_ptr(), &mut out, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                take(out);
            }
            Op::SetEnabled { tool, enabled } => {
                let name =
                    CString::new(["read_file", "github", "weather_query"][tool as usize % 3])
                        .unwrap();
                assert_eq!(
                    unsafe { tr_registry_set_enabled(r, name.as_ptr(), enabled, &mut err) },
                    tr_status::TR_STATUS_OK
                );
            }
            Op::Status => {
                let mut out = ptr::null_mut();
                assert_eq!(
                    unsafe { tr_registry_embedding_status(r, &mut out, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                let s = assert_json(&take(out));
                assert!(
                    s["dim"].as_u64().is_some() && s["warnings"].is_array(),
                    "{s}"
                );
                let mut out = ptr::null_mut();
                assert_eq!(
                    unsafe { tr_registry_tools_status(r, &mut out, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                for t in assert_json(&take(out)).as_array().unwrap() {
                    let e = t["embedding"]
                        .as_str()
                        .expect("embedding state with an embedder");
                    assert!(["ready", "pending", "failed", "none"].contains(&e), "{t}");
                }
            }
            Op::Wait => {
                let mut done = false;
                assert_eq!(
                    unsafe { tr_registry_wait_embeddings(r, 10_000, &mut done, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                assert!(done, "embedding did not finish in 10 s");
                let mut out = ptr::null_mut();
                assert_eq!(
                    unsafe { tr_registry_embedding_status(r, &mut out, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                let s = assert_json(&take(out));
                let mut out = ptr::null_mut();
                assert_eq!(
                    unsafe { tr_registry_tools_status(r, &mut out, &mut err) },
                    tr_status::TR_STATUS_OK
                );
                let enabled = assert_json(&take(out))
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|t| t["enabled"] == true)
                    .count() as u64;
                let n = |k: &str| s[k].as_u64().unwrap();
                assert_eq!(n("pending"), 0, "{s}");
                assert_eq!(n("ready") + n("failed"), enabled, "{s}");
            }
        }
    }
    unsafe { tr_registry_free(r) };
    pull(&input.pull_results);
    assert_eq!(
        freed.load(Ordering::SeqCst),
        sets,
        "user data freed once per set_embedder"
    );
});

/// The pull model: fuzzed results are refused cleanly or applied; the real vectors of the taken
/// texts then finish the catalog, and a free with texts still taken does not wait for the host.
fn pull(results: &[u8]) {
    let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
    assert_eq!(
        unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let fixture = CString::new(FIXTURE).unwrap();
    let mut out = ptr::null_mut();
    assert_eq!(
        unsafe { tr_registry_register(r, fixture.as_ptr(), &mut out, &mut err) },
        tr_status::TR_STATUS_OK
    );
    take(out);
    let options = CString::new(format!("{{\"dim\": {DIM}, \"pull\": true}}")).unwrap();
    assert_eq!(
        unsafe {
            tr_registry_set_embedder(r, options.as_ptr(), None, ptr::null_mut(), None, &mut err)
        },
        tr_status::TR_STATUS_OK
    );
    let end = results
        .iter()
        .position(|&b| b == 0)
        .unwrap_or(results.len());
    let fuzzed = CString::new(&results[..end]).unwrap();
    let status = unsafe { tr_registry_put_embeddings(r, fuzzed.as_ptr(), &mut err) };
    if status != tr_status::TR_STATUS_OK {
        check_failure(status, err);
        err = ptr::null_mut();
    }
    let mut jobs = ptr::null_mut();
    assert_eq!(
        unsafe { tr_registry_take_embedding_jobs(r, 1, &mut jobs, &mut err) },
        tr_status::TR_STATUS_OK
    );
    let jobs = assert_json(&take(jobs));
    let answers: Vec<serde_json::Value> = jobs
        .as_array()
        .expect("an array")
        .iter()
        .map(|j| {
            let mut v = vec![0f32; DIM];
            word_vector(j["text"].as_str().expect("a text"), &mut v);
            serde_json::json!({"id": j["id"], "vector": v})
        })
        .collect();
    let answers = CString::new(serde_json::Value::Array(answers).to_string()).unwrap();
    assert_eq!(
        unsafe { tr_registry_put_embeddings(r, answers.as_ptr(), &mut err) },
        tr_status::TR_STATUS_OK
    );
    unsafe { tr_registry_free(r) };
}
