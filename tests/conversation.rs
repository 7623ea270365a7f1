//! Conversations: the conformance corpus of native replies (`tests/conformance/conversation/`,
//! hand-written, byte for byte) through the Rust API and the C ABI; the scripted conversation that
//! holds each provider and mode to its prompt-cache contract; the search token budget over the
//! public eval sets.
#![allow(unsafe_code)]

mod common;

use common::{check, cstr, take};
use serde_json::Value;
use serde_json::value::RawValue;
use std::path::PathBuf;
use std::sync::Arc;
use toolregistry::ffi::*;
use toolregistry::{
    Conversation, ConversationOptions, DiscoverRequest, DiscoveryOptions, ExecuteOptions, HostFn,
    Registry, Tool,
};

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/conformance/conversation")
}

fn read(path: PathBuf) -> String {
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim_end()
        .to_string()
}

/// A case's `tools.json` (the `tools_json` answer after its calls ran), when it has one.
fn read_tools(case: &std::path::Path) -> Option<String> {
    let path = case.join("tools.json");
    path.exists().then(|| read(path))
}

fn cases() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    out.sort();
    assert!(out.len() >= 8);
    out
}

fn fixture_registry() -> Registry {
    let f: Value = serde_json::from_str(&read(corpus().join("fixture.json"))).unwrap();
    let registry = Registry::new();
    for entry in f["tools"].as_array().unwrap() {
        let tool = Tool::parse_many(&entry["tool"].to_string())
            .unwrap()
            .remove(0);
        let host: HostFn = Arc::new(|name: &str, args: &str| Ok(format!("{name} <- {args}")));
        registry.register_host(tool, host).unwrap();
    }
    registry
        .enable_discovery_json(Some(&f["discovery"].to_string()))
        .unwrap();
    registry
}

#[test]
fn native_replies_through_the_rust_api() {
    let mut failures = Vec::new();
    for case in cases() {
        let registry = fixture_registry();
        let c = Conversation::from_json(&registry, Some(&read(case.join("options.json")))).unwrap();
        let got = c
            .execute_json(&read(case.join("calls.json")), &ExecuteOptions::default())
            .unwrap();
        let want = read(case.join("expected.json"));
        if got != want {
            failures.push(format!("{}\n  want {want}\n  got  {got}", case.display()));
        }
        assert_eq!(
            c.loaded_json().unwrap(),
            read(case.join("loaded.json")),
            "{}",
            case.display()
        );
        if let Some(want) = read_tools(&case) {
            let got = c.tools_json().unwrap();
            if got != want {
                failures.push(format!(
                    "{} tools\n  want {want}\n  got  {got}",
                    case.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

unsafe extern "C" fn echo(
    _: *mut std::ffi::c_void,
    name: *const std::ffi::c_char,
    args: *const std::ffi::c_char,
    call: *mut tr_call,
) {
    let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_str().unwrap();
    let args = unsafe { std::ffi::CStr::from_ptr(args) }.to_str().unwrap();
    unsafe { tr_call_return(call, cstr(&format!("{name} <- {args}")).as_ptr()) };
}

#[test]
fn native_replies_through_the_c_abi() {
    native_replies_c(false);
}

/// The same corpus with the host running the calls itself: prepare, echo each host call, finish.
#[test]
fn native_replies_through_prepare_and_finish() {
    native_replies_c(true);
}

fn native_replies_c(two_steps: bool) {
    let f: Value = serde_json::from_str(&read(corpus().join("fixture.json"))).unwrap();
    for case in cases() {
        let mut err = std::ptr::null_mut();
        let mut r = std::ptr::null_mut();
        check(
            unsafe { tr_registry_new(std::ptr::null(), &mut r, &mut err) },
            &mut err,
        )
        .unwrap();
        for entry in f["tools"].as_array().unwrap() {
            let mut names = std::ptr::null_mut();
            let json = cstr(&entry["tool"].to_string());
            check(
                unsafe {
                    tr_registry_register_callable(
                        r,
                        json.as_ptr(),
                        Some(echo),
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
        let discovery = cstr(&f["discovery"].to_string());
        check(
            unsafe { tr_registry_enable_discovery(r, discovery.as_ptr(), &mut err) },
            &mut err,
        )
        .unwrap();
        let options = cstr(&read(case.join("options.json")));
        let mut c = std::ptr::null_mut();
        check(
            unsafe { tr_conversation_new(r, options.as_ptr(), &mut c, &mut err) },
            &mut err,
        )
        .unwrap();
        // The conversation outlives the registry handle.
        unsafe { tr_registry_free(r) };
        let calls = cstr(&read(case.join("calls.json")));
        let mut out = std::ptr::null_mut();
        if two_steps {
            let mut plan = std::ptr::null_mut();
            check(
                unsafe {
                    tr_conversation_prepare_calls(
                        c,
                        calls.as_ptr(),
                        std::ptr::null(),
                        &mut plan,
                        &mut err,
                    )
                },
                &mut err,
            )
            .unwrap();
            let plan = take(plan);
            let parsed: Value = serde_json::from_str(&plan).unwrap();
            let results: Vec<Value> = parsed["calls"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["run"] == "host")
                .map(|c| {
                    let args = serde_json::to_string(&c["arguments"]).unwrap();
                    serde_json::json!({"id": c["id"],
                        "content": format!("{} <- {args}", c["name"].as_str().unwrap())})
                })
                .collect();
            let (plan, results) = (cstr(&plan), cstr(&Value::Array(results).to_string()));
            check(
                unsafe {
                    tr_conversation_finish_calls(
                        c,
                        plan.as_ptr(),
                        results.as_ptr(),
                        &mut out,
                        &mut err,
                    )
                },
                &mut err,
            )
            .unwrap();
        } else {
            check(
                unsafe {
                    tr_conversation_execute(c, calls.as_ptr(), std::ptr::null(), &mut out, &mut err)
                },
                &mut err,
            )
            .unwrap();
        }
        assert_eq!(
            take(out),
            read(case.join("expected.json")),
            "{}",
            case.display()
        );
        check(
            unsafe { tr_conversation_loaded(c, &mut out, &mut err) },
            &mut err,
        )
        .unwrap();
        assert_eq!(
            take(out),
            read(case.join("loaded.json")),
            "{}",
            case.display()
        );
        check(
            unsafe { tr_conversation_tools(c, &mut out, &mut err) },
            &mut err,
        )
        .unwrap();
        let tools_text = take(out);
        if let Some(want) = read_tools(&case) {
            assert_eq!(tools_text, want, "{} tools", case.display());
        }
        let tools: Value = serde_json::from_str(&tools_text).unwrap();
        assert_eq!(tools["fingerprint"].as_str().unwrap().len(), 64);
        unsafe { tr_conversation_free(c) };
    }
}

/// The `tools` array's bytes (Gemini: the declarations array inside its one `Tool`) and the
/// whole answer of one `tools_json`.
struct Request {
    tools: String,
    system_text: String,
    fingerprint: String,
}

fn request(c: &Conversation) -> Request {
    #[derive(serde::Deserialize)]
    struct Answer<'a> {
        #[serde(borrow)]
        tools: &'a RawValue,
        system_text: String,
        fingerprint: String,
    }
    let text = c.tools_json().unwrap();
    let a: Answer = serde_json::from_str(&text).unwrap();
    // Gemini's request `tools` is one `Tool` around the declarations: the contract holds for the
    // declarations inside it.
    let tools = a.tools.get();
    let tools = match tools.strip_prefix("[{\"functionDeclarations\":") {
        Some(inner) => inner
            .strip_suffix("}]")
            .expect("one Tool object")
            .to_string(),
        None => tools.to_string(),
    };
    Request {
        tools,
        system_text: a.system_text,
        fingerprint: a.fingerprint,
    }
}

/// Whether `next`'s tools array extends `prev`'s (the same elements, maybe more after them).
fn extends(prev: &str, next: &str) -> bool {
    let p = &prev[..prev.len() - 1];
    next.starts_with(p)
        && (next.len() == prev.len() || p.len() == 1 || next.as_bytes()[p.len()] == b',')
}

fn deferred_tool(i: usize) -> String {
    format!(
        r#"{{"name": "tool_{i:02}", "description": "Operation number {i} on widgets.", "parameters": {{"type": "object", "properties": {{"n": {{"type": "integer"}}}}}}, "metadata": {{"defer": true}}}}"#
    )
}

/// Calls in each provider's shape: a search by exact name, and a direct call.
fn calls(format: &str, native: bool, search: &str, call: &str) -> String {
    match format {
        "openai-chat" => format!(
            r#"{{"role":"assistant","tool_calls":[{{"id":"a","type":"function","function":{{"name":"discover_tools","arguments":"{{\"query\":\"{search}\"}}"}}}},{{"id":"b","type":"function","function":{{"name":"{call}","arguments":"{{}}"}}}}]}}"#
        ),
        "openai-responses" if native => format!(
            r#"[{{"type":"tool_search_call","call_id":"s","execution":"client","arguments":{{"query":"{search}"}}}},{{"type":"function_call","call_id":"b","name":"{call}","arguments":"{{}}"}}]"#
        ),
        "openai-responses" => format!(
            r#"[{{"type":"function_call","call_id":"a","name":"discover_tools","arguments":"{{\"query\":\"{search}\"}}"}},{{"type":"function_call","call_id":"b","name":"{call}","arguments":"{{}}"}}]"#
        ),
        "anthropic" => format!(
            r#"{{"role":"assistant","content":[{{"type":"tool_use","id":"a","name":"discover_tools","input":{{"query":"{search}"}}}},{{"type":"tool_use","id":"b","name":"{call}","input":{{}}}}]}}"#
        ),
        _ => format!(
            r#"{{"role":"model","parts":[{{"functionCall":{{"name":"discover_tools","args":{{"query":"{search}"}}}}}},{{"functionCall":{{"name":"{call}","args":{{}}}}}}]}}"#
        ),
    }
}

#[test]
fn each_provider_and_mode_keeps_its_prompt_cache_contract() {
    let formats = ["openai-chat", "openai-responses", "anthropic", "gemini"];
    for format in formats {
        for mode in ["summaries", "stable", "native"] {
            let native = mode == "native";
            if native && !matches!(format, "anthropic" | "openai-responses") {
                let e = Conversation::from_json(
                    &Registry::new(),
                    Some(&format!(
                        r#"{{"api_format": "{format}", "mode": "native"}}"#
                    )),
                );
                assert!(e.is_err(), "{format} has no native deferral");
                continue;
            }
            let label = format!("{format}/{mode}");
            let registry = Registry::new();
            registry
                .register_json(r#"[{"name": "core_a", "description": "A core tool."}, {"name": "core_b", "description": "Another core tool."}]"#)
                .unwrap();
            let batch: Vec<String> = (0..50).map(deferred_tool).collect();
            registry
                .register_json(&format!("[{}]", batch.join(",")))
                .unwrap();
            registry
                .enable_discovery(DiscoveryOptions::reference())
                .unwrap();
            let echo: HostFn = Arc::new(|_: &str, _: &str| Ok("ok".into()));
            registry.set_fallback(Some(echo)).unwrap();
            let c = Conversation::from_json(
                &registry,
                Some(&format!(
                    r#"{{"api_format": "{format}", "mode": "{mode}"}}"#
                )),
            )
            .unwrap();
            let mut history = vec![request(&c)];
            let step = |history: &mut Vec<Request>, what: &str, may_break: bool| {
                let next = request(&c);
                let prev = history.last().unwrap();
                let same_bytes = prev.tools == next.tools && prev.system_text == next.system_text;
                assert_eq!(
                    same_bytes,
                    prev.fingerprint == next.fingerprint,
                    "{label} {what}: the fingerprint changes exactly when the bytes do"
                );
                if !may_break {
                    assert!(
                        extends(&prev.tools, &next.tools),
                        "{label} {what}: tools must only grow at the end"
                    );
                }
                history.push(next);
            };
            // The same state twice: the same bytes and fingerprint.
            step(&mut history, "asked again", false);
            // Search (loads tool_03), call two more deferred tools (load tool_10, then tool_20
            // through call_deferred where it exists).
            let out = c
                .execute_json(
                    &calls(format, native, "tool_03", "tool_10"),
                    &ExecuteOptions::default(),
                )
                .unwrap();
            assert!(!out.contains("Error"), "{label}: {out}");
            c.reveal(&["tool_20".to_string()]).unwrap();
            assert_eq!(
                c.loaded().unwrap(),
                ["tool_03", "tool_10", "tool_20"],
                "{label}"
            );
            step(&mut history, "after loading 3", false);
            let loaded_tools = &history.last().unwrap().tools;
            if mode != "native" {
                for t in ["tool_03", "tool_10", "tool_20"] {
                    assert!(
                        loaded_tools.contains(&format!("\"{t}\"")),
                        "{label}: {t} is in the list"
                    );
                }
                assert!(
                    !loaded_tools.contains("\"tool_04\""),
                    "{label}: unloaded tools stay out"
                );
            }
            // Ten more deferred tools.
            let more: Vec<String> = (50..60).map(deferred_tool).collect();
            registry
                .register_json(&format!("[{}]", more.join(",")))
                .unwrap();
            let before = history.last().unwrap().fingerprint.clone();
            step(
                &mut history,
                "after 10 more deferred tools",
                mode == "summaries",
            );
            let now = history.last().unwrap();
            assert_ne!(
                now.fingerprint, before,
                "{label}: the deferred list changed"
            );
            match mode {
                "stable" => assert_eq!(
                    now.tools,
                    history[history.len() - 2].tools,
                    "{label}: only system_text changes"
                ),
                "summaries" => assert!(
                    !extends(&history[history.len() - 2].tools, &now.tools),
                    "{label}: the description changed"
                ),
                _ => {}
            }
            // Disabling a loaded tool removes it (the one allowed break), enabling brings it back.
            registry.disable("tool_10", Some("maintenance")).unwrap();
            step(&mut history, "after disabling a loaded tool", true);
            assert!(
                !history.last().unwrap().tools.contains("\"tool_10\""),
                "{label}"
            );
            registry.set_enabled("tool_10", true).unwrap();
            step(&mut history, "after enabling it again", true);
            assert_eq!(
                history.last().unwrap().tools,
                history[history.len() - 3].tools,
                "{label}"
            );
        }
    }
}

#[test]
fn auto_sends_everything_below_the_threshold_and_defers_above() {
    let registry = Registry::new();
    registry
        .register_json(&format!(
            "[{}]",
            (0..5).map(deferred_tool).collect::<Vec<_>>().join(",")
        ))
        .unwrap();
    let small = Conversation::from_json(&registry, Some(r#"{"mode": "auto"}"#)).unwrap();
    let r = request(&small);
    assert!(r.tools.contains("tool_04") && !r.tools.contains("discover_tools"));
    let tight = Conversation::from_json(
        &registry,
        Some(r#"{"mode": "auto", "defer_threshold_tokens": 10}"#),
    )
    .unwrap();
    let r = request(&tight);
    assert!(!r.tools.contains("tool_04") && r.tools.contains("discover_tools"));
    assert!(
        r.system_text
            .contains("- tool_04: Operation number 4 on widgets.")
    );
}

#[test]
fn many_conversations_share_one_registry_and_keep_their_own_loads() {
    let registry = Registry::new();
    registry
        .register_json(&format!(
            "[{}]",
            (0..20).map(deferred_tool).collect::<Vec<_>>().join(",")
        ))
        .unwrap();
    let options = ConversationOptions::from_json(Some(r#"{"mode": "stable"}"#)).unwrap();
    let convs: Vec<Conversation> = (0..8)
        .map(|_| Conversation::new(&registry, options.clone()).unwrap())
        .collect();
    std::thread::scope(|s| {
        for (i, c) in convs.iter().enumerate() {
            s.spawn(move || {
                c.reveal(&[format!("tool_{i:02}")]).unwrap();
                for _ in 0..50 {
                    let r = request(c);
                    assert!(r.tools.contains(&format!("\"tool_{i:02}\"")));
                }
            });
        }
    });
    assert_eq!(convs[3].loaded().unwrap(), ["tool_03"]);
    let e = convs[0].reveal(&["nope".to_string()]).unwrap_err();
    assert!(e.to_string().contains("nope"));
}

#[test]
fn max_tokens_is_never_exceeded_over_the_public_eval_sets() {
    let eval = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/eval");
    for set in ["metatool", "apibench", "bfcl"] {
        let catalog = read(eval.join(set).join("catalog.json"));
        // Every tool deferred, so hits carry their schemas.
        let tools: Vec<Tool> = toolregistry::eval::parse_catalog(&catalog)
            .unwrap()
            .into_iter()
            .map(|t| {
                let meta = toolregistry::ToolMetadata {
                    defer: true,
                    ..t.metadata().clone()
                };
                t.with_metadata(meta)
            })
            .collect();
        let registry = Registry::new();
        registry.register(tools).unwrap();
        let d = registry.discoverer(DiscoveryOptions::default());
        let queries = read(eval.join(set).join("queries.jsonl"));
        let mut checked = 0;
        for (i, line) in queries.lines().enumerate() {
            // bfcl has 3,000 queries; every fifth keeps the debug-build test short.
            if set == "bfcl" && i % 5 != 0 {
                continue;
            }
            let q: Value = serde_json::from_str(line).unwrap();
            let query = q["query"].as_str().unwrap();
            let unlimited = d.discover(query, &DiscoverRequest::default()).unwrap();
            for max_tokens in [1usize, 40, 200, 1000] {
                let request = DiscoverRequest {
                    max_tokens: Some(max_tokens),
                    ..Default::default()
                };
                let answer = d.discover_json(query, &request).unwrap();
                let hits: Vec<Value> = serde_json::from_str(&answer).unwrap();
                let tokens = answer.len().div_ceil(4);
                if unlimited.is_empty() {
                    assert!(hits.is_empty());
                    continue;
                }
                assert_eq!(
                    hits[0]["name"],
                    unlimited[0].name.as_str(),
                    "{set} {query:?}: the top hit is always there"
                );
                assert!(
                    tokens <= max_tokens || hits.len() == 1,
                    "{set} {query:?} max_tokens {max_tokens}: {tokens} tokens in {} hits",
                    hits.len()
                );
                // Ranking order is kept, and a hit without its schema is never followed by one with it.
                let mut compact = false;
                for (h, u) in hits.iter().zip(&unlimited) {
                    assert_eq!(h["name"], u.name.as_str());
                    if h.get("schema").is_none() {
                        compact = true;
                    } else {
                        assert!(!compact, "{set} {query:?}: full after compact");
                    }
                }
                checked += 1;
            }
        }
        assert!(checked > 100, "{set}: {checked}");
    }
}

#[test]
fn a_search_loads_only_what_the_model_was_shown() {
    let registry = Registry::new();
    registry
        .register_json(&format!(
            "[{}]",
            (0..30).map(deferred_tool).collect::<Vec<_>>().join(",")
        ))
        .unwrap();
    let calls = r#"{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"discover_tools","arguments":"{\"query\":\"select:tool_00,tool_01,tool_02,tool_03,tool_04,tool_05,tool_06,tool_07,tool_08,tool_09\"}"}}]}"#;
    let full = Conversation::from_json(&registry, Some(r#"{"top_k": 10}"#)).unwrap();
    let first = full
        .execute_json(calls, &ExecuteOptions::default())
        .unwrap();
    assert_eq!(full.loaded().unwrap().len(), 10, "{first}");
    // Under a budget the answer stops early (one full hit, then summaries, then nothing): the
    // loaded tools are exactly the hits in the answer.
    let tight =
        Conversation::from_json(&registry, Some(r#"{"top_k": 10, "max_tokens": 120}"#)).unwrap();
    let out: Value = serde_json::from_str(
        &tight
            .execute_json(calls, &ExecuteOptions::default())
            .unwrap(),
    )
    .unwrap();
    let answer: Vec<Value> = serde_json::from_str(out[0]["content"].as_str().unwrap()).unwrap();
    let shown: Vec<String> = answer
        .iter()
        .map(|h| h["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!shown.is_empty() && shown.len() < 10, "{shown:?}");
    assert_eq!(tight.loaded().unwrap(), shown);
}

/// Loads keep the model's order across host calls and searches, whichever way the calls run; a
/// finish that fails loads nothing.
#[test]
fn two_steps_load_in_the_models_order_and_bad_input_loads_nothing() {
    let registry = Registry::new();
    let host: HostFn = Arc::new(|name: &str, _: &str| Ok(format!("ran {name}")));
    for (name, text) in [
        ("alpha_tool", "Alpha things."),
        ("beta_tool", "Beta weather forecast."),
    ] {
        let tool = Tool::parse_many(
            &serde_json::json!({"name": name, "description": text, "metadata": {"defer": true}})
                .to_string(),
        )
        .unwrap()
        .remove(0);
        registry.register_host(tool, host.clone()).unwrap();
    }
    registry.enable_discovery_json(None).unwrap();
    let calls = r#"[{"id":"1","type":"function","function":{"name":"alpha_tool","arguments":"{}"}},
                    {"id":"2","type":"function","function":{"name":"discover_tools","arguments":"{\"query\":\"beta weather forecast\"}"}}]"#;
    let options = ExecuteOptions::default();
    let executed = Conversation::from_json(&registry, None).unwrap();
    let want = executed.execute_json(calls, &options).unwrap();
    let stepped = Conversation::from_json(&registry, None).unwrap();
    let plan = stepped.prepare_json(calls, &options).unwrap();
    assert_eq!(
        stepped.loaded().unwrap(),
        Vec::<String>::new(),
        "prepare loads nothing"
    );
    let bad = stepped.finish_json(&plan, "[]");
    assert!(bad.is_err(), "a missing result is refused");
    assert_eq!(
        stepped.loaded().unwrap(),
        Vec::<String>::new(),
        "a refused finish loads nothing"
    );
    let got = stepped
        .finish_json(&plan, r#"[{"id":"1","content":"ran alpha_tool"}]"#)
        .unwrap();
    assert_eq!(got, want);
    assert_eq!(stepped.loaded().unwrap(), executed.loaded().unwrap());
    assert_eq!(stepped.loaded().unwrap(), ["alpha_tool", "beta_tool"]);
    // A failed host call loads nothing.
    let failed = Conversation::from_json(&registry, None).unwrap();
    let plan = failed
        .prepare_json(&calls.replace("discover_tools", "beta_tool"), &options)
        .unwrap();
    failed
        .finish_json(
            &plan,
            r#"[{"id":"1","error":"down"},{"id":"2","content":"ok"}]"#,
        )
        .unwrap();
    assert_eq!(failed.loaded().unwrap(), ["beta_tool"]);
}
