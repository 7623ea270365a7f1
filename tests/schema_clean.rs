//! Schema cleaning against the reference: every case of tests/schema/golden.json (recorded from
//! toolregistry 0.19.0 by tests/schema/record.py: the eval catalogs' schemas plus hand-written
//! `$ref`/`allOf`/nullable/cyclic cases) must come out of `get_schemas` and of discover answers
//! byte for byte as the reference emitted it, in every format, through the Rust API and the C ABI.

mod common;

use common::*;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::path::PathBuf;
use toolregistry::ffi::*;
use toolregistry::{ApiFormat, DiscoveryOptions, Registry, SchemaOptions};

struct Case {
    name: String,
    description: String,
    parameters: Value,
    flattened: Value,
    gemini: Value,
}

fn crate_path(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel)
}

fn cases() -> Vec<Case> {
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(crate_path("tests/schema/golden.json")).unwrap(),
    )
    .unwrap();
    let eval = golden_dir().join("../eval");
    let mut catalogs = std::collections::HashMap::<String, Value>::new();
    let mut out = Vec::new();
    for (n, c) in doc["cases"].as_array().unwrap().iter().enumerate() {
        let (description, parameters) = match c.get("catalog") {
            Some(at) => {
                let dataset = at[0].as_str().unwrap();
                let catalog = catalogs.entry(dataset.to_string()).or_insert_with(|| {
                    let path = eval.join(dataset).join("catalog.json");
                    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
                });
                let tool = &catalog[at[1].as_u64().unwrap() as usize];
                (tool["description"].clone(), tool["parameters"].clone())
            }
            None => (c["description"].clone(), c["parameters"].clone()),
        };
        out.push(Case {
            name: format!("c{n:05}"),
            description: description.as_str().unwrap_or("").to_string(),
            flattened: c.get("flattened").unwrap_or(&parameters).clone(),
            parameters,
            gemini: c["gemini"].clone(),
        });
    }
    assert!(out.len() > 2000, "the corpus has {} cases", out.len());
    out
}

/// The reference's answer for `case` in `format`, as serde_json writes it (compact, key order kept).
fn expected(case: &Case, format: ApiFormat) -> String {
    let (name, desc, flat) = (&case.name, &case.description, &case.flattened);
    match format {
        ApiFormat::OpenAiChat => json!({"type": "function", "function": {
            "name": name, "description": desc, "parameters": flat}}),
        ApiFormat::OpenAiResponses => json!({"type": "function", "name": name,
            "description": desc, "parameters": flat, "strict": false}),
        ApiFormat::Anthropic => json!({"name": name, "description": desc, "input_schema": flat}),
        ApiFormat::Gemini => json!({"name": name, "description": desc, "parameters": case.gemini}),
    }
    .to_string()
}

fn tools_json(cases: &[Case]) -> String {
    Value::Array(
        cases
            .iter()
            .map(|c| json!({"name": c.name, "description": c.description, "parameters": c.parameters}))
            .collect(),
    )
    .to_string()
}

/// Compares a `get_schemas` answer (sorted by name, which is case order) element by element.
fn check_schemas(cases: &[Case], format: ApiFormat, answer: &str, failures: &mut Vec<String>) {
    let got: Vec<&RawValue> = serde_json::from_str(answer).unwrap();
    assert_eq!(got.len(), cases.len());
    for (case, raw) in cases.iter().zip(got) {
        let want = expected(case, format);
        if raw.get() != want {
            failures.push(format!(
                "{} {}:\n  want {want}\n  got  {}",
                case.name,
                format.as_str(),
                raw.get()
            ));
        }
    }
}

/// The schema of a one-hit discover answer.
fn hit_schema(answer: &str) -> String {
    #[derive(serde::Deserialize)]
    struct Hit<'a> {
        #[serde(borrow)]
        schema: &'a RawValue,
    }
    let hits: Vec<Hit> = serde_json::from_str(answer).unwrap();
    assert_eq!(hits.len(), 1, "{answer}");
    hits[0].schema.get().to_string()
}

fn report(failures: Vec<String>) {
    assert!(
        failures.is_empty(),
        "{} differences from the reference; first ones:\n{}",
        failures.len(),
        failures[..failures.len().min(5)].join("\n")
    );
}

#[test]
fn rust_api_reproduces_the_reference() {
    let cases = cases();
    let registry = Registry::new();
    registry.register_json(&tools_json(&cases)).unwrap();
    registry
        .enable_discovery(DiscoveryOptions::default())
        .unwrap();
    let mut failures = Vec::new();
    for format in ApiFormat::ALL {
        let options = SchemaOptions {
            api_format: format,
            ..SchemaOptions::default()
        };
        let mut answer = registry.schemas_json(&options).unwrap();
        // The built-in discover_tools sorts among the cases; take it out.
        answer = strip_builtin(&answer);
        check_schemas(&cases, format, &answer, &mut failures);
        // Asked again: the same bytes (from the cache).
        assert_eq!(
            strip_builtin(&registry.schemas_json(&options).unwrap()),
            answer
        );
        for case in &cases {
            let args = json!({"query": case.name, "api_format": format.as_str()}).to_string();
            let got = hit_schema(&registry.call_json("discover_tools", &args).unwrap());
            let want = expected(case, format);
            if got != want {
                failures.push(format!(
                    "discover {} {}: got {got}",
                    case.name,
                    format.as_str()
                ));
            }
        }
    }
    // The stored definition stays as registered.
    for case in cases.iter().take(50) {
        let tool = registry.tool(&case.name).unwrap().unwrap();
        assert_eq!(tool.parameters_json(), case.parameters.to_string());
    }
    report(failures);
}

/// Drops the `discover_tools` element from a `get_schemas` answer.
fn strip_builtin(answer: &str) -> String {
    let all: Vec<&RawValue> = serde_json::from_str(answer).unwrap();
    let kept: Vec<&str> = all
        .iter()
        .map(|r| r.get())
        .filter(|s| !s.contains("\"name\":\"discover_tools\""))
        .collect();
    format!("[{}]", kept.join(","))
}

#[test]
fn c_abi_reproduces_the_reference() {
    let cases = cases();
    let (r, _) = new_registry_with(None, &tools_json(&cases));
    let mut err = std::ptr::null_mut();
    check(
        unsafe { tr_registry_enable_discovery(r, std::ptr::null(), &mut err) },
        &mut err,
    )
    .unwrap();
    let mut d = std::ptr::null_mut();
    check(
        unsafe { tr_discoverer_new(r, std::ptr::null(), &mut d, &mut err) },
        &mut err,
    )
    .unwrap();
    let mut failures = Vec::new();
    for format in ApiFormat::ALL {
        let options = cstr(&json!({"api_format": format.as_str()}).to_string());
        let mut out = std::ptr::null_mut();
        check(
            unsafe { tr_registry_get_schemas(r, options.as_ptr(), &mut out, &mut err) },
            &mut err,
        )
        .unwrap();
        check_schemas(&cases, format, &strip_builtin(&take(out)), &mut failures);
        for case in &cases {
            let args =
                cstr(&json!({"query": case.name, "api_format": format.as_str()}).to_string());
            let name = cstr("discover_tools");
            let mut out = std::ptr::null_mut();
            check(
                unsafe { tr_registry_call(r, name.as_ptr(), args.as_ptr(), &mut out, &mut err) },
                &mut err,
            )
            .unwrap();
            let want = expected(case, format);
            let got = hit_schema(&take(out));
            if got != want {
                failures.push(format!(
                    "tr_registry_call {} {}: got {got}",
                    case.name,
                    format.as_str()
                ));
            }
            let query = cstr(&case.name);
            let mut out = std::ptr::null_mut();
            check(
                unsafe {
                    tr_discoverer_discover(d, query.as_ptr(), options.as_ptr(), &mut out, &mut err)
                },
                &mut err,
            )
            .unwrap();
            let got = hit_schema(&take(out));
            if got != want {
                failures.push(format!(
                    "tr_discoverer_discover {} {}: got {got}",
                    case.name,
                    format.as_str()
                ));
            }
        }
    }
    unsafe {
        tr_discoverer_free(d);
        tr_registry_free(r);
    }
    report(failures);
}
