//! Peak resident memory of building a registry from a catalog file.
//!
//! `cargo run --release --example bench_mem -- CATALOG.json [--chunk K]` reads the file, registers
//! every tool (in one call, or K tools per call with `--chunk`), enables discovery, runs one
//! discover so nothing is left lazy, and prints one JSON line: the catalog's size, the process's
//! peak RSS (`VmHWM`) and RSS before and after, in bytes. Linux only (`/proc/self/status`). A
//! separate process per catalog, so earlier runs do not raise the high-water mark.

use std::time::Instant;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};

fn status_kb(key: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|l| {
            l.strip_prefix(key)?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse()
                .ok()
        })
        .unwrap_or(0)
}

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: bench_mem CATALOG.json [--chunk K]");
    let chunk: Option<usize> = match (args.next().as_deref(), args.next()) {
        (Some("--chunk"), Some(k)) => Some(k.parse().expect("K must be a number")),
        _ => None,
    };
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
    registry
        .enable_discovery(DiscoveryOptions::default())
        .expect("enable discovery");
    let build_s = started.elapsed().as_secs_f64();
    let hits = registry
        .discover("get data", &DiscoverRequest::default())
        .expect("discover")
        .len();
    let peak = status_kb("VmHWM:") * 1024;
    let rss = status_kb("VmRSS:") * 1024;
    println!(
        "{{\"catalog\":{:?},\"tools\":{count},\"json_bytes\":{},\"baseline_rss\":{baseline},\"peak_rss\":{peak},\"rss_after\":{rss},\"build_s\":{build_s:.4},\"hits\":{hits}}}",
        path,
        text.len()
    );
    drop(text);
}
