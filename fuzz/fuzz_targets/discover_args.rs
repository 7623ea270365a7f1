//! The arguments of a `discover_tools` call (`tr_registry_call`), and discover options JSON.
//!
//! Oracles: an answer is a well-formed ranking as JSON; the built-in and a standalone discoverer
//! with the same options give the same answer; errors are input errors.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolregistry::{DiscoverRequest, DiscoveryOptions};
use toolregistry_fuzz::{assert_input_error, assert_json, shared_fixture};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = DiscoverRequest::from_json(Some(text)) {
        assert_input_error(&e);
    }
    let registry = shared_fixture();
    match registry.call_json("discover_tools", text) {
        Ok(answer) => {
            let hits = assert_json(&answer);
            let hits = hits.as_array().expect("an array");
            let scores: Vec<f64> = hits
                .iter()
                .map(|h| h["score"].as_f64().expect("a score"))
                .collect();
            assert!(scores.iter().all(|s| s.is_finite() && *s > 0.0));
            assert!(scores.windows(2).all(|w| w[0] >= w[1]));
            // Same answer from a standalone discoverer given the same query and request.
            let args: serde_json::Value = serde_json::from_str(text).unwrap();
            let query = args["query"].as_str().unwrap();
            let mut rest = args.as_object().unwrap().clone();
            rest.remove("query");
            // The arguments' `namespace` and `tags` (a string or strings) are the options'
            // `namespaces` and `tags` lists.
            for (arg, option) in [("namespace", "namespaces"), ("tags", "tags")] {
                if let Some(v) = rest.remove(arg) {
                    let list = match v {
                        serde_json::Value::String(s) => serde_json::json!([s]),
                        other => other,
                    };
                    rest.insert(option.to_string(), list);
                }
            }
            let request =
                DiscoverRequest::from_json(Some(&serde_json::Value::Object(rest).to_string()))
                    .unwrap();
            let d = registry.discoverer(DiscoveryOptions::default());
            assert_eq!(answer, d.discover_json(query, &request).unwrap());
        }
        Err(e) => assert_input_error(&e),
    }
});
