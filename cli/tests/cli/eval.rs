//! `toolregistry eval` and `toolregistry explain` end to end.

/// The CLI end to end on a tiny set: metrics as JSON, the rankings file, and errors.
#[test]
fn cli_eval_and_explain() {
    let dir = std::env::temp_dir().join(format!("tr-eval-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("catalog.json"),
        r#"[{"name": "getWeather", "description": "Weather forecast for a city.", "parameters": {"type": "object", "properties": {}}},
            {"name": "send_mail", "description": "Send an email.", "parameters": {"type": "object", "properties": {}}}]"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("queries.jsonl"),
        "{\"id\": \"q1\", \"query\": \"can you get the weather forecasts\", \"relevant\": [\"getWeather\"]}\n\
         {\"id\": \"q2\", \"query\": \"mail someone\", \"relevant\": [\"send_mail\"]}\n",
    )
    .unwrap();
    let rankings = dir.join("rankings.jsonl");
    let out = crate::program::toolregistry()
        .args(["eval", "--profile", "enhanced", "--json", "--catalog"])
        .arg(&dir)
        .arg("--rankings")
        .arg(&rankings)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(m["profile"], "enhanced");
    assert_eq!(m["queries"], 2);
    assert_eq!(m["mrr@10"], 1.0);
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&rankings)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["id"], "q1");
    assert_eq!(lines[0]["ranked"][0], "getWeather");
    assert!(lines[0]["latency_ms"].as_f64().unwrap() >= 0.0);

    // Rankings made elsewhere are scored the same way: the run's own file gives the run's
    // metrics, and a file that ranks q2 wrongly scores lower.
    let score = |file: &std::path::Path| {
        let out = crate::program::toolregistry()
            .args(["eval", "--json", "--label", "peer", "--catalog"])
            .arg(&dir)
            .arg("--score")
            .arg(file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let again = score(&rankings);
    assert_eq!(
        (again["profile"].as_str(), again["mrr@10"].as_f64()),
        (Some("peer"), Some(1.0))
    );
    let other = dir.join("other.jsonl");
    std::fs::write(
        &other,
        "{\"id\": \"q1\", \"ranked\": [\"getWeather\"]}\n{\"id\": \"q2\", \"ranked\": [\"getWeather\", \"send_mail\"]}\n",
    )
    .unwrap();
    assert_eq!(score(&other)["mrr@10"], 0.75);
    std::fs::write(&other, "{\"id\": \"q1\", \"ranked\": []}\n").unwrap();
    let out = crate::program::toolregistry()
        .args(["eval", "--catalog"])
        .arg(&dir)
        .arg("--score")
        .arg(&other)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("\"q2\" has no ranking"),
        "{err}"
    );

    let out = crate::program::toolregistry()
        .args([
            "explain",
            "weather",
            "--tool",
            "send_mail",
            "--json",
            "--catalog",
        ])
        .arg(dir.join("catalog.json"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(e["tool"]["outcome"], "no_common_token");

    for args in [
        vec!["eval", "--profile", "fast", "--catalog"],
        vec!["explain", "weather", "--tool", "nope", "--catalog"],
    ] {
        let target = if args[0] == "eval" {
            dir.clone()
        } else {
            dir.join("catalog.json")
        };
        let out = crate::program::toolregistry()
            .args(&args)
            .arg(target)
            .output()
            .unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A query that fails does not stop `eval`: it is a miss, and the report says how many failed
/// and what the first error was, in both profiles and both output forms.
#[test]
fn cli_eval_counts_failing_queries_as_misses() {
    let dir = std::env::temp_dir().join(format!("tr-eval-fail-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("catalog.json"),
        r#"[{"name": "send_mail", "description": "Send an email.", "parameters": {"type": "object", "properties": {}}}]"#,
    )
    .unwrap();
    let too_long = "mail ".repeat(20_000);
    let queries = [
        serde_json::json!({"id": "blank", "query": "   ", "relevant": ["send_mail"]}),
        serde_json::json!({"id": "ok", "query": "send mail", "relevant": ["send_mail"]}),
        serde_json::json!({"id": "huge", "query": too_long, "relevant": ["send_mail"]}),
    ];
    let lines: Vec<String> = queries.iter().map(|q| q.to_string()).collect();
    std::fs::write(dir.join("queries.jsonl"), lines.join("\n")).unwrap();
    for profile in ["reference", "enhanced"] {
        let out = crate::program::toolregistry()
            .args(["eval", "--profile", profile, "--json", "--catalog"])
            .arg(&dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(m["queries"], 3, "{m}");
        assert_eq!(m["failed"], 2, "{m}");
        let first = m["first_error"].as_str().unwrap();
        assert!(first.starts_with("blank: invalid argument"), "{first}");
        assert!(
            (m["mrr@10"].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-12,
            "{m}"
        );
        assert!((m["zero_result_share"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-12);

        let out = crate::program::toolregistry()
            .args(["eval", "--profile", profile, "--catalog"])
            .arg(&dir)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("2 of 3 queries failed (scored as misses); the first: blank:"),
            "{text}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `eval --usage FILE`: the observed tasks bring a partner into a query's answer (COMP@10 rises);
/// a bad usage file is an error naming the line, a non-UTF-8 one says so.
#[test]
fn cli_eval_with_usage() {
    let dir = std::env::temp_dir().join(format!("tr-eval-usage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("catalog.json"),
        r#"[{"name": "add_agenda", "description": "Add an agenda item.", "parameters": {"type": "object", "properties": {}}},
            {"name": "get_user_token", "description": "Get the user token by username and password.", "parameters": {"type": "object", "properties": {}}},
            {"name": "list_files", "description": "List the files of a folder.", "parameters": {"type": "object", "properties": {}}}]"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("queries.jsonl"),
        "{\"id\": \"q1\", \"query\": \"add an agenda item\", \"relevant\": [\"add_agenda\", \"get_user_token\"]}\n",
    )
    .unwrap();
    let run = |usage: &std::path::Path| {
        crate::program::toolregistry()
            .args(["eval", "--profile", "enhanced", "--json", "--catalog"])
            .arg(&dir)
            .arg("--usage")
            .arg(usage)
            .output()
            .unwrap()
    };
    let usage = dir.join("usage.jsonl");
    let mut text = String::new();
    for _ in 0..5 {
        text.push_str(
            "{\"tools\": [\"add_agenda\", \"get_user_token\"]}\n{\"tools\": [\"list_files\"]}\n",
        );
    }
    std::fs::write(&usage, text).unwrap();
    let out = run(&usage);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(m["comp@10"], 1.0, "{m}");
    std::fs::write(&usage, "{\"tools\": [\"add_agenda\"]}\n{\"tools\": 3}\n").unwrap();
    let out = run(&usage);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("usage line 2"));
    std::fs::write(&usage, b"{\"tools\": [\"\xff\"]}\n").unwrap();
    let out = run(&usage);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not UTF-8"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--usage FILE` of a million tasks (read a line at a time) for eval, and the same habit through
/// `discover --usage` and `explain --usage`: the partner brought in, and explain says why.
#[test]
fn cli_usage_file_of_a_million_tasks() {
    use std::io::Write;
    let dir = std::env::temp_dir().join(format!("tr-usage-million-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("catalog.json"),
        r#"[{"name": "add_agenda", "description": "Add an agenda item.", "parameters": {"type": "object", "properties": {}}},
            {"name": "get_user_token", "description": "Get the user token by username and password.", "parameters": {"type": "object", "properties": {}}},
            {"name": "list_files", "description": "List the files of a folder.", "parameters": {"type": "object", "properties": {}}}]"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("queries.jsonl"),
        "{\"id\": \"q1\", \"query\": \"add an agenda item\", \"relevant\": [\"add_agenda\", \"get_user_token\"]}\n",
    )
    .unwrap();
    let usage = dir.join("usage.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&usage).unwrap());
    for i in 0..1_000_000 {
        let line = match i % 3 {
            0 => "{\"tools\":[\"add_agenda\",\"get_user_token\"]}\n",
            1 => "{\"tools\":[\"add_agenda\",\"get_user_token\",\"gone\",\"add_agenda\"]}\n",
            _ => "{\"tools\":[\"list_files\"]}\n",
        };
        file.write_all(line.as_bytes()).unwrap();
    }
    file.flush().unwrap();
    drop(file);
    let out = crate::program::toolregistry()
        .args(["eval", "--profile", "enhanced", "--json", "--catalog"])
        .arg(&dir)
        .arg("--usage")
        .arg(&usage)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let m: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(m["comp@10"], 1.0, "{m}");
    let catalog = dir.join("catalog.json");
    let out = crate::program::toolregistry()
        .args([
            "explain",
            "add an agenda item",
            "--tool",
            "get_user_token",
            "--catalog",
        ])
        .arg(&catalog)
        .arg("--usage")
        .arg(&usage)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains("brought in at 2 of 2 in the answer by co-use: used with `add_agenda` in 666667 of its 666667 tasks"),
        "{text}"
    );
    let out = crate::program::toolregistry()
        .args(["discover", "add an agenda item", "--catalog"])
        .arg(&catalog)
        .arg("--usage")
        .arg(&usage)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("brought in: used with `add_agenda`"),
        "{text}"
    );
    // Without --usage nothing is brought in.
    let out = crate::program::toolregistry()
        .args(["discover", "add an agenda item", "--catalog"])
        .arg(&catalog)
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("brought in"));
    std::fs::remove_dir_all(&dir).unwrap();
}
