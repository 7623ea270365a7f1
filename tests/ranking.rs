//! The enhanced profile's scoring rules (issue 12, item 5), each on a small hand-made catalog
//! where it decides the order: with the rule on (the default) one tool leads, with it switched off
//! (as `toolregistry eval --ablate` does) the other.

use toolregistry::{DiscoverRequest, DiscoveryOptions, EnhancedAnalysis, Registry};

/// The names the default (enhanced) profile answers `query` with, with `analysis`.
fn ranked(tools: &str, analysis: EnhancedAnalysis, query: &str) -> Vec<String> {
    let r = Registry::new();
    r.register_json(tools).unwrap();
    r.set_enhanced_analysis(analysis).unwrap();
    let d = r.discoverer(DiscoveryOptions::enhanced());
    d.discover(query, &DiscoverRequest::default())
        .unwrap()
        .into_iter()
        .map(|h| h.name)
        .collect()
}

fn without(change: impl FnOnce(&mut EnhancedAnalysis)) -> EnhancedAnalysis {
    let mut a = EnhancedAnalysis::default();
    change(&mut a);
    a
}

/// Query-term saturation: a word the query repeats counts `n * (k1 + 1) / (n + k1)` times, not
/// `n` times, so saying "image" twice does not outweigh a rarer word said once.
#[test]
fn a_repeated_query_word_saturates() {
    let tools = r#"[
      {"name": "viewer", "description": "Shows image files."},
      {"name": "gallery", "description": "Lists image albums."},
      {"name": "scaler", "description": "Resizes large pictures."},
      {"name": "mailer", "description": "Sends email messages."},
      {"name": "clock", "description": "Shows current time."}
    ]"#;
    let query = "image image resize";
    let on = ranked(tools, EnhancedAnalysis::default(), query);
    assert_eq!(on[0], "scaler", "{on:?}");
    let off = ranked(tools, without(|a| a.query_saturation = false), query);
    assert_eq!(off[0], "viewer", "{off:?}");
    assert!(off.iter().position(|n| n == "scaler") > Some(0), "{off:?}");
    // A word given once is unaffected: the same order either way.
    assert_eq!(
        ranked(tools, EnhancedAnalysis::default(), "image resize"),
        ranked(
            tools,
            without(|a| a.query_saturation = false),
            "image resize"
        )
    );
}

/// The whole identifier (`fetchusers`) is stemmed in documents as in queries, so a query that
/// spells a plural or `-ing` identifier meets it: the identifier's own tool leads.
#[test]
fn a_spelled_identifier_meets_its_tool_after_stemming() {
    let tools = r#"[
      {"name": "fetchUsers", "description": "Returns the accounts of a team."},
      {"name": "fetch_user_profile", "description": "Returns the profile of one user."},
      {"name": "list_teams", "description": "Lists teams."}
    ]"#;
    // Not the exact name (that would be the exact-name shortcut): the identifier inside a sentence.
    let hits = ranked(
        tools,
        EnhancedAnalysis::default(),
        "call fetchUsers for the team",
    );
    assert_eq!(hits[0], "fetchUsers", "{hits:?}");
    let e = {
        let r = Registry::new();
        r.register_json(tools).unwrap();
        r.discoverer(DiscoveryOptions::enhanced())
            .explain(
                "call fetchUsers for the team",
                "fetchUsers",
                &DiscoverRequest::default(),
            )
            .unwrap()
    };
    let whole = e
        .tool
        .terms
        .iter()
        .find(|t| t.token.starts_with("fetchus"))
        .expect("the whole identifier is a scored token the tool contains");
    assert_eq!(whole.fields[0].field, "name");
}
