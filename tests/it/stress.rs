//! Concurrency stress: eight threads mutate and search one registry while another thread keeps
//! replacing the standalone discoverers they search with.
//!
//! Afterwards every registered tool is present exactly once, the index equals a rebuild, the
//! registry answers like one rebuilt from scratch, and no discover ever returned a tool that was
//! not registered at some moment during that call. The last is checked with a global logical
//! clock: each operation reads the clock before and after it runs, a tool's registration interval
//! runs from before the register call that added it to after the unregister call that removed it,
//! and each hit must have an interval overlapping its discover call.
#![allow(unsafe_code)]

use crate::common;

use common::Rng;
use std::collections::{HashMap, HashSet};
use std::ffi::{CStr, CString, c_char};
use std::ptr;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant};
use toolregistry::ffi::*;
use toolregistry::{DiscoverRequest, Discoverer, DiscoveryOptions, Error, Registry, Tool};

const WORKERS: usize = 8;
const NAMES_PER_WORKER: usize = 12;
const STABLE: usize = 40;
const RUN_FOR: Duration = Duration::from_millis(2500);
const WORDS: &[&str] = &[
    "read", "file", "write", "email", "send", "list", "repo", "issue", "weather", "天气", "查询",
    "user", "delete", "sync", "the",
];

static CLOCK: AtomicU64 = AtomicU64::new(1);

fn tick() -> u64 {
    CLOCK.fetch_add(1, Ordering::SeqCst)
}

/// One discover call: when it ran (clock before and after) and what it returned.
struct Observation {
    start: u64,
    end: u64,
    names: Vec<String>,
}

#[derive(Default)]
struct WorkerLog {
    /// Closed and open registration intervals per name (open ones end at u64::MAX).
    intervals: HashMap<String, Vec<(u64, u64)>>,
    observations: Vec<Observation>,
    /// Name to enabled flag, for the tools this worker left registered.
    registered: HashMap<String, bool>,
    ops: usize,
}

fn tool_json(name: &str, rng: &mut Rng) -> String {
    let n = 1 + rng.below(6);
    let desc = rng.words(WORDS, n);
    let tags: Vec<String> = (0..rng.below(3))
        .map(|_| format!("\"{}\"", WORDS[rng.below(WORDS.len())]))
        .collect();
    format!(
        r#"{{"name":"{name}","description":"{desc}","parameters":{{"type":"object","properties":{{"{}":{{}}}}}},"metadata":{{"defer":{},"tags":[{}]}}}}"#,
        WORDS[rng.below(WORDS.len())],
        rng.below(2) == 0,
        tags.join(",")
    )
}

fn check_ranking(hits: &[toolregistry::Hit]) {
    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    let unique: HashSet<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    assert_eq!(unique.len(), hits.len(), "a tool listed twice");
}

fn worker(
    t: usize,
    registry: Arc<Registry>,
    slots: Arc<Vec<Mutex<Discoverer>>>,
    stop: Arc<AtomicBool>,
) -> WorkerLog {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (t as u64 + 1).wrapping_mul(0xA24B_AED4_963E_E407));
    let names: Vec<String> = (0..NAMES_PER_WORKER)
        .map(|k| format!("w{t}_{}_{k}", WORDS[k % WORDS.len()]))
        .collect();
    let mut log = WorkerLog::default();
    let mut open: HashMap<String, u64> = HashMap::new();
    while !stop.load(Ordering::Relaxed) {
        log.ops += 1;
        let name = &names[rng.below(names.len())];
        let registered = log.registered.contains_key(name);
        match rng.below(10) {
            0 | 1 => {
                let json = tool_json(name, &mut rng);
                let start = tick();
                registry.register_json(&json).unwrap();
                if !registered {
                    open.insert(name.clone(), start);
                    log.registered.insert(name.clone(), true);
                }
            }
            2 => {
                let result = registry.unregister(name);
                let end = tick();
                if registered {
                    result.unwrap();
                    let start = open.remove(name).unwrap();
                    log.intervals
                        .entry(name.clone())
                        .or_default()
                        .push((start, end));
                    log.registered.remove(name);
                } else {
                    assert!(matches!(result, Err(Error::NotFound(_))), "{result:?}");
                }
            }
            3 | 4 => {
                let enabled = rng.below(2) == 0;
                let result = registry.set_enabled(name, enabled);
                match log.registered.get_mut(name) {
                    Some(flag) => {
                        result.unwrap();
                        *flag = enabled;
                    }
                    None => assert!(matches!(result, Err(Error::NotFound(_))), "{result:?}"),
                }
            }
            5 => {
                let json = format!(
                    r#"{{"search_hint":"{}","tags":["{}"],"defer":{}}}"#,
                    rng.words(WORDS, 2),
                    WORDS[rng.below(WORDS.len())],
                    rng.below(2) == 0
                );
                let result = registry.set_metadata_json(name, &json);
                assert_eq!(result.is_ok(), registered, "{result:?}");
            }
            _ => {
                let query = if rng.below(4) == 0 {
                    names[rng.below(names.len())].clone()
                } else {
                    let n = 1 + rng.below(3);
                    rng.words(WORDS, n)
                };
                let request = DiscoverRequest {
                    top_k: 1 + rng.below(30),
                    ..Default::default()
                };
                let which = rng.below(3);
                // Take the current discoverer out of its slot; the recreator may replace it meanwhile.
                let discoverer = (which < 2).then(|| slots[which].lock().unwrap().clone());
                let start = tick();
                let hits = match &discoverer {
                    Some(d) => d.discover(&query, &request),
                    None => registry.discover(&query, &request),
                }
                .unwrap();
                let end = tick();
                check_ranking(&hits);
                log.observations.push(Observation {
                    start,
                    end,
                    names: hits.into_iter().map(|h| h.name).collect(),
                });
            }
        }
    }
    for (name, start) in open {
        log.intervals
            .entry(name)
            .or_default()
            .push((start, u64::MAX));
    }
    log
}

#[test]
fn eight_threads_mutate_and_search_while_discoverers_are_replaced() {
    let registry = Arc::new(Registry::new());
    registry
        .enable_discovery(DiscoveryOptions {
            min_score_ratio: 0.0,
            ..DiscoveryOptions::reference()
        })
        .unwrap();
    let mut rng = Rng(7);
    for i in 0..STABLE {
        registry
            .register_json(&tool_json(&format!("stable_{i}"), &mut rng))
            .unwrap();
    }
    let slots: Arc<Vec<Mutex<Discoverer>>> = Arc::new(vec![
        Mutex::new(registry.discoverer(DiscoveryOptions::reference())),
        Mutex::new(registry.discoverer(DiscoveryOptions {
            max_df_ratio: 0.0,
            min_score_ratio: 0.0,
            ..DiscoveryOptions::reference()
        })),
    ]);
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..WORKERS)
        .map(|t| {
            let (registry, slots, stop) = (registry.clone(), slots.clone(), stop.clone());
            std::thread::spawn(move || worker(t, registry, slots, stop))
        })
        .collect();
    let recreator = {
        let (registry, slots, stop) = (registry.clone(), slots.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut rng = Rng(99);
            let mut recreated = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let options = DiscoveryOptions {
                    min_score_ratio: [0.0, 0.3][rng.below(2)],
                    max_df_ratio: [0.0, 0.5][rng.below(2)],
                    ..DiscoveryOptions::reference()
                };
                let fresh = registry.discoverer(options);
                // The old discoverer is dropped here, possibly while a worker still uses a clone.
                *slots[rng.below(2)].lock().unwrap() = fresh;
                if rng.below(8) == 0 {
                    registry.discoverer(options).rebuild_index().unwrap();
                }
                recreated += 1;
                std::thread::sleep(Duration::from_micros(200));
            }
            recreated
        })
    };
    std::thread::sleep(RUN_FOR);
    stop.store(true, Ordering::Relaxed);
    let logs: Vec<WorkerLog> = workers
        .into_iter()
        .map(|h| h.join().expect("no worker panicked"))
        .collect();
    let recreated = recreator.join().expect("the recreator did not panic");

    // No discover returned a tool outside its registration intervals.
    let mut intervals: HashMap<String, Vec<(u64, u64)>> = (0..STABLE)
        .map(|i| (format!("stable_{i}"), vec![(0, u64::MAX)]))
        .collect();
    for log in &logs {
        for (name, list) in &log.intervals {
            intervals.entry(name.clone()).or_default().extend(list);
        }
    }
    let mut hits_checked = 0;
    for log in &logs {
        for obs in &log.observations {
            for name in &obs.names {
                let ok = intervals
                    .get(name)
                    .is_some_and(|list| list.iter().any(|&(s, e)| s <= obs.end && e >= obs.start));
                assert!(
                    ok,
                    "discover during [{}, {}] returned {name:?}, registered only during {:?}",
                    obs.start,
                    obs.end,
                    intervals.get(name)
                );
                hits_checked += 1;
            }
        }
    }

    // Every registered tool exactly once, and nothing else.
    let names = registry.names().unwrap();
    let unique: HashSet<&String> = names.iter().collect();
    assert_eq!(unique.len(), names.len(), "a tool present twice");
    let mut expected: HashMap<String, bool> =
        (0..STABLE).map(|i| (format!("stable_{i}"), true)).collect();
    for log in &logs {
        expected.extend(log.registered.clone());
    }
    assert_eq!(
        unique.iter().map(|n| n.as_str()).collect::<HashSet<_>>(),
        expected.keys().map(|n| n.as_str()).collect::<HashSet<_>>()
    );
    assert!(
        registry.verify_index().unwrap(),
        "index differs from a rebuild"
    );

    // The registry answers like one rebuilt from scratch with the same tools and flags.
    let fresh = Registry::new();
    fresh
        .enable_discovery(DiscoveryOptions {
            min_score_ratio: 0.0,
            ..DiscoveryOptions::reference()
        })
        .unwrap();
    for name in &names {
        let tool: Tool = registry.tool(name).unwrap().unwrap();
        fresh.register(vec![tool]).unwrap();
        if !expected[name] {
            fresh.set_enabled(name, false).unwrap();
        }
    }
    assert_eq!(
        registry.schemas_json(&Default::default()).unwrap(),
        fresh.schemas_json(&Default::default()).unwrap()
    );
    let request = DiscoverRequest {
        top_k: 100,
        ..Default::default()
    };
    for q in [
        "read file",
        "email weather sync",
        "天气查询",
        "w3_email_3",
        "the",
    ] {
        assert_eq!(
            registry.discover(q, &request).unwrap(),
            fresh.discover(q, &request).unwrap(),
            "{q}"
        );
        let options = *slots[0].lock().unwrap().options();
        assert_eq!(
            slots[0].lock().unwrap().discover(q, &request).unwrap(),
            fresh.discoverer(options).discover(q, &request).unwrap(),
            "{q}"
        );
    }
    let ops: usize = logs.iter().map(|l| l.ops).sum();
    let discovers: usize = logs.iter().map(|l| l.observations.len()).sum();
    eprintln!(
        "stress: {ops} operations ({discovers} discovers, {hits_checked} hits checked against registration intervals), {recreated} discoverers replaced"
    );
    assert!(discovers > 100 && recreated > 10 && hits_checked > 100);
}

// ---- the same through the C ABI -----------------------------------------------------------

/// A handle shared between threads; the C ABI documents handles as thread-safe.
struct Shared<T>(*mut T);
impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Shared<T> {}
unsafe impl<T> Send for Shared<T> {}
unsafe impl<T> Sync for Shared<T> {}

fn call(status: tr_status, err: *mut c_char) -> Result<(), String> {
    if status == tr_status::TR_STATUS_OK {
        return Ok(());
    }
    let name = unsafe { CStr::from_ptr(tr_status_name(status as i32)) }
        .to_string_lossy()
        .into_owned();
    let msg = unsafe { CStr::from_ptr(err) }
        .to_string_lossy()
        .into_owned();
    unsafe { tr_string_free(err) };
    Err(format!("{name}: {msg}"))
}

fn take(p: *mut c_char) -> String {
    let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
    unsafe { tr_string_free(p) };
    s
}

#[test]
fn c_abi_threads_mutate_and_search_while_discoverers_are_freed_and_recreated() {
    let (mut r, mut err) = (ptr::null_mut(), ptr::null_mut());
    call(
        unsafe { tr_registry_new(c"{\"discovery\": {}}".as_ptr(), &mut r, &mut err) },
        err,
    )
    .unwrap();
    let r = Shared(r);
    // Each slot holds a live discoverer; the lock keeps a handle from being freed while in use,
    // as the contract requires.
    let slots: Arc<Vec<RwLock<Shared<tr_discoverer>>>> = Arc::new(
        (0..2)
            .map(|_| {
                let mut d = ptr::null_mut();
                call(
                    unsafe { tr_discoverer_new(r.0, ptr::null(), &mut d, &mut err) },
                    err,
                )
                .unwrap();
                RwLock::new(Shared(d))
            })
            .collect(),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let discovers = Arc::new(AtomicUsize::new(0));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let (slots, stop, discovers) = (slots.clone(), stop.clone(), discovers.clone());
            std::thread::spawn(move || {
                let r = r;
                let mut rng = Rng(t as u64 * 31 + 5);
                let mut mine: HashSet<String> = HashSet::new();
                while !stop.load(Ordering::Relaxed) {
                    let name = format!("c{t}_{}", rng.below(10));
                    let cname = CString::new(name.clone()).unwrap();
                    let mut err = ptr::null_mut();
                    match rng.below(6) {
                        0 | 1 => {
                            let json = CString::new(tool_json(&name, &mut rng)).unwrap();
                            let mut names = ptr::null_mut();
                            call(
                                unsafe {
                                    tr_registry_register(r.0, json.as_ptr(), &mut names, &mut err)
                                },
                                err,
                            )
                            .unwrap();
                            assert_eq!(take(names), format!("[\"{name}\"]"));
                            mine.insert(name);
                        }
                        2 => {
                            let result = call(
                                unsafe { tr_registry_unregister(r.0, cname.as_ptr(), &mut err) },
                                err,
                            );
                            assert_eq!(result.is_ok(), mine.remove(&name), "{result:?}");
                        }
                        3 => {
                            let result = call(
                                unsafe {
                                    tr_registry_set_enabled(
                                        r.0,
                                        cname.as_ptr(),
                                        rng.below(2) == 0,
                                        &mut err,
                                    )
                                },
                                err,
                            );
                            assert_eq!(result.is_ok(), mine.contains(&name), "{result:?}");
                        }
                        _ => {
                            let slot = slots[rng.below(2)].read().unwrap();
                            let query = CString::new(rng.words(WORDS, 2)).unwrap();
                            let mut out = ptr::null_mut();
                            call(
                                unsafe {
                                    tr_discoverer_discover(
                                        slot.0,
                                        query.as_ptr(),
                                        c"{\"top_k\": 20}".as_ptr(),
                                        &mut out,
                                        &mut err,
                                    )
                                },
                                err,
                            )
                            .unwrap();
                            let hits: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
                            assert!(hits.is_array());
                            discovers.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                mine
            })
        })
        .collect();
    let recreator = {
        let (slots, stop) = (slots.clone(), stop.clone());
        std::thread::spawn(move || {
            let r = r;
            let mut rng = Rng(3);
            let mut recreated = 0usize;
            while !stop.load(Ordering::Relaxed) {
                let mut slot = slots[rng.below(2)].write().unwrap();
                unsafe { tr_discoverer_free(slot.0) };
                let (mut d, mut err) = (ptr::null_mut(), ptr::null_mut());
                call(
                    unsafe {
                        tr_discoverer_new(r.0, c"{\"max_df_ratio\": 0}".as_ptr(), &mut d, &mut err)
                    },
                    err,
                )
                .unwrap();
                *slot = Shared(d);
                drop(slot);
                recreated += 1;
                std::thread::sleep(Duration::from_micros(300));
            }
            recreated
        })
    };
    let start = Instant::now();
    while start.elapsed() < Duration::from_millis(1500) {
        std::thread::sleep(Duration::from_millis(20));
    }
    stop.store(true, Ordering::Relaxed);
    let mut expected: Vec<String> = threads
        .into_iter()
        .flat_map(|h| h.join().expect("no thread panicked"))
        .collect();
    let recreated = recreator.join().unwrap();
    expected.sort();
    let mut out = ptr::null_mut();
    call(
        unsafe { tr_registry_get_schemas(r.0, c"{}".as_ptr(), &mut out, &mut err) },
        err,
    )
    .unwrap();
    // Disabled tools are left out of schemas, so compare against the registered names instead.
    let schemas: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
    let listed: Vec<String> = schemas
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["function"]["name"].as_str().unwrap().to_string())
        .filter(|n| n != "discover_tools" && n != "call_deferred")
        .collect();
    assert!(listed.iter().all(|n| expected.binary_search(n).is_ok()));
    let unique: HashSet<&String> = listed.iter().collect();
    assert_eq!(unique.len(), listed.len(), "a tool listed twice");
    // Each expected name is registered exactly once: unregistering succeeds once, then NOT_FOUND.
    for name in &expected {
        let c = CString::new(name.as_str()).unwrap();
        call(
            unsafe { tr_registry_unregister(r.0, c.as_ptr(), &mut err) },
            err,
        )
        .unwrap();
        assert!(
            call(
                unsafe { tr_registry_unregister(r.0, c.as_ptr(), &mut err) },
                err
            )
            .is_err()
        );
    }
    eprintln!(
        "C ABI stress: {} discovers, {recreated} discoverers freed and recreated, {} tools left",
        discovers.load(Ordering::Relaxed),
        expected.len()
    );
    assert!(discovers.load(Ordering::Relaxed) > 50 && recreated > 10);
    unsafe {
        for slot in slots.iter() {
            tr_discoverer_free(slot.read().unwrap().0);
        }
        tr_registry_free(r.0);
    }
}
