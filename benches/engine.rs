//! Engine benchmarks on the generated workload (`bench/workload.rs`) and the BFCL catalog.
//!
//! `cargo bench --bench engine` runs criterion groups, per catalog size N:
//! - `discover_rust/N`, `discover_c_abi/N`: one discover (top_k 10), cycling through the 500 queries;
//!   the C ABI variant passes `{"query", "top_k"}` JSON to `tr_registry_call` and receives JSON text;
//! - `build_c_abi/N`: `tr_registry_new` + `tr_registry_register` (whole catalog JSON) +
//!   `tr_registry_enable_discovery`;
//! - `register_one_discover/N`: register one new tool, then one discover (C ABI); the tool is
//!   unregistered again outside the timing.
//!
//! Then it prints a percentile report criterion does not give: discover p50/p95/p99 per query
//! (after a warm-up pass), register-one + discover median of 20, and throughput with 1 and 2
//! threads. `TR_BENCH_SIZES=100,1000` limits the sizes (`bfcl` names the real catalog).

#[path = "../bench/workload.rs"]
mod workload;

use criterion::{BenchmarkId, Criterion, Throughput};
use std::ffi::{CStr, CString, c_char};
use std::hint::black_box;
use std::ptr;
use std::time::{Duration, Instant};
use toolregistry::ffi::{
    tr_registry, tr_registry_call, tr_registry_enable_discovery, tr_registry_free, tr_registry_new,
    tr_registry_register, tr_registry_unregister, tr_status, tr_string_free,
};
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};
use workload::{SIZES, Vocabulary, Workload};

/// A catalog to measure: label, catalog JSON, queries, extra tools with their queries.
struct Case {
    label: String,
    catalog: String,
    queries: Vec<String>,
    extras: Vec<(String, String)>,
}

fn cases() -> Vec<Case> {
    let wanted = std::env::var("TR_BENCH_SIZES").ok();
    let wants = |label: &str| {
        wanted
            .as_deref()
            .is_none_or(|w| w.split(',').any(|x| x.trim() == label))
    };
    let vocab = Vocabulary::new();
    let mut out = Vec::new();
    for n in SIZES {
        if wants(&n.to_string()) {
            let w = Workload::generate(&vocab, n);
            out.push(Case {
                label: n.to_string(),
                catalog: w.catalog_json,
                queries: w.queries,
                extras: w.extras,
            });
        }
    }
    if wants("bfcl") {
        if let Some((catalog, queries)) =
            workload::bfcl(std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
        {
            // Extras for the real catalog come from the synthetic generator: any new tool will do.
            let extras = Workload::generate(&vocab, 100).extras;
            out.push(Case {
                label: "bfcl".into(),
                catalog,
                queries,
                extras,
            });
        }
    }
    out
}

fn cstring(s: &str) -> CString {
    CString::new(s).expect("no NUL in benchmark strings")
}

fn check(status: tr_status, err: *mut c_char, what: &str) {
    if status != tr_status::TR_STATUS_OK {
        // SAFETY: on failure the library wrote a message or left it NULL.
        let msg = if err.is_null() {
            String::new()
        } else {
            unsafe { CStr::from_ptr(err) }
                .to_string_lossy()
                .into_owned()
        };
        panic!("{what}: {status:?} {msg}");
    }
}

/// A registry handle on the C side, built from catalog JSON.
struct CRegistry(*mut tr_registry);

// SAFETY: the C ABI documents registries as thread-safe (shared read lock for discovers).
unsafe impl Send for CRegistry {}
unsafe impl Sync for CRegistry {}

impl CRegistry {
    fn build(catalog: &CStr) -> Self {
        let mut r = ptr::null_mut();
        let mut err = ptr::null_mut();
        let mut names = ptr::null_mut();
        unsafe {
            check(tr_registry_new(ptr::null(), &mut r, &mut err), err, "new");
            check(
                tr_registry_register(r, catalog.as_ptr(), &mut names, &mut err),
                err,
                "register",
            );
            tr_string_free(names);
            check(
                tr_registry_enable_discovery(r, ptr::null(), &mut err),
                err,
                "enable_discovery",
            );
        }
        CRegistry(r)
    }

    /// One `discover_tools` call with JSON arguments; returns the answer's length in bytes.
    fn discover(&self, args: &CStr) -> usize {
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        unsafe {
            check(
                tr_registry_call(
                    self.0,
                    c"discover_tools".as_ptr(),
                    args.as_ptr(),
                    &mut out,
                    &mut err,
                ),
                err,
                "discover",
            );
            let len = CStr::from_ptr(out).to_bytes().len();
            tr_string_free(out);
            len
        }
    }

    fn register(&self, tool: &CStr) {
        let mut names = ptr::null_mut();
        let mut err = ptr::null_mut();
        unsafe {
            check(
                tr_registry_register(self.0, tool.as_ptr(), &mut names, &mut err),
                err,
                "register",
            );
            tr_string_free(names);
        }
    }

    fn unregister(&self, name: &CStr) {
        let mut err = ptr::null_mut();
        unsafe {
            check(
                tr_registry_unregister(self.0, name.as_ptr(), &mut err),
                err,
                "unregister",
            )
        };
    }
}

impl Drop for CRegistry {
    fn drop(&mut self) {
        unsafe { tr_registry_free(self.0) };
    }
}

fn discover_args(queries: &[String]) -> Vec<CString> {
    queries
        .iter()
        .map(|q| cstring(&serde_json::json!({"query": q, "top_k": 10}).to_string()))
        .collect()
}

/// Registered name of a generated extra tool (namespace-qualified when it has one).
fn registered_name(tool_json: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(tool_json).expect("generated JSON");
    let name = v["name"].as_str().expect("name");
    match v.get("namespace").and_then(|n| n.as_str()) {
        Some(ns) => format!("{ns}-{name}"),
        None => name.to_string(),
    }
}

fn bench(c: &mut Criterion, cases: &[Case]) {
    let request = DiscoverRequest::default();
    for case in cases {
        let label = &case.label;
        let catalog = cstring(&case.catalog);
        let args = discover_args(&case.queries);

        let registry = Registry::new();
        registry.register_json(&case.catalog).expect("register");
        let discoverer = registry.discoverer(DiscoveryOptions::reference());
        let mut g = c.benchmark_group("discover_rust");
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(label), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % case.queries.len();
                black_box(
                    discoverer
                        .discover(&case.queries[i], &request)
                        .expect("discover"),
                )
            })
        });
        g.finish();
        drop(discoverer);
        drop(registry);

        let creg = CRegistry::build(&catalog);
        let mut g = c.benchmark_group("discover_c_abi");
        g.throughput(Throughput::Elements(1));
        g.bench_function(BenchmarkId::from_parameter(label), |b| {
            let mut i = 0;
            b.iter(|| {
                i = (i + 1) % args.len();
                black_box(creg.discover(&args[i]))
            })
        });
        g.finish();

        let extras: Vec<(CString, CString, CString)> = case
            .extras
            .iter()
            .map(|(tool, query)| {
                (
                    cstring(tool),
                    cstring(&registered_name(tool)),
                    cstring(&serde_json::json!({"query": query, "top_k": 10}).to_string()),
                )
            })
            .collect();
        let mut g = c.benchmark_group("register_one_discover");
        g.bench_function(BenchmarkId::from_parameter(label), |b| {
            let mut i = 0;
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (tool, name, query) = &extras[i % extras.len()];
                    i += 1;
                    let t = Instant::now();
                    creg.register(tool);
                    black_box(creg.discover(query));
                    total += t.elapsed();
                    creg.unregister(name);
                }
                total
            })
        });
        g.finish();
        drop(creg);

        let mut g = c.benchmark_group("build_c_abi");
        g.sample_size(10);
        g.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter_with_large_drop(|| CRegistry::build(&catalog))
        });
        g.finish();
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = (p / 100.0 * (sorted.len() - 1) as f64).round() as usize;
    sorted[rank]
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

/// Per-query latencies in microseconds over `passes` passes after one warm-up pass, sorted.
fn latencies(count: usize, passes: usize, mut run: impl FnMut(usize)) -> Vec<f64> {
    for i in 0..count {
        run(i);
    }
    let mut out = Vec::with_capacity(count * passes);
    for _ in 0..passes {
        for i in 0..count {
            let t = Instant::now();
            run(i);
            out.push(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    out.sort_by(f64::total_cmp);
    out
}

/// Discovers per second with `threads` threads each running every query `passes` times.
fn throughput(creg: &CRegistry, args: &[CString], threads: usize, passes: usize) -> f64 {
    let t = Instant::now();
    std::thread::scope(|s| {
        for k in 0..threads {
            s.spawn(move || {
                for p in 0..passes {
                    for j in 0..args.len() {
                        // Threads start at different queries so they do not walk in lockstep.
                        black_box(creg.discover(&args[(j + k * 97 + p) % args.len()]));
                    }
                }
            });
        }
    });
    (threads * passes * args.len()) as f64 / t.elapsed().as_secs_f64()
}

/// Words a workload query needs to be one need of a two-need query: the splitter asks three
/// content words of each need, and the workload's words include function words.
const MIN_PART_WORDS: usize = 5;

/// Two-need queries: consecutive workload queries of at least [`MIN_PART_WORDS`] words, joined by
/// "and then".
fn two_need_queries(queries: &[String]) -> Vec<String> {
    let long: Vec<&String> = queries
        .iter()
        .filter(|q| q.split_whitespace().count() >= MIN_PART_WORDS)
        .collect();
    long.chunks_exact(2)
        .map(|p| format!("{} and then {}", p[0], p[1]))
        .collect()
}

/// Enhanced discover latency of one-need and two-need queries (issue 42's cost bound: a two-need
/// query at most 1.5x a one-need one's cost before intents, a one-need query unchanged). The
/// same table from two builds, run alternately, compares them.
fn report_needs(cases: &[Case]) {
    let request = DiscoverRequest::default();
    println!("\n## Needs report (enhanced discover, µs, top_k 10, after a warm-up pass)\n");
    println!("| N | one need p50 | p95 | two needs p50 | p95 | two-need queries |");
    println!("|---|---|---|---|---|---|");
    for case in cases {
        let registry = Registry::new();
        registry.register_json(&case.catalog).expect("register");
        let d = registry.discoverer(DiscoveryOptions::enhanced());
        let passes = (20_000 / case.queries.len()).clamp(1, 20);
        let one = latencies(case.queries.len(), passes, |i| {
            black_box(d.discover(&case.queries[i], &request).expect("discover"));
        });
        let two_queries = two_need_queries(&case.queries);
        let two = latencies(two_queries.len(), passes, |i| {
            black_box(d.discover(&two_queries[i], &request).expect("discover"));
        });
        // How many two-need answers name a need (0 from a build without intents).
        let split = two_queries
            .iter()
            .filter(|q| {
                d.discover_json(q, &request)
                    .expect("discover")
                    .contains("\"intent\":")
            })
            .count();
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {} ({split} answered per need) |",
            case.label,
            percentile(&one, 50.0),
            percentile(&one, 95.0),
            percentile(&two, 50.0),
            percentile(&two, 95.0),
            two_queries.len()
        );
    }
}

fn report(cases: &[Case]) {
    let request = DiscoverRequest::default();
    println!("\n## Percentile report (µs unless noted; discover top_k 10, after a warm-up pass)\n");
    println!(
        "| N | Rust p50 | Rust p95 | Rust p99 | C ABI p50 | C ABI p95 | C ABI p99 | build (ms, median of 5) | register one + discover (median of 20) | discovers/s 1 thread | 2 threads | scaling |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for case in cases {
        let catalog = cstring(&case.catalog);
        let args = discover_args(&case.queries);
        let passes = (20_000 / case.queries.len()).clamp(1, 20);

        let registry = Registry::new();
        registry.register_json(&case.catalog).expect("register");
        let d = registry.discoverer(DiscoveryOptions::reference());
        let rust = latencies(case.queries.len(), passes, |i| {
            black_box(d.discover(&case.queries[i], &request).expect("discover"));
        });
        drop(d);
        drop(registry);

        let builds: Vec<f64> = (0..5)
            .map(|_| {
                let t = Instant::now();
                let r = CRegistry::build(&catalog);
                let ms = t.elapsed().as_secs_f64() * 1e3;
                drop(r);
                ms
            })
            .collect();

        let creg = CRegistry::build(&catalog);
        let cabi = latencies(args.len(), passes, |i| {
            black_box(creg.discover(&args[i]));
        });
        let mut incremental = Vec::new();
        for (tool, query) in &case.extras {
            let (tool_c, name) = (cstring(tool), cstring(&registered_name(tool)));
            let query = cstring(&serde_json::json!({"query": query, "top_k": 10}).to_string());
            let t = Instant::now();
            creg.register(&tool_c);
            black_box(creg.discover(&query));
            incremental.push(t.elapsed().as_secs_f64() * 1e6);
            creg.unregister(&name);
        }
        let tpasses = (40_000 / args.len()).clamp(1, 40);
        let one = throughput(&creg, &args, 1, tpasses);
        let two = throughput(&creg, &args, 2, tpasses);
        println!(
            "| {} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.1} | {:.2} | {:.1} | {:.0} | {:.0} | {:.2}x |",
            case.label,
            percentile(&rust, 50.0),
            percentile(&rust, 95.0),
            percentile(&rust, 99.0),
            percentile(&cabi, 50.0),
            percentile(&cabi, 95.0),
            percentile(&cabi, 99.0),
            median(builds),
            median(incremental),
            one,
            two,
            two / one
        );
    }
}

fn main() {
    let cases = cases();
    let args: Vec<String> = std::env::args().collect();
    let listing = args.iter().any(|a| a == "--list" || a == "--test");
    let report_only = std::env::var("TR_BENCH_REPORT_ONLY").is_ok_and(|v| v == "1");
    if !report_only {
        // Short windows: 5 catalogs x 4 groups; command-line flags still override them.
        let mut c = Criterion::default()
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
            .configure_from_args();
        bench(&mut c, &cases);
        c.final_summary();
    }
    if !listing {
        report(&cases);
        report_needs(&cases);
    }
}
