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

/// Per-field length normalization (BM25F): a tool with long parameter documentation keeps the full
/// strength of a match in its short name. Normalized by the weighted length of the whole
/// document instead, the long parameter text weakens the name match, and a tool that merely
/// mentions the word in its description wins.
#[test]
fn long_parameter_docs_do_not_weaken_a_name_match() {
    let tools = r#"[
      {"name": "archive_tool", "description": "Stores files.", "parameters": {"type": "object", "properties": {
        "path": {"type": "string", "description": "Absolute path of the directory whose files should be stored, relative paths are rejected"},
        "level": {"type": "integer", "description": "How hard the packer works on each file, from one for fastest up to nine for smallest"},
        "owner": {"type": "string", "description": "Account that owns the resulting bundle on the server once the upload completes"},
        "notify": {"type": "boolean", "description": "Whether an email message goes out to the account owner when the job ends"}}}},
      {"name": "data_store", "description": "Compress and archive data."},
      {"name": "read_file", "description": "Reads a file from disk."},
      {"name": "send_mail", "description": "Sends an email message."},
      {"name": "list_jobs", "description": "Lists the running jobs."}
    ]"#;
    let on = ranked(tools, EnhancedAnalysis::default(), "archive");
    assert_eq!(on[..2], ["archive_tool", "data_store"]);
    let off = ranked(tools, without(|a| a.per_field_norm = false), "archive");
    assert_eq!(off[..2], ["data_store", "archive_tool"]);
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

/// A query's value that mixes letters and digits (a time, an ordinal, an ID) stays whole: its
/// fragments (`pm`, `th`) are not words of the request, and split they find a tool that merely
/// uses them. A tool's name of that shape is still found by the query spelling it.
#[test]
fn a_query_value_is_not_split_into_fragments() {
    let tools = r#"[
      {"name": "alarm", "description": "Sets an alarm at the given time."},
      {"name": "pm_report", "description": "The PM report: what the product managers shipped."},
      {"name": "tenth_checker", "description": "Says whether the th ordinal suffix applies."},
      {"name": "MobileNetV2", "description": "Image classifier."},
      {"name": "send_mail", "description": "Sends an email message."}
    ]"#;
    let query = "set an alarm for 2pm on the 10th";
    let on = ranked(tools, EnhancedAnalysis::default(), query);
    assert_eq!(on, ["alarm"], "{on:?}");
    let off = ranked(tools, without(|a| a.query_values_whole = false), query);
    assert_eq!(off[0], "alarm", "{off:?}");
    assert!(off.iter().any(|n| n == "pm_report"), "{off:?}");
    assert!(off.iter().any(|n| n == "tenth_checker"), "{off:?}");
    let named = ranked(tools, EnhancedAnalysis::default(), "MobileNetV2");
    assert_eq!(named[0], "MobileNetV2", "{named:?}");
}

/// Name terms: a query holding every word of a tool's name ("delete", "meeting") asks for that
/// tool, though a sibling's description repeats more of the query's words. Off, `AddMeeting`
/// wins on its description. A dotted prefix (`calendar.`) is where a tool lives: it need not be
/// in the query.
#[test]
fn a_query_holding_a_whole_name_finds_that_tool() {
    let tools = r#"[
      {"name": "AddMeeting", "description": "Add a meeting reservation: the meeting topic and attendees."},
      {"name": "calendar.DeleteMeeting", "description": "Cancel it."},
      {"name": "DeleteUser", "description": "Removes a user account."},
      {"name": "GetWeather", "description": "Weather forecast for a city."},
      {"name": "SendEmail", "description": "Sends an email message."},
      {"name": "ReadFile", "description": "Reads a file."},
      {"name": "PlayMusic", "description": "Plays a song."},
      {"name": "SetAlarm", "description": "Sets an alarm."},
      {"name": "GetStock", "description": "A stock price."},
      {"name": "ListFiles", "description": "Lists a folder."}
    ]"#;
    let query = "delete my meeting reservation about the topic";
    let on = ranked(tools, EnhancedAnalysis::default(), query);
    assert_eq!(on[0], "calendar.DeleteMeeting", "{on:?}");
    let off = ranked(tools, without(|a| a.name_terms = false), query);
    assert_eq!(off[0], "AddMeeting", "{off:?}");
    // One word of the name is not the name: the same order either way.
    let one_word = "the meeting reservation topic";
    assert_eq!(
        ranked(tools, EnhancedAnalysis::default(), one_word),
        ranked(tools, without(|a| a.name_terms = false), one_word)
    );
}
