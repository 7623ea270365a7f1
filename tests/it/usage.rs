//! Usage (co-use): what counts as a task (execute, prepare and finish, conversations, explicit
//! records), the discovery step that brings partners in and the cases it must not, persistence
//! across a restart, a corrupt file, and bad input.

use serde_json::{Value, json};
use std::path::PathBuf;
use toolregistry::{
    Conversation, DiscoverRequest, DiscoveryOptions, ExecuteOptions, HostOutcome, Profile,
    Registry, Tool, execute_json, finish, prepare,
};

fn tools() -> Vec<Tool> {
    let mut defs = vec![
        json!({"name": "add_agenda", "description": "Add an agenda item to the user's schedule."}),
        json!({"name": "get_user_token", "description": "Get the user token by username and password."}),
        json!({"name": "list_files", "description": "List the files of a folder."}),
        json!({"name": "send_email", "description": "Send an email message."}),
        json!({"name": "email_attachment", "description": "Attach a file to an email message."}),
    ];
    // Agenda tools the query ranks: the answer's other places.
    for i in 0..8 {
        defs.push(json!({
            "name": format!("agenda_tool_{i}"),
            "description": format!("Agenda item helper number {i}: works on an agenda item."),
        }));
    }
    Tool::parse_many(&Value::Array(defs).to_string()).unwrap()
}

fn registry() -> Registry {
    let r = Registry::new();
    r.register(tools()).unwrap();
    r
}

fn task(r: &Registry, names: &[&str], times: usize) {
    for _ in 0..times {
        r.record_usage(names).unwrap();
    }
}

/// 12 of add_agenda's 15 tasks use get_user_token; 10 other tasks list files.
fn with_login_habit(r: &Registry) {
    task(r, &["add_agenda", "get_user_token"], 12);
    task(r, &["add_agenda"], 3);
    task(r, &["list_files"], 10);
}

fn names(hits: &[toolregistry::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

fn request(top_k: usize) -> DiscoverRequest {
    DiscoverRequest {
        top_k,
        ..Default::default()
    }
}

const QUERY: &str = "add an agenda item for tomorrow";

#[test]
fn a_strong_partner_is_brought_in_and_says_why() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::default());
    let before = d.discover(QUERY, &request(10)).unwrap();
    assert!(
        !names(&before).contains(&"get_user_token"),
        "{:?}",
        names(&before)
    );
    assert_eq!(before[0].name, "add_agenda");
    with_login_habit(&r);
    let after = d.discover(QUERY, &request(10)).unwrap();
    let token = after
        .iter()
        .find(|h| h.name == "get_user_token")
        .unwrap_or_else(|| panic!("not brought in: {:?}", names(&after)));
    assert_eq!(
        token.brought_in.as_deref(),
        Some("used with `add_agenda` in 12 of its 15 tasks")
    );
    // The hits the query ranks well keep their places; the rest stay in score order.
    let kept = before.len().min(5);
    assert_eq!(names(&after)[..kept], names(&before)[..kept]);
    assert!(after.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(after.iter().filter(|h| h.brought_in.is_some()).count() == 1);
    let json = d.discover_json(QUERY, &request(10)).unwrap();
    assert!(
        json.contains(r#""brought_in":"used with `add_agenda` in 12 of its 15 tasks""#),
        "{json}"
    );
}

#[test]
fn the_first_half_of_the_answer_is_never_pushed_out() {
    let r = registry();
    with_login_habit(&r);
    // No score floor nor filler filter ("agenda" is in most of these tools): the answer is full
    // of tools the query ranks.
    let options = DiscoveryOptions {
        min_score_ratio: 0.0,
        max_df_ratio: 0.0,
        ..Default::default()
    };
    let d = r.discoverer(options);
    for top_k in [3, 4, 6] {
        let plain = r
            .discoverer(DiscoveryOptions {
                usage: false,
                ..options
            })
            .discover(QUERY, &request(top_k))
            .unwrap();
        let hits = d.discover(QUERY, &request(top_k)).unwrap();
        assert_eq!(plain.len(), top_k);
        assert_eq!(hits.len(), top_k);
        if top_k > 3 {
            assert_eq!(hits[top_k - 1].name, "get_user_token", "{:?}", names(&hits));
        }
        let keep = toolregistry::discovery::usage::protected(top_k).min(plain.len());
        assert_eq!(names(&hits)[..keep], names(&plain)[..keep], "top_k {top_k}");
        if top_k == 3 {
            // Every place is protected: nothing is brought in.
            assert_eq!(names(&hits), names(&plain));
        }
    }
}

#[test]
fn weak_evidence_brings_nothing_in() {
    // 2 of 15 tasks, and a pair seen once: neither is strong.
    let r = registry();
    task(&r, &["add_agenda", "get_user_token"], 2);
    task(&r, &["add_agenda"], 13);
    task(&r, &["add_agenda", "send_email"], 1);
    task(&r, &["list_files"], 10);
    let d = r.discoverer(DiscoveryOptions::default());
    let hits = d.discover(QUERY, &request(10)).unwrap();
    assert!(hits.iter().all(|h| h.brought_in.is_none()), "{hits:?}");
}

#[test]
fn a_tool_the_query_ranks_low_brings_nothing_in() {
    // send_email's partner is strong, but the query does not rank send_email among its best.
    let r = registry();
    task(&r, &["send_email", "get_user_token"], 20);
    task(&r, &["list_files"], 10);
    let d = r.discoverer(DiscoveryOptions::default());
    let hits = d.discover(QUERY, &request(10)).unwrap();
    assert!(
        !names(&hits).contains(&"get_user_token"),
        "{:?}",
        names(&hits)
    );
    // The same habit brings it in for a query that ranks send_email first.
    let hits = d.discover("send an email message", &request(10)).unwrap();
    assert_eq!(hits[0].name, "send_email");
    assert!(
        names(&hits).contains(&"get_user_token"),
        "{:?}",
        names(&hits)
    );
}

#[test]
fn a_disabled_or_filtered_partner_is_never_brought_in() {
    let r = registry();
    with_login_habit(&r);
    let d = r.discoverer(DiscoveryOptions::default());
    // A quarantined tool is disabled with a reason (the gateway's trust does so).
    r.disable(
        "get_user_token",
        Some("quarantined: its definition changed"),
    )
    .unwrap();
    let hits = d.discover(QUERY, &request(10)).unwrap();
    assert!(
        !names(&hits).contains(&"get_user_token"),
        "{:?}",
        names(&hits)
    );
    r.set_enabled("get_user_token", true).unwrap();
    assert!(names(&d.discover(QUERY, &request(10)).unwrap()).contains(&"get_user_token"));
    let filtered = DiscoverRequest {
        deferred: Some(true),
        ..request(10)
    };
    r.set_metadata_json("add_agenda", r#"{"defer": true}"#)
        .unwrap();
    let hits = d.discover(QUERY, &filtered).unwrap();
    assert!(
        !names(&hits).contains(&"get_user_token"),
        "{:?}",
        names(&hits)
    );
}

#[test]
fn usage_off_and_reference_rank_as_if_nothing_were_recorded() {
    let fresh = registry();
    let used = registry();
    with_login_habit(&used);
    for profile in [Profile::Enhanced, Profile::Reference] {
        let plain = DiscoveryOptions::for_profile(profile);
        let off = DiscoveryOptions {
            usage: false,
            ..plain
        };
        let want = fresh
            .discoverer(plain)
            .discover_json(QUERY, &request(10))
            .unwrap();
        assert_eq!(
            used.discoverer(off)
                .discover_json(QUERY, &request(10))
                .unwrap(),
            want
        );
        if profile == Profile::Reference {
            assert_eq!(
                used.discoverer(plain)
                    .discover_json(QUERY, &request(10))
                    .unwrap(),
                want
            );
        }
    }
    let off = DiscoveryOptions::from_json(Some(r#"{"usage": false}"#)).unwrap();
    assert!(!off.usage);
    let err = DiscoveryOptions::from_json(Some(r#"{"usage": 1}"#)).unwrap_err();
    assert!(err.to_string().contains("options.usage"), "{err}");
}

fn hosted() -> Registry {
    let r = Registry::new();
    for name in ["a", "b", "c", "fails"] {
        let tool = Tool::parse_many(
            &json!({"name": name, "description": "A tool.", "parameters": {"type": "object",
                "properties": {"n": {"type": "integer"}}}})
            .to_string(),
        )
        .unwrap()
        .remove(0);
        let failing = name == "fails";
        r.register_callable(tool, move |_| {
            if failing {
                Err("no".into())
            } else {
                Ok("ok".into())
            }
        })
        .unwrap();
    }
    r
}

fn calls(names: &[(&str, Value)]) -> String {
    json!({"role": "assistant", "tool_calls": names.iter().enumerate().map(|(i, (n, args))| json!({
        "id": format!("c{i}"), "type": "function", "function": {"name": n, "arguments": args.to_string()}
    })).collect::<Vec<_>>()})
    .to_string()
}

#[test]
fn one_model_reply_is_one_task_of_the_calls_that_ran() {
    let r = hosted();
    let reply = calls(&[
        ("a", json!({})),
        ("b", json!({"n": 1})),
        ("b", json!({})),
        ("unknown", json!({})),
        ("c", json!({"n": "not a number"})),
        ("fails", json!({})),
    ]);
    // Off until the host turns it on.
    execute_json(&r, &reply, &ExecuteOptions::default()).unwrap();
    assert_eq!(r.usage_status().unwrap().tasks, 0);
    r.enable_usage(None).unwrap();
    execute_json(&r, &reply, &ExecuteOptions::default()).unwrap();
    let status = r.usage_status().unwrap();
    assert_eq!((status.tasks, status.tools), (1, 2), "{status:?}");
    let partners = r.usage_partners("a").unwrap();
    assert_eq!(partners.len(), 1);
    assert_eq!((partners[0].name.as_str(), partners[0].together), ("b", 1));
    // c's arguments broke its schema, fails failed, unknown is no tool: none ran.
    for name in ["c", "fails", "unknown"] {
        assert!(r.usage_partners(name).unwrap().is_empty(), "{name}");
    }
    // Prepare and finish: the host's outcomes say what ran.
    let plan = prepare(
        &r,
        &calls(&[("a", json!({})), ("c", json!({}))]),
        &ExecuteOptions::default(),
    )
    .unwrap();
    finish(
        &r,
        &plan,
        vec![
            HostOutcome::Content("x".into()),
            HostOutcome::Error("down".into()),
        ],
    )
    .unwrap();
    assert_eq!(r.usage_status().unwrap().tasks, 2);
    assert!(r.usage_partners("c").unwrap().is_empty());
    let plan = prepare(
        &r,
        &calls(&[("a", json!({})), ("c", json!({}))]),
        &ExecuteOptions::default(),
    )
    .unwrap();
    finish(
        &r,
        &plan,
        vec![
            HostOutcome::Content("x".into()),
            HostOutcome::Content("y".into()),
        ],
    )
    .unwrap();
    assert_eq!(r.usage_partners("c").unwrap()[0].name, "a");
}

#[test]
fn a_conversation_is_one_bounded_task() {
    let r = hosted();
    r.enable_usage(None).unwrap();
    {
        let c = Conversation::from_json(&r, None).unwrap();
        c.execute_json(&calls(&[("a", json!({}))]), &ExecuteOptions::default())
            .unwrap();
        c.execute_json(&calls(&[("b", json!({}))]), &ExecuteOptions::default())
            .unwrap();
        // Recorded when it ends, not reply by reply.
        assert_eq!(r.usage_status().unwrap().tasks, 0);
    }
    assert_eq!(r.usage_status().unwrap().tasks, 1);
    assert_eq!(r.usage_partners("a").unwrap()[0].name, "b");
    // A long conversation is several tasks: the window holds CONVERSATION_TASK_TOOLS tools.
    let many: Vec<String> = (0..40).map(|i| format!("t{i}")).collect();
    for name in &many {
        r.register_callable(
            Tool::parse_many(&json!({"name": name, "description": "x"}).to_string())
                .unwrap()
                .remove(0),
            |_| Ok("ok".into()),
        )
        .unwrap();
    }
    let before = r.usage_status().unwrap().tasks;
    {
        let c = Conversation::from_json(&r, None).unwrap();
        for name in &many {
            c.execute_json(&calls(&[(name, json!({}))]), &ExecuteOptions::default())
                .unwrap();
        }
    }
    let window = toolregistry::conversation::CONVERSATION_TASK_TOOLS;
    assert_eq!(
        r.usage_status().unwrap().tasks - before,
        many.len().div_ceil(window) as u64
    );
    assert!(r.usage_partners("t0").unwrap().len() < window);
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tr-usage-it-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn usage_persists_across_a_restart() {
    let dir = temp("restart");
    let path = dir.join("usage.json");
    let options = json!({"usage": {"path": path}}).to_string();
    {
        let r = Registry::from_options_json(Some(&options)).unwrap();
        r.register(tools()).unwrap();
        with_login_habit(&r);
        assert!(r.usage_status().unwrap().recording);
    }
    // The last handle wrote it.
    assert!(path.exists());
    let r = Registry::from_options_json(Some(&options)).unwrap();
    r.register(tools()).unwrap();
    let status = r.usage_status().unwrap();
    assert_eq!(status.tasks, 25, "{status:?}");
    assert_eq!(status.warning, None);
    let hits = r
        .discoverer(DiscoveryOptions::default())
        .discover(QUERY, &request(10))
        .unwrap();
    assert!(
        names(&hits).contains(&"get_user_token"),
        "{:?}",
        names(&hits)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupt_file_is_a_warning_and_an_empty_start() {
    let dir = temp("corrupt");
    let path = dir.join("usage.json");
    for bad in [
        &b"{\"toolregistry_usage\":1,\"tasks\":3,\"tools\":[[\"a\",1]"[..],
        b"\xff\xfe\x00garbage",
        b"{\"toolregistry_usage\":99,\"tasks\":0,\"tools\":[],\"pairs\":[]}",
    ] {
        std::fs::write(&path, bad).unwrap();
        let r = registry();
        let warning = r.enable_usage(Some(&path)).unwrap().expect("a warning");
        assert!(warning.contains("usage.json"), "{warning}");
        let status = r.usage_status().unwrap();
        assert_eq!((status.tasks, status.tools), (0, 0));
        assert_eq!(status.warning.as_deref(), Some(warning.as_str()));
        // Overwritten whole by the next write.
        with_login_habit(&r);
        r.save_usage().unwrap();
        let again = registry();
        assert_eq!(again.enable_usage(Some(&path)).unwrap(), None);
        assert_eq!(again.usage_status().unwrap().tasks, 25);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn unregister_and_rename_keep_usage_in_step() {
    let r = registry();
    with_login_habit(&r);
    r.rename_usage("get_user_token", "login").unwrap();
    assert_eq!(r.usage_partners("add_agenda").unwrap()[0].name, "login");
    r.unregister("add_agenda").unwrap();
    assert!(r.usage_partners("login").unwrap().is_empty());
    assert!(r.usage_partners("add_agenda").unwrap().is_empty());
}

#[test]
fn bad_tasks_are_bounded_and_counted_right() {
    let r = registry();
    assert_eq!(r.record_usage(&[]).unwrap(), 0);
    assert_eq!(r.record_usage(&["", "nope", "gone"]).unwrap(), 0);
    assert_eq!(r.usage_status().unwrap().tasks, 0);
    assert_eq!(
        r.record_usage(&["add_agenda", "add_agenda", "nope", "list_files"])
            .unwrap(),
        2
    );
    // A task of 10,000 names counts its first registered ones only.
    let huge: Vec<String> = (0..10_000)
        .map(|i| format!("agenda_tool_{}", i % 8))
        .collect();
    let huge: Vec<&str> = huge.iter().map(String::as_str).collect();
    assert_eq!(r.record_usage(&huge).unwrap(), 8);
    assert!(r.record_usage_json(r#"{"tools": ["a"]}"#).is_err());
    assert!(r.record_usage_json(r#"["add_agenda", 3]"#).is_err());
    assert_eq!(
        r.record_usage_json(r#"["add_agenda", "list_files"]"#)
            .unwrap(),
        2
    );
    // A million tasks: bounded memory, bounded partners.
    let start = std::time::Instant::now();
    for i in 0..1_000_000u32 {
        let a = format!("agenda_tool_{}", i % 8);
        r.record_usage(&[&a, "send_email"]).unwrap();
    }
    let status = r.usage_status().unwrap();
    assert_eq!(status.tasks, 1_000_003);
    assert!(status.memory_bytes < 64 * 1024, "{status:?}");
    assert!(start.elapsed().as_secs() < 60);
}
