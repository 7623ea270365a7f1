//! Unit tests of the registry internals.

use super::*;
use crate::discovery::{DiscoverRequest, hits_to_json};

#[test]
fn first_sentence_rules() {
    assert_eq!(
        first_sentence("Compress a file into a zip archive. Uses deflate."),
        "Compress a file into a zip archive."
    );
    assert_eq!(first_sentence("Upgrade to v1.2 now"), "Upgrade to v1.2 now");
    assert_eq!(first_sentence("Done!\nmore"), "Done!");
    assert_eq!(first_sentence("Really? yes"), "Really?");
    assert_eq!(first_sentence("查询天气。然后"), "查询天气。");
    assert_eq!(first_sentence("  first line  \nsecond. line"), "first line");
    assert_eq!(first_sentence(""), "");
}

#[test]
fn json_answers_are_written_like_the_hits() {
    let registry = Registry::new();
    registry
        .register_json(
            r#"[{"name":"read_file","description":"Read a \"file\"\n from disk","parameters":{"type":"object","properties":{"path":{"type":"string"}}},"metadata":{"defer":true}},
                {"name":"write_file","description":"Write a file","namespace":"fs"},
                {"name":"查询天气","description":"天气 weather lookup","metadata":{"defer":true,"tags":["net"]}},
                {"name":"send_email","description":"Send an email message"}]"#,
        )
        .unwrap();
    registry
        .enable_discovery(DiscoveryOptions::default())
        .unwrap();
    let discoverer = registry.discoverer(DiscoveryOptions::default());
    for query in [
        "file",
        "read_file",
        "FS-write_file",
        "weather 天气",
        "email file disk",
        "nothing",
    ] {
        for format in ["openai-chat", "openai-responses", "anthropic", "gemini"] {
            let request = DiscoverRequest::from_json(Some(&format!(
                r#"{{"top_k":3,"api_format":"{format}"}}"#
            )))
            .unwrap();
            let hits = registry.discover(query, &request).unwrap();
            let json = discoverer.discover_json(query, &request).unwrap();
            assert_eq!(json, hits_to_json(&hits), "{query} {format}");
            let args = format!(r#"{{"query":{query:?},"top_k":3,"api_format":"{format}"}}"#);
            assert_eq!(registry.call_json(DISCOVER_TOOLS, &args).unwrap(), json);
        }
    }
    assert!(
        registry
            .discover("file", &DiscoverRequest::default())
            .unwrap()
            .len()
            >= 2
    );
}

#[test]
fn flags_hosts_and_reasons_follow_their_tools_through_compaction() {
    let registry = Registry::new();
    let _discoverer = registry.discoverer(DiscoveryOptions::default());
    let tool = |name: &str| Tool::new(name, "", None, None, Default::default()).unwrap();
    // Dead slots first, so the survivors move down when the slots are compacted.
    let filler: Vec<Tool> = (0..1100).map(|i| tool(&format!("t{i}"))).collect();
    registry.register(filler).unwrap();
    registry
        .register_callable(tool("hosted"), |_| Ok("ran".into()))
        .unwrap();
    registry.register(vec![tool("plain"), tool("off")]).unwrap();
    registry.disable("off", Some("maintenance")).unwrap();
    registry
        .register_callable(tool("hosted_off"), |_| Ok("x".into()))
        .unwrap();
    registry.disable("hosted_off", None).unwrap();
    let before = registry.tools_status().unwrap();
    for i in 0..1100 {
        registry.unregister(&format!("t{i}")).unwrap();
    }
    // Compacted once 1,024 slots were dead: the four tools moved down by 1,024 slots, with
    // what they had.
    assert_eq!(registry.shared.read().unwrap().slots.len(), 80);
    let after = registry.tools_status().unwrap();
    let kept: Vec<_> = before
        .into_iter()
        .filter(|t| !t.name.starts_with('t'))
        .collect();
    assert_eq!(after, kept);
    let status = |name: &str| after.iter().find(|t| t.name == name).unwrap().clone();
    assert!(status("hosted").enabled && status("hosted").callable);
    assert!(!status("plain").callable && status("plain").enabled);
    assert_eq!(status("off").reason.as_deref(), Some("maintenance"));
    assert!(!status("hosted_off").enabled && status("hosted_off").callable);
    match registry.call_target("hosted").unwrap() {
        CallTarget::Tool(t) => {
            assert_eq!(t.host.expect("host kept")("hosted", "{}"), Ok("ran".into()))
        }
        _ => panic!("hosted is callable"),
    }
    // A new tool takes a fresh slot without the old slots' flags or hosts.
    registry.register(vec![tool("fresh")]).unwrap();
    let fresh = registry.tools_status().unwrap();
    let fresh = fresh.iter().find(|t| t.name == "fresh").unwrap();
    assert!(fresh.enabled && !fresh.callable && fresh.reason.is_none());
    registry.set_enabled("off", true).unwrap();
    let off = registry.tools_status().unwrap();
    let off = off.iter().find(|t| t.name == "off").unwrap();
    assert!(off.enabled && off.reason.is_none());
    assert!(registry.verify_index().unwrap());
}

#[test]
fn exact_names_survive_replacement_removal_and_compaction() {
    let registry = Registry::new();
    // A discoverer, so the index exists and `verify_index` below checks its upkeep.
    let _discoverer = registry.discoverer(DiscoveryOptions::default());
    let tool = |name: &str| Tool::new(name, "", None, None, Default::default()).unwrap();
    let names = ["Get-Weather", "get_weather", "get/Weather", "other"];
    registry
        .register(names.iter().map(|n| tool(n)).collect())
        .unwrap();
    let exact = |q: &str| {
        let state = registry.shared.read().unwrap();
        state
            .exact_match(q)
            .map(|id| state.tool_at(id).name().to_string())
    };
    assert_eq!(exact("get_weather").as_deref(), Some("get_weather"));
    // Tolerant match: the first registered among the names that normalize alike.
    assert_eq!(exact("GET-WEATHER").as_deref(), Some("Get-Weather"));
    registry.set_enabled("Get-Weather", false).unwrap();
    assert_eq!(exact("GET-WEATHER").as_deref(), Some("get_weather"));
    registry.unregister("get_weather").unwrap();
    assert_eq!(exact("GET-WEATHER").as_deref(), Some("get/Weather"));
    registry.register(vec![tool("get/Weather")]).unwrap();
    assert_eq!(exact("get-weather").as_deref(), Some("get/Weather"));
    // Enough dead slots to compact: ids are renumbered, names still resolve.
    let filler: Vec<Tool> = (0..1100).map(|i| tool(&format!("t{i}"))).collect();
    registry.register(filler).unwrap();
    for i in 0..1100 {
        registry.unregister(&format!("t{i}")).unwrap();
    }
    assert_eq!(registry.len().unwrap(), 3);
    assert_eq!(exact("get-weather").as_deref(), Some("get/Weather"));
    assert_eq!(exact("other").as_deref(), Some("other"));
    assert!(registry.tool("Get-Weather").unwrap().is_some());
    assert!(registry.tool("t5").unwrap().is_none());
    registry.set_enabled("Get-Weather", true).unwrap();
    assert_eq!(exact("get_weather").as_deref(), Some("Get-Weather"));
    assert!(registry.verify_index().unwrap());
}
