//! The proxy's configuration: the `{"mcpServers": {...}}` file MCP hosts already use, plus
//! `defer`, `allow`, `deny`, `timeout_ms` and `trust` per server.

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

/// One downstream server.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    /// The key in `mcpServers`: the namespace of the server's tools.
    pub name: String,
    /// The program, run directly (no shell).
    pub command: String,
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

    /// `text` with every value of the config's `env` replaced: a server's error output may echo
    /// its command line or environment, and nothing the proxy prints may carry a secret.
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        for value in self.env.values() {
            if value.len() >= 4 {
                out = out.replace(value.as_str(), "[redacted]");
            }
        }
        out
    }
}

/// Parses the config file's text. Servers come out in name order (the order of the tool list).
/// Keys this proxy does not use (hosts add their own, such as `"disabled"`) are ignored with a
/// note on stderr; a server of another transport (`"url"`, `"type": "sse"`) is an error.
pub fn parse(text: &str) -> Result<Vec<ServerConfig>, String> {
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
        out.push(server(name, obj, &path)?);
    }
    Ok(out)
}

/// Reads and parses the config file.
pub fn load(path: &std::path::Path) -> Result<Vec<ServerConfig>, String> {
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
    parse(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn server(name: &str, obj: &Map<String, Value>, path: &str) -> Result<ServerConfig, String> {
    if obj.contains_key("url") || obj.get("type").is_some_and(|t| t != "stdio") {
        return Err(format!(
            "{path}: only stdio servers (\"command\") are supported"
        ));
    }
    let mut config = ServerConfig {
        name: name.to_string(),
        command: String::new(),
        args: Vec::new(),
        env: BTreeMap::new(),
        defer: true,
        allow: None,
        deny: Vec::new(),
        timeout: DEFAULT_TIMEOUT,
        trust: Policy::default(),
    };
    for (key, v) in obj {
        let at = format!("{path}.{key}");
        match key.as_str() {
            "command" => {
                config.command = v
                    .as_str()
                    .filter(|s| !s.is_empty())
                    .ok_or_else(|| format!("{at}: expected a non-empty string"))?
                    .to_string();
            }
            "args" => config.args = strings(v, &at)?,
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
                let env = v
                    .as_object()
                    .ok_or_else(|| format!("{at}: expected an object of strings"))?;
                for (k, val) in env {
                    // The value is a secret: the message names the key only.
                    let val = val
                        .as_str()
                        .ok_or_else(|| format!("{at}.{k}: expected a string"))?;
                    if k.is_empty() || k.contains('=') || k.contains('\0') || val.contains('\0') {
                        return Err(format!("{at}.{k}: not a valid environment variable"));
                    }
                    config.env.insert(k.clone(), val.to_string());
                }
            }
            "trust" => config.trust = Policy::parse(v, &at)?,
            "type" => {}
            _ => eprintln!("toolregistry mcp: {at}: unknown key, ignored"),
        }
    }
    if config.command.is_empty() {
        return Err(format!("{path}.command: missing"));
    }
    Ok(config)
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
