//! Fixtures and oracles shared by the fuzz targets.
//!
//! Every target checks more than "no panic": outputs must be valid JSON, rankings sorted with
//! finite positive scores, errors of the kinds the contract allows, and failed calls must leave the
//! registry unchanged.

use std::sync::OnceLock;
use toolregistry::{Error, Hit, Registry, SchemaOptions};

/// A small catalog in every accepted shape, with namespaces, tags, hints, deferred tools and CJK.
pub const FIXTURE: &str = r#"[
  {"name": "read_file", "description": "Read a file from disk. Returns its text.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}, "metadata": {"tags": ["file_system", "read_only"]}},
  {"type": "function", "function": {"name": "send_email", "description": "Send an email message.", "parameters": {"type": "object", "properties": {"to": {}, "body": {}}}}, "metadata": {"defer": true, "tags": ["network"], "search_hint": "mail smtp"}},
  {"type": "function", "name": "convert_currency", "description": "Convert an amount between currencies!", "parameters": {"type": "object", "properties": {"amount": {}, "from": {}, "to": {}}}, "metadata": {"defer": true}},
  {"name": "list_issues", "namespace": "github", "description": "List issues in a repository.", "input_schema": {"type": "object", "properties": {"repo": {}}}, "metadata": {"defer": true}},
  {"name": "create_issue", "namespace": "github", "description": "Create an issue? Yes.", "inputSchema": {"type": "object", "properties": {"title": {}}}},
  {"name": "weather_query", "description": "查询天气预报。返回温度", "metadata": {"defer": true, "tags": ["天气"], "search_hint": "forecast 天気"}},
  {"name": "delete-user", "description": "Delete a user account permanently.", "metadata": {"tags": ["destructive", "privileged"]}},
  {"name": "web/search", "description": "Search the web for pages.", "metadata": {"defer": true, "tags": ["network", "slow"]}}
]"#;

/// Queries every target that ranks runs against its registry.
pub const QUERIES: &[&str] = &[
    "read file",
    "email someone",
    "github issues",
    "天气查询",
    "web_search",
    "Read-File",
    "the a of",
    "delete user account",
];

/// A fresh registry holding [`FIXTURE`], with discovery enabled.
pub fn fixture_registry() -> Registry {
    let registry = Registry::from_options_json(Some(r#"{"discovery": {}}"#)).unwrap();
    registry.register_json(FIXTURE).unwrap();
    registry
}

/// A shared read-only fixture, for targets that never mutate it.
pub fn shared_fixture() -> &'static Registry {
    static FIXTURE_REGISTRY: OnceLock<Registry> = OnceLock::new();
    FIXTURE_REGISTRY.get_or_init(fixture_registry)
}

/// Panics unless `text` is valid JSON; returns it parsed.
pub fn assert_json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("output is not JSON ({e}): {text:.200}"))
}

/// Panics unless a ranking is well formed: finite positive scores, best first, no name twice.
pub fn assert_ranking(hits: &[Hit]) {
    for h in hits {
        assert!(
            h.score.is_finite() && h.score > 0.0,
            "bad score {}",
            h.score
        );
        if let Some(schema) = &h.schema {
            assert_json(schema);
        }
    }
    for w in hits.windows(2) {
        assert!(w[0].score >= w[1].score, "not best first");
    }
    let mut names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    names.sort_unstable();
    let before = names.len();
    names.dedup();
    assert_eq!(before, names.len(), "a tool listed twice");
}

/// Everything observable about a registry, to prove a failed call changed nothing.
pub fn snapshot(registry: &Registry) -> String {
    let schemas = registry.schemas_json(&SchemaOptions::default()).unwrap();
    let summaries = registry.deferred_summaries_json().unwrap();
    let hits: Vec<String> = QUERIES
        .iter()
        .map(|q| {
            registry
                .call_json(
                    "discover_tools",
                    &serde_json::json!({"query": q}).to_string(),
                )
                .unwrap_or_else(|e| format!("{e}"))
        })
        .collect();
    format!("{schemas}\n{summaries}\n{}", hits.join("\n"))
}

/// Panics on error kinds an input can never legitimately cause (a broken invariant).
pub fn assert_input_error(e: &Error) {
    assert!(!matches!(e, Error::Internal(_)), "internal error: {e}");
    assert!(!e.to_string().is_empty());
}
