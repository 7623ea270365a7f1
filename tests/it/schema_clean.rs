//! Schema cleaning against the reference: every case of tests/schema/golden.json (recorded from
//! toolregistry 0.19.0 by tests/schema/record.py: the eval catalogs' schemas plus hand-written
//! `$ref`/`allOf`/nullable/cyclic cases) must come out of `get_schemas` and of discover answers
//! byte for byte as the reference emitted it, in every format, through the Rust API and the C ABI.

use crate::common;

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
        .enable_discovery_with(DiscoveryOptions::default(), false)
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
        unsafe {
            tr_registry_enable_discovery(r, c"{\"call_deferred\": false}".as_ptr(), &mut err)
        },
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

/// Checks the strict-mode rules on a schema made strict: every object closed and listing all
/// its properties as required, no `default`.
fn assert_strict(schema: &Value, at: &str) {
    let Some(map) = schema.as_object() else {
        return;
    };
    assert!(!map.contains_key("default"), "{at}: default left: {schema}");
    if let Some(Value::Object(props)) = map.get("properties") {
        assert_eq!(map["additionalProperties"], false, "{at}: {schema}");
        let names: Vec<&str> = props.keys().map(String::as_str).collect();
        let required: Vec<&str> = map.get("required").map_or(vec![], |r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|n| n.as_str().unwrap())
                .collect()
        });
        assert_eq!(required, names, "{at}: {schema}");
        for (name, p) in props {
            assert_strict(p, &format!("{at}.{name}"));
        }
    }
    if let Some(items) = map.get("items") {
        assert_strict(items, &format!("{at}[]"));
    }
    for v in map
        .get("anyOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        assert_strict(v, at);
    }
}

#[test]
fn strict_mode_over_the_corpus_never_drops_a_tool() {
    let cases = cases();
    let registry = Registry::new();
    registry.register_json(&tools_json(&cases)).unwrap();
    registry
        .enable_discovery_with(DiscoveryOptions::default(), false)
        .unwrap();
    let (r, _) = new_registry_with(None, &tools_json(&cases));
    let mut err = std::ptr::null_mut();
    check(
        unsafe {
            tr_registry_enable_discovery(r, c"{\"call_deferred\": false}".as_ptr(), &mut err)
        },
        &mut err,
    )
    .unwrap();
    for format in [ApiFormat::OpenAiChat, ApiFormat::OpenAiResponses] {
        let options_json = json!({"api_format": format.as_str(), "strict": true}).to_string();
        let options = SchemaOptions::from_json(Some(&options_json)).unwrap();
        assert!(options.strict);
        let answer = registry.schemas_json(&options).unwrap();
        // The C ABI answers the same bytes.
        let mut out = std::ptr::null_mut();
        let c_options = cstr(&options_json);
        check(
            unsafe { tr_registry_get_schemas(r, c_options.as_ptr(), &mut out, &mut err) },
            &mut err,
        )
        .unwrap();
        assert_eq!(take(out), answer);

        let doc: Value = serde_json::from_str(&answer).unwrap();
        let tools = doc["tools"].as_array().unwrap();
        assert_eq!(
            tools.len(),
            cases.len() + 1,
            "every tool is emitted, and discover_tools"
        );
        let warned: std::collections::HashMap<&str, &str> = doc["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| (w["name"].as_str().unwrap(), w["reason"].as_str().unwrap()))
            .collect();
        let by_name: std::collections::HashMap<&str, &Case> =
            cases.iter().map(|c| (c.name.as_str(), c)).collect();
        let mut strict_count = 0;
        for tool in tools {
            let def = if format == ApiFormat::OpenAiChat {
                &tool["function"]
            } else {
                tool
            };
            let name = def["name"].as_str().unwrap();
            let strict = def.get("strict") == Some(&Value::Bool(true));
            assert_eq!(
                strict,
                !warned.contains_key(name),
                "{name}: strict xor warned"
            );
            if strict {
                strict_count += 1;
                assert_strict(&def["parameters"], name);
            } else {
                // Not strict: exactly the non-strict answer.
                assert_eq!(tool.to_string(), expected(by_name[name], format), "{name}");
                assert!(!warned[name].is_empty());
            }
        }
        assert!(
            !warned.contains_key("discover_tools"),
            "our own tool is always strict"
        );
        // Most real schemas can be strict; the untyped and free-form ones cannot.
        assert!(
            strict_count > cases.len() / 2,
            "{strict_count} strict of {}",
            cases.len()
        );
        assert!(
            warned.len() > 10,
            "the corpus has non-strict cases: {}",
            warned.len()
        );

        // Asking by name gives the same strict schemas and warnings, in the order asked.
        let name_of = |tool: &Value| {
            let def = if format == ApiFormat::OpenAiChat {
                &tool["function"]
            } else {
                tool
            };
            def["name"].as_str().unwrap().to_string()
        };
        let picked: Vec<&Value> = tools.iter().rev().step_by(7).collect();
        let names: Vec<String> = picked.iter().map(|t| name_of(t)).collect();
        let named = registry
            .schemas_json(
                &SchemaOptions::from_json(Some(
                    &json!({"api_format": format.as_str(), "strict": true, "names": names})
                        .to_string(),
                ))
                .unwrap(),
            )
            .unwrap();
        let named: Value = serde_json::from_str(&named).unwrap();
        assert_eq!(
            named["tools"].as_array().unwrap(),
            &picked.iter().map(|t| (*t).clone()).collect::<Vec<_>>()
        );
        let named_warned: Vec<&str> = named["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w["name"].as_str().unwrap())
            .collect();
        let want: Vec<&str> = names
            .iter()
            .map(String::as_str)
            .filter(|n| warned.contains_key(n))
            .collect();
        assert!(!want.is_empty());
        assert_eq!(named_warned, want);

        // Discover answers: the same strict schema, or the non-strict one with a `warning`.
        let mut d = std::ptr::null_mut();
        check(
            unsafe { tr_discoverer_new(r, std::ptr::null(), &mut d, &mut err) },
            &mut err,
        )
        .unwrap();
        for tool in tools.iter().take(300) {
            let def = if format == ApiFormat::OpenAiChat {
                &tool["function"]
            } else {
                tool
            };
            let name = def["name"].as_str().unwrap();
            if name == "discover_tools" {
                continue;
            }
            let query = cstr(name);
            let mut out = std::ptr::null_mut();
            check(
                unsafe {
                    tr_discoverer_discover(
                        d,
                        query.as_ptr(),
                        c_options.as_ptr(),
                        &mut out,
                        &mut err,
                    )
                },
                &mut err,
            )
            .unwrap();
            let hits: Value = serde_json::from_str(&take(out)).unwrap();
            assert_eq!(hits[0]["schema"], *tool, "{name}");
            assert_eq!(
                hits[0]["warning"].as_str(),
                warned.get(name).copied(),
                "{name}"
            );
        }
        unsafe { tr_discoverer_free(d) };
    }
    // Strict mode is OpenAI's: other formats refuse it, through both APIs.
    for format in ["anthropic", "gemini"] {
        let options_json = json!({"api_format": format, "strict": true}).to_string();
        assert!(SchemaOptions::from_json(Some(&options_json)).is_err());
        let mut out = std::ptr::null_mut();
        let c_options = cstr(&options_json);
        let status = unsafe { tr_registry_get_schemas(r, c_options.as_ptr(), &mut out, &mut err) };
        let (name, msg) = check(status, &mut err).unwrap_err();
        assert_eq!(name, "TR_STATUS_INVALID_ARGUMENT");
        assert!(
            msg.contains("options.strict: strict mode is OpenAI's"),
            "{msg}"
        );
        assert!(out.is_null());
    }
    unsafe { tr_registry_free(r) };
}

/// Schemas built to make cleaning explode: references that fan out (each definition uses the next
/// one twice, 40 deep: 2^40 nodes if inlined naively), a chain of 5,000 references (as deep if
/// inlined), and `allOf` branches with 100,000 required names each. Cleaning stays bounded: every
/// answer is produced, parses back (so it is at most 128 levels deep) and stays small.
#[test]
fn pathological_schemas_stay_bounded() {
    let mut fan = serde_json::Map::new();
    let mut chain = serde_json::Map::new();
    for i in 0..5000 {
        let next = json!({"$ref": format!("#/$defs/D{}", i + 1)});
        if i < 40 {
            fan.insert(
                format!("D{i}"),
                json!({"type": "object", "properties": {"a": next, "b": next}}),
            );
        }
        chain.insert(
            format!("D{i}"),
            json!({"type": "object", "properties": {"n": next}}),
        );
    }
    fan.insert("D40".into(), json!({"type": "string"}));
    let names =
        |prefix: &str| -> Vec<String> { (0..100_000).map(|i| format!("{prefix}{i}")).collect() };
    let tools = json!([
        {"name": "fan", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": fan}},
        {"name": "chain", "parameters": {"type": "object", "properties": {"x": {"$ref": "#/$defs/D0"}}, "$defs": chain}},
        {"name": "required", "parameters": {"type": "object", "properties": {"p0": {"type": "string"}},
            "allOf": [{"required": names("p")}, {"required": names("q")}]}},
    ]);
    let registry = Registry::new();
    registry.register_json(&tools.to_string()).unwrap();
    for format in ApiFormat::ALL {
        for strict in [false, true] {
            if strict && !toolregistry::schema::has_strict_mode(format) {
                continue;
            }
            let options = SchemaOptions {
                api_format: format,
                strict,
                ..SchemaOptions::default()
            };
            let answer = registry.schemas_json(&options).unwrap();
            assert!(answer.len() < 32 << 20, "{} bytes", answer.len());
            let v: Value = serde_json::from_str(&answer).expect("the answer parses back");
            assert!(v.is_array() || v["tools"].is_array());
        }
    }
    // The required lists were merged and pruned to the one real property.
    let tool = registry.tool("required").unwrap().unwrap();
    let flat = tool.cleaned_parameters(toolregistry::schema::Form::Flattened);
    assert_eq!(
        flat.parameters,
        r#"{"type":"object","properties":{"p0":{"type":"string"}},"required":["p0"]}"#
    );
}
