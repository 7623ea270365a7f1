//! The local encoder's speed: one query at a time (p50 / p95 of 20-word queries on one core)
//! and a catalog's tools in batches (tools per second on every core), each beside the
//! floating-point work it takes, and a hybrid discover at a catalog size beside the query's
//! embedding.
//!
//! `cargo run --release --example bench_embed -- MODEL_DIR [CATALOG.json [VECTOR_CACHE]]`
//!
//! With a catalog, it is first embedded the way a host's registry does it (embedding options,
//! register, wait), on one thread and on every core alternately; then through the bench's own
//! memoizing embedder, for the discover figures.
//!
//! With VECTOR_CACHE the catalog is embedded once (timed) and later runs read its vectors.
//! The discover figures are taken in one loop, query by query: the query's embedding alone, the
//! hybrid discover (which embeds it again), and the hybrid discover given the query's vector
//! already computed (a memoizing embedder), which is what hybrid costs beyond the embedding.

use std::time::Instant;
use toolregistry::embed::{Embedder, LocalEncoder, tool_text};
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry, Tool};

/// Multiply-adds per token of a BERT or MPNet layer stack (dense layers only; attention adds a
/// little per token pair), times two for FLOPs.
fn flops_per_token(hidden: usize, inter: usize, layers: usize) -> f64 {
    2.0 * layers as f64 * (4.0 * (hidden * hidden) as f64 + 2.0 * (hidden * inter) as f64)
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .expect("usage: bench_embed MODEL_DIR [CATALOG.json]");
    let rss_before = rss_kb();
    let mut enc = LocalEncoder::load(std::path::Path::new(dir)).expect("model");
    let config: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(std::path::Path::new(dir).join("config.json")).expect("config"),
    )
    .expect("config.json");
    let size = |k: &str| config[k].as_u64().expect("config size") as usize;
    let per_token = flops_per_token(
        size("hidden_size"),
        size("intermediate_size"),
        size("num_hidden_layers"),
    );
    println!(
        "model: {} MFLOP per token; resident memory {:.0} MB more once loaded",
        (per_token / 1e6).round(),
        (rss_kb() - rss_before) as f64 / 1024.0
    );
    let query =
        "I need to find out what the weather will be like in Paris tomorrow afternoon please";
    let tokens = enc.token_ids(query).unwrap().len();
    enc.set_threads(1);
    let mut times = Vec::new();
    let mut cpu = 0.0;
    for i in 0..60 {
        if i == 10 {
            cpu = cpu_seconds();
        }
        let q = format!("{query} {i}");
        let t = Instant::now();
        enc.embed(&[&q]).unwrap();
        if i >= 10 {
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let cpu_ms = (cpu_seconds() - cpu) * 1e3 / times.len() as f64;
    let p50 = pct(&mut times, 0.5);
    let p95 = pct(&mut times, 0.95);
    println!(
        "query ({} words, {tokens} tokens, one thread): p50 {p50:.2} ms, p95 {p95:.2} ms, {cpu_ms:.1} ms of CPU on average; {:.2} GFLOP -> {:.1} GFLOP/s at the p50",
        query.split_whitespace().count(),
        per_token * tokens as f64 / 1e9,
        per_token * tokens as f64 / 1e9 / (p50 / 1e3)
    );
    let Some(catalog) = args.get(1) else { return };
    let text = std::fs::read_to_string(catalog).expect("catalog");
    let tools = Tool::parse_catalog(&text).expect("catalog parses");
    let texts: Vec<String> = tools.iter().map(tool_text).collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let total_tokens: usize = refs.iter().map(|t| enc.token_ids(t).unwrap().len()).sum();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    registry_path(dir, &text, threads);
    enc.set_threads(threads);
    // The catalog is embedded the way a registry does it: on its embedding thread, in batches.
    // A single text runs on one thread whatever the setting.
    let enc = std::sync::Arc::new(enc);
    let memo = std::sync::Arc::new(Memo {
        inner: enc.clone(),
        seen: Default::default(),
    });
    let registry = Registry::new();
    registry.register(tools).unwrap();
    let cache = args.get(2).map(std::path::Path::new);
    let t = Instant::now();
    let cpu = cpu_seconds();
    registry.set_embedder(memo.clone(), cache).unwrap();
    while !registry
        .wait_embeddings(std::time::Duration::from_secs(1))
        .unwrap()
    {}
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let status = registry.embedding_status().unwrap().expect("an embedder");
    let embedded = status.embedded as usize;
    if embedded == 0 {
        println!(
            "catalog: {} tools, all {} vectors read from the cache in {secs:.2} s",
            refs.len(),
            status.ready
        );
    } else {
        let tokens = total_tokens as f64 * embedded as f64 / refs.len() as f64;
        println!(
            "catalog through the bench's memoizing embedder (set_embedder): {embedded} of {} tools embedded ({:.0} tokens each on average) in {secs:.2} s on {threads} threads: {:.1} tools/s, {:.1} GFLOP/s; {cpu:.1} s of CPU: {:.1} tools per CPU-second, {:.1} GFLOP per CPU-second",
            refs.len(),
            total_tokens as f64 / refs.len() as f64,
            embedded as f64 / secs,
            per_token * tokens / 1e9 / secs,
            embedded as f64 / cpu,
            per_token * tokens / 1e9 / cpu
        );
    }
    let d = registry.discoverer(DiscoveryOptions::default());
    let lexical = registry.discoverer(DiscoveryOptions::enhanced());
    let req = DiscoverRequest::default();
    let (mut embed, mut hybrid, mut beyond, mut enhanced) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for i in 0..60 {
        let q = format!("{query} {i}");
        let t = Instant::now();
        enc.embed(&[&q]).unwrap();
        embed.push(t.elapsed().as_secs_f64() * 1e3);
        memo.seen.lock().unwrap().clear();
        let t = Instant::now();
        d.discover_json(&q, &req).unwrap();
        hybrid.push(t.elapsed().as_secs_f64() * 1e3);
        // The vector is memoized now: this discover costs everything but the embedding.
        let t = Instant::now();
        d.discover_json(&q, &req).unwrap();
        beyond.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        lexical.discover_json(&q, &req).unwrap();
        enhanced.push(t.elapsed().as_secs_f64() * 1e3);
    }
    println!(
        "discover at {} tools (p50, interleaved): query embedding {:.2} ms, hybrid discover {:.2} ms, hybrid beyond the embedding {:.3} ms, enhanced {:.3} ms",
        registry.tools_status().unwrap().len(),
        pct(&mut embed, 0.5),
        pct(&mut hybrid, 0.5),
        pct(&mut beyond, 0.5),
        pct(&mut enhanced, 0.5)
    );
}

/// The catalog embedded as a host's registry does it (`tr_registry_new` with `{"embedding":
/// {"model_dir", "threads"}}`, register, `tr_registry_wait_embeddings`), on one thread and on
/// every core, alternately, BENCH_ROUNDS times (default 2), so a ratio comes from the same minutes.
fn registry_path(dir: &str, catalog: &str, cores: usize) {
    let rounds: usize = std::env::var("BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let mut secs: Vec<(usize, f64)> = Vec::new();
    for _ in 0..rounds {
        for threads in [1, cores] {
            let options = serde_json::json!({"embedding": {"model_dir": dir, "threads": threads}})
                .to_string();
            let registry = Registry::from_options_json(Some(&options)).expect("model");
            let t = Instant::now();
            let n = registry.register_json(catalog).expect("catalog").len();
            let registered = t.elapsed().as_secs_f64();
            while !registry
                .wait_embeddings(std::time::Duration::from_secs(1))
                .unwrap()
            {}
            let s = t.elapsed().as_secs_f64();
            let status = registry.embedding_status().unwrap().expect("an embedder");
            assert_eq!(status.embedded as usize, n, "no cache: every tool embedded");
            println!(
                "registry path, threads {threads}: {n} tools registered in {registered:.2} s, embedded by wait_embeddings at {s:.2} s: {:.1} tools/s",
                n as f64 / s
            );
            secs.push((threads, s));
        }
    }
    let mean = |t: usize| {
        let v: Vec<f64> = secs.iter().filter(|s| s.0 == t).map(|s| s.1).collect();
        v.iter().sum::<f64>() / v.len() as f64
    };
    if cores > 1 && rounds > 0 {
        println!(
            "registry path: {cores} threads {:.2} s against 1 thread {:.2} s (means of {rounds}): {:.2}x",
            mean(cores),
            mean(1),
            mean(1) / mean(cores)
        );
    }
}

/// The local encoder with its last answers kept, so a repeated query costs no embedding.
struct Memo {
    inner: std::sync::Arc<LocalEncoder>,
    seen: std::sync::Mutex<std::collections::HashMap<String, Vec<f32>>>,
}

impl Embedder for Memo {
    fn dim(&self) -> usize {
        self.inner.dim()
    }
    fn identity(&self) -> String {
        self.inner.identity()
    }
    fn embed(&self, texts: &[&str]) -> toolregistry::Result<Vec<f32>> {
        if let [one] = texts {
            if let Some(v) = self.seen.lock().unwrap().get(*one) {
                return Ok(v.clone());
            }
            let v = self.inner.embed(texts)?;
            self.seen.lock().unwrap().insert(one.to_string(), v.clone());
            return Ok(v);
        }
        self.inner.embed(texts)
    }
}

/// This process's resident memory in KB (Linux; 0 elsewhere).
fn rss_kb() -> i64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// CPU time of this process so far, user and system, in seconds (Linux; 0 elsewhere): on a
/// shared machine the wall time also counts the other processes' turns.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) end at the last ')'.
    let rest = stat.rsplit_once(')').map_or("", |r| r.1);
    let f: Vec<f64> = rest
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // utime and stime, fields 14 and 15 of the line, are the 11th and 12th numbers after the ')'
    // (the state letter is skipped): clock ticks of 1/100 s on Linux.
    (f.get(10).copied().unwrap_or(0.0) + f.get(11).copied().unwrap_or(0.0)) / 100.0
}
