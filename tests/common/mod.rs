//! Shared helpers for the integration tests: the golden-vector replayer and C ABI call wrappers.
#![allow(dead_code, unsafe_code)]

use serde_json::{Value, json};
use std::ffi::{CStr, CString, c_char};
use std::path::PathBuf;
use toolregistry::ffi::*;

/// `../shared/golden` relative to the crate root (override with TOOLREGISTRY_GOLDEN_DIR).
pub fn golden_dir() -> PathBuf {
    std::env::var_os("TOOLREGISTRY_GOLDEN_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/golden"))
}

pub fn golden_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("../shared/golden is readable")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(
        files.len() >= 11,
        "expected the 11 golden scenarios, found {}",
        files.len()
    );
    files
}

/// A golden step's tool in the registration JSON shape.
pub fn golden_tool_json(tool: &Value) -> String {
    let mut t = json!({
        "name": tool["name"],
        "description": tool["description"],
        "parameters": tool["parameters"],
    });
    if let Some(ns) = tool.get("namespace") {
        t["namespace"] = ns.clone();
    }
    let mut meta = serde_json::Map::new();
    for key in ["defer", "tags", "search_hint"] {
        if let Some(v) = tool.get(key) {
            meta.insert(key.to_string(), v.clone());
        }
    }
    if !meta.is_empty() {
        t["metadata"] = Value::Object(meta);
    }
    t.to_string()
}

/// Discovery options JSON for an `enable_discovery` step, pinned to the reference profile (the
/// default is enhanced; the golden vectors are the reference's answers).
pub fn golden_options_json(step: &Value) -> String {
    let mut o = serde_json::Map::new();
    o.insert("profile".into(), "reference".into());
    for key in ["field_weights", "min_score_ratio", "max_df_ratio"] {
        if let Some(v) = step.get(key) {
            o.insert(key.to_string(), v.clone());
        }
    }
    Value::Object(o).to_string()
}

/// Compares one discover answer with the recorded one; returns a description of the first difference.
pub fn compare(expect: &[Value], got: &Value) -> Result<(), String> {
    let got = got.as_array().ok_or("answer is not an array")?;
    let names = |v: &[Value]| {
        v.iter()
            .map(|h| h["name"].as_str().unwrap_or("?").to_string())
            .collect::<Vec<_>>()
    };
    if expect.len() != got.len() {
        return Err(format!(
            "length {} != {}: expected {:?}, got {:?}",
            got.len(),
            expect.len(),
            names(expect),
            names(got)
        ));
    }
    for (i, (e, g)) in expect.iter().zip(got).enumerate() {
        if e["name"] != g["name"] {
            return Err(format!(
                "rank {i}: expected {:?}, got {:?}",
                names(expect),
                names(got)
            ));
        }
        let (es, gs) = (e["score"].as_f64().unwrap(), g["score"].as_f64().unwrap());
        if (es - gs).abs() > 1e-9 * es.abs().max(gs.abs()) {
            return Err(format!("rank {i} {}: score {gs} != {es}", e["name"]));
        }
        if e["namespace"] != g["namespace"] || e["deferred"] != g["deferred"] {
            return Err(format!(
                "rank {i} {}: namespace/deferred differ: {g}",
                e["name"]
            ));
        }
        if e["has_schema"].as_bool().unwrap() != g.get("schema").is_some() {
            return Err(format!("rank {i} {}: schema presence differs", e["name"]));
        }
    }
    Ok(())
}

/// The operations a golden replay needs, implemented once per API surface.
pub trait Engine {
    fn register(&mut self, tool_json: &str);
    fn unregister(&mut self, name: &str);
    fn set_enabled(&mut self, name: &str, enabled: bool);
    fn set_metadata(&mut self, name: &str, metadata_json: &str);
    fn enable_discovery(&mut self, options_json: &str);
    /// Ok(answer JSON) or Err(status name).
    fn discover(&mut self, query: &str, top_k: u64) -> Result<Value, String>;
}

/// Replays a golden file on `engine`; returns (discovers checked, failures).
pub fn replay(path: &std::path::Path, engine: &mut dyn Engine) -> (usize, Vec<String>) {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for (i, step) in doc["steps"].as_array().unwrap().iter().enumerate() {
        match step["op"].as_str().unwrap() {
            "register" => engine.register(&golden_tool_json(&step["tool"])),
            "unregister" => engine.unregister(step["name"].as_str().unwrap()),
            "disable" => engine.set_enabled(step["name"].as_str().unwrap(), false),
            "enable" => engine.set_enabled(step["name"].as_str().unwrap(), true),
            "set_metadata" => engine.set_metadata(
                step["name"].as_str().unwrap(),
                &step["metadata"].to_string(),
            ),
            "enable_discovery" => engine.enable_discovery(&golden_options_json(step)),
            "discover" => {
                checked += 1;
                let query = step["query"].as_str().unwrap();
                let got = engine.discover(query, step["top_k"].as_u64().unwrap());
                let outcome = match (step.get("expect"), got) {
                    (Some(e), Ok(g)) => compare(e.as_array().unwrap(), &g),
                    (None, Err(status)) if status == "TR_STATUS_INVALID_ARGUMENT" => Ok(()),
                    (None, other) => Err(format!("expected INVALID_ARGUMENT, got {other:?}")),
                    (Some(_), Err(status)) => Err(format!("failed with {status}")),
                };
                if let Err(why) = outcome {
                    failures.push(format!(
                        "{} step {i} query {query:?}: {why}",
                        path.display()
                    ));
                }
            }
            op => panic!("unknown op {op}"),
        }
    }
    (checked, failures)
}

/// A small deterministic generator (xorshift), so a failing random test names its seed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    /// `n` words from `vocabulary`, space-separated.
    pub fn words(&mut self, vocabulary: &[&str], n: usize) -> String {
        (0..n)
            .map(|_| self.pick(vocabulary))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

// ---- C ABI helpers -------------------------------------------------------------------------

pub fn cstr(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Takes ownership of a library string and frees it.
pub fn take(p: *mut c_char) -> String {
    assert!(!p.is_null());
    let s = unsafe { CStr::from_ptr(p) }.to_str().unwrap().to_string();
    unsafe { tr_string_free(p) };
    s
}

/// Turns a status and error string into Ok(()) or Err((status name, message)). Resets `*err` to
/// NULL after taking the message, so the next call can check that success leaves it alone.
pub fn check(status: tr_status, err: &mut *mut c_char) -> Result<(), (String, String)> {
    if status == tr_status::TR_STATUS_OK {
        assert!(err.is_null(), "err_out written on success");
        return Ok(());
    }
    let name = unsafe { CStr::from_ptr(tr_status_name(status as i32)) }
        .to_str()
        .unwrap()
        .to_string();
    let msg = take(std::mem::replace(err, std::ptr::null_mut()));
    assert!(
        !msg.is_empty() && !msg.contains('\n'),
        "message must be one non-empty line: {msg:?}"
    );
    Err((name, msg))
}

/// `tr_discoverer_explain` on a new discoverer of `r` made with `discoverer_options` (NULL when
/// `None`): the explanation's JSON. Panics on any failure: the callers test what it says.
pub fn explain_json(
    r: *mut tr_registry,
    discoverer_options: Option<&str>,
    query: &str,
    tool: &str,
) -> Value {
    let (mut d, mut out, mut err) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    let options = discoverer_options.map(cstr);
    let options_ptr = options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr());
    check(
        unsafe { tr_discoverer_new(r, options_ptr, &mut d, &mut err) },
        &mut err,
    )
    .unwrap();
    let status = unsafe {
        tr_discoverer_explain(
            d,
            cstr(query).as_ptr(),
            cstr(tool).as_ptr(),
            std::ptr::null(),
            &mut out,
            &mut err,
        )
    };
    unsafe { tr_discoverer_free(d) };
    check(status, &mut err).unwrap();
    serde_json::from_str(&take(out)).unwrap()
}

/// A new registry (`options_json` NULL-able) holding `tools_json`; returns it and the registered
/// names' JSON. Panics on any failure: it is test setup.
pub fn new_registry_with(
    options_json: Option<&str>,
    tools_json: &str,
) -> (*mut tr_registry, String) {
    let (mut r, mut err, mut names) = (
        std::ptr::null_mut(),
        std::ptr::null_mut(),
        std::ptr::null_mut(),
    );
    let options = options_json.map(cstr);
    let options_ptr = options.as_ref().map_or(std::ptr::null(), |o| o.as_ptr());
    check(
        unsafe { tr_registry_new(options_ptr, &mut r, &mut err) },
        &mut err,
    )
    .unwrap();
    check(
        unsafe { tr_registry_register(r, cstr(tools_json).as_ptr(), &mut names, &mut err) },
        &mut err,
    )
    .unwrap();
    (r, take(names))
}
