//! Intents through the public API (issue 42): a query that asks for two things gets a tool for
//! each, each hit says which need it answers, `"intents": false` ranks the query as one need, and
//! `explain` names the needs. The splitter and the merge have unit tests beside their code
//! (`src/discovery/intents.rs`, `src/discovery/fuse.rs`); here the stages run together.

use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};

/// Five currency tools crowd a whole-query ranking of the two-need query below; one weather tool.
const TOOLS: &str = r#"[
  {"name": "convert_currency", "description": "Convert an amount of money from one currency to another, such as dollars to euros."},
  {"name": "currency_rates", "description": "Exchange rates between currencies: dollars, euros, pounds and yen."},
  {"name": "money_exchange", "description": "Exchange money: convert dollars into euros or any currency."},
  {"name": "forex_quote", "description": "Live forex quote to convert currency amounts, dollars and euros."},
  {"name": "currency_history", "description": "Historical currency exchange rates for dollars, euros and more."},
  {"name": "weather_forecast", "description": "The current weather and forecast for a city."}
]"#;

/// Unrelated tools, so that the words of the query are rare in the catalog.
fn filler() -> String {
    let things = [
        "email",
        "file",
        "calendar",
        "invoice",
        "ticket",
        "photo",
        "song",
        "recipe",
        "contact",
        "note",
        "repository",
        "printer",
        "database",
        "playlist",
        "package",
        "meeting",
        "document",
        "spreadsheet",
    ];
    let tools: Vec<String> = things
        .iter()
        .map(|t| {
            format!(r#"{{"name": "manage_{t}", "description": "Create, list and delete a {t}."}}"#)
        })
        .collect();
    format!("[{}]", tools.join(","))
}

const QUERY: &str = "convert 100 dollars to euros and then tell me the weather in Paris";

fn registry() -> Registry {
    let r = Registry::new();
    r.register_json(TOOLS).unwrap();
    r.register_json(&filler()).unwrap();
    r
}

fn top(k: usize) -> DiscoverRequest {
    DiscoverRequest {
        top_k: k,
        ..DiscoverRequest::default()
    }
}

fn options(json: &str) -> DiscoveryOptions {
    DiscoveryOptions::from_json(Some(json)).unwrap()
}

#[test]
fn each_need_has_a_tool_in_the_first_places_and_says_which_need() {
    let r = registry();
    let hits = r
        .discoverer(options("{}"))
        .discover(QUERY, &top(3))
        .unwrap();
    let names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    assert!(names.contains(&"weather_forecast"), "{names:?}");
    assert!(
        names
            .iter()
            .any(|n| n.contains("currency") || n.contains("money") || n.contains("forex"))
    );
    let weather = hits.iter().find(|h| h.name == "weather_forecast").unwrap();
    assert_eq!(
        weather.intent.as_deref(),
        Some("tell me the weather in Paris")
    );
    let first = &hits[0];
    assert_eq!(
        first.intent.as_deref(),
        Some("convert 100 dollars to euros"),
        "{first:?}"
    );
    let json: serde_json::Value = serde_json::from_str(
        &r.discoverer(options("{}"))
            .discover_json(QUERY, &top(3))
            .unwrap(),
    )
    .unwrap();
    let intents: Vec<&str> = json
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|h| h["intent"].as_str())
        .collect();
    assert!(intents.contains(&"tell me the weather in Paris"), "{json}");
}

#[test]
fn intents_false_ranks_the_query_as_one_need() {
    let r = registry();
    let hits = r
        .discoverer(options(r#"{"intents": false}"#))
        .discover(QUERY, &top(3))
        .unwrap();
    assert!(hits.iter().all(|h| h.intent.is_none()), "{hits:?}");
    // The currency tools crowd the first places of the whole query's ranking.
    assert!(
        !hits.iter().any(|h| h.name == "weather_forecast"),
        "{hits:?}"
    );
    let json = r
        .discoverer(options(r#"{"intents": false}"#))
        .discover_json(QUERY, &top(3))
        .unwrap();
    assert!(!json.contains("\"intent\""), "{json}");
    let wrong = DiscoveryOptions::from_json(Some(r#"{"intents": "no"}"#)).unwrap_err();
    assert!(wrong.to_string().contains("intents"), "{wrong}");
}

#[test]
fn a_single_need_query_has_no_intents() {
    let r = registry();
    let hits = r
        .discoverer(options("{}"))
        .discover("convert dollars to euros", &top(5))
        .unwrap();
    assert_eq!(hits[0].name, "convert_currency");
    assert!(hits.iter().all(|h| h.intent.is_none()), "{hits:?}");
}

#[test]
fn explain_names_the_needs_and_the_tools_need() {
    let r = registry();
    let d = r.discoverer(options("{}"));
    let e = d.explain(QUERY, "weather_forecast", &top(3)).unwrap();
    let texts: Vec<&str> = e.intents.iter().map(|i| i.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "convert 100 dollars to euros",
            "tell me the weather in Paris"
        ]
    );
    assert_eq!(
        e.tool.intent.as_deref(),
        Some("tell me the weather in Paris")
    );
    let json: serde_json::Value = serde_json::from_str(&e.to_json()).unwrap();
    assert_eq!(json["intents"].as_array().map(Vec::len), Some(2), "{json}");
    let off = r.discoverer(options(r#"{"intents": false}"#));
    assert!(
        off.explain(QUERY, "weather_forecast", &top(3))
            .unwrap()
            .intents
            .is_empty()
    );
}

#[test]
fn strange_queries_stay_cheap_and_answer() {
    let r = registry();
    let d = r.discoverer(options("{}"));
    let many_ands = "convert dollars to euros and ".repeat(1000);
    assert!(many_ands.len() < 64 * 1024);
    let hits = d.discover(&many_ands, &top(5)).unwrap();
    assert!(!hits.is_empty());
    // At most MAX_INTENTS needs, each the same words: every hit's need is one of them.
    assert!(hits.iter().all(|h| {
        h.intent
            .as_deref()
            .is_none_or(|i| i == "convert dollars to euros")
    }));
    let only_stop_words = "the and of to and then a an also the";
    assert!(
        d.discover(only_stop_words, &top(5))
            .unwrap()
            .iter()
            .all(|h| h.intent.is_none())
    );
    let big = "weather ".repeat(18 * 1024 / 8);
    assert!(!d.discover(&big, &top(5)).unwrap().is_empty());
}
