//! The proxy's configuration: the `{"mcpServers": {...}}` file MCP hosts already use, plus
//! `defer`, `allow`, `deny`, `timeout_ms`, `trust` and `protocol_version` per server. A server is a program (`"command"`, on
//! stdio) or a URL (`"url"`, streamable HTTP, with `"headers"`). As in Claude Code's `.mcp.json`,
//! `command`, `args`, `env`, `url` and `headers` may name the proxy's environment variables as
//! `${VAR}` or `${VAR:-default}` (`$${` is a literal `${`), so a config carries references to
//! secrets rather than the secrets.

use super::trust::Policy;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::time::Duration;
use toolregistry::tool::validate_name;

/// The largest config file read (a config is a few kilobytes; this only bounds a wrong path).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// How long a call may take when the config does not say.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Variables a downstream server gets from the proxy's own environment when the config does not
/// set them: what finding the program, a home directory, a locale and a temp dir need. Nothing
/// else of the proxy's environment (tokens of the host, for one) reaches a downstream server.
const INHERITED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "SYSTEMROOT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
];

/// The `"type"` spellings hosts write for a streamable-HTTP server.
const HTTP_TYPES: &[&str] = &[
    "http",
    "streamable-http",
    "streamableHttp",
    "streamable_http",
];

/// The MCP revisions a `"protocol_version"` may pin, oldest first: those the gateway speaks as a
/// client (up to 2025-11-25 with the `initialize` handshake, 2026-07-28 without it).
pub const PROTOCOL_VERSIONS: &[&str] = &[
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
];

/// A server reached over streamable HTTP.
#[derive(Debug, Clone, PartialEq)]
pub struct Remote {
    /// The endpoint (`http://` or `https://`).
    pub url: String,
    /// Headers sent with every request, `${VAR}` already expanded (values are secrets: never
    /// printed).
    pub headers: BTreeMap<String, String>,
    /// `"oauth"`: how the gateway signs in to it (see `oauth`), when the config says.
    pub oauth: Option<OAuthConfig>,
}

/// A server's `"oauth"`: `client_id` and `client_secret` of a client registered out of band,
/// `scopes` to ask for, `client_metadata_url` (a client ID metadata document); all optional,
/// each may name `${VAR}`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OAuthConfig {
    pub client_id: Option<String>,
    /// A secret: never printed.
    pub client_secret: Option<String>,
    pub scopes: Option<Vec<String>>,
    pub client_metadata_url: Option<String>,
}

/// One downstream server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The key in `mcpServers`: the namespace of the server's tools.
    pub name: String,
    /// The program, run directly (no shell); empty for a remote server.
    pub command: String,
    /// Set for a server reached over streamable HTTP instead of a program on stdio.
    pub remote: Option<Remote>,
    /// Its arguments.
    pub args: Vec<String>,
    /// The environment the config gives it (values are secrets: never printed).
    pub env: BTreeMap<String, String>,
    /// Whether its tools are deferred (found through search) rather than listed.
    pub defer: bool,
    /// Only these tool names (the server's own names), when given.
    pub allow: Option<Vec<String>>,
    /// Never these tool names.
    pub deny: Vec<String>,
    /// Most time a call (and the start) may take.
    pub timeout: Duration,
    /// `"trust"`: how its tool definitions are pinned (see `trust`).
    pub trust: Policy,
    /// `"protocol_version"`: the one MCP revision offered to it; `None`: the newest the gateway
    /// speaks, falling back as the server answers (see `downstream`).
    pub protocol_version: Option<String>,
}

impl ServerConfig {
    /// Whether the allow and deny lists let this tool (the server's own name) through.
    pub fn admits(&self, tool: &str) -> bool {
        self.allow
            .as_ref()
            .is_none_or(|a| a.iter().any(|n| n == tool))
            && !self.deny.iter().any(|n| n == tool)
    }

    /// The environment the server starts with: the inherited variables, then the config's.
    pub fn environment(&self) -> Vec<(String, String)> {
        let mut env: BTreeMap<String, String> = INHERITED_ENV
            .iter()
            .filter_map(|k| std::env::var(k).ok().map(|v| (k.to_string(), v)))
            .collect();
        env.extend(self.env.clone());
        env.into_iter().collect()
    }

    /// `text` with every value of the config's `env` and `headers` replaced: a server's error
    /// output may echo its command line, environment or request, and nothing the proxy prints may
    /// carry a secret.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        // A header's value, and its last word alone (the token of "Bearer TOKEN"), longest first.
        let headers = self.remote.iter().flat_map(|r| r.headers.values());
        let secrets = self
            .remote
            .iter()
            .filter_map(|r| r.oauth.as_ref()?.client_secret.as_deref());
        let words = headers
            .clone()
            .filter_map(|v| v.split_whitespace().last().filter(|w| w.len() < v.len()));
        for value in self
            .env
            .values()
            .map(String::as_str)
            .chain(headers.map(String::as_str))
            .chain(words)
            .chain(secrets)
        {
            if value.len() >= 4 {
                out = out.replace(value, "[redacted]");
            }
        }
        out
    }
}

/// Parses the config file's text. Servers come out in name order (the order of the tool list).
/// Keys this proxy does not use (hosts add their own, such as `"disabled"`) are ignored with a
/// note on stderr; a server of another transport (`"type": "sse"`) is an error. `${VAR}` in
/// `command`, `args`, `env`, `url` and `headers` is read from the proxy's environment.
pub fn parse(text: &str) -> Result<Vec<ServerConfig>, String> {
    parse_with(text, &|name| std::env::var(name).ok())
}

/// [`parse`] with the variables `${VAR}` reads from `env`.
pub fn parse_with(
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<ServerConfig>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let servers = value
        .get("mcpServers")
        .and_then(Value::as_object)
        .ok_or("expected {\"mcpServers\": {\"NAME\": {\"command\": ...}}}")?;
    let mut out = Vec::with_capacity(servers.len());
    for (name, entry) in servers {
        let path = format!("mcpServers.{name}");
        validate_name(name, &path).map_err(|e| e.to_string())?;
        let obj = entry
            .as_object()
            .ok_or_else(|| format!("{path}: expected an object"))?;
        out.push(server(name, obj, &path, env)?);
    }
    Ok(out)
}

/// Reads and parses the config file.
pub fn load(path: &std::path::Path) -> Result<Vec<ServerConfig>, String> {
    let text = read(path)?;
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The config file's text, at most [`MAX_CONFIG_BYTES`].
fn read(path: &std::path::Path) -> Result<String, String> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut text = String::new();
    file.take(MAX_CONFIG_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if text.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!(
            "{}: larger than {MAX_CONFIG_BYTES} bytes",
            path.display()
        ));
    }
    Ok(text)
}

/// Whether the gateway learns from use (co-use, see `usage`): the config's top-level
/// `"usage"`, `true` (the default when absent or null) or `false`.
pub fn usage_from_text(text: &str) -> Result<bool, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    match value.get("usage") {
        None | Some(Value::Null) => Ok(true),
        Some(Value::Bool(on)) => Ok(*on),
        Some(_) => Err("usage: expected true or false".into()),
    }
}

/// [`usage_from_text`] of the config file.
pub fn usage(path: &std::path::Path) -> Result<bool, String> {
    usage_from_text(&read(path)?).map_err(|e| format!("{}: {e}", path.display()))
}

/// A server's `"oauth"` object.
fn oauth(v: &Value, at: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<OAuthConfig, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("{at}: expected an object"))?;
    let mut oauth = OAuthConfig::default();
    for (key, v) in obj {
        let at = format!("{at}.{key}");
        // The secret's value is never in a message: only the key is named.
        let text = |v: &Value| -> Result<String, String> {
            let s = v
                .as_str()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| format!("{at}: expected a non-empty string"))?;
            expand(s, env).map_err(|e| format!("{at}: {e}"))
        };
        match key.as_str() {
            "client_id" => oauth.client_id = Some(text(v)?),
            "client_secret" => oauth.client_secret = Some(text(v)?),
            "client_metadata_url" => {
                let url = text(v)?;
                if !url.starts_with("https://") {
                    return Err(format!("{at}: expected an https:// URL"));
                }
                oauth.client_metadata_url = Some(url);
            }
            "scopes" => {
                oauth.scopes = Some(
                    strings(v, &at)?
                        .iter()
                        .map(|s| expand(s, env).map_err(|e| format!("{at}: {e}")))
                        .collect::<Result<_, _>>()?,
                );
            }
            _ => eprintln!("toolregistry mcp: {at}: unknown key, ignored"),
        }
    }
    if oauth.client_secret.is_some() && oauth.client_id.is_none() {
        return Err(format!("{at}.client_secret: given without a client_id"));
    }
    Ok(oauth)
}

fn server(
    name: &str,
    obj: &Map<String, Value>,
    path: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ServerConfig, String> {
    let http = match obj.get("type") {
        None => obj.contains_key("url"),
        Some(Value::String(t)) if t == "stdio" => false,
        Some(Value::String(t)) if HTTP_TYPES.contains(&t.as_str()) => true,
        Some(Value::String(t)) if t == "sse" => {
            return Err(format!(
                "{path}.type: legacy SSE servers are not supported; use the server's \
                 streamable-HTTP endpoint (\"type\": \"http\")"
            ));
        }
        Some(t) => {
            return Err(format!(
                "{path}.type: {t} is not a transport this proxy knows (\"stdio\" or \"http\")"
            ));
        }
    };
    if (http && obj.contains_key("command")) || (!http && obj.contains_key("url")) {
        return Err(format!(
            "{path}: \"command\" (a program on stdio) and \"url\" (streamable HTTP) are two \
             kinds of server; give one"
        ));
    }
    let mut config = ServerConfig {
        name: name.to_string(),
        command: String::new(),
        remote: http.then(|| Remote {
            url: String::new(),
            headers: BTreeMap::new(),
            oauth: None,
        }),
        args: Vec::new(),
        env: BTreeMap::new(),
        defer: true,
        allow: None,
        deny: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        trust: Policy::default(),
        protocol_version: None,
    };
    for (key, v) in obj {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "command" => {
                let command = v
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| format!("{at}: expected a non-empty string"))?;
                config.command = expand(command, env).map_err(|e| format!("{at}: {e}"))?;
            }
            "args" => {
                config.args = strings(v, &at)?
                    .iter()
                    .enumerate()
                    .map(|(i, a)| expand(a, env).map_err(|e| format!("{at}[{i}]: {e}")))
                    .collect::<Result<_, _>>()?;
            }
            "allow" => config.allow = Some(strings(v, &at)?),
            "deny" => config.deny = strings(v, &at)?,
            "defer" => {
                config.defer = v
                    .as_bool()
                    .ok_or_else(|| format!("{at}: expected a boolean"))?;
            }
            "timeout_ms" => {
                let ms = v
                    .as_u64()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| format!("{at}: expected a positive integer"))?;
                config.timeout = Duration::from_millis(ms);
            }
            "env" => {
                let table = v
                    .as_object()
                    .ok_or_else(|| format!("{at}: expected an object of strings"))?;
                for (k, val) in table {
                    // The value is a secret: the message names the key only.
                    let val = val
                        .as_str()
                        .ok_or_else(|| format!("{at}.{k}: expected a string"))?;
                    if k.is_empty() || k.contains('=') || k.contains('\0') || val.contains('\0') {
                        return Err(format!("{at}.{k}: not a valid environment variable"));
                    }
                    let val = expand(val, env).map_err(|e| format!("{at}.{k}: {e}"))?;
                    if val.contains('\0') {
                        return Err(format!("{at}.{k}: not a valid environment variable"));
                    }
                    config.env.insert(k.clone(), val);
                }
            }
            "trust" => config.trust = Policy::parse(v, &at)?,
            "protocol_version" => {
                let version = v
                    .as_str()
                    .filter(|s| PROTOCOL_VERSIONS.contains(s))
                    .ok_or_else(|| {
                        format!(
                            "{at}: expected one of the MCP revisions the gateway speaks: {}",
                            PROTOCOL_VERSIONS.join(", ")
                        )
                    })?;
                config.protocol_version = Some(version.to_string());
            }
            "url" => {
                let url = v
                    .as_str()
                    .ok_or_else(|| format!("{at}: expected a string"))?;
                let url = &expand(url, env).map_err(|e| format!("{at}: {e}"))?;
                let scheme_ok = ["http://", "https://"].iter().any(|s| {
                    url.len() > s.len()
                        && url
                            .get(..s.len())
                            .is_some_and(|p| p.eq_ignore_ascii_case(s))
                });
                if !scheme_ok || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
                    return Err(format!("{at}: expected an http:// or https:// URL"));
                }
                if let Some(remote) = config.remote.as_mut() {
                    remote.url = url.to_string();
                }
            }
            "headers" => {
                let headers = v
                    .as_object()
                    .ok_or_else(|| format!("{at}: expected an object of strings"))?;
                for (k, val) in headers {
                    // The value is a secret: messages name the header (and variable) only.
                    let val = val
                        .as_str()
                        .ok_or_else(|| format!("{at}.{k}: expected a string"))?;
                    if !valid_header_name(k) {
                        return Err(format!("{at}.{k}: not a valid HTTP header name"));
                    }
                    let val = expand(val, env).map_err(|e| format!("{at}.{k}: {e}"))?;
                    if val.bytes().any(|b| b == b'\r' || b == b'\n' || b == 0) {
                        return Err(format!(
                            "{at}.{k}: the value has a line break or NUL, which a header cannot carry"
                        ));
                    }
                    if let Some(remote) = config.remote.as_mut() {
                        remote.headers.insert(k.clone(), val);
                    }
                }
            }
            "oauth" => {
                let oauth = oauth(v, &at, env)?;
                match config.remote.as_mut() {
                    Some(remote) => remote.oauth = Some(oauth),
                    None => {
                        return Err(format!("{at}: only a remote server (\"url\") signs in"));
                    }
                }
            }
            "type" => {}
            _ => eprintln!("toolregistry mcp: {at}: unknown key, ignored"),
        }
    }
    match &config.remote {
        Some(remote) if remote.url.is_empty() => return Err(format!("{path}.url: missing")),
        Some(_) if !config.env.is_empty() => {
            return Err(format!(
                "{path}.env: a remote server has no environment; send values as \"headers\""
            ));
        }
        Some(_) => {}
        None if config.command.is_empty() => return Err(format!("{path}.command: missing")),
        None if obj.contains_key("headers") => {
            return Err(format!(
                "{path}.headers: only a remote server (\"url\") takes headers"
            ));
        }
        None => {}
    }
    Ok(config)
}

/// An RFC 9110 token: the characters a header name may have.
fn valid_header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// `value` with every `${VAR}` replaced by the variable's value and every `${VAR:-default}` by
/// the value, or `default` when the variable is unset or empty (Claude Code's two forms, read the
/// way a POSIX shell reads them); `$${` is a literal `${`. An unset variable without a default is
/// an error naming it, so that a header or a server's environment is never half-filled. Messages
/// name variables, never values.
pub(crate) fn expand(value: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        if rest[..at].ends_with('$') {
            out.push_str(&rest[..at - 1]);
            out.push_str("${");
            rest = &rest[at + 2..];
            continue;
        }
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let end = after.find('}').ok_or("\"${\" without its closing \"}\"")?;
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((name, default)) => (name, Some(default)),
            None => (inner, None),
        };
        if !is_variable_name(name) {
            return Err(format!(
                "${{{}}} is not a variable name",
                toolregistry::limits::cut(name, 40)
            ));
        }
        match (
            env(name).filter(|v| !v.is_empty() || default.is_none()),
            default,
        ) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(default)) => out.push_str(default),
            (None, None) => return Err(format!("${{{name}}} is not set in the environment")),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// A POSIX environment variable name: letters, digits and `_`, not starting with a digit.
pub(crate) fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

fn strings(v: &Value, at: &str) -> Result<Vec<String>, String> {
    v.as_array()
        .and_then(|a| {
            a.iter()
                .map(|s| s.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
        })
        .ok_or_else(|| format!("{at}: expected an array of strings"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cr3t-value".to_string()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    fn one(text: &str) -> Result<ServerConfig, String> {
        parse_with(text, &env).map(|mut v| v.remove(0))
    }

    #[test]
    fn usage_is_on_unless_turned_off() {
        let servers = r#""mcpServers": {"a": {"command": "x"}}"#;
        assert_eq!(usage_from_text(&format!("{{{servers}}}")), Ok(true));
        assert_eq!(
            usage_from_text(&format!("{{{servers}, \"usage\": null}}")),
            Ok(true)
        );
        assert_eq!(
            usage_from_text(&format!("{{{servers}, \"usage\": true}}")),
            Ok(true)
        );
        assert_eq!(
            usage_from_text(&format!("{{{servers}, \"usage\": false}}")),
            Ok(false)
        );
        let err = usage_from_text(&format!("{{{servers}, \"usage\": \"off\"}}")).unwrap_err();
        assert!(err.contains("usage: expected true or false"), "{err}");
        // The servers' parser ignores the key.
        assert_eq!(
            parse(&format!("{{{servers}, \"usage\": false}}"))
                .unwrap()
                .len(),
            1
        );
    }

    #[test]
    fn http_spellings_and_headers() {
        for t in ["http", "streamable-http", "streamableHttp"] {
            let c = one(&format!(
                r#"{{"mcpServers": {{"r": {{"type": "{t}", "url": "https://x.example/mcp",
                    "headers": {{"Authorization": "Bearer ${{TOKEN}}", "X-Lit": "a$${{B}}c"}}}}}}}}"#
            ))
            .unwrap();
            let remote = c.remote.as_ref().unwrap();
            assert_eq!(remote.url, "https://x.example/mcp");
            assert_eq!(remote.headers["Authorization"], "Bearer s3cr3t-value");
            assert_eq!(remote.headers["X-Lit"], "a${B}c");
            assert_eq!(c.redact("got Bearer s3cr3t-value"), "got [redacted]");
            assert_eq!(
                c.redact("token s3cr3t-value alone"),
                "token [redacted] alone"
            );
        }
        // "url" alone is HTTP too.
        assert!(
            one(r#"{"mcpServers": {"r": {"url": "http://127.0.0.1:1/mcp"}}}"#)
                .unwrap()
                .remote
                .is_some()
        );
    }

    #[test]
    fn variables_everywhere_claude_code_style() {
        let c = one(
            r#"{"mcpServers": {"s": {"command": "${TOKEN:-x}/bin", "args": ["--k=${TOKEN}", "${UNSET:-d}", "$${TOKEN}"],
                "env": {"A": "${TOKEN}", "B": "${EMPTY:-fallback}", "C": "lit"}}}}"#,
        )
        .unwrap();
        assert_eq!(c.command, "s3cr3t-value/bin");
        assert_eq!(c.args, ["--k=s3cr3t-value", "d", "${TOKEN}"]);
        assert_eq!(c.env["A"], "s3cr3t-value");
        assert_eq!(c.env["B"], "fallback");
        assert_eq!(c.redact("leaked s3cr3t-value"), "leaked [redacted]");
        let r =
            one(r#"{"mcpServers": {"r": {"url": "${UNSET:-https://x.example}/mcp"}}}"#).unwrap();
        assert_eq!(r.remote.unwrap().url, "https://x.example/mcp");
        for (text, needle) in [
            (
                r#"{"mcpServers": {"s": {"command": "x", "env": {"A": "${NOPE}"}}}}"#,
                "s.env.A: ${NOPE} is not set",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "x", "args": ["a", "${NOPE}"]}}}"#,
                "s.args[1]: ${NOPE}",
            ),
            (
                r#"{"mcpServers": {"s": {"command": "${1X}"}}}"#,
                "not a variable name",
            ),
        ] {
            let err = one(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn protocol_version_pins_a_known_revision() {
        let url =
            |extra: &str| format!(r#"{{"mcpServers": {{"r": {{"url": "http://x"{extra}}}}}}}"#);
        assert_eq!(one(&url("")).unwrap().protocol_version, None);
        for v in ["2025-11-25", "2026-07-28", "2024-11-05"] {
            let c = one(&url(&format!(r#", "protocol_version": "{v}""#))).unwrap();
            assert_eq!(c.protocol_version.as_deref(), Some(v));
        }
        for bad in [r#""2027-01-01""#, "20261", r#""""#] {
            let err = one(&url(&format!(r#", "protocol_version": {bad}"#))).unwrap_err();
            assert!(err.contains("r.protocol_version: expected one of"), "{err}");
        }
    }

    #[test]
    fn bad_remote_entries_name_the_key_not_the_value() {
        for (text, needle) in [
            (
                r#"{"mcpServers": {"r": {"url": "ftp://x"}}}"#,
                "r.url: expected an http",
            ),
            (
                r#"{"mcpServers": {"r": {"type": "http"}}}"#,
                "r.url: missing",
            ),
            (
                r#"{"mcpServers": {"r": {"type": "sse", "url": "http://x/sse"}}}"#,
                "legacy SSE",
            ),
            (
                r#"{"mcpServers": {"r": {"url": "http://x", "command": "y"}}}"#,
                "give one",
            ),
            (
                r#"{"mcpServers": {"r": {"url": "http://x", "headers": {"A": "${NOPE}"}}}}"#,
                "${NOPE} is not set",
            ),
            (
                r#"{"mcpServers": {"r": {"url": "http://x", "headers": {"A": "${TOKEN"}}}}"#,
                "closing",
            ),
            (
                r#"{"mcpServers": {"r": {"url": "http://x", "headers": {"A B": "v"}}}}"#,
                "header name",
            ),
            (
                r#"{"mcpServers": {"r": {"url": "http://x", "headers": {"A": 5}}}}"#,
                "r.headers.A: expected a string",
            ),
            (
                r#"{"mcpServers": {"r": {"command": "x", "headers": {"A": "v"}}}}"#,
                "only a remote",
            ),
        ] {
            let err = one(text).unwrap_err();
            assert!(err.contains(needle), "{text}: {err}");
            assert!(!err.contains("s3cr3t"), "{err}");
        }
    }
}
