//! Writes the benchmark workload to files, for `bench/compare.py` and anyone else outside Rust.
//!
//! `cargo run --release --example bench_gen -- [DIR] [N...]` writes, for each N (default: 100,
//! 1000, 10000, 100000) into DIR (default `build/bench`): `catalog_N.json` (a JSON array of tools),
//! `queries_N.json` (an array of query strings) and `extras_N.json` (an array of
//! `{"tool": {...}, "query": "..."}` for the register-one-then-discover measure).

#[path = "workload.rs"]
mod workload;

use serde_json::{Value, json};
use std::path::PathBuf;
use workload::{SIZES, Vocabulary, Workload};

fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(args.next().unwrap_or_else(|| "build/bench".into()));
    let sizes: Vec<usize> = args
        .map(|a| a.parse().expect("N must be a number"))
        .collect();
    let sizes = if sizes.is_empty() {
        SIZES.to_vec()
    } else {
        sizes
    };
    std::fs::create_dir_all(&dir)?;
    let vocab = Vocabulary::new();
    for n in sizes {
        let w = Workload::generate(&vocab, n);
        std::fs::write(dir.join(format!("catalog_{n}.json")), &w.catalog_json)?;
        std::fs::write(
            dir.join(format!("queries_{n}.json")),
            json!(w.queries).to_string(),
        )?;
        let extras: Vec<Value> = w
            .extras
            .iter()
            .map(|(tool, query)| {
                json!({"tool": serde_json::from_str::<Value>(tool).expect("generated JSON"), "query": query})
            })
            .collect();
        std::fs::write(
            dir.join(format!("extras_{n}.json")),
            Value::Array(extras).to_string(),
        )?;
        println!(
            "N={n}: catalog {} bytes, {} queries -> {}",
            w.catalog_json.len(),
            w.queries.len(),
            dir.display()
        );
    }
    Ok(())
}
