//! Usage (co-use): what counts as a task (execute, prepare and finish, conversations, explicit
//! records), and the discovery step that brings partners in and the cases it must not (the
//! store itself: `usage_store.rs`).

use serde_json::{Value, json};
use toolregistry::{
    Conversation, DiscoverRequest, DiscoveryOptions, ExecuteOptions, HostOutcome, Profile,
    Registry, Tool, execute_json, finish, prepare,
};

pub(crate) fn tools() -> Vec<Tool> {
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

pub(crate) fn registry() -> Registry {
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
pub(crate) fn with_login_habit(r: &Registry) {
    task(r, &["add_agenda", "get_user_token"], 12);
    task(r, &["add_agenda"], 3);
    task(r, &["list_files"], 10);
}

pub(crate) fn names(hits: &[toolregistry::Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.name.as_str()).collect()
}

/// The hit `name` of `hits`, which must have been brought in.
fn brought_in<'h>(hits: &'h [toolregistry::Hit], name: &str) -> &'h toolregistry::Hit {
    hits.iter()
        .find(|h| h.name == name)
        .unwrap_or_else(|| panic!("{name} not brought in: {:?}", names(hits)))
}

pub(crate) fn request(top_k: usize) -> DiscoverRequest {
    DiscoverRequest {
        top_k,
        ..Default::default()
    }
}

pub(crate) const QUERY: &str = "add an agenda item for tomorrow";

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
    let token = brought_in(&after, "get_user_token");
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
fn explain_says_why_a_tool_was_brought_in() {
    let r = registry();
    let d = r.discoverer(DiscoveryOptions::default());
    let before = d.explain(QUERY, "get_user_token", &request(10)).unwrap();
    assert_eq!(before.tool.brought_in, None);
    assert_ne!(before.tool.outcome, toolregistry::Outcome::Ranked);
    with_login_habit(&r);
    let hits = d.discover(QUERY, &request(10)).unwrap();
    let at = names(&hits)
        .iter()
        .position(|&n| n == "get_user_token")
        .unwrap();
    let e = d.explain(QUERY, "get_user_token", &request(10)).unwrap();
    let why = "used with `add_agenda` in 12 of its 15 tasks";
    assert_eq!(e.tool.brought_in.as_deref(), Some(why));
    assert_eq!(e.tool.outcome, toolregistry::Outcome::Ranked);
    // Where discover put it, with its score.
    assert_eq!(e.tool.rank, Some(at + 1));
    assert_eq!(e.tool.score, Some(hits[at].score));
    assert_eq!(e.result_count, hits.len());
    assert!(
        e.tool.reason.contains("brought in") && e.tool.reason.contains(why),
        "{}",
        e.tool.reason
    );
    let value: Value = serde_json::from_str(&e.to_json()).unwrap();
    assert_eq!(value["tool"]["brought_in"], why);
    // The tool that brought it in is ranked by the query itself; with usage off nothing is
    // brought in.
    let anchor = d.explain(QUERY, "add_agenda", &request(10)).unwrap();
    assert_eq!((anchor.tool.rank, anchor.tool.brought_in), (Some(1), None));
    let off = r.discoverer(DiscoveryOptions {
        usage: false,
        ..Default::default()
    });
    let e = off.explain(QUERY, "get_user_token", &request(10)).unwrap();
    assert_eq!(e.tool.brought_in, None);
    assert_eq!(e.tool.outcome, before.tool.outcome);
}

#[test]
fn explain_says_when_a_place_went_to_a_tool_brought_in() {
    let r = registry();
    with_login_habit(&r);
    let options = DiscoveryOptions {
        min_score_ratio: 0.0,
        max_df_ratio: 0.0,
        ..Default::default()
    };
    let d = r.discoverer(options);
    let plain = r
        .discoverer(DiscoveryOptions {
            usage: false,
            ..options
        })
        .discover(QUERY, &request(6))
        .unwrap();
    let hits = d.discover(QUERY, &request(6)).unwrap();
    let pushed = names(&plain)
        .into_iter()
        .find(|n| !names(&hits).contains(n))
        .expect("a hit gave its place");
    let e = d.explain(QUERY, pushed, &request(6)).unwrap();
    assert_eq!(e.tool.outcome, toolregistry::Outcome::BelowTopK);
    assert!(
        e.tool.reason.contains("brought in by co-use"),
        "{}",
        e.tool.reason
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

/// A partner that a weak anchor brings in first and a strong one brings in too is named by the
/// first when it fits the query, with that anchor's share, even when strong partners already
/// fill the answer's free places: whether it fits decides where it goes.
#[test]
fn a_partner_of_two_hits_goes_with_the_first_when_it_fits() {
    let mut defs = vec![
        json!({"name": "book_flight", "description": "Book a flight ticket."}),
        json!({"name": "flight_status", "description": "Check a flight status."}),
        json!({"name": "flight_seats", "description": "Show the seat map of a flight."}),
        json!({"name": "flight_meal", "description": "Choose the meal served on a flight."}),
        json!({"name": "flight_bags", "description": "Add checked bags to a booked flight trip."}),
        json!({"name": "flight_refund", "description": "Ask for the refund of a cancelled flight trip."}),
        json!({"name": "get_user_token", "description": "Get the user token by username and password."}),
    ];
    for i in 0..20 {
        defs.push(json!({"name": format!("weather_{i}"), "description": format!("Weather report {i} of a city.")}));
    }
    let r = Registry::new();
    r.register(Tool::parse_many(&Value::Array(defs).to_string()).unwrap())
        .unwrap();
    let d = r.discoverer(DiscoveryOptions {
        min_score_ratio: 0.0,
        ..DiscoveryOptions::default()
    });
    let query = "book a flight ticket";
    let ranked = d.discover(query, &request(10)).unwrap();
    assert_eq!(ranked.len(), 6, "{:?}", names(&ranked));
    let (first, second, both) = (&ranked[0].name, &ranked[1].name, &ranked[5].name);
    // get_user_token: 20 of the first hit's 26 tasks (strong, needs no fit); `both` (fits the
    // query, which leaves it out of its best 4): 5 of the first's tasks (weak) and all 30 of the
    // second's (stronger than get_user_token); many other tasks, so that each pair is used
    // together more than tasks in general.
    task(&r, &[first, "get_user_token"], 20);
    task(&r, &[first, both], 5);
    task(&r, &[first], 1);
    task(&r, &[second, both], 30);
    task(&r, &["weather_0"], 300);
    let hits = d.discover(query, &request(4)).unwrap();
    assert_eq!(hits.len(), 4, "{:?}", names(&hits));
    // One free place (past the 3 protected): get_user_token, ahead of `both` at the first's
    // weak share. Named by the stronger second hit, `both` would have taken it.
    assert_eq!(hits[3].name, "get_user_token", "{:?}", names(&hits));
    assert_eq!(
        hits[3].brought_in.as_deref(),
        Some(format!("used with `{first}` in 20 of its 26 tasks").as_str())
    );
    // With room for both, `both` comes too, named by the first hit.
    let hits = d.discover(query, &request(5)).unwrap();
    let brought = hits
        .iter()
        .find(|h| &h.name == both)
        .expect("in the answer");
    assert_eq!(
        brought.brought_in.as_deref(),
        Some(format!("used with `{first}` in 5 of its 26 tasks").as_str()),
        "{hits:?}"
    );
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

#[test]
fn a_partner_is_found_where_it_is_after_the_registry_changes() {
    let r = registry();
    with_login_habit(&r);
    let d = r.discoverer(DiscoveryOptions::default());
    // Each discover keeps where the partners were; every change below must be seen anyway.
    assert!(names(&d.discover(QUERY, &request(10)).unwrap()).contains(&"get_user_token"));
    r.disable("get_user_token", Some("quarantined")).unwrap();
    assert!(!names(&d.discover(QUERY, &request(10)).unwrap()).contains(&"get_user_token"));
    r.set_enabled("get_user_token", true).unwrap();
    assert!(names(&d.discover(QUERY, &request(10)).unwrap()).contains(&"get_user_token"));
    // Tools before it unregistered and registered again: the places move, the name stays.
    r.unregister("list_files").unwrap();
    r.unregister("send_email").unwrap();
    let again = Tool::parse_many(
        &json!([{"name": "send_email", "description": "Send an email message."},
                {"name": "list_files", "description": "List the files of a folder."}])
        .to_string(),
    )
    .unwrap();
    r.register(again).unwrap();
    let hits = d.discover(QUERY, &request(10)).unwrap();
    let token = hits
        .iter()
        .find(|h| h.brought_in.is_some())
        .unwrap_or_else(|| panic!("nothing brought in: {:?}", names(&hits)));
    assert_eq!(token.name, "get_user_token");
    // Renamed in the registry and in usage: found under its new name only.
    r.rename_usage("get_user_token", "login_step").unwrap();
    let hits = d.discover(QUERY, &request(10)).unwrap();
    assert!(
        hits.iter().all(|h| h.brought_in.is_none()),
        "{:?}",
        names(&hits)
    );
    let login = Tool::parse_many(
        &json!([{"name": "login_step", "description": "Get the user token by username and password."}])
            .to_string(),
    )
    .unwrap();
    r.register(login).unwrap();
    let hits = d.discover(QUERY, &request(10)).unwrap();
    assert!(names(&hits).contains(&"login_step"), "{:?}", names(&hits));
}

#[test]
fn what_a_discover_keeps_follows_every_new_task() {
    let r = registry();
    with_login_habit(&r);
    let d = r.discoverer(DiscoveryOptions::default());
    let reason = |hits: &[toolregistry::Hit]| {
        hits.iter()
            .find(|h| h.name == "get_user_token")
            .and_then(|h| h.brought_in.clone())
    };
    // Each discover below follows one that kept what it read of add_agenda's partners.
    let first = d.discover(QUERY, &request(10)).unwrap();
    assert_eq!(
        reason(&first).as_deref(),
        Some("used with `add_agenda` in 12 of its 15 tasks")
    );
    // The anchor's own counts change.
    task(&r, &["add_agenda", "get_user_token"], 1);
    assert_eq!(
        reason(&d.discover(QUERY, &request(10)).unwrap()).as_deref(),
        Some("used with `add_agenda` in 13 of its 16 tasks")
    );
    // Only the partner's counts change: used in nearly every task, it is nobody's partner in
    // particular any more.
    task(&r, &["get_user_token"], 300);
    let hits = d.discover(QUERY, &request(10)).unwrap();
    assert_eq!(reason(&hits), None, "{:?}", names(&hits));
    // A tool the anchor had no counts with: forgotten and recorded again, it comes back.
    r.unregister("get_user_token").unwrap();
    let login = Tool::parse_many(
        &json!([{"name": "get_user_token", "description": "Get the user token by username and password."}])
            .to_string(),
    )
    .unwrap();
    r.register(login).unwrap();
    assert_eq!(reason(&d.discover(QUERY, &request(10)).unwrap()), None);
    task(&r, &["add_agenda", "get_user_token"], 40);
    assert_eq!(
        reason(&d.discover(QUERY, &request(10)).unwrap()).as_deref(),
        Some("used with `add_agenda` in 40 of its 56 tasks")
    );
}

#[test]
fn discovers_beside_records_on_other_threads_end_where_a_fresh_registry_is() {
    let r = registry();
    with_login_habit(&r);
    let d = r.discoverer(DiscoveryOptions::default());
    let tasks: Vec<Vec<&str>> = (0..200)
        .map(|i| match i % 4 {
            0 | 1 => vec!["add_agenda", "get_user_token"],
            2 => vec!["send_email", "email_attachment", "list_files"],
            _ => vec!["agenda_tool_1", "list_files"],
        })
        .collect();
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for _ in 0..200 {
                    let hits = d.discover(QUERY, &request(10)).unwrap();
                    assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
                }
            });
        }
        s.spawn(|| {
            for t in &tasks {
                r.record_usage(t).unwrap();
            }
        });
    });
    let fresh = registry();
    with_login_habit(&fresh);
    for t in &tasks {
        fresh.record_usage(t).unwrap();
    }
    let expected = fresh
        .discoverer(DiscoveryOptions::default())
        .discover_json(QUERY, &request(10))
        .unwrap();
    let got = d.discover_json(QUERY, &request(10)).unwrap();
    assert_eq!(got, expected);
    assert!(got.contains("brought_in"), "{got}");
}

#[test]
fn a_partner_new_to_what_was_kept_is_brought_in() {
    let r = registry();
    with_login_habit(&r);
    let d = r.discoverer(DiscoveryOptions::default());
    // Kept: add_agenda's partners, get_user_token alone; email_attachment was never looked for.
    let first = d.discover(QUERY, &request(10)).unwrap();
    assert!(!names(&first).contains(&"email_attachment"));
    task(&r, &["add_agenda", "email_attachment"], 40);
    let hits = d.discover(QUERY, &request(10)).unwrap();
    let attachment = brought_in(&hits, "email_attachment");
    assert_eq!(
        attachment.brought_in.as_deref(),
        Some("used with `add_agenda` in 40 of its 55 tasks")
    );
}
