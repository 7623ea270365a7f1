//! Discover filters and `select:` through the program's flags.

/// The library's filter tests' catalog (`tests/it/filters.rs`).
const TOOLS: &str = include_str!("../../../tests/it/filters.json");

#[test]
fn cli_namespace_and_tag_flags() {
    let dir = std::env::temp_dir().join(format!("tr-filters-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let catalog = dir.join("catalog.json");
    std::fs::write(&catalog, TOOLS).unwrap();
    let run = |args: &[&str]| -> serde_json::Value {
        let out = crate::program::toolregistry()
            .args(args)
            .arg("--catalog")
            .arg(&catalog)
            .arg("--json")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let hits = run(&["discover", "issue", "--namespace", "linear"]);
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hits[0]["name"], "linear-create_issue");
    let hits = run(&["discover", "issue", "--tag", "mail", "--tag", "none"]);
    assert_eq!(hits[0]["name"], "send_email");
    let hits = run(&["discover", "select:send_email,linear-create_issue"]);
    assert_eq!(hits[1]["name"], "linear-create_issue");
    std::fs::remove_dir_all(&dir).unwrap();
}
