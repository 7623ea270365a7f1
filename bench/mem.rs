//! Peak resident memory of building a registry from a catalog file.
//!
//! `cargo run --release --example bench_mem -- CATALOG.json [--chunk K] [--queries QUERIES.json] [--profile P]` reads the file, registers
//! every tool (in one call, or K tools per call with `--chunk`), enables discovery, runs one
//! discover so nothing is left lazy, and prints one JSON line: the catalog's size, the process's
//! peak RSS (`VmHWM`) and RSS before and after, in bytes. Linux only (`/proc/self/status`). A
//! separate process per catalog, so earlier runs do not raise the high-water mark.

use std::time::Instant;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};
use workload::status_kb;

#[path = "workload.rs"]
mod workload;

#[inline(never)]
fn profile_discover(registry: &Registry, query: &str) -> String {
    toolregistry::discovery::hits_to_json(
        &registry
            .discover(query, &DiscoverRequest::default())
            .expect("discover"),
    )
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: bench_mem CATALOG.json [--chunk K]");
    let mut chunk: Option<usize> = None;
    let mut queries: Option<String> = None;
    let mut options = DiscoveryOptions::default();
    while let (Some(flag), Some(value)) = (args.next(), args.next()) {
        match flag.as_str() {
            "--chunk" => chunk = Some(value.parse().expect("K must be a number")),
            // For profiling discover (e.g. under callgrind): run these queries once after the build.
            "--queries" => queries = Some(value),
            // reference or enhanced; the default profile without it.
            "--profile" => {
                options = DiscoveryOptions::for_profile(
                    toolregistry::Profile::parse(&value).expect("reference or enhanced"),
                )
            }
            _ => panic!("unknown flag {flag}"),
        }
    }
    let baseline = status_kb("VmRSS:") * 1024;
    let text = std::fs::read_to_string(&path).expect("read catalog");
    let started = Instant::now();
    let registry = Registry::new();
    let count = match chunk {
        None => registry.register_json(&text).expect("register").len(),
        Some(k) => {
            // Raw slices of the text: splitting costs no parse tree, like a host streaming tools in.
            let items: Vec<&serde_json::value::RawValue> =
                serde_json::from_str(&text).expect("catalog array");
            let mut count = 0;
            for part in items.chunks(k) {
                let body: Vec<&str> = part.iter().map(|r| r.get()).collect();
                let part = format!("[{}]", body.join(","));
                count += registry.register_json(&part).expect("register").len();
            }
            count
        }
    };
    if std::env::var_os("TR_BENCH_NO_INDEX").is_none() {
        registry
            .enable_discovery(options)
            .expect("enable discovery");
    }
    let build_s = started.elapsed().as_secs_f64();
    let hits = registry
        .discover("get data", &DiscoverRequest::default())
        .map_or(0, |h| h.len());
    if let Some(path) = queries {
        let text = std::fs::read_to_string(path).expect("read queries");
        let queries: Vec<String> = serde_json::from_str(&text).expect("a JSON array of strings");
        for q in &queries {
            std::hint::black_box(profile_discover(&registry, q));
        }
    }
    let peak = status_kb("VmHWM:") * 1024;
    let rss = status_kb("VmRSS:") * 1024;
    if std::env::var_os("TR_BENCH_INDEX_STATS").is_some() {
        eprintln!("{}", registry.index_stats_json().expect("stats"));
    }
    println!(
        "{{\"catalog\":{:?},\"profile\":\"{}\",\"tools\":{count},\"json_bytes\":{},\"baseline_rss\":{baseline},\"peak_rss\":{peak},\"rss_after\":{rss},\"build_s\":{build_s:.4},\"hits\":{hits}}}",
        path,
        options.profile.as_str(),
        text.len()
    );
    drop(text);
}
