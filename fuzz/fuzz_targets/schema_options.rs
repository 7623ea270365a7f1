//! Schema options JSON for `get_schemas`.
//!
//! Oracles: accepted options give a JSON array sorted by name that honours the tag filters
//! (with `strict`, that array under `tools`, and every warning names one of its tools).
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolregistry::SchemaOptions;
use toolregistry_fuzz::{assert_input_error, assert_json, shared_fixture};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let options = match SchemaOptions::from_json(Some(text)) {
        Ok(o) => o,
        Err(e) => return assert_input_error(&e),
    };
    let registry = shared_fixture();
    let out = assert_json(&registry.schemas_json(&options).unwrap());
    let items = if options.strict {
        out["tools"].as_array().expect("tools: an array")
    } else {
        out.as_array().expect("an array")
    };
    let name = |v: &serde_json::Value| {
        v.pointer("/function/name")
            .or_else(|| v.get("name"))
            .and_then(|n| n.as_str())
            .expect("every schema has a name")
            .to_string()
    };
    let names: Vec<String> = items.iter().map(name).collect();
    assert!(
        names.windows(2).all(|w| w[0] < w[1]),
        "sorted by name, no duplicates: {names:?}"
    );
    if options.strict {
        for w in out["warnings"].as_array().expect("warnings: an array") {
            let n = w["name"].as_str().expect("a warning names its tool");
            assert!(names.iter().any(|m| m == n), "warned tool {n:?} is emitted");
            assert!(!w["reason"].as_str().expect("and says why").is_empty());
        }
    }
    for n in names.iter().filter(|n| *n != "discover_tools") {
        let tool = registry.tool(n).unwrap().expect("only registered tools");
        if let Some(tags) = &options.tags {
            assert!(tool.has_any_tag(tags));
        }
        if let Some(tags) = &options.exclude_tags {
            assert!(!tool.has_any_tag(tags));
        }
        assert!(options.include_deferred || !tool.metadata().defer);
    }
});
