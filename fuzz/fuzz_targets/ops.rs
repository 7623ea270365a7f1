//! Operation sequences: register / unregister / set_enabled / set_metadata / discover / rebuild,
//! driven by the fuzz input, against a model of what the registry should hold.
//!
//! After every step: the incremental index equals a rebuild (`verify_index`), the registry holds
//! exactly the model's tools in the model's order, and every discoverer answers exactly like one on
//! a registry rebuilt from scratch with the same tools, enabled flags and disabled namespaces.
#![no_main]

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use std::collections::HashSet;
use toolregistry::{
    DiscoverRequest, Discoverer, DiscoveryOptions, Error, MetadataUpdate, Registry, Tool,
    ToolMetadata,
};
use toolregistry_fuzz::assert_ranking;

/// Base names; several normalize to the same key (`read_file`), to exercise the tolerant exact match.
const NAMES: &[&str] = &[
    "read_file",
    "Read-File",
    "read/file",
    "send_email",
    "list_issues",
    "天气查询",
    "web-search",
    "delete_user",
    "sync",
    "a",
];
/// Namespaces; none equals a base name, so `set_enabled` on one always means the namespace.
const NAMESPACES: &[&str] = &["github", "fs", "工具"];
const WORDS: &[&str] = &[
    "read",
    "file",
    "email",
    "send",
    "issues",
    "list",
    "天气",
    "查询",
    "web",
    "search",
    "user",
    "delete",
    "the",
    "a",
    "of",
    "sync",
    "日本語",
    "Ünïcödé",
    "read_file",
];

#[derive(Arbitrary, Debug)]
enum Op {
    Register {
        name: u8,
        ns: Option<u8>,
        words: Vec<u8>,
        params: Vec<u8>,
        defer: bool,
        tags: Vec<u8>,
    },
    /// All or nothing: with `poison`, the last tool of the batch is invalid and nothing registers.
    RegisterBatch {
        names: Vec<u8>,
        poison: bool,
    },
    Unregister(u8),
    SetEnabled {
        target: u8,
        enabled: bool,
    },
    SetMetadata {
        name: u8,
        defer: Option<bool>,
        tags: Option<Vec<u8>>,
        hint: Option<Vec<u8>>,
    },
    Discover {
        words: Vec<u8>,
        exact: Option<u8>,
        top_k: u8,
    },
    Rebuild,
    /// Many registrations and removals, so slot compaction runs.
    Churn,
}

fn word(i: u8) -> &'static str {
    WORDS[i as usize % WORDS.len()]
}

fn words(ix: &[u8]) -> String {
    ix.iter()
        .take(12)
        .map(|&i| word(i))
        .collect::<Vec<_>>()
        .join(" ")
}

fn full_name(name: u8, ns: Option<u8>) -> String {
    let base = NAMES[name as usize % NAMES.len()];
    match ns {
        Some(n) => format!("{}-{base}", NAMESPACES[n as usize % NAMESPACES.len()]),
        None => base.to_string(),
    }
}

/// What the registry should hold: tools in registration order with their enabled flags.
#[derive(Default)]
struct Model {
    tools: Vec<(Tool, bool)>,
    disabled_namespaces: HashSet<String>,
}

impl Model {
    fn position(&self, name: &str) -> Option<usize> {
        self.tools.iter().position(|(t, _)| t.name() == name)
    }

    fn register(&mut self, tool: Tool) {
        match self.position(tool.name()) {
            Some(i) => self.tools[i].0 = tool,
            None => self.tools.push((tool, true)),
        }
    }

    fn existing_name(&self, pick: u8) -> String {
        match self.tools.len() {
            0 => NAMES[pick as usize % NAMES.len()].to_string(),
            n => self.tools[pick as usize % (n + 1)..]
                .first()
                .map_or_else(|| "missing_tool".to_string(), |(t, _)| t.name().to_string()),
        }
    }

    /// A registry built from scratch holding what the model holds.
    fn rebuild(&self, discovery: &DiscoveryOptions) -> Registry {
        let fresh = Registry::new();
        fresh.enable_discovery(*discovery).unwrap();
        for (tool, enabled) in &self.tools {
            fresh.register(vec![tool.clone()]).unwrap();
            if !enabled {
                fresh.set_enabled(tool.name(), false).unwrap();
            }
        }
        for ns in &self.disabled_namespaces {
            if self.tools.iter().any(|(t, _)| t.namespace() == Some(ns)) {
                fresh.set_enabled(ns, false).unwrap();
            }
        }
        fresh
    }
}

fn make_tool(
    name: u8,
    ns: Option<u8>,
    desc: &[u8],
    params: &[u8],
    defer: bool,
    tags: &[u8],
) -> Tool {
    let base = NAMES[name as usize % NAMES.len()];
    let namespace = ns.map(|n| NAMESPACES[n as usize % NAMESPACES.len()]);
    let props: serde_json::Map<String, serde_json::Value> = params
        .iter()
        .take(4)
        .map(|&i| (word(i).to_string(), serde_json::json!({})))
        .collect();
    let metadata = ToolMetadata {
        defer,
        tags: tags.iter().take(4).map(|&i| word(i).to_string()).collect(),
        search_hint: String::new(),
        ..Default::default()
    };
    Tool::new(
        base,
        &words(desc),
        Some(serde_json::json!({"type": "object", "properties": props})),
        namespace,
        metadata,
    )
    .unwrap()
}

fuzz_target!(|ops: Vec<Op>| {
    let registry = Registry::new();
    let builtin_options = DiscoveryOptions {
        min_score_ratio: 0.0,
        ..Default::default()
    };
    registry.enable_discovery(builtin_options).unwrap();
    let discoverers: Vec<Discoverer> = vec![
        registry.discoverer(DiscoveryOptions::default()),
        registry.discoverer(DiscoveryOptions {
            max_df_ratio: 0.0,
            min_score_ratio: 0.0,
            ..Default::default()
        }),
    ];
    let mut model = Model::default();
    let mut queries: Vec<(String, usize)> =
        vec![("read file".into(), 10), ("天气 email search".into(), 50)];

    for op in ops.into_iter().take(64) {
        match op {
            Op::Register {
                name,
                ns,
                words: w,
                params,
                defer,
                tags,
            } => {
                let tool = make_tool(name, ns, &w, &params, defer, &tags);
                registry.register(vec![tool.clone()]).unwrap();
                model.register(tool);
            }
            Op::RegisterBatch { names, poison } => {
                let mut batch: Vec<serde_json::Value> = names
                    .iter()
                    .take(6)
                    .map(|&n| serde_json::json!({"name": NAMES[n as usize % NAMES.len()], "description": words(&[n, n / 3])}))
                    .collect();
                if poison {
                    batch.push(serde_json::json!({"description": "no name"}));
                }
                let text = serde_json::Value::Array(batch).to_string();
                match registry.register_json(&text) {
                    Ok(_) => {
                        assert!(!poison);
                        for tool in Tool::parse_many(&text).unwrap() {
                            model.register(tool);
                        }
                    }
                    Err(e) => assert!(poison, "valid batch refused: {e}"),
                }
            }
            Op::Unregister(pick) => {
                let name = model.existing_name(pick);
                match (registry.unregister(&name), model.position(&name)) {
                    (Ok(()), Some(i)) => {
                        model.tools.remove(i);
                    }
                    (Err(Error::NotFound(_)), None) => {}
                    (got, want) => panic!("unregister {name:?}: {got:?}, model has it at {want:?}"),
                }
            }
            Op::SetEnabled { target, enabled } => {
                let name = if target % 2 == 0 {
                    NAMESPACES[(target / 2) as usize % NAMESPACES.len()].to_string()
                } else {
                    model.existing_name(target / 2)
                };
                let result = registry.set_enabled(&name, enabled);
                if let Some(i) = model.position(&name) {
                    result.unwrap();
                    model.tools[i].1 = enabled;
                } else if NAMESPACES.contains(&name.as_str()) {
                    let known = model.disabled_namespaces.contains(&name)
                        || model
                            .tools
                            .iter()
                            .any(|(t, _)| t.namespace() == Some(&name));
                    assert_eq!(
                        result.is_ok(),
                        known,
                        "set_enabled namespace {name:?}: {result:?}"
                    );
                    if known {
                        if enabled {
                            model.disabled_namespaces.remove(&name);
                        } else {
                            model.disabled_namespaces.insert(name);
                        }
                    }
                } else {
                    assert!(matches!(result, Err(Error::NotFound(_))), "{result:?}");
                }
            }
            Op::SetMetadata {
                name,
                defer,
                tags,
                hint,
            } => {
                let name = model.existing_name(name);
                let update = MetadataUpdate {
                    defer,
                    tags: tags.map(|t| t.iter().take(4).map(|&i| word(i).to_string()).collect()),
                    search_hint: hint.map(|h| words(&h)),
                    ..Default::default()
                };
                let result = registry.set_metadata(&name, &update);
                match model.position(&name) {
                    Some(i) => {
                        result.unwrap();
                        let meta = model.tools[i].0.metadata().clone();
                        let mut meta2 = meta;
                        update.apply_to(&mut meta2);
                        let tool = model.tools[i].0.clone().with_metadata(meta2);
                        model.tools[i].0 = tool;
                    }
                    None => assert!(matches!(result, Err(Error::NotFound(_))), "{result:?}"),
                }
            }
            Op::Discover {
                words: w,
                exact,
                top_k,
            } => {
                let query = match exact {
                    Some(n) => full_name(n, (n % 3 == 0).then_some(n / 3)),
                    None => words(&w),
                };
                if !query.trim().is_empty() {
                    queries.push((query, usize::from(top_k).max(1)));
                    if queries.len() > 4 {
                        queries.remove(2);
                    }
                }
            }
            Op::Rebuild => discoverers[0].rebuild_index().unwrap(),
            Op::Churn => {
                let tools: Vec<Tool> = (0..1030)
                    .map(|i| {
                        Tool::new(
                            &format!("churn_{i}"),
                            "temporary churn tool",
                            None,
                            None,
                            ToolMetadata::default(),
                        )
                        .unwrap()
                    })
                    .collect();
                for tool in tools {
                    registry.register(vec![tool]).unwrap();
                }
                for i in 0..1030 {
                    registry.unregister(&format!("churn_{i}")).unwrap();
                }
            }
        }

        // The checks, after every step.
        assert!(
            registry.verify_index().unwrap(),
            "index drifted from a rebuild"
        );
        let names: Vec<String> = model
            .tools
            .iter()
            .map(|(t, _)| t.name().to_string())
            .collect();
        assert_eq!(
            registry.names().unwrap(),
            names,
            "registry and model differ"
        );
        for (tool, _) in &model.tools {
            assert_eq!(registry.tool(tool.name()).unwrap().as_ref(), Some(tool));
        }
        let fresh = model.rebuild(&builtin_options);
        assert_eq!(
            registry.schemas_json(&Default::default()).unwrap(),
            fresh.schemas_json(&Default::default()).unwrap(),
            "enabled tools differ from a rebuilt registry"
        );
        for (q, top_k) in &queries {
            let request = DiscoverRequest {
                top_k: *top_k,
                ..Default::default()
            };
            let got = registry.discover(q, &request).unwrap();
            assert_ranking(&got);
            assert_eq!(
                got,
                fresh.discover(q, &request).unwrap(),
                "built-in answer for {q:?}"
            );
            for d in &discoverers {
                let fresh_d = fresh.discoverer(*d.options());
                assert_eq!(
                    d.discover(q, &request).unwrap(),
                    fresh_d.discover(q, &request).unwrap(),
                    "discoverer answer for {q:?}"
                );
            }
        }
    }
});
