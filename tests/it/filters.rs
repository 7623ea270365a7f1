//! Discover filters (`namespaces`, `tags`, `deferred`), namespace search and `select:` queries,
//! through the Rust API, the C ABI (`tr_discoverer_discover` options and `discover_tools`
//! arguments); the program's flags in `cli/tests/cli/filters.rs`.
#![allow(unsafe_code)]

use crate::common;

use common::*;
use std::ptr;
use toolregistry::ffi::*;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Registry};

/// The catalog every test here filters (also the program's, `cli/tests/cli/filters.rs`).
const TOOLS: &str = include_str!("filters.json");

fn registry() -> Registry {
    let r = Registry::from_options_json(Some(r#"{"discovery": {}}"#)).unwrap();
    r.register_json(TOOLS).unwrap();
    r
}

fn names(hits: &[toolregistry::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

fn request(json: &str) -> DiscoverRequest {
    DiscoverRequest::from_json(Some(json)).unwrap()
}

#[test]
fn filters_choose_the_tools_before_ranking_in_both_profiles() {
    let r = registry();
    for options in [DiscoveryOptions::reference(), DiscoveryOptions::enhanced()] {
        let d = r.discoverer(options);
        let p = options.profile.as_str();
        let all = d.discover("issue", &DiscoverRequest::default()).unwrap();
        assert!(all.len() >= 3, "{p}: {:?}", names(&all));

        let github = d
            .discover("issue", &request(r#"{"namespaces": ["GitHub"]}"#))
            .unwrap();
        assert!(!github.is_empty(), "{p}");
        assert!(
            github
                .iter()
                .all(|h| h.namespace.as_deref() == Some("github")),
            "{p}"
        );
        // Same scores as unfiltered: the filter chooses, it does not rescore.
        for h in &github {
            let same = all.iter().find(|a| a.name == h.name).unwrap();
            assert_eq!(same.score, h.score, "{p} {}", h.name);
        }

        // top_k counts admitted tools: the best linear tool even when github tools rank above it.
        let one = d
            .discover(
                "issue",
                &request(r#"{"namespaces": ["linear"], "top_k": 1}"#),
            )
            .unwrap();
        assert_eq!(names(&one), ["linear-create_issue"], "{p}");

        let tagged = d
            .discover("issue email", &request(r#"{"tags": ["mail", "nothing"]}"#))
            .unwrap();
        assert_eq!(names(&tagged), ["send_email"], "{p}");
        // Tags compare ignoring ASCII case; any of them.
        let code = d
            .discover("search code", &request(r#"{"tags": ["CODE"]}"#))
            .unwrap();
        assert_eq!(code[0].name, "github-search_code", "{p}");
        assert!(code.iter().all(|h| h.name.starts_with("github-")), "{p}");

        let loaded = d
            .discover("issue", &request(r#"{"deferred": false}"#))
            .unwrap();
        assert!(
            loaded.iter().all(|h| !h.deferred) && !loaded.is_empty(),
            "{p}"
        );
        let deferred = d
            .discover("issue", &request(r#"{"deferred": true}"#))
            .unwrap();
        assert!(
            deferred.iter().all(|h| h.deferred && h.schema.is_some()),
            "{p}"
        );

        // Nothing admitted: an empty answer, not an error.
        assert!(
            d.discover("issue", &request(r#"{"namespaces": ["jira"]}"#))
                .unwrap()
                .is_empty()
        );
        // An exact name outside the filter is not matched by name.
        let exact = d
            .discover(
                "github-list_issues",
                &request(r#"{"namespaces": ["linear"]}"#),
            )
            .unwrap();
        assert!(exact.iter().all(|h| h.name != "github-list_issues"), "{p}");
    }
}

#[test]
fn bad_filters_are_refused_with_their_path() {
    for (json, needle) in [
        (
            r#"{"namespaces": "github"}"#,
            "options.namespaces: expected an array of strings",
        ),
        (r#"{"tags": [1]}"#, "options.tags[0]: expected a string"),
        (
            r#"{"deferred": "yes"}"#,
            "options.deferred: expected true or false",
        ),
        (
            r#"{"namespace": ["x"]}"#,
            "options.namespace: unknown option",
        ),
    ] {
        let e = DiscoverRequest::from_json(Some(json))
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{json}: {e}");
    }
}

#[test]
fn a_namespace_is_searchable_in_the_enhanced_profile() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::enhanced());
    let hits = d
        .discover("linear create issue", &DiscoverRequest::default())
        .unwrap();
    assert_eq!(hits[0].name, "linear-create_issue");
    let hits = d
        .discover("github search", &DiscoverRequest::default())
        .unwrap();
    assert_eq!(hits[0].name, "github-search_code");
}

#[test]
fn select_returns_the_named_tools_in_order_with_schemas() {
    let r = registry();
    for options in [DiscoveryOptions::reference(), DiscoveryOptions::enhanced()] {
        let d = r.discoverer(options);
        // Tolerant exact names, in the given order, unknown and repeated names skipped.
        let hits = d
            .discover(
                " select: send_email, GitHub/List-Issues,nope,, send_email ,linear-create_issue",
                &DiscoverRequest::default(),
            )
            .unwrap();
        assert_eq!(
            names(&hits),
            ["send_email", "github-list_issues", "linear-create_issue"]
        );
        assert!(hits.iter().all(|h| h.score == 1.0 && h.schema.is_some()));
        // Filters and top_k do not apply: the tools were named.
        let hits = d
            .discover(
                "SELECT:send_email,github-search_code",
                &request(r#"{"top_k": 1, "namespaces": ["linear"]}"#),
            )
            .unwrap();
        assert_eq!(names(&hits), ["send_email", "github-search_code"]);
        assert!(
            d.discover("select:nope", &DiscoverRequest::default())
                .unwrap()
                .is_empty()
        );
        assert!(
            d.discover("select:", &DiscoverRequest::default())
                .unwrap()
                .is_empty()
        );
    }
}

/// The same through the C ABI: discover options JSON and `discover_tools` arguments.
#[test]
fn filters_and_select_through_the_c_abi() {
    let (r, _) = new_registry_with(Some(r#"{"discovery": {}}"#), TOOLS);
    let mut d = ptr::null_mut();
    let mut err = ptr::null_mut();
    check(
        unsafe { tr_discoverer_new(r, ptr::null(), &mut d, &mut err) },
        &mut err,
    )
    .unwrap();
    let discover = |query: &str, options: &str| -> Result<Vec<String>, (String, String)> {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let status = unsafe {
            tr_discoverer_discover(
                d,
                cstr(query).as_ptr(),
                cstr(options).as_ptr(),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err)?;
        let v: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        Ok(v.as_array()
            .unwrap()
            .iter()
            .map(|h| h["name"].as_str().unwrap().to_string())
            .collect())
    };
    let call = |args: &str| -> Result<Vec<String>, (String, String)> {
        let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
        let status = unsafe {
            tr_registry_call(
                r,
                c"discover_tools".as_ptr(),
                cstr(args).as_ptr(),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err)?;
        let v: serde_json::Value = serde_json::from_str(&take(out)).unwrap();
        Ok(v.as_array()
            .unwrap()
            .iter()
            .map(|h| h["name"].as_str().unwrap().to_string())
            .collect())
    };
    assert_eq!(
        discover("issue", r#"{"namespaces": ["linear"]}"#).unwrap(),
        ["linear-create_issue"]
    );
    assert_eq!(
        call(r#"{"query": "issue", "namespace": "linear"}"#).unwrap(),
        ["linear-create_issue"]
    );
    assert_eq!(
        call(r#"{"query": "issue", "namespace": ["linear"], "tags": "tickets"}"#).unwrap(),
        ["linear-create_issue"]
    );
    assert_eq!(
        discover("issue email", r#"{"tags": ["mail"], "deferred": false}"#).unwrap(),
        ["send_email"]
    );
    assert_eq!(
        call(r#"{"query": "select:github-search_code,send_email"}"#).unwrap(),
        ["github-search_code", "send_email"]
    );
    assert_eq!(
        discover("select:github-search_code,send_email", "{}").unwrap(),
        ["github-search_code", "send_email"]
    );
    let (status, msg) = call(r#"{"query": "issue", "tags": [true]}"#).unwrap_err();
    assert_eq!(status, "TR_STATUS_INVALID_ARGUMENT");
    assert!(msg.contains("arguments.tags[0]"), "{msg}");
    let (status, msg) = discover("issue", r#"{"deferred": 1}"#).unwrap_err();
    assert_eq!(status, "TR_STATUS_INVALID_ARGUMENT");
    assert!(msg.contains("options.deferred"), "{msg}");
    // The schema tells a model about the new arguments.
    let (mut out, mut err) = (ptr::null_mut(), ptr::null_mut());
    check(
        unsafe { tr_registry_get_schemas(r, c"{}".as_ptr(), &mut out, &mut err) },
        &mut err,
    )
    .unwrap();
    let schemas = take(out);
    assert!(
        schemas.contains("\"namespace\":{\"type\":\"string\""),
        "{schemas}"
    );
    assert!(schemas.contains("select:name1,name2"));
    unsafe {
        tr_discoverer_free(d);
        tr_registry_free(r);
    }
}

/// `max_tokens` cuts the typed hits of the Rust API exactly as it cuts the JSON answer.
#[test]
fn max_tokens_cuts_typed_hits_like_the_json_answer() {
    let r = registry();
    let mut cut_somewhere = false;
    for query in [
        "issue",
        "create issue",
        "code repository",
        "linear-create_issue",
        "email",
    ] {
        let full = r.discover_json(query, &request("{}")).unwrap();
        for tokens in (1..=full.len().div_ceil(4) + 2).step_by(3) {
            for extra in ["", r#", "api_format": "anthropic""#, r#", "strict": true"#] {
                let req = request(&format!(r#"{{"max_tokens": {tokens}{extra}}}"#));
                let hits = r.discover(query, &req).unwrap();
                let json = r.discover_json(query, &req).unwrap();
                assert_eq!(
                    toolregistry::discovery::hits_to_json(&hits),
                    json,
                    "{query} {tokens}{extra}"
                );
                assert!(!hits.is_empty(), "the top hit always stays");
                cut_somewhere |= hits.iter().any(|h| h.schema.is_none() && h.deferred);
            }
        }
    }
    assert!(
        cut_somewhere,
        "some budget cut a deferred hit to its summary"
    );
}
