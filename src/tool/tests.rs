//! Unit tests of tool parsing: every accepted shape, every refusal with its path, and the
//! fast path answering exactly like the `Value` path.

use super::*;

fn one(json: &str) -> Tool {
    let mut v = Tool::parse_many(json).unwrap();
    assert_eq!(v.len(), 1);
    v.pop().unwrap()
}

#[test]
fn accepts_every_shape() {
    let params = r#"{"type":"object","properties":{"path":{"type":"string"}}}"#;
    let shapes = [
        format!(r#"{{"name":"read","description":"d","parameters":{params}}}"#),
        format!(
            r#"{{"type":"function","function":{{"name":"read","description":"d","parameters":{params}}}}}"#
        ),
        format!(r#"{{"type":"function","name":"read","description":"d","parameters":{params}}}"#),
        format!(r#"{{"name":"read","description":"d","input_schema":{params}}}"#),
        format!(r#"{{"name":"read","description":"d","inputSchema":{params}}}"#),
    ];
    for s in &shapes {
        let t = one(s);
        assert_eq!(t.name(), "read", "{s}");
        assert_eq!(t.description(), "d");
        assert_eq!(t.param_names(), ["path"]);
        assert_eq!(t.parameters_json(), params);
    }
}

#[test]
fn defaults_and_namespace() {
    let t = one(
        r#"{"name":"list_issues","namespace":"github","metadata":{"defer":true,"tags":["network","x","network"],"search_hint":"h"}}"#,
    );
    assert_eq!(t.name(), "github-list_issues");
    assert_eq!(t.namespace(), Some("github"));
    assert_eq!(t.description(), "");
    assert_eq!(t.parameters_json(), r#"{"type":"object","properties":{}}"#);
    assert_eq!(t.metadata().tags, ["network", "x"]);
    assert!(t.metadata().defer);
}

#[test]
fn refuses_bad_definitions_with_a_path() {
    let cases = [
        (
            r#"[{"name":"a"},{"description":"x"}]"#,
            "tools[1].name: missing",
        ),
        (r#"{"name":""}"#, "must not be empty"),
        (r#"{"name":"a b"}"#, "whitespace"),
        (r#"{"name":5}"#, "name: expected a string"),
        (
            r#"{"name":"a","parameters":[]}"#,
            "expected a JSON schema object",
        ),
        (
            r#"{"name":"a","metadata":{"defer":"yes"}}"#,
            "metadata.defer: expected a boolean",
        ),
        (r#"{"name":"a","metadata":{"tags":[1]}}"#, "tags[0]"),
        (
            r#"{"name":"a","metadata":{"color":1}}"#,
            "unknown metadata field",
        ),
        (
            r#"{"name":"a","parameters":{"properties":3}}"#,
            "properties: expected an object",
        ),
        ("7", "expected a tool object"),
    ];
    for (json, want) in cases {
        let err = Tool::parse_many(json).unwrap_err();
        assert!(matches!(err, Error::InvalidArgument(_)), "{json}: {err}");
        assert!(err.to_string().contains(want), "{json}: {err}");
    }
    assert!(matches!(Tool::parse_many("{"), Err(Error::InvalidJson(_))));
}

#[test]
fn catalogs_in_every_wrapper() {
    let tool = r#"{"name":"a","description":"d"}"#;
    for text in [
        format!("[{tool}]"),
        tool.to_string(),
        format!(r#"{{"tools":[{tool}]}}"#),
        format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{tool}]}}}}"#),
    ] {
        let tools = Tool::parse_catalog(&text).unwrap();
        assert_eq!(tools.len(), 1, "{text}");
        assert_eq!(tools[0].name(), "a");
    }
    assert!(Tool::parse_catalog(r#"{"tools":5}"#).is_err());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    assert!(matches!(
        Tool::parse_many(&deep),
        Err(Error::InvalidJson(_))
    ));
}

#[test]
fn fast_path_answers_like_the_value_path() {
    let cases = [
        // (definition, whether the fast path must take it)
        (
            r#"{"name":"a","description":"d","parameters":{"type":"object","properties":{"x":{"type":"integer","minimum":0},"y":{"type":"array","items":{"type":"string"}}},"required":["x"]}}"#,
            true,
        ),
        (
            r#"{"type":"function","function":{"name":"f","description":"q\"uote\n","parameters":{"type":"object","properties":{"p":{"description":"tab\there","default":-12}}}}}"#,
            true,
        ),
        (
            r#"{"name":"m","inputSchema":{"type":"object","properties":{"k":{}}},"namespace":"ns","metadata":{"defer":true,"tags":["x","x","y"]}}"#,
            true,
        ),
        (
            r#"{"name":"n","input_schema":{"type":"object","properties":null},"description":null}"#,
            true,
        ),
        (
            r#"{"name":"u","parameters":{"type":"object","properties":{"caf\u00e9":{}}}}"#,
            true,
        ),
        (
            r#"{"name":"s","parameters":{"type":"object","properties":{"a\/b":{}}}}"#,
            true,
        ),
        (
            r#"{"name":"e","parameters":{"type":"object","properties":{"a\nb":{}}}}"#,
            true,
        ),
        (
            r#"{"name":"f","parameters":{"type":"object","properties":{"x":{"minimum":1.50}}}}"#,
            true,
        ),
        (
            r#"{"name":"g","parameters":{"type":"object","properties":{"x":{"maximum":1e3}}}}"#,
            true,
        ),
        (
            r#"{"name":"h","parameters":{"type":"object","properties":{"x":{"maximum":-0}}}}"#,
            true,
        ),
        (
            r#"{"name":"i","parameters":{"type":"object","properties":{"x":{"maximum":123456789012345678901}}}}"#,
            true,
        ),
        (
            r#"{"name":"j","parameters":{"type":"object", "properties":{}}}"#,
            true,
        ),
        (
            r#"{"name":"k","parameters":{"type":"object","properties":{"x":{},"x":{"type":"string"}}}}"#,
            true,
        ),
        (
            r#"{"name":"l","parameters":{"type":"object","properties":{"x":{}},"properties":{"y":{}}}}"#,
            true,
        ),
        (
            r#"{"name":"o","parameters":{"properties":{"x":{"properties":{"inner":{}}}},"z":{"properties":{"no":{}}}}}"#,
            true,
        ),
        (
            r#"{"name":"p","parameters":{"type":"object","properties":{"é":{"enum":[true,false,null,"😀"]}}}}"#,
            true,
        ),
        (
            r#"{"name":"q","parameters":{"type":"object","properties":[1]}}"#,
            false,
        ),
        (r#"{"name":"r","parameters":[]}"#, false),
        (r#"{"name":"v","parameters":null,"function":null}"#, false),
        (r#"{"name":"w","name":"w2"}"#, false),
        (r#"{"name":"with space"}"#, false),
        (r#"{"name":"t","namespace":"bad ns"}"#, false),
        (r#"{"name":"t","metadata":{"defer":1}}"#, false),
        (r#"{"name":"t","metadata":{"defer":null}}"#, false),
        (
            r#"{"name":"t","metadata":{"tags":null,"search_hint":null,"defer":false}}"#,
            true,
        ),
        (
            r#"{"name":"t","metadata":{"tags":["a","b","a","c","b"],"search_hint":"h\u00e9"}}"#,
            true,
        ),
        (r#"{"name":"t","metadata":{"tags":[1]}}"#, false),
        (r#"{"name":"t","metadata":{"unknown":1}}"#, false),
        (r#"{"name":"t","metadata":["x"]}"#, false),
        (
            r#"{"name":"t","metadata":{"defer":true,"defer":false}}"#,
            false,
        ),
        (r#"{"name":5}"#, false),
        (r#"{"description":"no name"}"#, false),
    ];
    // Kept as written only when serde_json would write it the same way.
    let kept = |schema: &str| fast::canonical_schema(schema).is_some();
    assert!(kept(
        r#"{"type":"object","properties":{"a":{"enum":[1,-2,"x\"y"]}}}"#
    ));
    for rewritten in [
        r#"{"properties":{"a":1.0}}"#,
        r#"{"properties":{"a":1E2}}"#,
        r#"{"properties":{"a":"\u0041"}}"#,
        r#"{"properties":{"a":"\/"}}"#,
        r#"{"properties": {}}"#,
        r#"{"a":1,"a":2}"#,
        r#"{"properties":{"a\tb":{}}}"#,
    ] {
        assert!(!kept(rewritten), "{rewritten}");
    }
    assert_eq!(
        fast::canonical_schema(
            r#"{"x":{"properties":{"no":1}},"properties":{"a":{"properties":{"b":1}},"c":2}}"#
        ),
        Some(vec!["a", "c"])
    );
    for (text, fast_expected) in cases {
        let value: Value = serde_json::from_str(text).unwrap();
        let slow = Tool::from_value(&value, "tool");
        let fast = fast::parse(text);
        assert_eq!(fast.is_some(), fast_expected, "{text}");
        if let Some(fast) = fast {
            let slow = slow.unwrap();
            assert_eq!(fast, slow, "{text}");
            assert_eq!(fast.parameters_json(), slow.parameters_json(), "{text}");
            assert_eq!(fast.param_text(), slow.param_text(), "{text}");
            assert_eq!(fast.param_names(), slow.param_names(), "{text}");
            assert_eq!(fast.searchable_text_bytes(), slow.searchable_text_bytes());
        }
        // Through the array path, fast or not, the answer (or error) is the Value path's.
        let many = Tool::parse_many(&format!("[{text}]"));
        match (many, Tool::from_value(&value, "tools[0]")) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, vec![b.clone()], "{text}");
                assert_eq!(a[0].param_text(), b.param_text(), "{text}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
            (a, b) => panic!("{text}: {a:?} vs {b:?}"),
        }
    }
}

#[test]
fn arrays_in_one_pass_answer_like_element_by_element() {
    let err = Tool::parse_many(r#"[{"name":"a"},["b"]]"#).unwrap_err();
    assert!(
        err.to_string().contains("tools[1]: expected an object"),
        "{err}"
    );
    let err = Tool::parse_many(r#"[{"name":"a"},{"name":"b c"}]"#).unwrap_err();
    assert!(err.to_string().contains("tools[1].name"), "{err}");
    // A repeated key is not an error: the Value path keeps the last one.
    let tools = Tool::parse_many(
        r#"[{"name":"a","parameters":{"type":"object","properties":{"x":{}}}},{"name":"b","name":"c"}]"#,
    )
    .unwrap();
    let names: Vec<&str> = tools.iter().map(Tool::name).collect();
    assert_eq!(names, ["a", "c"]);
    assert_eq!(tools[0].param_text(), "x");
    assert!(super::parse_array_fast(r#"[{"name":"a"},{"name":"b"}]"#).is_some());
    assert!(super::parse_array_fast(r#"[{"name":"a"}] x"#).is_none());
    assert!(Tool::parse_many(r#"[{"name":"a"}] x"#).is_err());
}

#[test]
fn fast_path_leaves_deep_schemas_to_the_value_path() {
    let deep = format!(
        r#"{{"name":"d","parameters":{}{}}}"#,
        r#"{"a":"#.repeat(150),
        "}".repeat(151)
    );
    assert!(fast::parse(&deep).is_none());
    let shallow = format!(
        r#"{{"name":"d","parameters":{}1{}}}"#,
        r#"{"a":"#.repeat(50),
        "}".repeat(50)
    );
    assert!(fast::parse(&shallow).is_some());
}

#[test]
fn ascii_names_normalize_like_the_general_form() {
    let general = |name: &str| {
        name.chars()
            .map(|c| if c == '/' || c == '-' { '_' } else { c })
            .collect::<String>()
            .to_lowercase()
    };
    let mut names: Vec<String> = vec![
        String::new(),
        "GitHub-Create/Issue_42".into(),
        "a-b/c_D".into(),
    ];
    names.extend((0u8..0x80).map(|b| format!("x{}Y", b as char)));
    for name in &names {
        assert_eq!(normalize_name(name), general(name), "{name:?}");
    }
    // Non-ASCII names take the general form.
    assert_eq!(normalize_name("Ärger-İ"), general("Ärger-İ"));
}
