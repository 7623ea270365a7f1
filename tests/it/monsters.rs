//! Realistic oversized queries (a pasted base64 image, a stack trace, a minified JSON blob, a URL
//! with a long query string, 10 KB of CJK text) get an answer through the C ABI in both profiles,
//! via a standalone discoverer and via `discover_tools`, within a bounded time; so do tools
//! carrying such text at registration. A query within `TR_MAX_QUERY_BYTES` is never refused.
#![allow(unsafe_code)]

use crate::common;

use common::*;
use std::ptr;
use std::time::{Duration, Instant};
use toolregistry::ffi::*;
use toolregistry::limits::{MAX_QUERY_BYTES, MAX_QUERY_TOKENS};

/// Generous bound for one discover of a 64 KiB query in a debug build on a loaded machine.
const BOUND: Duration = Duration::from_secs(3);

const PROFILES: [&str; 2] = ["reference", "enhanced"];

const TOOLS: &str = r#"[
  {"name": "describe_image", "description": "Describe the contents of an image: objects, colors and text in the picture.", "parameters": {"type": "object", "properties": {"image": {"type": "string", "description": "Base64-encoded image data"}}}},
  {"name": "report_bug", "description": "File a bug report for a crash or exception, with its stack trace.", "parameters": {"type": "object", "properties": {"title": {}, "trace": {}}}},
  {"name": "validate_json", "description": "Validate a JSON document against a JSON schema.", "parameters": {"type": "object", "properties": {"document": {}, "schema": {}}}},
  {"name": "fetch_url", "description": "Fetch a web page by its URL and return the text.", "parameters": {"type": "object", "properties": {"url": {}}}},
  {"name": "查询天气", "description": "查询城市的天气预报和气温", "parameters": {"type": "object", "properties": {"城市": {}}}},
  {"name": "read_file", "description": "Read a file from disk.", "parameters": {"type": "object", "properties": {"path": {}}}},
  {"name": "send_email", "description": "Send an email to someone.", "metadata": {"defer": true}}
]"#;

struct Lib {
    r: *mut tr_registry,
}

impl Drop for Lib {
    fn drop(&mut self) {
        unsafe { tr_registry_free(self.r) };
    }
}

impl Lib {
    fn new(profile: &str) -> Lib {
        let options = format!(r#"{{"discovery": {{"profile": "{profile}"}}}}"#);
        let (r, _) = new_registry_with(Some(&options), TOOLS);
        Lib { r }
    }

    fn register(&self, json: &str) {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let status =
            unsafe { tr_registry_register(self.r, cstr(json).as_ptr(), &mut out, &mut err) };
        check(status, &mut err).unwrap();
        take(out);
    }

    /// The answer's names, from a standalone discoverer of `profile` and from `discover_tools`
    /// (the registry's discovery uses the same profile), which must agree.
    fn discover(&self, profile: &str, query: &str) -> Vec<String> {
        let (mut d, mut out, mut err) = (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        let options = cstr(&format!(r#"{{"profile": "{profile}"}}"#));
        check(
            unsafe { tr_discoverer_new(self.r, options.as_ptr(), &mut d, &mut err) },
            &mut err,
        )
        .unwrap();
        let start = Instant::now();
        let status = unsafe {
            tr_discoverer_discover(d, cstr(query).as_ptr(), ptr::null(), &mut out, &mut err)
        };
        let took = start.elapsed();
        unsafe { tr_discoverer_free(d) };
        if let Err((status, msg)) = check(status, &mut err) {
            panic!("{profile}: {status}: {msg}");
        }
        assert!(took < BOUND, "{profile}: took {took:?}");
        let direct = take(out);
        let args = serde_json::json!({ "query": query }).to_string();
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let status = unsafe {
            tr_registry_call(
                self.r,
                c"discover_tools".as_ptr(),
                cstr(&args).as_ptr(),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err).unwrap();
        assert_eq!(take(out), direct, "{profile}: discover_tools disagrees");
        let hits: Vec<serde_json::Value> = serde_json::from_str(&direct).unwrap();
        hits.iter()
            .map(|h| h["name"].as_str().unwrap().to_string())
            .collect()
    }

    fn explain(&self, profile: &str, query: &str, tool: &str) -> serde_json::Value {
        let options = format!(r#"{{"profile": "{profile}"}}"#);
        explain_json(self.r, Some(&options), query, tool)
    }
}

/// `n` characters of base64 (the standard alphabet, as a PNG's bytes would give).
fn base64(rng: &mut Rng, n: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..n).map(|_| ALPHABET[rng.below(64)] as char).collect()
}

fn hex(rng: &mut Rng, n: usize) -> String {
    (0..n)
        .map(|_| b"0123456789abcdef"[rng.below(16)] as char)
        .collect()
}

fn base64_image_query() -> String {
    let mut rng = Rng(0x5eed_1234);
    format!(
        "describe this image data:image/png;base64,{} what colors",
        base64(&mut rng, 18 * 1024)
    )
}

fn stack_trace_query() -> String {
    let mut q = String::from(
        "file a bug report for this crash:\nException in thread \"main\" java.lang.NullPointerException: Cannot invoke \"String.length()\"\n",
    );
    for i in 0..300 {
        q.push_str(&format!(
            "\tat com.example.service.v{i}.OrderProcessingServiceImpl.handleIncomingRequest$lambda$0(OrderProcessingServiceImpl.java:{})\n",
            100 + i
        ));
    }
    q
}

fn minified_json_query() -> String {
    let mut rng = Rng(0xabcdef);
    let items: Vec<serde_json::Value> = (0..250)
        .map(|i| {
            serde_json::json!({
                "userId": format!("{}-{}-{}-{}-{}", hex(&mut rng, 8), hex(&mut rng, 4), hex(&mut rng, 4), hex(&mut rng, 4), hex(&mut rng, 12)),
                "createdAtUtcMs": 1_700_000_000_000u64 + i,
                "sessionTokenSha256": hex(&mut rng, 64),
                "tags": ["a1B2c3", "xYz_9Q"],
            })
        })
        .collect();
    format!(
        "validate this json document against the schema {}",
        serde_json::Value::Array(items)
    )
}

fn long_url_query() -> String {
    let mut rng = Rng(0x77);
    let mut url = String::from("https://www.example.com/search/results?q=rust+tool+search");
    for i in 0..60 {
        url.push_str(&format!(
            "&utm_param{i}={}&sig{i}={}",
            base64(&mut rng, 40),
            hex(&mut rng, 40)
        ));
    }
    format!("fetch the page at {url} and give me its text")
}

/// About 10 KB of CJK text, the question first.
fn cjk_query() -> String {
    let mut rng = Rng(0x4e00);
    let mut q = String::from("查询北京的天气预报。");
    while q.len() < 10 * 1024 {
        let c = char::from_u32(0x4E00 + rng.below(0x5000) as u32).unwrap();
        q.push(c);
    }
    q
}

#[test]
fn monster_queries_get_answers_in_both_profiles() {
    let cases: [(&str, String, &str); 5] = [
        ("18 KB base64 image", base64_image_query(), "describe_image"),
        ("stack trace", stack_trace_query(), "report_bug"),
        ("minified JSON", minified_json_query(), "validate_json"),
        ("long URL", long_url_query(), "fetch_url"),
        ("10 KB of CJK", cjk_query(), "查询天气"),
    ];
    for profile in PROFILES {
        let lib = Lib::new(profile);
        for (what, query, expected) in &cases {
            assert!(
                query.len() <= MAX_QUERY_BYTES,
                "{what}: {} bytes",
                query.len()
            );
            let names = lib.discover(profile, query);
            assert_eq!(
                names.first().map(String::as_str),
                Some(*expected),
                "{profile}, {what}: {names:?}"
            );
        }
    }
}

/// Identifier splitting leaves opaque tokens whole: the 18 KB base64 query stays well under the
/// token limit in the enhanced profile (it was 10,269 tokens, and refused), no more than the
/// reference's count plus the split words.
#[test]
fn splitting_never_multiplies_a_blob() {
    let lib = Lib::new("enhanced");
    let query = base64_image_query();
    let reference = lib.explain("reference", &query, "describe_image");
    let enhanced = lib.explain("enhanced", &query, "describe_image");
    let count = |e: &serde_json::Value| e["analyzed_token_count"].as_u64().unwrap() as usize;
    assert!(
        count(&reference) < MAX_QUERY_TOKENS,
        "{}",
        count(&reference)
    );
    assert!(
        count(&enhanced) <= count(&reference) + toolregistry::analyzer::SPLIT_BUDGET_PER_CHUNK,
        "enhanced {} tokens, reference {}",
        count(&enhanced),
        count(&reference)
    );
    assert_eq!(enhanced["truncated"], serde_json::Value::Null);
    // The words after the blob are analyzed and scored too.
    let last =
        |e: &serde_json::Value| e["tokens"].as_array().unwrap().last().unwrap()["token"].clone();
    assert_eq!(last(&reference), "colors");
    assert_eq!(last(&enhanced), "color");
    assert_eq!(enhanced["tool"]["rank"], 1);
}

/// Over `TR_MAX_QUERY_TOKENS`, the first tokens are used and explain says so.
#[test]
fn queries_over_the_token_limit_use_the_first_tokens_and_say_so() {
    for profile in PROFILES {
        let lib = Lib::new(profile);
        let query = format!("send email {}", "zq ".repeat(5000));
        assert_eq!(lib.discover(profile, &query)[0], "send_email", "{profile}");
        let e = lib.explain(profile, &query, "send_email");
        assert_eq!(e["analyzed_token_count"], 5002, "{profile}");
        assert_eq!(e["tokens"].as_array().unwrap().len(), MAX_QUERY_TOKENS);
        let note = e["truncated"].as_str().unwrap();
        assert!(
            note.contains("5002 tokens") && note.contains("first 1024"),
            "{note}"
        );
        // Words past the limit are not seen.
        let late = format!("{}send email", "zq ".repeat(MAX_QUERY_TOKENS));
        assert!(lib.discover(profile, &late).is_empty(), "{profile}");
    }
}

/// Tool text carrying blobs registers in both profiles and is found by its words.
#[test]
fn tools_carrying_blobs_register_and_are_found() {
    let mut rng = Rng(0x1357);
    let blob = base64(&mut rng, 200 * 1024);
    let tool = serde_json::json!({
        "name": "upload_avatar",
        "description": format!("Upload a profile avatar picture. Example payload: {blob} {}", stack_trace_query()),
        "metadata": {"search_hint": long_url_query()},
    })
    .to_string();
    for profile in PROFILES {
        let lib = Lib::new(profile);
        lib.register(&tool);
        assert_eq!(
            lib.discover(profile, "upload avatar picture")[0],
            "upload_avatar",
            "{profile}"
        );
    }
}
