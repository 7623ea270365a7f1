//! Registry behaviour through the Rust API: incremental index upkeep against a rebuild, ordering
//! rules, and concurrent use.

use crate::common;

use common::Rng;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use toolregistry::{DiscoverRequest, DiscoveryOptions, MetadataUpdate, Registry};

const WORDS: &[&str] = &[
    "file", "read", "write", "email", "send", "list", "repo", "issue", "天气", "查询", "weather",
    "delete", "user", "sync",
];
const NAMES: &[&str] = &[
    "alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa", "lambda",
    "mu",
];

fn random_tool(rng: &mut Rng) -> String {
    let name = rng.pick(NAMES);
    let desc: Vec<&str> = (0..1 + rng.below(8)).map(|_| rng.pick(WORDS)).collect();
    let ns = if rng.below(3) == 0 {
        r#","namespace":"ns""#
    } else {
        ""
    };
    let tags: Vec<String> = (0..rng.below(3))
        .map(|_| format!("\"{}\"", rng.pick(WORDS)))
        .collect();
    format!(
        r#"{{"name":"{name}_{}","description":"{}","parameters":{{"type":"object","properties":{{"{}":{{}}}}}}{ns},"metadata":{{"defer":{},"tags":[{}]}}}}"#,
        rng.pick(WORDS),
        desc.join(" "),
        rng.pick(WORDS),
        rng.below(2) == 0,
        tags.join(",")
    )
}

/// After every random operation the incremental index equals one rebuilt from scratch, and a
/// discoverer answers exactly like a fresh registry holding the same tools in the same order.
#[test]
fn incremental_index_equals_a_rebuild() {
    for seed in 1..=40u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let registry = Registry::new();
        let options = DiscoveryOptions {
            min_score_ratio: 0.0,
            ..DiscoveryOptions::reference()
        };
        let discoverer = registry.discoverer(options);
        // Half the seeds build the enhanced index at once, the other half midway, so both the
        // lazy build and the incremental upkeep after it are checked against a rebuild.
        let mut enhanced = (seed % 2 == 0).then(|| {
            registry.discoverer(DiscoveryOptions {
                min_score_ratio: 0.0,
                ..DiscoveryOptions::enhanced()
            })
        });
        for step in 0..150 {
            if step == 75 && enhanced.is_none() {
                enhanced = Some(registry.discoverer(DiscoveryOptions {
                    min_score_ratio: 0.0,
                    ..DiscoveryOptions::enhanced()
                }));
            }
            let names = registry.names().unwrap();
            let existing = |rng: &mut Rng| names.get(rng.below(names.len().max(1))).cloned();
            match rng.below(6) {
                0 | 1 => {
                    registry.register_json(&random_tool(&mut rng)).unwrap();
                }
                2 => {
                    if let Some(n) = existing(&mut rng) {
                        registry.unregister(&n).unwrap();
                    }
                }
                3 => {
                    if let Some(n) = existing(&mut rng) {
                        registry.set_enabled(&n, rng.below(2) == 0).unwrap();
                    }
                }
                4 => {
                    if let Some(n) = existing(&mut rng) {
                        let update = MetadataUpdate {
                            search_hint: Some(rng.pick(WORDS).to_string()),
                            tags: (rng.below(2) == 0).then(|| vec![rng.pick(WORDS).to_string()]),
                            defer: Some(rng.below(2) == 0),
                            ..Default::default()
                        };
                        registry.set_metadata(&n, &update).unwrap();
                    }
                }
                _ => {
                    let _ = registry.set_enabled("ns", rng.below(2) == 0);
                }
            }
            assert!(
                registry.verify_index().unwrap(),
                "seed {seed} step {step}: index drifted from a rebuild"
            );
            let query = format!("{} {}", rng.pick(WORDS), rng.pick(WORDS));
            let request = DiscoverRequest {
                top_k: 50,
                ..Default::default()
            };
            let before = discoverer.discover(&query, &request).unwrap();
            let before_enhanced = enhanced
                .as_ref()
                .map(|d| d.discover(&query, &request).unwrap());
            discoverer.rebuild_index().unwrap();
            assert_eq!(
                before,
                discoverer.discover(&query, &request).unwrap(),
                "seed {seed} step {step}: rebuild changed an answer"
            );
            if let (Some(d), Some(b)) = (&enhanced, before_enhanced) {
                assert_eq!(
                    b,
                    d.discover(&query, &request).unwrap(),
                    "seed {seed} step {step}: rebuild changed an enhanced answer"
                );
            }
        }
    }
}

#[test]
fn replacing_keeps_position_and_reregistering_moves_to_the_end() {
    let registry = Registry::new();
    for name in ["a_file", "b_file", "c_file"] {
        registry
            .register_json(&format!(r#"{{"name":"{name}","description":"file"}}"#))
            .unwrap();
    }
    let d = registry.discoverer(DiscoveryOptions {
        min_score_ratio: 0.0,
        ..DiscoveryOptions::reference()
    });
    let order = || -> Vec<String> {
        d.discover("file", &DiscoverRequest::default())
            .unwrap()
            .into_iter()
            .map(|h| h.name)
            .collect()
    };
    assert_eq!(order(), ["a_file", "b_file", "c_file"]);
    registry
        .register_json(r#"{"name":"a_file","description":"file"}"#)
        .unwrap();
    registry.set_enabled("a_file", false).unwrap();
    registry.set_enabled("a_file", true).unwrap();
    registry
        .set_metadata_json("a_file", r#"{"search_hint":""}"#)
        .unwrap();
    assert_eq!(
        order(),
        ["a_file", "b_file", "c_file"],
        "replace, re-enable and metadata keep the position"
    );
    registry.unregister("a_file").unwrap();
    registry
        .register_json(r#"{"name":"a_file","description":"file"}"#)
        .unwrap();
    assert_eq!(
        order(),
        ["b_file", "c_file", "a_file"],
        "unregister + register moves to the end"
    );
}

#[test]
fn exact_name_matching_is_tolerant() {
    let registry = Registry::new();
    registry
        .register_json(
            r#"[{"name":"list_issues","namespace":"github"},{"name":"weather/get-current"}]"#,
        )
        .unwrap();
    let d = registry.discoverer(DiscoveryOptions::reference());
    for (query, want) in [
        ("github-list_issues", "github-list_issues"),
        ("GitHub_List_Issues", "github-list_issues"),
        ("weather_get_current", "weather/get-current"),
    ] {
        let hits = d.discover(query, &DiscoverRequest::default()).unwrap();
        assert_eq!(hits.len(), 1, "{query}");
        assert_eq!(hits[0].name, want);
        assert_eq!(hits[0].score, 1.0);
        assert!(hits[0].schema.is_some());
    }
    registry.set_enabled("github-list_issues", false).unwrap();
    let hits = d
        .discover("github-list_issues", &DiscoverRequest::default())
        .unwrap();
    assert!(
        hits.iter().all(|h| h.name != "github-list_issues"),
        "a disabled tool is never matched"
    );
}

/// 8 threads discover while others register, unregister and toggle tools for a bounded time;
/// afterwards every tool is present once and the index equals a rebuild.
#[test]
fn concurrent_discovers_and_mutations_stay_consistent() {
    let registry = Arc::new(Registry::new());
    registry
        .enable_discovery(DiscoveryOptions::reference())
        .unwrap();
    for i in 0..200 {
        registry
            .register_json(&format!(
                r#"{{"name":"stable_{i}","description":"stable file tool {i}"}}"#
            ))
            .unwrap();
    }
    let stop = Arc::new(AtomicBool::new(false));
    let discovers = Arc::new(AtomicUsize::new(0));
    let mut handles = Vec::new();
    for t in 0..8 {
        let (registry, stop, discovers) = (registry.clone(), stop.clone(), discovers.clone());
        handles.push(std::thread::spawn(move || {
            let d = registry.discoverer(DiscoveryOptions {
                min_score_ratio: 0.0,
                ..DiscoveryOptions::reference()
            });
            while !stop.load(Ordering::Relaxed) {
                let hits = d
                    .discover(
                        &format!("file tool {t}"),
                        &DiscoverRequest {
                            top_k: 20,
                            ..Default::default()
                        },
                    )
                    .unwrap();
                assert!(!hits.is_empty());
                assert!(
                    hits.windows(2).all(|w| w[0].score >= w[1].score),
                    "ranked best first"
                );
                registry
                    .call_json("discover_tools", r#"{"query":"volatile"}"#)
                    .unwrap();
                discovers.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for t in 0..2 {
        let (registry, stop) = (registry.clone(), stop.clone());
        handles.push(std::thread::spawn(move || {
            let mut rng = Rng(t + 7);
            while !stop.load(Ordering::Relaxed) {
                let name = format!("volatile_{t}_{}", rng.below(50));
                match rng.below(3) {
                    0 => drop(
                        registry
                            .register_json(&format!(
                                r#"{{"name":"{name}","description":"volatile file"}}"#
                            ))
                            .unwrap(),
                    ),
                    1 => drop(registry.unregister(&name)),
                    _ => drop(registry.set_enabled(&name, rng.below(2) == 0)),
                }
            }
        }));
    }
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(2) {
        std::thread::sleep(Duration::from_millis(50));
    }
    stop.store(true, Ordering::Relaxed);
    for h in handles {
        h.join().expect("no thread panicked");
    }
    assert!(discovers.load(Ordering::Relaxed) > 0);
    assert!(registry.verify_index().unwrap());
    let names = registry.names().unwrap();
    let unique: std::collections::HashSet<_> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "every tool present exactly once");
    assert_eq!(
        names.iter().filter(|n| n.starts_with("stable_")).count(),
        200
    );
}

/// Unregistering most of a large catalog compacts the slots; order and index survive it.
#[test]
fn slot_compaction_keeps_order_and_index() {
    let registry = Registry::new();
    let tools: Vec<String> = (0..3000)
        .map(|i| format!(r#"{{"name":"t{i}","description":"shared word"}}"#))
        .collect();
    registry
        .register_json(&format!("[{}]", tools.join(",")))
        .unwrap();
    for i in 0..3000 {
        if i % 7 != 0 {
            registry.unregister(&format!("t{i}")).unwrap();
        }
    }
    registry
        .register_json(r#"{"name":"late","description":"shared word"}"#)
        .unwrap();
    assert!(registry.verify_index().unwrap());
    let d = registry.discoverer(DiscoveryOptions {
        min_score_ratio: 0.0,
        ..DiscoveryOptions::reference()
    });
    let hits = d
        .discover(
            "shared",
            &DiscoverRequest {
                top_k: 10_000,
                ..Default::default()
            },
        )
        .unwrap();
    let mut want: Vec<String> = (0..3000)
        .filter(|i| i % 7 == 0)
        .map(|i| format!("t{i}"))
        .collect();
    want.push("late".into());
    assert_eq!(hits.into_iter().map(|h| h.name).collect::<Vec<_>>(), want);
    assert_eq!(registry.names().unwrap(), want);
}
