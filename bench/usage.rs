//! What co-use costs (`src/discovery/usage.rs`): a discover with recorded usage beside the same
//! discover without it, side by side in one run, and the bytes the counts take.
//!
//! `cargo run --release --example bench_usage -- [N] [TASKS] [PASSES] [--full]` (defaults 10,000 tools,
//! 100,000 tasks, 20 passes) registers the generated workload of N tools (`bench/workload.rs`),
//! records TASKS tasks (routines of 2 to 5 tools, a popular few repeated most, with one-off
//! tools mixed in, so that most tools have partners and many have full lists), has each side
//! answer every query once, then times the workload's 500 queries with the `enhanced` profile,
//! usage on and `"usage": false`, on the same registry, alternating per query (the order swapped
//! every pass); `--full` turns the score floor off on both sides, so that answers are as long
//! with usage as without. Prints the p50, p95 and mean of each, their ratios, how many answers a tool was brought into, the recording's time per
//! task, the store's bytes (`usage_status().memory_bytes`), the process's resident memory before
//! and after recording and after the discovers (what they keep: each anchor's partners, each
//! partner's terms), and the usage file's size and its write and load times. Instruction
//! counts, which the machine's load does not change: `valgrind --tool=callgrind
//! --toggle-collect='*measured_discover_on*' --toggle-collect='*measured_discover_off*'
//! target/release/examples/bench_usage 10000 100000 1`, then `callgrind_annotate --inclusive=yes`.

#[path = "workload.rs"]
mod workload;

use std::hint::black_box;
use std::time::Instant;
use toolregistry::{DiscoverRequest, Discoverer, DiscoveryOptions, Registry};
use workload::{Rng, Vocabulary, Workload, Zipf, status_kb};

/// A discover with usage (the functions callgrind is pointed at: `--toggle-collect`).
#[inline(never)]
fn measured_discover_on(d: &Discoverer, q: &str, r: &DiscoverRequest) -> Hits {
    d.discover(q, r).expect("discover")
}

/// The same discover with `"usage": false`.
#[inline(never)]
fn measured_discover_off(d: &Discoverer, q: &str, r: &DiscoverRequest) -> Hits {
    d.discover(q, r).expect("discover")
}

type Hits = Vec<toolregistry::Hit>;

/// Times one discover of `q` with usage on and one with `"usage": false`, `on_first` saying
/// which goes first (swapped from one to the next, so that neither always runs on a warm cache).
fn timed_pair(
    on: &Discoverer,
    off: &Discoverer,
    q: &str,
    request: &DiscoverRequest,
    on_first: bool,
    t_on: &mut Vec<f64>,
    t_off: &mut Vec<f64>,
) -> (Hits, Hits) {
    let time = |measured: fn(&Discoverer, &str, &DiscoverRequest) -> Hits,
                d: &Discoverer,
                out: &mut Vec<f64>| {
        let t = Instant::now();
        let hits = black_box(measured(d, q, request));
        out.push(t.elapsed().as_nanos() as f64 / 1000.0);
        hits
    };
    if on_first {
        let with = time(measured_discover_on, on, t_on);
        (with, time(measured_discover_off, off, t_off))
    } else {
        let without = time(measured_discover_off, off, t_off);
        (time(measured_discover_on, on, t_on), without)
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((p / 100.0) * (sorted.len() - 1) as f64).round() as usize;
    sorted[at]
}

/// The tasks: routines (2 to 5 tools each, over half the catalog's size in routines) chosen by a
/// Zipf law, each task a routine with a one-off tool added three times in ten.
fn tasks(names: &[String], count: usize) -> Vec<Vec<&str>> {
    let n = names.len();
    let mut rng = Rng::new(0x05E5_2026);
    let routines: Vec<Vec<usize>> = (0..(n / 2).max(1))
        .map(|_| (0..rng.range(2, 5)).map(|_| rng.range(0, n - 1)).collect())
        .collect();
    let popular = Zipf::new(routines.len(), 0.8);
    (0..count)
        .map(|_| {
            let mut task: Vec<&str> = routines[popular.sample(&mut rng)]
                .iter()
                .map(|&i| names[i].as_str())
                .collect();
            if rng.chance(0.3) {
                task.push(names[rng.range(0, n - 1)].as_str());
            }
            task
        })
        .collect()
}

fn main() {
    let mut args = std::env::args().skip(1).filter(|a| a != "--full");
    let n: usize = args.next().map_or(10_000, |a| a.parse().expect("N"));
    let task_count: usize = args.next().map_or(100_000, |a| a.parse().expect("TASKS"));
    let passes: usize = args.next().map_or(20, |a| a.parse().expect("PASSES"));
    let vocab = Vocabulary::new();
    let w = Workload::generate(&vocab, n);
    let registry = Registry::new();
    registry.register_json(&w.catalog_json).expect("register");
    // Full answers on both sides (no score floor): a tool brought in takes a place of the
    // answer's second half instead of an empty one, so both answers are as long and the ratio
    // is the step's own cost.
    let full = std::env::args().any(|a| a == "--full");
    let base = DiscoveryOptions {
        min_score_ratio: if full {
            0.0
        } else {
            DiscoveryOptions::enhanced().min_score_ratio
        },
        ..DiscoveryOptions::enhanced()
    };
    let on = registry.discoverer(base);
    let off = registry.discoverer(DiscoveryOptions {
        usage: false,
        ..base
    });
    let request = DiscoverRequest::default();
    // Warm the index and the allocator before measuring memory.
    for q in &w.queries {
        black_box(off.discover(q, &request).expect("discover"));
    }

    let dir = std::env::temp_dir().join(format!("tr-bench-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("usage.json");
    let recorded = tasks(&w.names, task_count);
    let rss_before = status_kb("VmRSS:");
    // Kept in a file (written at most every 5 s while recording: here once, at the first task).
    registry.enable_usage(Some(&file)).expect("usage on");
    let began = Instant::now();
    for t in &recorded {
        registry.record_usage(t).expect("record");
    }
    let record_ns = began.elapsed().as_nanos() as f64 / task_count as f64;
    let rss_after = status_kb("VmRSS:");
    let status = registry.usage_status().expect("status");
    drop(recorded);
    // Both sides answer every query once before timing: a tool's schema is cleaned on its first
    // answer and kept with it, and the tools brought in were never in the warm-up's answers.
    for q in &w.queries {
        black_box(on.discover(q, &request).expect("discover"));
        black_box(off.discover(q, &request).expect("discover"));
    }

    let mut t_on = Vec::with_capacity(w.queries.len() * passes);
    let mut t_off = Vec::with_capacity(w.queries.len() * passes);
    let (mut brought, mut hits_on, mut hits_off) = (0, 0, 0);
    for pass in 0..passes {
        for (i, q) in w.queries.iter().enumerate() {
            let on_first = (pass + i) % 2 == 0;
            let (with, without) =
                timed_pair(&on, &off, q, &request, on_first, &mut t_on, &mut t_off);
            if pass == 0 {
                brought += usize::from(with.iter().any(|h| h.brought_in.is_some()));
                hits_on += with.len();
                hits_off += without.len();
            }
        }
    }
    // What the discovers keep (each anchor's partners, each partner's terms) on top of the counts.
    let rss_discovered = status_kb("VmRSS:");
    // An agent's loop: a task recorded before every discover, so what was kept of the partners
    // of that task's tools (and of their partners) is made again when next asked for.
    let rounds = w.queries.len() * passes.min(4);
    let more = tasks(&w.names, rounds);
    let (mut r_on, mut r_off) = (Vec::with_capacity(rounds), Vec::with_capacity(rounds));
    for (k, task) in more.iter().enumerate() {
        registry.record_usage(task).expect("record");
        let q = &w.queries[k % w.queries.len()];
        timed_pair(&on, &off, q, &request, k % 2 == 0, &mut r_on, &mut r_off);
    }
    r_on.sort_by(f64::total_cmp);
    r_off.sort_by(f64::total_cmp);
    let kept_bytes = registry.usage_status().expect("status").memory_bytes;
    let stats: serde_json::Value =
        serde_json::from_str(&registry.index_stats_json().expect("stats")).expect("JSON");
    let terms_bytes = stats["enhanced"]["kept_terms_bytes"]
        .as_u64()
        .expect("kept terms");
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (m_on, m_off) = (mean(&t_on), mean(&t_off));
    t_on.sort_by(f64::total_cmp);
    t_off.sort_by(f64::total_cmp);
    let (p50_on, p50_off) = (percentile(&t_on, 50.0), percentile(&t_off, 50.0));
    let (p95_on, p95_off) = (percentile(&t_on, 95.0), percentile(&t_off, 95.0));
    println!(
        "{n} tools, {} tasks recorded ({} tools with counts), {} queries x {passes} passes, enhanced, top_k 10",
        status.tasks,
        status.tools,
        w.queries.len()
    );
    println!("| discover (µs) | p50 | p95 | mean |");
    println!("|---|---|---|---|");
    println!("| usage on | {p50_on:.1} | {p95_on:.1} | {m_on:.1} |");
    println!("| \"usage\": false | {p50_off:.1} | {p95_off:.1} | {m_off:.1} |");
    println!(
        "| on / off | **{:.3}x** | {:.3}x | {:.3}x |",
        p50_on / p50_off,
        p95_on / p95_off,
        m_on / m_off
    );
    let (r50_on, r50_off) = (percentile(&r_on, 50.0), percentile(&r_off, 50.0));
    println!(
        "| a task recorded before each (usage on / off, {rounds} rounds) | **{:.3}x** ({r50_on:.1} / {r50_off:.1}) | {:.3}x | {:.3}x |",
        r50_on / r50_off,
        percentile(&r_on, 95.0) / percentile(&r_off, 95.0),
        mean(&r_on) / mean(&r_off)
    );
    println!(
        "answers a tool was brought into: {brought} of {}; hits per answer {:.2} on, {:.2} off",
        w.queries.len(),
        hits_on as f64 / w.queries.len() as f64,
        hits_off as f64 / w.queries.len() as f64
    );
    println!("recording: {record_ns:.0} ns a task");
    println!(
        "the counts: {} bytes (usage_status().memory_bytes); resident memory {} kB before recording, {} kB after (+{} kB)",
        status.memory_bytes,
        rss_before,
        rss_after,
        rss_after.saturating_sub(rss_before)
    );
    println!(
        "after the discovers: {kept_bytes} bytes (the counts and each anchor's kept partners), {terms_bytes} bytes of the partners' kept terms; resident memory {rss_discovered} kB (+{} kB)",
        rss_discovered.saturating_sub(rss_after)
    );
    let tasks_now = registry.usage_status().expect("status").tasks;
    let began = Instant::now();
    registry.save_usage().expect("save");
    let save_ms = began.elapsed().as_secs_f64() * 1000.0;
    let size = std::fs::metadata(&file).map_or(0, |m| m.len());
    let began = Instant::now();
    let loaded = Registry::new();
    let warning = loaded.enable_usage(Some(&file)).expect("load");
    let load_ms = began.elapsed().as_secs_f64() * 1000.0;
    assert_eq!(warning, None);
    assert_eq!(loaded.usage_status().expect("status").tasks, tasks_now);
    println!("the file: {size} bytes, written in {save_ms:.1} ms, loaded in {load_ms:.1} ms");
    let _ = std::fs::remove_dir_all(&dir);
}
