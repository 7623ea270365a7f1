//! The `profile` option: parsing, defaults, the lazily built enhanced index, and what the
//! enhanced analysis finds that the reference cannot.

use toolregistry::{DiscoverRequest, DiscoveryOptions, MetadataUpdate, Profile, Registry};

const TOOLS: &str = r#"[
  {"name": "QueryHealthData", "description": "Returns records.", "parameters": {"type": "object", "properties": {"patientId": {"type": "string", "description": "Identifier of the patient"}}}},
  {"name": "calculator", "description": "Evaluates arithmetic expressions."},
  {"name": "weather_now", "description": "Current weather for a city.", "parameters": {"type": "object", "properties": {"unit": {"type": "string", "enum": ["celsius", "fahrenheit"]}}}},
  {"name": "you_can_play", "description": "A game you can play."}
]"#;

fn names(hits: &[toolregistry::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

/// A newcomer gets the enhanced profile: no options, `{}`, `null` and `Default` all mean it,
/// with the profile not named (so a registry with an embedder ranks with hybrid instead).
#[test]
fn enhanced_is_the_default_profile() {
    let unnamed = DiscoveryOptions {
        profile_named: false,
        ..DiscoveryOptions::enhanced()
    };
    assert_eq!(DiscoveryOptions::default(), unnamed);
    assert_eq!(Profile::default(), Profile::Enhanced);
    for text in [None, Some("{}"), Some("null"), Some(r#"{"profile": null}"#)] {
        assert_eq!(
            DiscoveryOptions::from_json(text).unwrap(),
            unnamed,
            "{text:?}"
        );
    }
    assert_eq!(
        DiscoveryOptions::from_json(Some(r#"{"profile": "enhanced"}"#)).unwrap(),
        DiscoveryOptions::enhanced()
    );
    assert!(DiscoveryOptions::enhanced().profile_named);
    assert_ne!(DiscoveryOptions::reference(), DiscoveryOptions::enhanced());
    assert_eq!(DiscoveryOptions::reference().profile, Profile::Reference);
}

#[test]
fn options_parse_profile_and_its_defaults() {
    let o = DiscoveryOptions::from_json(Some(r#"{"profile": "enhanced"}"#)).unwrap();
    assert_eq!(o, DiscoveryOptions::enhanced());
    assert_eq!(o.delta, 0.0);
    assert_eq!(o.field_weights.param_docs, 1.0);
    // Explicit values win over the profile's defaults, whatever the key order.
    let o = DiscoveryOptions::from_json(Some(r#"{"delta": 0.5, "profile": "enhanced"}"#)).unwrap();
    assert_eq!((o.profile, o.delta), (Profile::Enhanced, 0.5));
    let o = DiscoveryOptions::from_json(Some(r#"{"profile": "reference"}"#)).unwrap();
    assert_eq!(o, DiscoveryOptions::reference());
    for (bad, needle) in [
        (r#"{"profile": "fast"}"#, "unknown profile"),
        (r#"{"profile": 1}"#, "expected a string"),
        (
            r#"{"profile": "reference", "field_weights": {"param_docs": 1}}"#,
            "reference profile",
        ),
    ] {
        let e = DiscoveryOptions::from_json(Some(bad))
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{bad}: {e}");
    }
    let o = DiscoveryOptions::from_json(Some(
        r#"{"profile": "enhanced", "field_weights": {"param_docs": 2}}"#,
    ))
    .unwrap();
    assert_eq!(o.field_weights.param_docs, 2.0);
}

#[test]
fn enhanced_index_is_built_only_when_used_and_then_kept_in_step() {
    let r = Registry::new();
    r.register_json(TOOLS).unwrap();
    let reference = r.discoverer(DiscoveryOptions::reference());
    reference
        .discover("weather", &DiscoverRequest::default())
        .unwrap();
    r.enable_discovery(DiscoveryOptions::reference()).unwrap();
    assert!(
        !r.has_enhanced_index().unwrap(),
        "a reference-only registry pays nothing"
    );

    let enhanced = r.discoverer(DiscoveryOptions::enhanced());
    assert!(r.has_enhanced_index().unwrap());
    r.register_json(r#"{"name": "getHTTPResponse", "description": "Fetch a URL."}"#)
        .unwrap();
    r.set_metadata(
        "calculator",
        &MetadataUpdate {
            search_hint: Some("maths sums".into()),
            ..Default::default()
        },
    )
    .unwrap();
    r.set_enabled("weather_now", false).unwrap();
    assert!(r.verify_index().unwrap());
    let req = DiscoverRequest::default();
    assert_eq!(
        names(&enhanced.discover("http response", &req).unwrap()),
        ["getHTTPResponse"]
    );
    assert_eq!(
        names(&enhanced.discover("sum", &req).unwrap()),
        ["calculator"]
    );
    assert!(enhanced.discover("celsius", &req).unwrap().is_empty());
    r.set_enabled("weather_now", true).unwrap();
    assert_eq!(
        names(&enhanced.discover("celsius", &req).unwrap()),
        ["weather_now"]
    );

    // discover_tools with the enhanced profile, on a fresh registry, builds it too.
    let r2 =
        Registry::from_options_json(Some(r#"{"discovery": {"profile": "enhanced"}}"#)).unwrap();
    assert!(r2.has_enhanced_index().unwrap());
    r2.register_json(TOOLS).unwrap();
    let out = r2
        .call_json("discover_tools", r#"{"query": "calculate"}"#)
        .unwrap();
    assert!(out.contains("\"calculator\""), "{out}");
}

#[test]
fn enhanced_finds_what_the_reference_misses() {
    let r = Registry::new();
    r.register_json(TOOLS).unwrap();
    let reference = r.discoverer(DiscoveryOptions::reference());
    let enhanced = r.discoverer(DiscoveryOptions::enhanced());
    let req = DiscoverRequest::default();
    // CamelCase names, parameter names and descriptions; stemming.
    for (query, tool) in [
        ("query health data", "QueryHealthData"),
        ("patient records", "QueryHealthData"),
        ("calculate", "calculator"),
        ("temperature in fahrenheit", "weather_now"),
    ] {
        let got = enhanced.discover(query, &req).unwrap();
        assert_eq!(got.first().map(|h| h.name.as_str()), Some(tool), "{query}");
    }
    assert!(reference.discover("calculate", &req).unwrap().is_empty());
    // Function words do not pull up a tool that merely contains them.
    assert_eq!(
        names(
            &reference
                .discover("can you check the weather", &req)
                .unwrap()
        )[0],
        "you_can_play"
    );
    assert_eq!(
        names(
            &enhanced
                .discover("can you check the weather", &req)
                .unwrap()
        ),
        ["weather_now"]
    );
    // Full-width Latin is NFKC-normalized.
    assert_eq!(
        names(&enhanced.discover("ｗｅａｔｈｅｒ", &req).unwrap()),
        ["weather_now"]
    );
}

/// Clitics ("men's", "can't") are function words of the query, and function words are searched
/// after all when the other words match no tool (rather than answering nothing).
#[test]
fn clitics_are_dropped_and_function_words_return_when_nothing_else_matches() {
    let r = Registry::new();
    r.register_json(
        r#"[
      {"name": "singles_draw", "description": "Tennis singles draw of a tournament."},
      {"name": "s_bucket", "description": "Lists an s bucket."},
      {"name": "you_can_play", "description": "A game you can play."}
    ]"#,
    )
    .unwrap();
    let enhanced = r.discoverer(DiscoveryOptions::enhanced());
    let req = DiscoverRequest::default();
    // The clitic `s` no longer pulls up the tool that holds a lone `s`.
    assert_eq!(
        names(&enhanced.discover("the men's singles", &req).unwrap()),
        ["singles_draw"]
    );
    let why = enhanced
        .explain("the men's singles", "s_bucket", &req)
        .unwrap();
    assert!(why.tool.rank.is_none(), "{why:?}");
    assert!(why.scored_tokens.iter().all(|t| t != "s"), "{why:?}");
    // "zzyzx" is in no tool: the function words are all the query has, so they are searched.
    assert_eq!(
        names(&enhanced.discover("can you zzyzx", &req).unwrap()),
        ["you_can_play"]
    );
    assert!(enhanced.discover("zzyzx", &req).unwrap().is_empty());
}

/// The default (enhanced) profile keeps the reference's contract, through the Rust API and
/// `discover_tools`: an exact name first with score 1.0 and its schema, `top_k`, schemas for
/// deferred tools only, and CJK queries answered.
#[test]
fn the_default_profile_keeps_the_reference_contract() {
    let r = Registry::from_options_json(Some(r#"{"discovery": {}}"#)).unwrap();
    r.register_json(TOOLS).unwrap();
    r.register_json(
        r#"[{"name": "查询天气", "description": "查询城市的天气预报", "metadata": {"defer": true}},
            {"name": "weather_alerts", "description": "Severe weather alerts for a region.", "metadata": {"defer": true}}]"#,
    )
    .unwrap();
    assert!(
        r.has_enhanced_index().unwrap(),
        "discover_tools defaults to enhanced"
    );
    let d = r.discoverer(DiscoveryOptions::default());
    assert_eq!(d.options().profile, Profile::Enhanced);
    let req = DiscoverRequest::default();

    // Exact name (tolerant of case and separators), alone, score 1.0, schema even when not deferred.
    for query in ["weather_now", "Weather-Now"] {
        let hits = d.discover(query, &req).unwrap();
        assert_eq!(names(&hits), ["weather_now"], "{query}");
        assert_eq!(hits[0].score, 1.0);
        assert!(hits[0].schema.is_some());
    }
    // Fuzzy hits: schema exactly for the deferred ones.
    let hits = d.discover("weather", &req).unwrap();
    assert!(hits.len() >= 2, "{:?}", names(&hits));
    for h in &hits {
        assert_eq!(h.schema.is_some(), h.deferred, "{}", h.name);
        assert!(h.score > 0.0);
    }
    // top_k.
    let one = DiscoverRequest {
        top_k: 1,
        ..Default::default()
    };
    assert_eq!(d.discover("weather", &one).unwrap().len(), 1);
    // CJK.
    assert_eq!(names(&d.discover("天气预报", &req).unwrap()), ["查询天气"]);
    let via_call = r
        .call_json("discover_tools", r#"{"query": "天气预报", "top_k": 3}"#)
        .unwrap();
    assert_eq!(
        via_call,
        d.discover_json(
            "天气预报",
            &DiscoverRequest {
                top_k: 3,
                ..Default::default()
            }
        )
        .unwrap()
    );
}
