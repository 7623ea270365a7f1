//! The reference's recorded answers (`../shared/golden`) reproduced through the Rust API and the C ABI:
//! via the built-in `discover_tools` and via a standalone discoverer, for every scenario.
#![allow(unsafe_code)]

use crate::common;

use common::*;
use serde_json::{Value, json};
use std::ffi::c_char;
use std::ptr;
use toolregistry::ffi::*;
use toolregistry::{DiscoverRequest, Discoverer, DiscoveryOptions, Registry};

/// The Rust API: `Registry::call_json("discover_tools")` and a `Discoverer`, both checked.
struct RustEngine {
    registry: Registry,
    discoverer: Option<Discoverer>,
}

impl Engine for RustEngine {
    fn register(&mut self, tool_json: &str) {
        self.registry.register_json(tool_json).unwrap();
    }
    fn unregister(&mut self, name: &str) {
        self.registry.unregister(name).unwrap();
    }
    fn set_enabled(&mut self, name: &str, enabled: bool) {
        self.registry.set_enabled(name, enabled).unwrap();
    }
    fn set_metadata(&mut self, name: &str, metadata_json: &str) {
        self.registry
            .set_metadata_json(name, metadata_json)
            .unwrap();
    }
    fn enable_discovery(&mut self, options_json: &str) {
        let options = DiscoveryOptions::from_json(Some(options_json)).unwrap();
        self.registry.enable_discovery(options).unwrap();
        self.discoverer = Some(self.registry.discoverer(options));
    }
    fn discover(&mut self, query: &str, top_k: u64) -> Result<Value, String> {
        let args = json!({"query": query, "top_k": top_k}).to_string();
        let via_call = self.registry.call_json("discover_tools", &args);
        let request = DiscoverRequest {
            top_k: top_k as usize,
            ..Default::default()
        };
        let via_discoverer = self
            .discoverer
            .as_ref()
            .unwrap()
            .discover_json(query, &request);
        assert_eq!(
            via_call, via_discoverer,
            "discover_tools and the discoverer disagree on {query:?}"
        );
        via_call
            .map(|s| serde_json::from_str(&s).unwrap())
            .map_err(|e| {
                if matches!(e, toolregistry::Error::InvalidArgument(_)) {
                    "TR_STATUS_INVALID_ARGUMENT".into()
                } else {
                    e.to_string()
                }
            })
    }
}

/// The C ABI: `tr_registry_call(r, "discover_tools", ...)` and a `tr_discoverer`, both checked.
struct CEngine {
    registry: *mut tr_registry,
    discoverer: *mut tr_discoverer,
}

impl CEngine {
    fn new() -> Self {
        let mut r = ptr::null_mut();
        let mut err: *mut c_char = ptr::null_mut();
        check(
            unsafe { tr_registry_new(ptr::null(), &mut r, &mut err) },
            &mut err,
        )
        .unwrap();
        CEngine {
            registry: r,
            discoverer: ptr::null_mut(),
        }
    }
}

impl Drop for CEngine {
    fn drop(&mut self) {
        unsafe {
            // Free the registry first: the discoverer must keep the state alive on its own.
            tr_registry_free(self.registry);
            tr_discoverer_free(self.discoverer);
        }
    }
}

impl Engine for CEngine {
    fn register(&mut self, tool_json: &str) {
        let (mut names, mut err) = (ptr::null_mut(), ptr::null_mut());
        check(
            unsafe {
                tr_registry_register(
                    self.registry,
                    cstr(tool_json).as_ptr(),
                    &mut names,
                    &mut err,
                )
            },
            &mut err,
        )
        .unwrap();
        take(names);
    }
    fn unregister(&mut self, name: &str) {
        let mut err = ptr::null_mut();
        check(
            unsafe { tr_registry_unregister(self.registry, cstr(name).as_ptr(), &mut err) },
            &mut err,
        )
        .unwrap();
    }
    fn set_enabled(&mut self, name: &str, enabled: bool) {
        let mut err = ptr::null_mut();
        check(
            unsafe {
                tr_registry_set_enabled(self.registry, cstr(name).as_ptr(), enabled, &mut err)
            },
            &mut err,
        )
        .unwrap();
    }
    fn set_metadata(&mut self, name: &str, metadata_json: &str) {
        let mut err = ptr::null_mut();
        let status = unsafe {
            tr_registry_set_metadata(
                self.registry,
                cstr(name).as_ptr(),
                cstr(metadata_json).as_ptr(),
                &mut err,
            )
        };
        check(status, &mut err).unwrap();
    }
    fn enable_discovery(&mut self, options_json: &str) {
        let options = cstr(options_json);
        let mut err = ptr::null_mut();
        check(
            unsafe { tr_registry_enable_discovery(self.registry, options.as_ptr(), &mut err) },
            &mut err,
        )
        .unwrap();
        unsafe { tr_discoverer_free(self.discoverer) };
        self.discoverer = ptr::null_mut();
        check(
            unsafe {
                tr_discoverer_new(
                    self.registry,
                    options.as_ptr(),
                    &mut self.discoverer,
                    &mut err,
                )
            },
            &mut err,
        )
        .unwrap();
    }
    fn discover(&mut self, query: &str, top_k: u64) -> Result<Value, String> {
        let args = cstr(&json!({"query": query, "top_k": top_k}).to_string());
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let status = unsafe {
            tr_registry_call(
                self.registry,
                c"discover_tools".as_ptr(),
                args.as_ptr(),
                &mut out,
                &mut err,
            )
        };
        let via_call = check(status, &mut err).map(|()| take(out));
        let options = cstr(&json!({"top_k": top_k}).to_string());
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let status = unsafe {
            tr_discoverer_discover(
                self.discoverer,
                cstr(query).as_ptr(),
                options.as_ptr(),
                &mut out,
                &mut err,
            )
        };
        let via_discoverer = check(status, &mut err).map(|()| take(out));
        assert_eq!(
            via_call.as_ref().map_err(|e| &e.0),
            via_discoverer.as_ref().map_err(|e| &e.0),
            "tr_registry_call and tr_discoverer_discover disagree on {query:?}"
        );
        via_call
            .map(|s| serde_json::from_str(&s).unwrap())
            .map_err(|(status, _)| status)
    }
}

fn run_all(make: impl Fn() -> Box<dyn Engine>) {
    let mut total = 0;
    let mut failures = Vec::new();
    for file in golden_files() {
        let mut engine = make();
        let (checked, mut f) = replay(&file, engine.as_mut());
        total += checked;
        failures.append(&mut f);
    }
    assert!(total > 1900, "only {total} discover answers checked");
    assert!(
        failures.is_empty(),
        "{} of {total} answers differ:\n{}",
        failures.len(),
        failures[..failures.len().min(20)].join("\n")
    );
}

#[test]
fn golden_vectors_through_the_rust_api() {
    run_all(|| {
        Box::new(RustEngine {
            registry: Registry::new(),
            discoverer: None,
        })
    });
}

#[test]
fn golden_vectors_through_the_c_abi() {
    run_all(|| Box::new(CEngine::new()));
}

#[test]
fn a_broken_engine_fails_the_replay() {
    // The comparison must be able to fail: an engine whose scores are off by 1e-6 is caught.
    struct Skewed(RustEngine);
    impl Engine for Skewed {
        fn register(&mut self, t: &str) {
            self.0.register(t)
        }
        fn unregister(&mut self, n: &str) {
            self.0.unregister(n)
        }
        fn set_enabled(&mut self, n: &str, e: bool) {
            self.0.set_enabled(n, e)
        }
        fn set_metadata(&mut self, n: &str, m: &str) {
            self.0.set_metadata(n, m)
        }
        fn enable_discovery(&mut self, o: &str) {
            self.0.enable_discovery(o)
        }
        fn discover(&mut self, q: &str, k: u64) -> Result<Value, String> {
            let mut v = self.0.discover(q, k)?;
            for h in v.as_array_mut().unwrap() {
                let s = h["score"].as_f64().unwrap();
                if s != 1.0 {
                    h["score"] = json!(s * (1.0 + 1e-6));
                }
            }
            Ok(v)
        }
    }
    let file = golden_dir().join("seed_examples.json");
    let (_, failures) = replay(
        &file,
        &mut Skewed(RustEngine {
            registry: Registry::new(),
            discoverer: None,
        }),
    );
    assert!(!failures.is_empty());
}
