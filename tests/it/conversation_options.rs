//! Conversation options: the budget of the deferred-tool list (`summary_max_tokens`: a catalog of
//! thousands of deferred tools must not put thousands of lines in every request), and options
//! built in Rust checked like parsed ones.

use serde_json::Value;
use toolregistry::{Conversation, Registry};

const HEADER: &str = "Tools available on demand (call discover_tools for the full schema):\n";

fn deferred_registry(n: usize) -> Registry {
    let registry = Registry::new();
    let tools: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"name": "tool_{i:04}", "description": "Operation number {i} on widgets of every kind. More words follow.", "metadata": {{"defer": true}}}}"#
            )
        })
        .collect();
    registry
        .register_json(&format!("[{}]", tools.join(",")))
        .unwrap();
    registry.enable_discovery_json(None).unwrap();
    registry
}

fn answer(registry: &Registry, options: &str) -> Value {
    let c = Conversation::from_json(registry, Some(options)).unwrap();
    serde_json::from_str(&c.tools_json().unwrap()).unwrap()
}

/// The listed lines and the count of the "... and N more" line (0 when the list is whole).
fn parse_list(list: &str) -> (Vec<&str>, usize) {
    let mut lines: Vec<&str> = list.lines().collect();
    let omitted = match lines.last().and_then(|l| l.strip_prefix("- ... and ")) {
        Some(rest) => {
            let n = rest.split(' ').next().unwrap().parse().unwrap();
            assert_eq!(rest, format!("{n} more (call discover_tools to find them)"));
            lines.pop();
            n
        }
        None => 0,
    };
    (lines, omitted)
}

fn tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

#[test]
fn stable_mode_cuts_a_long_list_at_the_default_budget() {
    let registry = deferred_registry(1000);
    let a = answer(&registry, r#"{"mode": "stable"}"#);
    let list = a["system_text"]
        .as_str()
        .unwrap()
        .strip_prefix(HEADER)
        .unwrap();
    assert!(tokens(list) <= 2000, "{} tokens", tokens(list));
    let (lines, omitted) = parse_list(list);
    assert!(lines.len() > 50 && omitted > 0);
    assert_eq!(lines.len() + omitted, 1000);
    // Registration order, whole lines only.
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(
            *line,
            format!("- tool_{i:04}: Operation number {i} on widgets of every kind.")
        );
    }
    // The list is full: one more line would not have fit with the count line.
    let next = format!(
        "\n- tool_{:04}: Operation number {} on widgets of every kind.",
        lines.len(),
        lines.len()
    );
    let full = format!(
        "{}{next}\n- ... and {} more (call discover_tools to find them)",
        lines.join("\n"),
        omitted - 1
    );
    assert!(tokens(&full) > 2000);
}

#[test]
fn a_list_under_the_budget_is_whole_and_summaries_mode_lists_everything_by_default() {
    let registry = deferred_registry(40);
    let a = answer(&registry, r#"{"mode": "stable"}"#);
    let (lines, omitted) = parse_list(
        a["system_text"]
            .as_str()
            .unwrap()
            .strip_prefix(HEADER)
            .unwrap(),
    );
    assert_eq!((lines.len(), omitted), (40, 0));

    // The reference lists every deferred tool in discover_tools' description.
    let registry = deferred_registry(1000);
    let a = answer(&registry, r#"{"mode": "summaries"}"#);
    let description = a["tools"][0]["function"]["description"].as_str().unwrap();
    let list = description.split_once(HEADER).unwrap().1;
    let (lines, omitted) = parse_list(list);
    assert_eq!((lines.len(), omitted), (1000, 0));
}

#[test]
fn an_explicit_budget_applies_in_every_listing_mode() {
    let registry = deferred_registry(300);
    for (options, budget) in [
        (r#"{"mode": "stable", "summary_max_tokens": 100}"#, 100),
        (
            r#"{"mode": "auto", "defer_threshold_tokens": 10, "summary_max_tokens": 250}"#,
            250,
        ),
        (r#"{"mode": "stable", "summary_max_tokens": null}"#, 2000),
    ] {
        let a = answer(&registry, options);
        let list = a["system_text"]
            .as_str()
            .unwrap()
            .strip_prefix(HEADER)
            .unwrap();
        let (lines, omitted) = parse_list(list);
        assert!(tokens(list) <= budget, "{options}: {} tokens", tokens(list));
        assert_eq!(lines.len() + omitted, 300, "{options}");
        assert!(omitted > 0, "{options}");
    }
    // summaries mode: both built-ins' descriptions are cut the same way.
    let a = answer(
        &registry,
        r#"{"mode": "summaries", "summary_max_tokens": 120}"#,
    );
    for tool in a["tools"].as_array().unwrap() {
        let d = tool["function"]["description"].as_str().unwrap();
        let list = d
            .split_once(":\n- ")
            .map(|(_, l)| format!("- {l}"))
            .unwrap();
        let (lines, omitted) = parse_list(&list);
        assert!(tokens(&list) <= 120);
        assert_eq!(lines.len() + omitted, 300);
    }
    // A budget of 0 keeps only the count.
    let a = answer(&registry, r#"{"mode": "stable", "summary_max_tokens": 0}"#);
    assert_eq!(
        a["system_text"],
        format!("{HEADER}- ... and 300 more (call discover_tools to find them)")
    );
}

#[test]
fn a_new_deferred_tool_past_the_cut_changes_only_the_count() {
    let registry = deferred_registry(500);
    let c = Conversation::from_json(&registry, Some(r#"{"mode": "stable"}"#)).unwrap();
    let before: Value = serde_json::from_str(&c.tools_json().unwrap()).unwrap();
    registry
        .register_json(r#"{"name": "zz_new", "description": "New.", "metadata": {"defer": true}}"#)
        .unwrap();
    let after: Value = serde_json::from_str(&c.tools_json().unwrap()).unwrap();
    assert_eq!(before["tools"], after["tools"]);
    assert_ne!(before["fingerprint"], after["fingerprint"]);
    let count = |v: &Value| parse_list(v["system_text"].as_str().unwrap()).1;
    assert_eq!(count(&after), count(&before) + 1);
}

#[test]
fn a_bad_budget_is_refused() {
    let registry = deferred_registry(3);
    for bad in [
        r#"{"summary_max_tokens": -1}"#,
        r#"{"summary_max_tokens": "10"}"#,
        r#"{"summary_max_tokens": 1.5}"#,
    ] {
        let err = Conversation::from_json(&registry, Some(bad)).err().unwrap();
        assert!(
            err.to_string().contains("options.summary_max_tokens"),
            "{bad}: {err}"
        );
    }
}

#[test]
fn options_built_in_rust_are_checked_like_parsed_ones() {
    use toolregistry::{ApiFormat, ConversationOptions, conversation::Mode};
    let registry = deferred_registry(3);
    for (format, mode, strict) in [
        (ApiFormat::OpenAiChat, Mode::Native, false),
        (ApiFormat::Gemini, Mode::Native, false),
        (ApiFormat::Anthropic, Mode::Stable, true),
    ] {
        let options = ConversationOptions {
            api_format: format,
            mode,
            strict,
            ..ConversationOptions::default()
        };
        let err = Conversation::new(&registry, options).err().unwrap();
        assert!(
            err.to_string().contains("options."),
            "{format:?} {mode:?}: {err}"
        );
    }
}

#[test]
fn searches_answer_in_the_conversation_format_whatever_the_request_says() {
    use toolregistry::{ApiFormat, ConversationOptions, ExecuteOptions};
    let registry = deferred_registry(3);
    let options = ConversationOptions {
        api_format: ApiFormat::Anthropic,
        ..ConversationOptions::default()
    };
    let c = Conversation::new(&registry, options).unwrap();
    let calls = r#"{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"discover_tools","input":{"query":"tool_0001"}}]}"#;
    let reply = c.execute_json(calls, &ExecuteOptions::default()).unwrap();
    // The found tool's schema is an Anthropic tool (input_schema), not OpenAI chat's shape.
    assert!(reply.contains(r#"\"input_schema\""#), "{reply}");
    assert!(!reply.contains(r#"\"type\":\"function\""#), "{reply}");
}
