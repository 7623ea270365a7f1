//! Answers one query over a catalog through the Rust API with the fake embedder every language of
//! the cross-language check implements alike, and prints the library's JSON answer. The Rust CLI
//! answers the other profiles; this program exists for `hybrid`, which needs an embedder.
//!
//! Usage: cross_discover CATALOG.json QUERY TOP_K [--query-vector] [--usage TASKS] [--profile P]
//! (scripts/cross_language.py runs it). With `--query-vector` the program embeds the query itself
//! and gives the vector as the discover option `query_vector`, as a host with a pull embedder does
//! (the Node program): the library then has no vector for each need of a query that holds several,
//! so such a query ranks otherwise than when the library calls the embedder for the query and its
//! needs. With `--usage`, TASKS (one JSON array of tool names a line) are recorded first
//! (`Registry::record_usage_json`, as every binding's program does). `--profile` ranks with
//! another profile than `hybrid` (the fake embedder is set only for `hybrid`).
//!
//! The fake: dim 64; words split on non-alphanumeric ASCII, lowercased, FNV-1a 32-bit of the
//! bytes, 1.0 added at hash % 64; all zeros become [1, 0, ...].

use std::sync::Arc;
use std::time::Duration;
use toolregistry::embed::{HostEmbedFn, HostEmbedder};
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};

const DIM: usize = 64;

fn fake_embed(texts: &[&str]) -> Result<Vec<f32>, String> {
    let mut out = vec![0.0f32; texts.len() * DIM];
    for (t, text) in texts.iter().enumerate() {
        let v = &mut out[t * DIM..(t + 1) * DIM];
        let mut any = false;
        for word in text
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
        {
            let mut h: u32 = 0x811c_9dc5;
            for b in word.to_ascii_lowercase().bytes() {
                h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
            }
            v[h as usize % DIM] += 1.0;
            any = true;
        }
        if !any {
            v[0] = 1.0;
        }
    }
    Ok(out)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!(
            "usage: cross_discover CATALOG.json QUERY TOP_K [--query-vector] [--usage TASKS] [--profile P]"
        );
        std::process::exit(2);
    }
    let run = || -> Result<String, Box<dyn std::error::Error>> {
        let catalog = std::fs::read_to_string(&args[1])?;
        let registry = Registry::new();
        registry.register_json(&catalog)?;
        let flag = |name: &str| args.iter().position(|a| a == name).map(|i| args.get(i + 1));
        let query_vector = flag("--query-vector").is_some();
        let tasks = flag("--usage").flatten().cloned().unwrap_or_default();
        let profile = flag("--profile")
            .flatten()
            .cloned()
            .unwrap_or_else(|| "hybrid".to_string());
        if profile == "hybrid" {
            let f: HostEmbedFn = Arc::new(fake_embed);
            registry.set_embedder(Arc::new(HostEmbedder::new(DIM, "", f)?), None)?;
            if !registry.wait_embeddings(Duration::from_secs(120))? {
                return Err("embedding the catalog timed out".into());
            }
        }
        for task in tasks.lines().filter(|t| !t.is_empty()) {
            registry.record_usage_json(task)?;
        }
        let doc = serde_json::json!({ "profile": profile }).to_string();
        let options = DiscoveryOptions::from_json(Some(&doc))?;
        let top_k: usize = args[3].parse()?;
        let request = if query_vector {
            let vector = fake_embed(&[&args[2]])?;
            let doc = serde_json::json!({"top_k": top_k, "query_vector": vector});
            DiscoverRequest::from_json(Some(&doc.to_string()))?
        } else {
            DiscoverRequest {
                top_k,
                ..Default::default()
            }
        };
        Ok(registry
            .discoverer(options)
            .discover_json(&args[2], &request)?)
    };
    match run() {
        Ok(answer) => println!("{answer}"),
        Err(e) => {
            eprintln!("cross_discover: {e}");
            std::process::exit(1);
        }
    }
}
