//! `toolregistry mcp --console`: the refusals, over raw HTTP against the program (the browser
//! test of the page is scripts/test-parts/63-mcp-console.sh). A gateway with no servers is
//! enough: what is checked is the console's gate.

use crate::program::toolregistry;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::time::Duration;

fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tr-console-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("config.json"), r#"{"mcpServers": {}}"#).unwrap();
    dir
}

/// One request; the status code and the whole answer (headers and body).
fn request(port: u16, head: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let text = format!(
        "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(text.as_bytes()).unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    let code = answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    (code, answer)
}

struct Gateway(Child);

impl Drop for Gateway {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_console_refuses_what_it_must() {
    let dir = folder("gate");
    let mut child = toolregistry()
        .args(["mcp", "--config"])
        .arg(dir.join("config.json"))
        .arg("--state")
        .arg(dir.join("state.json"))
        .args(["--console", "127.0.0.1:0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let gateway = Gateway(child);
    let mut url = String::new();
    for line in BufReader::new(stderr).lines() {
        let line = line.unwrap();
        if let Some(u) = line.split("console: ").nth(1) {
            url = u.trim().to_string();
            break;
        }
    }
    let (base, token) = url.split_once("/?token=").expect(&url);
    let port: u16 = base.rsplit(':').next().unwrap().parse().unwrap();
    assert_eq!(token.len(), 64, "{url}");
    let written = std::fs::read_to_string(dir.join("console-url")).unwrap();
    assert_eq!(written.trim(), url);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(dir.join("console-url"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let host = format!("Host: 127.0.0.1:{port}");
    let bearer = format!("Authorization: Bearer {token}");

    let (code, _) = request(port, &format!("GET /api/servers HTTP/1.1\r\n{host}"), "");
    assert_eq!(code, 401);
    let (code, answer) = request(port, &format!("GET / HTTP/1.1\r\n{host}\r\n{bearer}"), "");
    assert_eq!(code, 200, "{answer}");
    assert!(
        answer
            .to_ascii_lowercase()
            .contains("content-security-policy: default-src 'none'")
    );
    let (code, answer) = request(port, &format!("GET /?token={token} HTTP/1.1\r\n{host}"), "");
    assert_eq!(code, 303, "{answer}");
    assert!(answer.contains("HttpOnly; SameSite=Strict"), "{answer}");

    let body = r#"{"target": "nobody"}"#;
    let post = format!(
        "POST /api/approve HTTP/1.1\r\n{host}\r\n{bearer}\r\nContent-Type: application/json"
    );
    let (code, _) = request(port, &post, body);
    assert_eq!(code, 403, "a POST without the CSRF token");
    let sign_in_body = r#"{"server": "nobody"}"#;
    let sign_in = format!(
        "POST /api/sign-in HTTP/1.1\r\n{host}\r\n{bearer}\r\nContent-Type: application/json"
    );
    let (code, answer) = request(port, &sign_in, sign_in_body);
    assert_eq!(code, 403, "a Sign in POST without the CSRF token: {answer}");
    assert!(answer.contains("CSRF"), "{answer}");
    let (_, session) = request(
        port,
        &format!("GET /api/session HTTP/1.1\r\n{host}\r\n{bearer}"),
        "",
    );
    let csrf = session
        .split("\"csrf\":\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .to_string();
    let (code, _) = request(
        port,
        &format!("{post}\r\nX-Console-Csrf: {csrf}\r\nOrigin: http://evil.example"),
        body,
    );
    assert_eq!(code, 403, "a POST from another origin");
    let (code, _) = request(
        port,
        &format!("GET /api/servers HTTP/1.1\r\nHost: evil.example:{port}\r\n{bearer}"),
        "",
    );
    assert_eq!(code, 403, "another Host");
    // With both: the change is tried, and refused for what it is (no such server).
    let (code, answer) = request(
        port,
        &format!("{post}\r\nX-Console-Csrf: {csrf}\r\nOrigin: http://127.0.0.1:{port}"),
        body,
    );
    assert_eq!(code, 409, "{answer}");
    assert!(answer.contains("no server of that name"), "{answer}");
    let (code, _) = request(
        port,
        &format!("{sign_in}\r\nX-Console-Csrf: {csrf}\r\nOrigin: http://evil.example"),
        sign_in_body,
    );
    assert_eq!(code, 403, "a Sign in POST from another origin");
    let (code, answer) = request(
        port,
        &format!("{sign_in}\r\nX-Console-Csrf: {csrf}"),
        sign_in_body,
    );
    assert_eq!(code, 409, "{answer}");
    assert!(answer.contains("no server of that name"), "{answer}");
    let (code, answer) = request(port, &format!("{sign_in}\r\nX-Console-Csrf: {csrf}"), "{}");
    assert_eq!(code, 400, "{answer}");
    drop(gateway);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn beyond_loopback_needs_a_token_file() {
    let dir = folder("wide");
    let out = toolregistry()
        .args(["mcp", "--config"])
        .arg(dir.join("config.json"))
        .arg("--state")
        .arg(dir.join("state.json"))
        .args(["--console", "0.0.0.0:0"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("needs a token (--token-file FILE)"),
        "{stderr}"
    );
    assert!(!dir.join("console-url").exists());
    let out = toolregistry()
        .args(["mcp", "--config"])
        .arg(dir.join("config.json"))
        .arg("--token-file")
        .arg(dir.join("config.json"))
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("needs --http or --console"),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
