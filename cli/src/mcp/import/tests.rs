//! `mcp import` on fixtures written from each client's documented format (tests/mcp/import/),
//! in a temporary folder: what the gateway's config gets, what is left to the client, the
//! rewrite's idempotence and backup, and bad configs that change nothing.

use super::*;
use std::sync::atomic::{AtomicUsize, Ordering};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/import");
const GATEWAY: &str = "/opt/toolregistry/bin/toolregistry";

/// A fresh folder with the fixture `rel` copied in at the same relative path.
fn scratch(rel: &[&str]) -> PathBuf {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "tr-import-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    for r in rel {
        let to = dir.join(r);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new(FIXTURES).join(r), &to).unwrap();
    }
    dir
}

fn options(configs: Vec<PathBuf>, write: Option<PathBuf>, rewrite: bool) -> Options {
    Options {
        configs,
        write,
        rewrite,
        client: None,
        command: Some(GATEWAY.into()),
    }
}

fn json(path: &Path) -> Value {
    jsonc::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every file under `dir`, with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[cfg(unix)]
fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn claude_desktop_prints_without_the_secret_and_writes_it() {
    let dir = scratch(&["claude_desktop_config.json"]);
    let client = dir.join("claude_desktop_config.json");
    let printed = run(&options(vec![client.clone()], None, false)).unwrap();
    assert!(!printed.contains("ghp_FIXTURE"), "{printed}");
    assert!(printed.contains(WITHHELD));
    let shown: Value = serde_json::from_str(&printed).unwrap();
    let servers = shown["mcpServers"].as_object().unwrap();
    // The entry that already runs the gateway is skipped.
    assert_eq!(
        servers.keys().collect::<Vec<_>>(),
        ["filesystem", "github", "time"]
    );
    // Claude Desktop does not expand variables: the gateway must read the text as written.
    assert_eq!(
        servers["time"]["args"][1],
        "--local-timezone=$${TZ_NOT_EXPANDED}"
    );

    let file = dir.join("gateway/servers.json");
    let out = run(&options(vec![client.clone()], Some(file.clone()), false)).unwrap();
    assert!(!out.contains("ghp_FIXTURE"), "{out}");
    assert!(
        out.contains(&format!("\"command\": \"{GATEWAY}\"")),
        "{out}"
    );
    let written = json(&file);
    assert_eq!(
        written["mcpServers"]["github"]["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"],
        "ghp_FIXTURE_literal_secret_0001"
    );
    #[cfg(unix)]
    assert_eq!(mode(&file), 0o600);
    // The gateway loads it, and reads the argument back as the client meant it.
    let servers = crate::mcp::config::load(&file).unwrap();
    let time = servers.iter().find(|s| s.name == "time").unwrap();
    assert_eq!(time.args[1], "--local-timezone=${TZ_NOT_EXPANDED}");
    // The client's config was not touched without --rewrite.
    assert_eq!(
        std::fs::read(&client).unwrap(),
        std::fs::read(Path::new(FIXTURES).join("claude_desktop_config.json")).unwrap()
    );
}

#[test]
fn rewrite_is_idempotent_keeps_a_backup_and_the_rest_of_the_file() {
    let dir = scratch(&[
        "claude_desktop_config.json",
        "vscode/.vscode/mcp.json",
        "vscode-settings/settings.json",
        "claude-code/.mcp.json",
        "cursor/.cursor/mcp.json",
    ]);
    let clients = [
        "vscode/.vscode/mcp.json",
        "vscode-settings/settings.json",
        "claude-code/.mcp.json",
        "cursor/.cursor/mcp.json",
    ];
    let file = dir.join("servers.json");
    for rel in clients {
        let client = dir.join(rel);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&client, std::fs::Permissions::from_mode(0o640)).unwrap();
        }
        let original = std::fs::read(&client).unwrap();
        // Named twice, read and rewritten once.
        let twice = vec![client.clone(), client.clone()];
        let out = run(&options(twice, Some(file.clone()), true)).unwrap();
        assert_eq!(out.matches("rewrote").count(), 1, "{rel}: {out}");
        let backup = client.with_file_name(format!(
            "{}.bak",
            client.file_name().unwrap().to_string_lossy()
        ));
        assert_eq!(
            std::fs::read(&backup).unwrap(),
            original,
            "{rel}: the backup is the original"
        );
        let second_backup = format!("{}.2", backup.display());
        assert!(!Path::new(&second_backup).exists(), "{rel}: one backup");
        #[cfg(unix)]
        assert_eq!(mode(&client), 0o640, "{rel}: same permissions");
        let first = snapshot(&dir);
        // Run twice: nothing changes, byte for byte, and no second backup.
        let out = run(&options(vec![client.clone()], Some(file.clone()), true)).unwrap();
        assert!(out.contains("unchanged"), "{rel}: {out}");
        assert_eq!(
            snapshot(&dir),
            first,
            "{rel}: the second run changed something"
        );
    }
    let gateway = json(&file)["mcpServers"].as_object().unwrap().clone();
    let names: Vec<&str> = gateway.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        [
            "perplexity",
            "memory",
            "context7",
            "fetch",
            "api-server",
            "airtable",
            "postgres",
            "notes",
            "linear",
            "sentry"
        ]
    );
    // VS Code: the input prompt is handed over through the gateway's entry.
    let vscode = json(&dir.join("vscode/.vscode/mcp.json"));
    let entry = &vscode["servers"]["toolregistry"];
    assert_eq!(entry["type"], "stdio");
    assert_eq!(entry["command"], GATEWAY);
    assert_eq!(
        entry["args"],
        serde_json::json!(["mcp", "--config", file.to_string_lossy()])
    );
    assert_eq!(
        entry["env"]["TOOLREGISTRY_INPUT_PERPLEXITY_KEY"],
        "${input:perplexity-key}"
    );
    assert_eq!(
        gateway["perplexity"]["env"]["PERPLEXITY_API_KEY"],
        "${TOOLREGISTRY_INPUT_PERPLEXITY_KEY}"
    );
    // ... and the servers it cannot serve stay, as does the rest of the file (inputs, comments).
    let servers: Vec<&str> = vscode["servers"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(servers, ["toolregistry", "legacy", "sandboxed"]);
    assert_eq!(vscode["inputs"][0]["id"], "perplexity-key");
    let text = std::fs::read_to_string(dir.join("vscode/.vscode/mcp.json")).unwrap();
    assert!(
        text.starts_with("{\n\t// VS Code's workspace MCP configuration"),
        "{text}"
    );
    assert!(
        text.contains("\n\t\t\"toolregistry\": {\n\t\t\t\"type\": \"stdio\""),
        "{text}"
    );
    // settings.json: mcp.servers replaced, the other settings and the comment kept.
    let settings = std::fs::read_to_string(dir.join("vscode-settings/settings.json")).unwrap();
    assert!(
        settings.contains("// MCP servers in the user settings")
            && settings.contains("\"files.autoSave\"")
    );
    assert_eq!(
        jsonc::parse(&settings).unwrap()["mcp"]["servers"]
            .as_object()
            .unwrap()
            .len(),
        1
    );
    // Claude Code: references kept, the entry hands them over (with a default when there was one).
    assert_eq!(
        gateway["api-server"]["url"],
        "${API_BASE_URL:-https://api.example.com}/mcp"
    );
    assert_eq!(
        gateway["api-server"]["headers"]["Authorization"],
        "Bearer ${API_KEY}"
    );
    let cc = json(&dir.join("claude-code/.mcp.json"));
    let env = &cc["mcpServers"]["toolregistry"]["env"];
    assert_eq!(env["API_KEY"], "${API_KEY}");
    assert_eq!(env["API_BASE_URL"], "${API_BASE_URL:-}");
    assert_eq!(env["AIRTABLE_BASE"], "${AIRTABLE_BASE:-}");
    assert!(
        cc["mcpServers"]["events"]["type"] == "sse",
        "the SSE server stays"
    );
    // Cursor: ${env:...} and the predefined variables; envFile and auth entries stay.
    assert_eq!(gateway["postgres"]["args"][2], "${DATABASE_URL}");
    let sep = std::path::MAIN_SEPARATOR;
    assert_eq!(
        gateway["notes"]["args"][0],
        format!("${{TOOLREGISTRY_WORKSPACEFOLDER}}{sep}tools{sep}notes-server.js")
    );
    let cursor = json(&dir.join("cursor/.cursor/mcp.json"));
    let cursor_servers = cursor["mcpServers"].as_object().unwrap();
    assert!(
        cursor_servers.contains_key("with-env-file") && cursor_servers.contains_key("static-oauth")
    );
    assert_eq!(
        cursor_servers["toolregistry"]["env"]["DATABASE_URL"],
        "${env:DATABASE_URL}"
    );
    assert!(cursor_servers["toolregistry"].get("type").is_none());
    assert_eq!(
        gateway["sentry"]["headers"]["Authorization"],
        "Bearer sntrys_FIXTURE_literal_secret_0002"
    );
    // Every rewritten config is still read as its client reads it, and the gateway loads FILE.
    crate::mcp::config::parse_with(&std::fs::read_to_string(&file).unwrap(), &|_| {
        Some("http://x".into())
    })
    .unwrap();
}

#[test]
fn a_later_change_keeps_the_first_backup() {
    let dir = scratch(&["claude_desktop_config.json"]);
    let client = dir.join("claude_desktop_config.json");
    let original = std::fs::read(&client).unwrap();
    let file = dir.join("servers.json");
    // The client's entry for an older gateway points elsewhere: --rewrite refuses to add a second.
    let err = run(&options(vec![client.clone()], Some(file.clone()), true)).unwrap_err();
    assert!(
        err.contains("already runs the gateway") && err.contains("other.json"),
        "{err}"
    );
    assert_eq!(std::fs::read(&client).unwrap(), original);
    // Without it, the rewrite goes through; then a new server is added by hand and imported.
    let mut v = json(&client);
    v["mcpServers"]
        .as_object_mut()
        .unwrap()
        .remove("old gateway");
    std::fs::write(&client, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let before_first = std::fs::read(&client).unwrap();
    run(&options(vec![client.clone()], Some(file.clone()), true)).unwrap();
    let mut v = json(&client);
    v["mcpServers"]["extra"] = serde_json::json!({"command": "extra-server"});
    std::fs::write(&client, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let out = run(&options(vec![client.clone()], Some(file.clone()), true)).unwrap();
    assert!(out.contains("extra"), "{out}");
    let bak = |s: &str| dir.join(format!("claude_desktop_config.json{s}"));
    assert_eq!(
        std::fs::read(bak(".bak")).unwrap(),
        before_first,
        "the first backup is kept"
    );
    assert!(bak(".bak.2").exists());
    assert_eq!(json(&file)["mcpServers"].as_object().unwrap().len(), 4);
    let servers = json(&client)["mcpServers"].as_object().unwrap().clone();
    assert_eq!(servers.keys().collect::<Vec<_>>(), ["toolregistry"]);
}

#[test]
fn bad_configs_name_file_and_place_and_change_nothing() {
    let dir = scratch(&[
        "bad/claude_desktop_config.json",
        "bad/.mcp.json",
        "bad/truncated.json",
        "bad/not-a-client.json",
        "claude-code/.mcp.json",
    ]);
    let good = dir.join("claude-code/.mcp.json");
    let file = dir.join("servers.json");
    for (rel, needles) in [
        (
            "bad/claude_desktop_config.json",
            &["claude_desktop_config.json", "line 6, column 7"][..],
        ),
        (
            "bad/.mcp.json",
            &[
                ".mcp.json",
                "mcpServers.broken.args: expected an array of strings",
            ][..],
        ),
        (
            "bad/truncated.json",
            &["truncated.json", "ends too early", "line 5"][..],
        ),
        (
            "bad/not-a-client.json",
            &["not-a-client.json", "not an MCP client's config"][..],
        ),
    ] {
        let before = snapshot(&dir);
        // A good config with it: still nothing is written.
        let err = run(&options(
            vec![good.clone(), dir.join(rel)],
            Some(file.clone()),
            true,
        ))
        .unwrap_err();
        for n in needles {
            assert!(err.contains(n), "{rel}: {err}");
        }
        assert!(!err.contains("FIXTURE_literal_secret"), "{err}");
        assert_eq!(snapshot(&dir), before, "{rel}: something was written");
    }
    let err = run(&Options {
        client: Some("zed".into()),
        ..options(vec![good.clone()], None, false)
    })
    .unwrap_err();
    assert!(err.contains("claude-desktop, cursor"), "{err}");
    let err = run(&options(vec![good.clone()], None, true)).unwrap_err();
    assert!(err.contains("--write"), "{err}");
    let err = run(&options(vec![dir.join("missing.json")], None, false)).unwrap_err();
    assert!(err.contains("missing.json"), "{err}");
    // A name clash between two clients' different servers: refused, nothing written.
    std::fs::write(
        dir.join("a.json"),
        r#"{"mcpServers": {"x": {"command": "one"}}}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("b.json"),
        r#"{"mcpServers": {"x": {"command": "two"}}}"#,
    )
    .unwrap();
    let err = run(&options(
        vec![dir.join("a.json"), dir.join("b.json")],
        Some(file.clone()),
        false,
    ))
    .unwrap_err();
    assert!(err.contains("\"x\" differs"), "{err}");
    assert!(!file.exists());
    // Two clients with the same server: one entry.
    std::fs::write(
        dir.join("b.json"),
        r#"{"mcpServers": {"x": {"command": "one"}}}"#,
    )
    .unwrap();
    run(&options(
        vec![dir.join("a.json"), dir.join("b.json")],
        Some(file.clone()),
        false,
    ))
    .unwrap();
    assert_eq!(json(&file)["mcpServers"].as_object().unwrap().len(), 1);
}

#[cfg(unix)]
#[test]
fn a_linked_config_stays_a_link() {
    let dir = scratch(&["claude-code/.mcp.json"]);
    let real = dir.join("claude-code/.mcp.json");
    let link = dir.join("link.mcp.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    run(&Options {
        client: Some("claude-code".into()),
        ..options(vec![link.clone()], Some(dir.join("servers.json")), true)
    })
    .unwrap();
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(json(&real)["mcpServers"].get("toolregistry").is_some());
}
