//! The evaluation harness reproduces the published reference baselines
//! (`../shared/eval/BASELINES.md`) to three decimals, and the enhanced profile beats them.

use std::path::PathBuf;
use toolregistry::eval::{Metrics, evaluate, parse_catalog, parse_queries};
use toolregistry::{DiscoveryOptions, Registry};

fn eval_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/eval")
}

fn run(set: &str, options: DiscoveryOptions) -> Metrics {
    let dir = eval_dir().join(set);
    let tools = parse_catalog(&std::fs::read_to_string(dir.join("catalog.json")).unwrap()).unwrap();
    let queries =
        parse_queries(&std::fs::read_to_string(dir.join("queries.jsonl")).unwrap()).unwrap();
    let registry = Registry::new();
    registry.register(tools).unwrap();
    evaluate(&registry.discoverer(options), &queries).unwrap().0
}

/// The six quality figures of a BASELINES.md row (R@1, R@3, R@5, R@10, MRR@10, nDCG@10) for the
/// row starting with `engine` in the section of `set`.
fn baseline(set: &str, engine: &str) -> [f64; 6] {
    let text = std::fs::read_to_string(eval_dir().join("BASELINES.md")).unwrap();
    let section = text
        .split("### ")
        .find(|s| s.starts_with(&format!("{set} ")))
        .unwrap_or_else(|| panic!("no section for {set}"));
    let row = section
        .lines()
        .find(|l| l.starts_with(&format!("| {engine}")))
        .unwrap_or_else(|| panic!("no row {engine:?} for {set}"));
    let cells: Vec<f64> = row
        .split('|')
        .skip(2)
        .take(6)
        .map(|c| c.trim().parse().unwrap())
        .collect();
    cells.try_into().unwrap()
}

fn figures(m: &Metrics) -> [f64; 6] {
    [
        m.recall[0],
        m.recall[1],
        m.recall[2],
        m.recall[3],
        m.mrr,
        m.ndcg,
    ]
}

fn assert_reproduces(set: &str, engine: &str, options: DiscoveryOptions) {
    let expected = baseline(set, engine);
    let got = figures(&run(set, options));
    for (i, (e, g)) in expected.iter().zip(got).enumerate() {
        assert!(
            (e - g).abs() <= 0.0005 + 1e-9,
            "{set} {engine}: metric {i} is {g:.4}, BASELINES.md says {e:.3} (all: {got:?})"
        );
    }
}

#[test]
fn reference_profile_reproduces_the_published_baselines() {
    let off = DiscoveryOptions {
        min_score_ratio: 0.0,
        max_df_ratio: 0.0,
        ..DiscoveryOptions::reference()
    };
    for set in ["bfcl", "metatool", "apibench"] {
        assert_reproduces(set, "reference, defaults", DiscoveryOptions::reference());
        assert_reproduces(set, "reference, both filters off", off);
    }
}

#[test]
fn enhanced_profile_beats_reference_and_bm25s_on_every_set() {
    for (set, target) in [("bfcl", 0.58), ("metatool", 0.43), ("apibench", 0.16)] {
        let m = run(set, DiscoveryOptions::enhanced());
        let reference = baseline(set, "reference, defaults")[4];
        let bm25s = baseline(set, "bm25s")[4];
        assert!(
            m.mrr >= target && m.mrr > reference && m.mrr > bm25s,
            "{set}: enhanced MRR@10 {:.4}, target {target}, reference {reference}, bm25s {bm25s}",
            m.mrr
        );
    }
}
