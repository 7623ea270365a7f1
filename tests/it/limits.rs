//! One test per documented limit (docs/limits.md): each oversized or out-of-range input gets its
//! status and message through the C ABI, within a bounded time, and leaves the registry unchanged.
#![allow(unsafe_code)]

use crate::common;

use common::*;
use std::ffi::{CString, c_char};
use std::ptr;
use std::time::{Duration, Instant};
use toolregistry::ffi::*;
use toolregistry::limits::*;

/// Generous bound for one call in a debug build on a loaded CI machine. Refusals checked before
/// any parsing take microseconds to milliseconds.
const REFUSAL_BOUND: Duration = Duration::from_secs(2);
/// Bound for refusals that must first parse tens of megabytes of JSON (about 0.1 s per 50 MB in a
/// release build, ten times that in the unoptimized test build).
const PARSE_BOUND: Duration = Duration::from_secs(15);

struct Lib {
    r: *mut tr_registry,
    d: *mut tr_discoverer,
}

impl Drop for Lib {
    fn drop(&mut self) {
        unsafe {
            tr_discoverer_free(self.d);
            tr_registry_free(self.r);
        }
    }
}

type Outcome = Result<String, (String, String)>;

impl Lib {
    fn new() -> Lib {
        let (mut r, mut d, mut err) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        unsafe {
            check(
                tr_registry_new(c"{\"discovery\": {}}".as_ptr(), &mut r, &mut err),
                &mut err,
            )
            .unwrap();
            check(
                tr_discoverer_new(r, ptr::null(), &mut d, &mut err),
                &mut err,
            )
            .unwrap();
        }
        let lib = Lib { r, d };
        lib.register(
            r#"[{"name": "read_file", "description": "Read a file from disk.", "parameters": {"type": "object", "properties": {"path": {}}}},
                {"name": "send_email", "description": "Send an email.", "metadata": {"defer": true, "tags": ["network"]}},
                {"name": "list_issues", "namespace": "github", "description": "List issues of a repository."}]"#,
        )
        .unwrap();
        lib
    }

    fn register(&self, json: &str) -> Outcome {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let c = CString::new(json).unwrap();
        let status = unsafe { tr_registry_register(self.r, c.as_ptr(), &mut out, &mut err) };
        check(status, &mut err).map(|()| take(out))
    }

    fn set_metadata(&self, name: &str, json: &str) -> Outcome {
        let mut err = ptr::null_mut();
        let (n, j) = (cstr(name), CString::new(json).unwrap());
        let status = unsafe { tr_registry_set_metadata(self.r, n.as_ptr(), j.as_ptr(), &mut err) };
        check(status, &mut err).map(|()| String::new())
    }

    fn discover(&self, query: &str, options: Option<&str>) -> Outcome {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let q = CString::new(query).unwrap();
        let o = options.map(|o| CString::new(o).unwrap());
        let status = unsafe {
            tr_discoverer_discover(
                self.d,
                q.as_ptr(),
                o.as_ref().map_or(ptr::null(), |o| o.as_ptr()),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err).map(|()| take(out))
    }

    fn call(&self, args: &str) -> Outcome {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let a = CString::new(args).unwrap();
        let status = unsafe {
            tr_registry_call(
                self.r,
                c"discover_tools".as_ptr(),
                a.as_ptr(),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err).map(|()| take(out))
    }

    fn new_discoverer(&self, options: &str) -> Outcome {
        let (mut d, mut err) = (ptr::null_mut(), ptr::null_mut());
        let o = CString::new(options).unwrap();
        let status = unsafe { tr_discoverer_new(self.r, o.as_ptr(), &mut d, &mut err) };
        check(status, &mut err).map(|()| {
            unsafe { tr_discoverer_free(d) };
            String::new()
        })
    }

    fn schemas(&self, options: &str) -> Outcome {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let o = CString::new(options).unwrap();
        let status = unsafe { tr_registry_get_schemas(self.r, o.as_ptr(), &mut out, &mut err) };
        check(status, &mut err).map(|()| take(out))
    }

    /// Everything observable, to prove a refused call changed nothing.
    fn snapshot(&self) -> String {
        let schemas = self.schemas("{}").unwrap();
        let mut out: *mut c_char = ptr::null_mut();
        let mut err = ptr::null_mut();
        check(
            unsafe { tr_registry_deferred_summaries(self.r, &mut out, &mut err) },
            &mut err,
        )
        .unwrap();
        let hits = self.call(r#"{"query": "read file email issues"}"#).unwrap();
        format!("{schemas}\n{}\n{hits}", take(out))
    }
}

/// Runs `f`, checks it was refused with `status` and a message containing `needle`, quickly.
fn refused(status: &str, needle: &str, f: impl FnOnce() -> Outcome) -> Duration {
    refused_within(REFUSAL_BOUND, status, needle, f)
}

fn refused_within(
    bound: Duration,
    status: &str,
    needle: &str,
    f: impl FnOnce() -> Outcome,
) -> Duration {
    let start = Instant::now();
    let got = f();
    let took = start.elapsed();
    match got {
        Err((s, msg)) => {
            assert_eq!(s, status, "{msg}");
            assert!(msg.contains(needle), "{msg:?} lacks {needle:?}");
        }
        Ok(out) => panic!("expected {status}, got success: {out:.200}"),
    }
    assert!(took < bound, "refusal took {took:?}");
    took
}

#[test]
fn json_input_over_64_mib_is_too_large_at_every_entry_point() {
    let lib = Lib::new();
    let before = lib.snapshot();
    // 64 MiB exactly is parsed (and found wanting for other reasons); one byte more is refused
    // before parsing.
    let pad = "x".repeat(MAX_INPUT_BYTES - 2);
    let at_limit = format!("\"{pad}\"");
    assert_eq!(at_limit.len(), MAX_INPUT_BYTES);
    let (status, msg) = lib.register(&at_limit).unwrap_err();
    assert_eq!(status, "TR_STATUS_INVALID_ARGUMENT", "{msg}");
    let over = format!("[\"{pad}\"]");
    assert_eq!(over.len(), MAX_INPUT_BYTES + 2);
    refused("TR_STATUS_TOO_LARGE", "64 MiB", || lib.register(&over));
    refused("TR_STATUS_TOO_LARGE", "64 MiB", || {
        lib.set_metadata("read_file", &over)
    });
    refused("TR_STATUS_TOO_LARGE", "64 MiB", || lib.call(&over));
    refused("TR_STATUS_TOO_LARGE", "64 MiB", || {
        lib.discover("file", Some(&over))
    });
    refused("TR_STATUS_TOO_LARGE", "64 MiB", || {
        lib.new_discoverer(&over)
    });
    refused("TR_STATUS_TOO_LARGE", "64 MiB", || lib.schemas(&over));
    assert_eq!(lib.snapshot(), before);
}

#[test]
fn nesting_deeper_than_128_is_invalid_json_not_a_stack_overflow() {
    let lib = Lib::new();
    let before = lib.snapshot();
    let nested = |depth: usize| {
        // The tool object and "parameters" are two levels; the rest nest inside "x".
        let inner = "[".repeat(depth - 2) + &"]".repeat(depth - 2);
        format!(r#"{{"name": "deep", "parameters": {{"x": {inner}}}}}"#)
    };
    // serde_json counts from zero: 127 levels are accepted, 128 are not.
    lib.register(&nested(MAX_JSON_DEPTH - 1)).unwrap();
    lib.register(r#"{"name": "deep"}"#).unwrap();
    let mut err = ptr::null_mut();
    unsafe { tr_registry_unregister(lib.r, c"deep".as_ptr(), &mut err) };
    assert!(err.is_null());
    assert_eq!(lib.snapshot(), before);
    refused("TR_STATUS_INVALID_JSON", "recursion limit", || {
        lib.register(&nested(MAX_JSON_DEPTH))
    });
    // A million levels (2 MB) is refused just as fast: the parser stops at level 129.
    let million = "[".repeat(1_000_000) + &"]".repeat(1_000_000);
    refused("TR_STATUS_INVALID_JSON", "recursion limit", || {
        lib.register(&million)
    });
    let deep_args = format!(r#"{{"query": "file", "top_k": {}}}"#, "[".repeat(200_000));
    refused("TR_STATUS_INVALID_JSON", "recursion limit", || {
        lib.call(&deep_args)
    });
    assert_eq!(lib.snapshot(), before);
}

#[test]
fn names_over_1_kib_are_too_large() {
    let lib = Lib::new();
    let before = lib.snapshot();
    let at_limit = "n".repeat(MAX_NAME_BYTES);
    lib.register(&format!(r#"{{"name": "{at_limit}"}}"#))
        .unwrap();
    let hits = lib.discover(&at_limit, None).unwrap();
    assert!(hits.contains(&format!(r#""name":"{at_limit}""#)));
    let over = "n".repeat(MAX_NAME_BYTES + 1);
    refused("TR_STATUS_TOO_LARGE", "limit is 1024", || {
        lib.register(&format!(r#"{{"name": "{over}"}}"#))
    });
    let huge = "n".repeat(100 * 1024);
    refused("TR_STATUS_TOO_LARGE", "102400 bytes", || {
        lib.register(&format!(r#"{{"name": "{huge}"}}"#))
    });
    // The namespace counts: `ns-name` must fit too.
    let half = "n".repeat(MAX_NAME_BYTES / 2 + 1);
    refused("TR_STATUS_TOO_LARGE", "with its namespace", || {
        lib.register(&format!(r#"{{"name": "{half}", "namespace": "{half}"}}"#))
    });
    let mut err = ptr::null_mut();
    let name = cstr(&at_limit);
    unsafe { tr_registry_unregister(lib.r, name.as_ptr(), &mut err) };
    assert!(err.is_null());
    assert_eq!(lib.snapshot(), before);
}

#[test]
fn queries_over_64_kib_are_refused_before_analysis() {
    let lib = Lib::new();
    // 10 MB: refused after one UTF-8 check, without tokenizing (microseconds in release).
    let ten_mb = "convert currency ".repeat(10_000_000 / 17);
    let took = refused("TR_STATUS_TOO_LARGE", "limit is 65536", || {
        lib.discover(&ten_mb, None)
    });
    eprintln!("10 MB query refused in {took:?}");
    let args = serde_json::json!({ "query": ten_mb }).to_string();
    refused("TR_STATUS_TOO_LARGE", "limit is 65536", || lib.call(&args));
    // A million one-letter tokens is 2 MB: refused by size, before analysis.
    let million = "a ".repeat(1_000_000);
    let took = refused("TR_STATUS_TOO_LARGE", "bytes", || {
        lib.discover(&million, None)
    });
    eprintln!("1,000,000-token query refused in {took:?}");
    let at_limit = "x".repeat(MAX_QUERY_BYTES);
    assert_eq!(lib.discover(&at_limit, None).unwrap(), "[]");
}

#[test]
fn queries_over_1024_tokens_use_the_first_1024() {
    let lib = Lib::new();
    // The most tokens that fit in 64 KiB (32,767), and 16,384 one-character CJK runs: answered,
    // from the first 1,024 tokens, quickly.
    let many = "z ".repeat(MAX_QUERY_BYTES / 2 - 1);
    let start = Instant::now();
    assert_eq!(lib.discover(&many, None).unwrap(), "[]");
    eprintln!("32,767-token query answered in {:?}", start.elapsed());
    assert!(start.elapsed() < REFUSAL_BOUND);
    let cjk = "天 ".repeat(MAX_QUERY_BYTES / 4);
    assert_eq!(lib.discover(&cjk, None).unwrap(), "[]");
    // Exactly 1,024 tokens are scored, and quickly.
    let words = ["read", "file", "email", "issues"];
    let at_limit: Vec<&str> = (0..MAX_QUERY_TOKENS).map(|i| words[i % 4]).collect();
    let start = Instant::now();
    let hits = lib.discover(&at_limit.join(" "), None).unwrap();
    assert!(start.elapsed() < REFUSAL_BOUND);
    assert!(hits.contains("read_file"), "{hits}");
    // One more token changes nothing: it is past the limit.
    let over = format!("{} network", at_limit.join(" "));
    assert_eq!(lib.discover(&over, None).unwrap(), hits);
    let args = serde_json::json!({ "query": over }).to_string();
    assert_eq!(lib.call(&args).unwrap(), hits);
}

#[test]
fn searchable_text_over_1_mib_per_tool_is_too_large() {
    let lib = Lib::new();
    let before = lib.snapshot();
    // A 50 MB description: refused after parsing (about 0.1 s in release), never tokenized.
    let fifty_mb = "convert currency amounts ".repeat(50_000_000 / 25);
    let tool = serde_json::json!({"name": "big", "description": fifty_mb}).to_string();
    let took = refused_within(
        PARSE_BOUND,
        "TR_STATUS_TOO_LARGE",
        "limit is 1048576",
        || lib.register(&tool),
    );
    eprintln!("50 MB description refused in {took:?}");
    // The limit counts description, hint, tags and parameter names together.
    let half = "word ".repeat(MAX_TOOL_TEXT_BYTES / 10);
    let props: serde_json::Map<String, serde_json::Value> = (0..MAX_TOOL_TEXT_BYTES / 16)
        .map(|i| (format!("param_{i:010}"), serde_json::json!({})))
        .collect();
    let tool = serde_json::json!({"name": "wide", "description": half, "parameters": {"type": "object", "properties": props}}).to_string();
    refused("TR_STATUS_TOO_LARGE", "\"wide\"", || lib.register(&tool));
    assert_eq!(lib.snapshot(), before);
    // Just under the limit is accepted; a hint that would push it over is refused and changes nothing.
    let almost = "x".repeat(MAX_TOOL_TEXT_BYTES - 8);
    lib.register(&serde_json::json!({"name": "full", "description": almost}).to_string())
        .unwrap();
    let full = lib.snapshot();
    refused("TR_STATUS_TOO_LARGE", "\"full\"", || {
        lib.set_metadata("full", r#"{"search_hint": "one more word"}"#)
    });
    assert_eq!(lib.snapshot(), full);
    lib.set_metadata("full", r#"{"search_hint": "word"}"#)
        .unwrap();
}

#[test]
fn ten_thousand_tags_are_accepted_at_bounded_cost() {
    let lib = Lib::new();
    let tags: Vec<String> = (0..10_000).map(|i| format!("tag_{i}")).collect();
    let tool = serde_json::json!({"name": "tagged", "description": "A tool with many tags.", "metadata": {"tags": tags, "defer": true}}).to_string();
    let start = Instant::now();
    lib.register(&tool).unwrap();
    let register = start.elapsed();
    let start = Instant::now();
    let hits = lib.discover("tag_9999 tag_5", None).unwrap();
    let discover = start.elapsed();
    assert!(hits.contains("\"tagged\""), "{hits}");
    let start = Instant::now();
    let filtered = lib
        .schemas(&serde_json::json!({ "tags": tags }).to_string())
        .unwrap();
    let schemas = start.elapsed();
    assert!(filtered.contains("\"tagged\"") && !filtered.contains("read_file"));
    let retag: Vec<String> = (0..10_000).map(|i| format!("other_{i}")).collect();
    let start = Instant::now();
    lib.set_metadata("tagged", &serde_json::json!({ "tags": retag }).to_string())
        .unwrap();
    let set_metadata = start.elapsed();
    eprintln!(
        "10,000 tags: register {register:?}, discover {discover:?}, schemas filtered by 10,000 tags {schemas:?}, set_metadata {set_metadata:?}"
    );
    for took in [register, discover, schemas, set_metadata] {
        assert!(took < REFUSAL_BOUND, "{took:?}");
    }
    assert!(
        lib.discover("other_17", None)
            .unwrap()
            .contains("\"tagged\"")
    );
}

#[test]
fn top_k_may_exceed_the_catalog_up_to_u64_max() {
    let lib = Lib::new();
    for top_k in [
        "3",
        "4294967295",
        "4294967296",
        "18446744073709551615",
        "1e3",
    ] {
        let options = format!(r#"{{"top_k": {top_k}}}"#);
        let got = lib.discover("read file issues email", Some(&options));
        if top_k == "1e3" {
            // A float, even an integral one, is not an integer.
            assert_eq!(got.unwrap_err().0, "TR_STATUS_INVALID_ARGUMENT");
            continue;
        }
        let hits = got.unwrap_or_else(|e| panic!("top_k {top_k}: {e:?}"));
        assert!(hits.contains("read_file"), "{hits}");
        let args = format!(r#"{{"query": "read file", "top_k": {top_k}}}"#);
        assert!(lib.call(&args).unwrap().contains("read_file"));
    }
    for bad in ["0", "-1", "18446744073709551616", "1.5", "\"10\"", "null"] {
        let options = format!(r#"{{"top_k": {bad}}}"#);
        refused("TR_STATUS_INVALID_ARGUMENT", "top_k", || {
            lib.discover("file", Some(&options))
        });
    }
}

#[test]
fn non_finite_negative_and_huge_ranking_parameters_are_refused() {
    let lib = Lib::new();
    // JSON has no NaN or Infinity; 1e309 overflows f64 and the parser refuses it.
    for text in [
        r#"{"k1": 1e309}"#,
        r#"{"field_weights": {"name": -1e309}}"#,
        r#"{"k1": NaN}"#,
        r#"{"delta": Infinity}"#,
    ] {
        refused("TR_STATUS_INVALID_JSON", "", || lib.new_discoverer(text));
    }
    for (text, needle) in [
        (r#"{"k1": -0.5}"#, "k1: -0.5 is out of range"),
        (
            r#"{"field_weights": {"name": -1}}"#,
            "field_weights.name: -1 is out of range",
        ),
        (r#"{"delta": -1e-9}"#, "delta"),
        (
            r#"{"b": 1.5}"#,
            "b: 1.5 is out of range (must be in [0, 1])",
        ),
        (r#"{"min_score_ratio": -0.1}"#, "min_score_ratio"),
        (r#"{"max_df_ratio": 2}"#, "max_df_ratio"),
        (
            r#"{"field_weights": {"description": 1e308}}"#,
            "1e+308 is out of range (must be in [0, 1000000])",
        ),
        (r#"{"k1": 1.7976931348623157e308}"#, "k1"),
        (r#"{"delta": 1e7}"#, "delta"),
        (r#"{"k1": "1.5"}"#, "expected a number"),
    ] {
        refused("TR_STATUS_INVALID_ARGUMENT", needle, || {
            lib.new_discoverer(text)
        });
        let registry_options = format!(r#"{{"discovery": {text}}}"#);
        let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
        let o = CString::new(registry_options).unwrap();
        let status = unsafe { tr_registry_new(o.as_ptr(), &mut r, &mut err) };
        assert_eq!(
            check(status, &mut err).unwrap_err().0,
            "TR_STATUS_INVALID_ARGUMENT"
        );
        assert!(r.is_null());
    }
    // The extremes that are accepted keep every score finite (reference profile: its BM25+
    // delta keeps a matched word's score positive even with zero weights).
    for text in [
        r#"{"profile": "reference", "field_weights": {"name": 1e6, "description": 1e6, "tags": 1e6, "params": 1e6, "search_hint": 1e6}, "k1": 1e6, "delta": 1e6}"#,
        r#"{"profile": "reference", "k1": 0, "b": 1, "field_weights": {"name": 0, "description": 0, "tags": 0, "params": 0, "search_hint": 0}}"#,
        r#"{"profile": "reference", "k1": 0, "field_weights": {"name": 0}, "min_score_ratio": 0, "max_df_ratio": 0}"#,
        r#"{"profile": "reference", "field_weights": {"name": 5e-324}, "b": 0, "delta": 0}"#,
    ] {
        let o = CString::new(text).unwrap();
        let (mut d, mut err, mut out) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        unsafe {
            check(
                tr_discoverer_new(lib.r, o.as_ptr(), &mut d, &mut err),
                &mut err,
            )
            .unwrap();
            check(
                tr_discoverer_discover(
                    d,
                    c"read file issues email repository".as_ptr(),
                    ptr::null(),
                    &mut out,
                    &mut err,
                ),
                &mut err,
            )
            .unwrap();
            tr_discoverer_free(d);
        }
        let hits: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        let hits = hits.as_array().unwrap();
        assert!(!hits.is_empty(), "{text}: no hits");
        for h in hits {
            let score = h["score"].as_f64();
            assert!(
                score.is_some_and(|s| s.is_finite() && s > 0.0),
                "{text}: score {}",
                h["score"]
            );
        }
    }
}
