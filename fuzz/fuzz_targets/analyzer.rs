//! The analyzer and the text helpers on arbitrary UTF-8, and that text as a query.
//!
//! Oracles: tokens are non-empty runs of word characters (plus CJK bigrams), analysis is
//! deterministic, summaries are a prefix of the first line, and any text as a query either ranks
//! well or is refused as empty or too large.
#![no_main]

use libfuzzer_sys::fuzz_target;
use toolregistry::analyzer::{is_cjk, is_word_char, name_to_text, tokenize};
use toolregistry::registry::{first_sentence, normalize_name};
use toolregistry::tool::validate_name;
use toolregistry::{DiscoverRequest, DiscoveryOptions, Error};
use toolregistry_fuzz::{assert_ranking, shared_fixture};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let tokens = tokenize(text);
    assert_eq!(tokens, tokenize(text), "deterministic");
    for t in &tokens {
        assert!(!t.is_empty());
        // Lowercasing may add combining marks (İ -> i̇), so only whitespace is ruled out here.
        assert!(
            !t.chars().any(char::is_whitespace),
            "token {t:?} of {text:?}"
        );
        assert!(
            t.chars().any(|c| is_word_char(c) || is_cjk(c)),
            "token {t:?} of {text:?}"
        );
    }
    let line = text.split('\n').next().unwrap_or("").trim();
    let summary = first_sentence(text);
    assert!(
        line.starts_with(summary),
        "summary {summary:?} is not a prefix of {line:?}"
    );
    let _ = tokenize(&name_to_text(text));
    let normalized = normalize_name(text);
    assert_eq!(
        normalized,
        normalize_name(&normalized),
        "normalizing twice changes nothing"
    );
    let _ = validate_name(text, "name");

    let d = shared_fixture().discoverer(DiscoveryOptions::default());
    match d.discover(
        text,
        &DiscoverRequest {
            top_k: 100,
            ..Default::default()
        },
    ) {
        Ok(hits) => assert_ranking(&hits),
        Err(Error::InvalidArgument(_)) => assert!(text.trim().is_empty(), "refused {text:?}"),
        Err(Error::TooLarge(_)) => {}
        Err(e) => panic!("unexpected error {e} for {text:?}"),
    }
});
