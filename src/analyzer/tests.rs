//! Tests of the analyzers: tokens of both profiles, identifier splitting, query function words,
//! parameter documentation.

use super::*;

#[test]
fn borrowed_reference_tokens_equal_the_plain_analysis() {
    use crate::tool::{Tool, ToolMetadata};
    // (name, description, tags, search hint, namespace)
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, Option<&'a str>);
    let cases: [Case; 6] = [
        (
            "get_user__Profile-v2",
            "Read THE user's profile, fast.",
            &["read_only", "Net-Work"],
            "hint ABC_def",
            None,
        ),
        (
            "查询_天气",
            "查询天气 weather",
            &["天气预报", "x"],
            "",
            Some("Ns"),
        ),
        ("a", "", &[], "Ünïcode hint", None),
        ("_-_x", "ÄBC abc", &["tag one", "TAG_two"], "", None),
        ("Çalc", "résumé", &[], "", None),
        ("plain", "plain words only", &["t"], "h", None),
    ];
    for (name, desc, tags, hint, ns) in cases {
        let params = serde_json::json!({"type": "object", "properties": {"Path_X": {}, "q": {}}});
        let meta = ToolMetadata {
            defer: false,
            tags: tags.iter().map(|t| t.to_string()).collect(),
            search_hint: hint.to_string(),
            ..Default::default()
        };
        let tool = Tool::new(name, desc, Some(params), ns, meta).unwrap();
        let plain = [
            tokenize(&name_to_text(tool.name())),
            tokenize(tool.description()),
            tokenize(&tool.metadata().tags.join(" ")),
            tokenize(&tool.param_names().join(" ")),
            tokenize(&tool.metadata().search_hint),
        ];
        assert_eq!(reference_document(&tool), plain, "{name}");
    }
}

#[test]
fn whole_identifiers_stay_out_of_the_stem_cache() {
    STEMS.with(|c| c.borrow_mut().clear());
    let tokens = tokenize_enhanced("fetchWidgetInventories now", &EnhancedAnalysis::default());
    // The whole identifier is stemmed (like the query side) but not cached; its parts are.
    assert!(tokens.contains(&STEMMER.stem("fetchwidgetinventories").into_owned()));
    STEMS.with(|c| {
        let c = c.borrow();
        assert!(c.contains_key("inventories") && c.contains_key("now"));
        assert!(!c.contains_key("fetchwidgetinventories"));
    });
}

#[test]
fn lowercases_word_runs_and_keeps_underscores() {
    assert_eq!(
        tokenize("Read a FILE, snake_case!"),
        ["read", "a", "file", "snake_case"]
    );
}

#[test]
fn combining_marks_split_words_like_python() {
    // U+0301 COMBINING ACUTE ACCENT is Mn: Python's \w rejects it, Rust's is_alphanumeric accepts it.
    assert_eq!(tokenize("cafe\u{301} bar"), ["cafe", "bar"]);
    assert!(!is_word_char('\u{301}'));
    assert!(is_word_char('é'));
    assert!(is_word_char('²')); // No
}

#[test]
fn cjk_runs_get_missing_bigrams() {
    assert_eq!(tokenize("天气查询"), ["天气查询", "天气", "气查", "查询"]);
    assert_eq!(tokenize("天气"), ["天气"]);
    assert_eq!(tokenize("天 气"), ["天", "气"]);
    // bigrams never span a non-CJK character
    assert_eq!(tokenize("天气,查询"), ["天气", "查询"]);
    // Katakana middle dot is punctuation but inside the CJK range, so it joins the run
    assert_eq!(tokenize("ア・イ"), ["ア", "イ", "ア・", "・イ"]);
}

#[test]
fn name_separators_collapse() {
    assert_eq!(name_to_text("github-list__issues"), "github list issues");
    assert_eq!(
        tokenize(&name_to_text("github-list__issues")),
        ["github", "list", "issues"]
    );
}

#[test]
fn final_sigma_lowercases_like_python() {
    assert_eq!(tokenize("ΟΔΟΣ"), ["\u{3bf}\u{3b4}\u{3bf}\u{3c2}"]);
}

#[test]
fn stopwords_are_sorted_for_binary_search() {
    assert!(ENGLISH_STOPWORDS.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn identifiers_split_at_case_acronym_digit_and_underscore() {
    assert_eq!(
        split_identifier("getHTTPResponse"),
        ["get", "HTTP", "Response"]
    );
    assert_eq!(
        split_identifier("QueryHealthData"),
        ["Query", "Health", "Data"]
    );
    assert_eq!(split_identifier("snake_case__x"), ["snake", "case", "x"]);
    assert_eq!(split_identifier("base64Encode"), ["base", "64", "Encode"]);
    assert_eq!(split_identifier("plain"), ["plain"]);
    assert_eq!(split_identifier("_"), Vec::<&str>::new());
}

#[test]
fn enhanced_tokens_keep_the_whole_identifier_and_stem() {
    let cfg = EnhancedAnalysis::default();
    assert_eq!(
        tokenize_enhanced("QueryHealthData calculates", &cfg),
        ["queri", "health", "data", "queryhealthdata", "calcul"]
    );
    assert_eq!(tokenize_enhanced("math.hypot", &cfg), ["math", "hypot"]);
    // NFKC: full-width Latin becomes ASCII
    assert_eq!(tokenize_enhanced("ＷＥＡＴＨＥＲ", &cfg), ["weather"]);
    // CJK bigrams survive
    assert_eq!(
        tokenize_enhanced("天气查询", &cfg),
        ["天气查询", "天气", "气查", "查询"]
    );
    let off = EnhancedAnalysis {
        nfkc: false,
        split_identifiers: false,
        stem: false,
        ..cfg
    };
    assert_eq!(
        tokenize_enhanced("QueryHealthData", &off),
        ["queryhealthdata"]
    );
}

#[test]
fn blobs_are_not_split_without_bound() {
    let cfg = EnhancedAnalysis::default();
    // A run that would split into more parts than the budget is one token.
    let long = "aB1".repeat(30);
    assert_eq!(tokenize_enhanced(&long, &cfg), [long.to_lowercase()]);
    // Short mixed runs inside one chunk: at most SPLIT_BUDGET_PER_CHUNK added tokens.
    let chunk = "xY9/".repeat(500);
    let runs = tokenize(&chunk).len();
    let got = tokenize_enhanced(&chunk, &cfg).len();
    assert!(
        got <= runs + SPLIT_BUDGET_PER_CHUNK,
        "{got} tokens from {runs} runs"
    );
    // The budget is per whitespace-separated chunk: ordinary text splits as before.
    let text = "getUserName ".repeat(100);
    assert_eq!(tokenize_enhanced(&text, &cfg).len(), 400);
    // Documents count runs the same way (the whole identifier of a long name still splits).
    let name = "list_all_open_pull_requests_for_the_given_repository_owner_and_name";
    assert_eq!(tokenize_enhanced(name, &cfg).len(), 13);
}

#[test]
fn query_tokens_within_a_limit_report_the_total() {
    let cfg = EnhancedAnalysis::default();
    let (tokens, total) = enhanced_query_tokens_within("send emails to the team now", &cfg, 2);
    assert_eq!(total, 6);
    assert_eq!(
        tokens,
        [("send".to_string(), false), ("email".to_string(), false)]
    );
}

#[test]
fn query_stopwords_are_marked_unless_nothing_else_is_left() {
    let cfg = EnhancedAnalysis::default();
    let q = enhanced_query_tokens("Can you convert currencies?", &cfg);
    assert_eq!(
        q,
        [
            ("can".to_string(), true),
            ("you".to_string(), true),
            ("convert".to_string(), false),
            ("currenc".to_string(), false)
        ]
    );
    assert!(
        enhanced_query_tokens("what is this", &cfg)
            .iter()
            .all(|(_, s)| !s)
    );
}

#[test]
fn query_values_stay_whole_and_tool_identifiers_still_split() {
    let cfg = EnhancedAnalysis::default();
    let words = |q: &str, cfg: &EnhancedAnalysis| -> Vec<String> {
        enhanced_query_tokens(q, cfg)
            .into_iter()
            .filter(|(_, stop)| !stop)
            .map(|(t, _)| t)
            .collect()
    };
    assert_eq!(
        words("remind me at 2pm on the 10th as user_3pass", &cfg),
        ["remind", "2pm", "10th", "user3pass"]
    );
    // A tool's name of the same shape is split as before, its whole form kept: the query
    // `MobileNetV2` meets it there.
    assert_eq!(words("MobileNetV2", &cfg), ["mobilenetv2"]);
    assert!(tokenize_enhanced("MobileNetV2", &cfg).contains(&"mobilenetv2".to_string()));
    assert!(tokenize_enhanced("MobileNetV2", &cfg).contains(&"mobil".to_string()));
    let off = EnhancedAnalysis {
        query_values_whole: false,
        ..cfg
    };
    assert_eq!(words("at 2pm", &off), ["2", "pm", "2pm"]);
}

#[test]
fn clitics_are_function_words_of_queries() {
    assert_eq!(
        english_clitics("Men's, can\u{2019}t, we'll, O'Brien, 'quoted', rock 'n' roll, it's"),
        ["s", "t", "ll", "s"]
    );
    let cfg = EnhancedAnalysis::default();
    let q = enhanced_query_tokens("the Men's Singles, which s wins?", &cfg);
    let dropped: Vec<&str> = q
        .iter()
        .filter(|(_, d)| *d)
        .map(|(t, _)| t.as_str())
        .collect();
    // "the", "which", and one `s` (the clitic's count, not the standalone's too).
    assert_eq!(dropped, ["the", "s", "which"]);
    let off = EnhancedAnalysis {
        stopwords: false,
        ..cfg
    };
    assert!(enhanced_query_tokens("Men's", &off).iter().all(|(_, d)| !d));
}

#[test]
fn param_docs_take_descriptions_and_enum_values() {
    let docs = param_docs(
        r#"{"type":"object","properties":{"unit":{"type":"string","description":"Temperature unit","enum":["celsius","fahrenheit"]},"x":{}}}"#,
    );
    assert_eq!(docs, ["Temperature unit", "celsius", "fahrenheit"]);
    assert!(param_docs("{}").is_empty());
}

#[test]
fn a_name_term_is_the_own_names_words_after_its_last_dot() {
    let cfg = EnhancedAnalysis::default();
    let term = |name: &str| name_term_of(name, &cfg);
    assert_eq!(term("DeleteMeeting").as_deref(), Some(" delet meet"));
    assert_eq!(term("delete_meeting"), term("MeetingDelete"));
    // Function words are left out, as a query leaves them out; a dotted prefix is where the tool
    // lives.
    assert_eq!(
        term("geometry.get_area_of_circle").as_deref(),
        Some(" area circl get")
    );
    assert_eq!(term("circle.area"), None);
    assert_eq!(term("weather"), None);
    assert_eq!(term("list_of_it"), None);
    // Full-width Latin is normalized as the name field's words are.
    assert_eq!(term("ＤｅｌｅｔｅＭｅｅｔｉｎｇ"), term("DeleteMeeting"));
    assert_eq!(
        name_term_of(
            "DeleteMeeting",
            &EnhancedAnalysis {
                name_terms: false,
                ..cfg
            }
        ),
        None
    );
    // The document's name field ends with it; a tool's namespace is not part of it.
    let tools = crate::tool::Tool::parse_many(
        r#"[{"name": "add_meeting", "namespace": "calendar", "description": "d"}]"#,
    )
    .unwrap();
    assert_eq!(tools[0].name(), "calendar-add_meeting");
    let doc = enhanced_document(&tools[0], &cfg);
    assert_eq!(doc[0].last().map(String::as_str), Some(" add meet"));
}
