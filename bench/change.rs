//! The cost of one change to a built registry, against the cost of one discover.
//!
//! `cargo run --release --example bench_change -- CATALOG.json EXTRAS.json QUERIES.json [--profile P]`
//! registers the catalog, enables discovery (`discover_tools`, JSON in and out as through the
//! C ABI), then for each extra tool: registers it and discovers its query, unregisters it and
//! discovers the same query, and discovers it with nothing changed. Prints one JSON line with
//! the medians (µs) and the ratios to one discover (the median over the workload's queries), and
//! the first change after the build on its own (`first_register_one_discover_us`).
//!
//! Under `valgrind --tool=callgrind --toggle-collect='*bench_change*measured_*'` the three
//! `measured_*` functions' instruction counts give the same comparison without the machine's
//! noise: each runs once per extra tool (`measured_discover` also once per query, after the
//! warm-up).

use std::time::Instant;
use toolregistry::{DiscoveryOptions, Profile, Registry};

fn discover_args(query: &str) -> String {
    serde_json::json!({"query": query, "top_k": 10}).to_string()
}

#[inline(never)]
fn measured_register_and_discover(r: &Registry, tool: &str, args: &str) -> (String, usize) {
    let name = r.register_json(tool).expect("register").remove(0);
    (
        name,
        r.call_json("discover_tools", args).expect("discover").len(),
    )
}

/// The same as [`measured_register_and_discover`], for the first change after the build (not
/// named `measured_*`: it runs once, outside the callgrind comparison).
#[inline(never)]
fn first_register_and_discover(r: &Registry, tool: &str, args: &str) -> (String, usize) {
    measured_register_and_discover(r, tool, args)
}

#[inline(never)]
fn measured_unregister_and_discover(r: &Registry, name: &str, args: &str) -> usize {
    r.unregister(name).expect("unregister");
    r.call_json("discover_tools", args).expect("discover").len()
}

#[inline(never)]
fn measured_discover(r: &Registry, args: &str) -> usize {
    r.call_json("discover_tools", args).expect("discover").len()
}

#[inline(never)]
fn warm_up_discover(r: &Registry, args: &str) -> usize {
    r.call_json("discover_tools", args).expect("discover").len()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [catalog, extras, queries] = [&args[0], &args[1], &args[2]]
        .map(|p| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{p}: {e}")));
    let profile = match args.iter().position(|a| a == "--profile") {
        Some(i) => Profile::parse(&args[i + 1]).expect("reference or enhanced"),
        None => DiscoveryOptions::default().profile,
    };
    let registry = Registry::new();
    registry.register_json(&catalog).expect("register catalog");
    registry
        .enable_discovery(DiscoveryOptions::for_profile(profile))
        .expect("enable discovery");
    let extras: Vec<serde_json::Value> = serde_json::from_str(&extras).expect("extras");
    let queries: Vec<String> = serde_json::from_str(&queries).expect("queries");
    let time = |f: &mut dyn FnMut()| {
        let t = Instant::now();
        f();
        t.elapsed().as_secs_f64() * 1e6
    };
    // Warm-up pass (it renders every hit's schema for the first time), then every query once
    // more, timed. The warm-up is not a `measured_*` function, so under callgrind one discover
    // is counted warm, like the timed one.
    for q in &queries {
        warm_up_discover(&registry, &discover_args(q));
    }
    // The extras' queries too: their other hits are then rendered already, so a change's
    // discover differs from a warm one by the change and the new tool's first rendering only.
    for e in &extras {
        warm_up_discover(
            &registry,
            &discover_args(e["query"].as_str().expect("query")),
        );
    }
    let discover = median(
        queries
            .iter()
            .map(|q| {
                let a = discover_args(q);
                time(&mut || {
                    std::hint::black_box(measured_discover(&registry, &a));
                })
            })
            .collect(),
    );
    // The first change after the build, timed on its own: it pays for any structure built
    // exactly full (a vector that must then be copied to twice its size).
    let first = {
        let e = &extras[0];
        let (tool, a) = (
            e["tool"].to_string(),
            discover_args(e["query"].as_str().expect("query")),
        );
        let mut name = String::new();
        let us = time(&mut || {
            name = std::hint::black_box(first_register_and_discover(&registry, &tool, &a)).0;
        });
        registry.unregister(&name).expect("unregister");
        us
    };
    let (mut reg, mut unreg, mut same) = (Vec::new(), Vec::new(), Vec::new());
    for e in &extras {
        let tool = e["tool"].to_string();
        let a = discover_args(e["query"].as_str().expect("query"));
        let mut name = String::new();
        reg.push(time(&mut || {
            name = std::hint::black_box(measured_register_and_discover(&registry, &tool, &a)).0;
        }));
        same.push(time(&mut || {
            std::hint::black_box(measured_discover(&registry, &a));
        }));
        let registered = name;
        unreg.push(time(&mut || {
            std::hint::black_box(measured_unregister_and_discover(&registry, &registered, &a));
        }));
    }
    let (reg, unreg, same) = (median(reg), median(unreg), median(same));
    println!(
        "{{\"profile\":\"{}\",\"tools\":{},\"discover_p50_us\":{discover:.2},\"register_one_discover_us\":{reg:.2},\"unregister_one_discover_us\":{unreg:.2},\"same_query_discover_us\":{same:.2},\"first_register_one_discover_us\":{first:.2},\"register_ratio\":{:.2},\"unregister_ratio\":{:.2}}}",
        profile.as_str(),
        registry.len().expect("len"),
        reg / discover,
        unreg / discover
    );
}
