//! Explain, through the Rust API and the C ABI: it agrees with discover, takes a score apart
//! correctly, and says why a tool is missing from an answer.
#![allow(unsafe_code)]

use crate::common;

use common::*;
use serde_json::Value;
use std::ptr;
use toolregistry::ffi::*;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Dropped, Outcome, Profile, Registry};

const TOOLS: &str = r#"[
  {"name": "convert_currency", "description": "Convert an amount from one currency to another.", "parameters": {"type": "object", "properties": {"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}}}},
  {"name": "currency_rates", "description": "List current currency exchange rates."},
  {"name": "read_file", "description": "Read a file from disk and return the file contents."},
  {"name": "write_file", "description": "Write text to a file on disk."},
  {"name": "delete_file", "description": "Delete a file from disk."},
  {"name": "list_issues", "namespace": "github", "description": "List the issues of a repository."},
  {"name": "send_email", "description": "Send an email message to a recipient.", "metadata": {"defer": true}}
]"#;

fn registry() -> Registry {
    let r = Registry::new();
    r.register_json(TOOLS).unwrap();
    r
}

fn req(top_k: usize) -> DiscoverRequest {
    DiscoverRequest {
        top_k,
        ..Default::default()
    }
}

#[test]
fn ranked_tool_score_and_rank_agree_with_discover() {
    let r = registry();
    for options in [DiscoveryOptions::reference(), DiscoveryOptions::enhanced()] {
        let d = r.discoverer(options);
        for query in [
            "convert currency",
            "read the file from disk",
            "currency exchange",
            // A repeated token: the enhanced profile saturates it (query_weight below 1).
            "currency currency exchange",
        ] {
            let hits = d.discover(query, &req(10)).unwrap();
            assert!(!hits.is_empty(), "{query}");
            for (i, hit) in hits.iter().enumerate() {
                let e = d.explain(query, &hit.name, &req(10)).unwrap();
                assert_eq!(e.tool.outcome, Outcome::Ranked, "{query} {}", hit.name);
                assert_eq!(e.tool.rank, Some(i + 1));
                assert_eq!(e.tool.score, Some(hit.score));
                assert_eq!(e.result_count, hits.len());
                // The per-token contributions add up to the score, and the per-field shares to each token's.
                let sum: f64 = e.tool.terms.iter().map(|t| t.score).sum();
                assert!(
                    (sum - hit.score).abs() < 1e-9 * hit.score,
                    "{sum} vs {}",
                    hit.score
                );
                for t in &e.tool.terms {
                    let fields: f64 = t.fields.iter().map(|f| f.score).sum();
                    assert!((fields - t.score).abs() < 1e-9 * t.score.max(1.0));
                    assert!(
                        (t.score - t.idf * t.query_weight * t.tf_norm).abs()
                            < 1e-12 * t.score.max(1.0)
                    );
                    let repeated =
                        query.matches("currency").count() > 1 && t.token.starts_with("currenc");
                    if options.profile == toolregistry::Profile::Enhanced && repeated {
                        assert!(t.query_weight < 1.0, "{query}: {t:?}");
                    } else {
                        assert_eq!(t.query_weight, 1.0, "{query}: {t:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn contributions_name_fields_with_tf_and_weight() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::reference());
    let e = d
        .explain("convert currency", "convert_currency", &req(10))
        .unwrap();
    let currency = e.tool.terms.iter().find(|t| t.token == "currency").unwrap();
    assert_eq!(currency.df, 2);
    let fields: Vec<(&str, u32, f64)> = currency
        .fields
        .iter()
        .map(|f| (f.field, f.tf, f.weight))
        .collect();
    assert_eq!(fields, [("name", 1, 3.0), ("description", 1, 2.0)]);
    assert!((currency.weighted_tf - 5.0).abs() < 1e-12);
}

#[test]
fn why_not_disabled_no_common_token_top_k_and_floor() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::reference());

    r.set_enabled("send_email", false).unwrap();
    let e = d.explain("send an email", "send_email", &req(10)).unwrap();
    assert_eq!(e.tool.outcome, Outcome::Disabled);
    assert!(!e.tool.indexed);
    r.set_enabled("send_email", true).unwrap();

    let e = d
        .explain("convert currency", "read_file", &req(10))
        .unwrap();
    assert_eq!(e.tool.outcome, Outcome::NoCommonToken);
    assert_eq!(e.tool.score, None);

    // "file disk" matches read, write and delete; with top_k 1 only the best stays.
    let hits = d.discover("file disk", &req(1)).unwrap();
    assert_eq!(hits.len(), 1);
    let other = ["read_file", "write_file", "delete_file"]
        .into_iter()
        .find(|n| *n != hits[0].name)
        .unwrap();
    let e = d.explain("file disk", other, &req(1)).unwrap();
    assert_eq!(e.tool.outcome, Outcome::BelowTopK);
    assert!(e.tool.rank.unwrap() > 1);

    // "currency exchange rates": currency_rates matches all three, convert_currency only one;
    // a high floor cuts the weaker one.
    let strict = r.discoverer(DiscoveryOptions {
        min_score_ratio: 0.9,
        ..DiscoveryOptions::reference()
    });
    let e = strict
        .explain("currency exchange rates", "convert_currency", &req(10))
        .unwrap();
    assert_eq!(
        e.tool.outcome,
        Outcome::BelowScoreFloor,
        "{}",
        e.tool.reason
    );
    assert!(e.tool.score.unwrap() < e.score_floor.unwrap());
    assert!(
        strict
            .discover("currency exchange rates", &req(10))
            .unwrap()
            .iter()
            .all(|h| h.name != "convert_currency")
    );
}

#[test]
fn filler_tokens_are_reported_with_df_and_ratio() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::reference());
    // "file" is in 3 of 7 tools (43%), "disk" too: with max_df_ratio 0.4 both are filler, and
    // the rarest one occurring in a tool name ("file") is kept.
    let d2 = r.discoverer(DiscoveryOptions {
        max_df_ratio: 0.4,
        ..DiscoveryOptions::reference()
    });
    let e = d2.explain("file disk", "read_file", &req(10)).unwrap();
    let file = e.tokens.iter().find(|t| t.token == "file").unwrap();
    let disk = e.tokens.iter().find(|t| t.token == "disk").unwrap();
    assert_eq!((file.df, disk.df), (3, 3));
    assert!((disk.df_ratio - 3.0 / 7.0).abs() < 1e-12);
    assert_eq!(disk.dropped, Some(Dropped::Filler));
    assert!(file.rescued && file.dropped.is_none());
    assert_eq!(e.scored_tokens, ["file"]);
    // With the default ratio nothing is filler.
    let e = d.explain("file disk", "read_file", &req(10)).unwrap();
    assert!(e.tokens.iter().all(|t| t.dropped.is_none()));
    // Enhanced drops function words and says so.
    let de = r.discoverer(DiscoveryOptions::enhanced());
    let e = de
        .explain("can you send my email", "send_email", &req(10))
        .unwrap();
    assert_eq!(e.profile, Profile::Enhanced);
    let dropped: Vec<&str> = e
        .tokens
        .iter()
        .filter(|t| t.dropped == Some(Dropped::Stopword))
        .map(|t| t.token.as_str())
        .collect();
    assert_eq!(dropped, ["can", "you", "my"]);
    assert_eq!(e.tool.outcome, Outcome::Ranked);
}

#[test]
fn exact_names_and_unknown_tools() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::reference());
    let e = d.explain("read_file", "read_file", &req(10)).unwrap();
    assert_eq!(e.tool.outcome, Outcome::ExactMatch);
    assert_eq!(e.tool.score, Some(1.0));
    let e = d.explain("read_file", "write_file", &req(10)).unwrap();
    assert_eq!(e.tool.outcome, Outcome::OtherExactMatch);
    assert_eq!(e.exact_match.as_deref(), Some("read_file"));
    let err = d.explain("read", "no_such_tool", &req(10)).unwrap_err();
    assert!(matches!(err, toolregistry::Error::NotFound(_)), "{err}");
    assert!(d.explain("  ", "read_file", &req(10)).is_err());
    assert!(d.explain("read", "read_file", &req(0)).is_err());
}

#[test]
fn c_abi_explain_answers_json_and_reports_errors() {
    let (r, _) = new_registry_with(None, TOOLS);
    let mut err = ptr::null_mut();
    let mut d = ptr::null_mut();
    check(
        unsafe {
            tr_discoverer_new(
                r,
                cstr(r#"{"profile": "enhanced"}"#).as_ptr(),
                &mut d,
                &mut err,
            )
        },
        &mut err,
    )
    .unwrap();
    let explain = |query: &str, tool: &str, options: Option<&str>| {
        let mut out = ptr::null_mut();
        let mut err = ptr::null_mut();
        let options = options.map(cstr);
        let status = unsafe {
            tr_discoverer_explain(
                d,
                cstr(query).as_ptr(),
                cstr(tool).as_ptr(),
                options.as_ref().map_or(ptr::null(), |o| o.as_ptr()),
                &mut out,
                &mut err,
            )
        };
        check(status, &mut err).map(|()| serde_json::from_str::<Value>(&take(out)).unwrap())
    };
    let v = explain("converting currencies", "convert_currency", None).unwrap();
    assert_eq!(v["profile"], "enhanced");
    assert_eq!(v["tool"]["outcome"], "ranked");
    assert_eq!(v["tool"]["rank"], 1);
    assert_eq!(
        v["scored_tokens"],
        serde_json::json!(["convert", "currenc", " convert currenc"])
    );
    assert!(
        v["tool"]["terms"][0]["fields"][0]["weight"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    let v = explain("currency", "read_file", Some(r#"{"top_k": 3}"#)).unwrap();
    assert_eq!(v["tool"]["outcome"], "no_common_token");
    assert_eq!(v["top_k"], 3);

    let (status, _) = explain("currency", "nope", None).unwrap_err();
    assert_eq!(status, "TR_STATUS_NOT_FOUND");
    let (status, _) = explain("currency", "read_file", Some(r#"{"top_k": 0}"#)).unwrap_err();
    assert_eq!(status, "TR_STATUS_INVALID_ARGUMENT");
    let (status, _) = explain("currency", "read_file", Some("{")).unwrap_err();
    assert_eq!(status, "TR_STATUS_INVALID_JSON");
    // NULL arguments, and output untouched on failure.
    let mut out: *mut std::ffi::c_char = ptr::null_mut();
    let q = cstr("currency");
    let t = cstr("read_file");
    for (dd, qq, tt, oo) in [
        (ptr::null(), q.as_ptr(), t.as_ptr(), &mut out as *mut _),
        (d as *const _, ptr::null(), t.as_ptr(), &mut out as *mut _),
        (d as *const _, q.as_ptr(), ptr::null(), &mut out as *mut _),
        (d as *const _, q.as_ptr(), t.as_ptr(), ptr::null_mut()),
    ] {
        let mut err = ptr::null_mut();
        let status = unsafe { tr_discoverer_explain(dd, qq, tt, ptr::null(), oo, &mut err) };
        let (name, _) = check(status, &mut err).unwrap_err();
        assert_eq!(name, "TR_STATUS_NULL_ARGUMENT");
        assert!(out.is_null());
    }
    unsafe {
        tr_discoverer_free(d);
        tr_registry_free(r);
    }
}

/// The enhanced profile's background model on a real catalog (BFCL's 1,998 tools): "good", in 2
/// tools' parameter docs but in every book, is scored with a lower IDF than the catalog's; "find",
/// in 176 tools, more common here than in English, keeps the catalog's; the reference profile and
/// the switched-off model keep it for every word. Through the Rust API and the C ABI's JSON.
#[test]
fn common_english_words_are_discounted_in_enhanced_only() {
    let catalog = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("data/bfcl/catalog.json"),
    )
    .unwrap();
    let r = Registry::new();
    r.register_json(&catalog).unwrap();
    let (query, tool) = ("find a good guitar", "guitar_price.find");
    let terms = |options: DiscoveryOptions| {
        let d = r.discoverer(options);
        let e = d.explain(query, tool, &req(10)).unwrap();
        assert_eq!(e.tool.outcome, Outcome::Ranked);
        e.tool.terms
    };
    let enhanced = terms(DiscoveryOptions::enhanced());
    let term = |token: &str| enhanced.iter().find(|t| t.token == token).unwrap();
    assert!(term("good").idf < term("good").catalog_idf, "{enhanced:?}");
    assert_eq!(term("find").idf, term("find").catalog_idf);
    for t in &enhanced {
        assert!(t.idf <= t.catalog_idf, "{t:?}");
        if t.idf < t.catalog_idf {
            assert!(toolregistry::analyzer::background_rate(&t.token).is_some());
        }
    }
    for t in terms(DiscoveryOptions::reference()) {
        assert_eq!(t.idf, t.catalog_idf, "{t:?}");
    }

    // The model switched off: the enhanced profile scores with the catalog's IDF again.
    let plain = Registry::new();
    plain
        .set_enhanced_analysis(toolregistry::EnhancedAnalysis {
            background: false,
            ..Default::default()
        })
        .unwrap();
    plain.register_json(&catalog).unwrap();
    let e = plain
        .discoverer(DiscoveryOptions::enhanced())
        .explain(query, tool, &req(10))
        .unwrap();
    assert!(e.tool.terms.iter().all(|t| t.idf == t.catalog_idf));

    // The C ABI's JSON carries both (the default profile: enhanced).
    let (c, _) = new_registry_with(None, &catalog);
    let v = explain_json(c, None, query, tool);
    let good = v["tool"]["terms"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["token"] == "good")
        .unwrap();
    assert!(good["idf"].as_f64().unwrap() < good["catalog_idf"].as_f64().unwrap());
    unsafe { tr_registry_free(c) };
}
