//! The built-in encoder with a real model (all-MiniLM-L6-v2 from scripts/fetch-model.sh): the
//! hybrid profile finds by meaning tools that word matching misses. Runs when
//! TOOLREGISTRY_TEST_MODEL_DIR names the model (scripts/test-parts/46-model.sh sets it); without
//! it each test says it did not run.

use std::time::Duration;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Profile, Registry};

fn model_dir() -> Option<String> {
    let dir = std::env::var("TOOLREGISTRY_TEST_MODEL_DIR").ok()?;
    Some(dir).filter(|d| !d.is_empty())
}

const CATALOG: &str = r#"[
  {"name": "get_current_weather", "description": "Current conditions and the outlook for a city.", "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}},
  {"name": "crypto_quotes", "description": "Live prices of cryptocurrencies.", "parameters": {"type": "object", "properties": {"symbol": {"type": "string"}}}},
  {"name": "write_file", "description": "Create or overwrite a file with the given content.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}}},
  {"name": "search_collection", "description": "Search the museum's collection of artworks and objects.", "parameters": {"type": "object", "properties": {"q": {"type": "string"}}}},
  {"name": "send_email", "description": "Send an email message.", "parameters": {"type": "object", "properties": {"to": {"type": "string"}}}},
  {"name": "list_calendar_events", "description": "List upcoming meetings from the calendar."},
  {"name": "translate_text", "description": "Translate text between languages."},
  {"name": "create_invoice", "description": "Bill a customer for an order."},
  {"name": "restart_service", "description": "Restart a systemd unit on a host."},
  {"name": "query_database", "description": "Run a read-only SQL query."}
]"#;

fn registry(dir: &str) -> Registry {
    let options = serde_json::json!({"embedding": {"model_dir": dir}}).to_string();
    let registry = Registry::from_options_json(Some(&options)).unwrap();
    registry.register_json(CATALOG).unwrap();
    assert!(registry.wait_embeddings(Duration::from_secs(120)).unwrap());
    registry
}

#[test]
fn finds_by_meaning_what_word_matching_misses() {
    let Some(dir) = model_dir() else {
        eprintln!("TOOLREGISTRY_TEST_MODEL_DIR is not set: the real-model test did not run");
        return;
    };
    let registry = registry(&dir);
    let s = registry.embedding_status().unwrap().unwrap();
    assert_eq!((s.ready, s.failed, s.dim), (10, 0, 384), "{s:?}");
    let hybrid = registry.discoverer(DiscoveryOptions::default());
    assert_eq!(hybrid.profile().unwrap(), Profile::Hybrid);
    let enhanced = registry.discoverer(DiscoveryOptions::enhanced());
    let top = |d: &toolregistry::Discoverer, q: &str| {
        d.discover(q, &DiscoverRequest::default())
            .unwrap()
            .first()
            .map(|h| h.name.clone())
    };
    for (query, want) in [
        ("how much is Bitcoin worth", "crypto_quotes"),
        ("will it be hot tomorrow in Rome", "get_current_weather"),
        ("save it to /root/notes.md", "write_file"),
        ("find that painting", "search_collection"),
    ] {
        assert_ne!(
            top(&enhanced, query).as_deref(),
            Some(want),
            "{query}: words alone"
        );
        assert_eq!(top(&hybrid, query).as_deref(), Some(want), "{query}");
    }
    // Past the model's 256 tokens the text is truncated, never refused.
    let long = "find a good guitar ".repeat(400);
    assert!(hybrid.discover(&long, &DiscoverRequest::default()).is_ok());
}

#[test]
fn discovers_run_in_parallel_while_the_catalog_is_embedded() {
    let Some(dir) = model_dir() else {
        eprintln!("TOOLREGISTRY_TEST_MODEL_DIR is not set: the real-model test did not run");
        return;
    };
    let options = serde_json::json!({"embedding": {"model_dir": dir, "threads": 1}}).to_string();
    let registry = std::sync::Arc::new(Registry::from_options_json(Some(&options)).unwrap());
    let many: Vec<String> = (0..200)
        .map(|i| {
            format!(
                r#"{{"name": "tool_{i}", "description": "Does thing number {i} for the team."}}"#
            )
        })
        .collect();
    registry
        .register_json(&format!("[{}]", many.join(",")))
        .unwrap();
    registry.register_json(CATALOG).unwrap();
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let r = std::sync::Arc::clone(&registry);
            std::thread::spawn(move || {
                let d = r.discoverer(DiscoveryOptions::default());
                for _ in 0..5 {
                    let hits = d
                        .discover("send an email", &DiscoverRequest::default())
                        .unwrap();
                    assert_eq!(hits[0].name, "send_email");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    assert!(registry.wait_embeddings(Duration::from_secs(300)).unwrap());
    assert_eq!(registry.embedding_status().unwrap().unwrap().ready, 210);
}

#[test]
fn a_vector_is_the_same_whatever_the_threads_and_the_batch() {
    let Some(dir) = model_dir() else {
        eprintln!("TOOLREGISTRY_TEST_MODEL_DIR is not set: the real-model test did not run");
        return;
    };
    use toolregistry::embed::{Embedder, LocalEncoder};
    let catalog: Vec<serde_json::Value> = serde_json::from_str(CATALOG).unwrap();
    // Texts of many lengths (one past the model's 256 tokens), as a registry's batch of 64 holds.
    let mut texts: Vec<String> = catalog
        .iter()
        .map(|t| format!("{} {}", t["name"], t["description"]))
        .collect();
    for i in 0..54 {
        texts.push(format!(
            "tool {i}: {}",
            "does one more thing. ".repeat(i % 9 + 1)
        ));
    }
    texts.push("find a good guitar ".repeat(100));
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut enc = LocalEncoder::load(std::path::Path::new(&dir)).unwrap();
    let dim = enc.dim();
    enc.set_threads(1);
    let one = enc.embed(&refs).unwrap();
    assert_eq!(one.len(), refs.len() * dim);
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for threads in [2, 3, 7, 16] {
        enc.set_threads(threads);
        assert!(
            bits(&enc.embed(&refs).unwrap()) == bits(&one),
            "{threads} threads changed a vector"
        );
    }
    // A text alone (the query path) or in a smaller batch gets the very same vector.
    for (i, text) in refs.iter().enumerate().step_by(9) {
        let alone = enc.embed(&[text]).unwrap();
        assert!(
            bits(&alone) == bits(&one[i * dim..(i + 1) * dim]),
            "text {i} alone differs"
        );
    }
    let some = enc.embed(&refs[20..37]).unwrap();
    assert!(bits(&some) == bits(&one[20 * dim..37 * dim]));
}
