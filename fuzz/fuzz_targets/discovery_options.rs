//! Discovery options JSON (`tr_discoverer_new`, `tr_registry_enable_discovery`, registry options).
//!
//! Oracles: accepted options are finite and in range, and rank without panics or non-finite
//! scores; options accepted alone are accepted inside registry options too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};
use toolregistry_fuzz::{QUERIES, assert_input_error, assert_ranking, shared_fixture};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let parsed = DiscoveryOptions::from_json(Some(text));
    let options = match parsed {
        Err(e) => return assert_input_error(&e),
        Ok(o) => o,
    };
    // (The converse does not hold: text that is not JSON alone can be inside the wrapper.)
    let wrapped = format!("{{\"discovery\": {text}}}");
    let registry = Registry::from_options_json(Some(&wrapped))
        .unwrap_or_else(|e| panic!("registry refused accepted options: {e}"));
    let builtin = registry
        .register_json(toolregistry_fuzz::FIXTURE)
        .map(|_| registry)
        .unwrap();
    let w = options.field_weights.as_array();
    for x in w.iter().chain([options.k1, options.delta].iter()) {
        assert!(x.is_finite() && *x >= 0.0);
    }
    for x in [options.min_score_ratio, options.max_df_ratio, options.b] {
        assert!((0.0..=1.0).contains(&x));
    }
    let d = shared_fixture().discoverer(options);
    let request = DiscoverRequest {
        top_k: 50,
        ..Default::default()
    };
    for q in QUERIES {
        let hits = d.discover(q, &request).unwrap();
        assert_ranking(&hits);
        assert_eq!(
            hits,
            builtin.discover(q, &request).unwrap(),
            "built-in and discoverer differ"
        );
    }
});
