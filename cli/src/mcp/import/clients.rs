//! What differs between the clients whose configs `toolregistry mcp import` reads: where their
//! servers are, how their values name variables, and the shape of the one entry that runs the
//! gateway in their config. From each client's documentation (cited in docs/mcp.md):
//!
//! - Claude Desktop, `claude_desktop_config.json`: `mcpServers`, `command`/`args`/`env`; values
//!   are taken as written (no variables).
//! - Cursor, `.cursor/mcp.json` and `~/.cursor/mcp.json`: `mcpServers`; `command`/`args`/`env`/
//!   `envFile`, or `url`/`headers`/`auth`; `${env:NAME}`, `${userHome}`, `${workspaceFolder}`,
//!   `${workspaceFolderBasename}`, `${pathSeparator}` and `${/}` in values.
//! - VS Code, `.vscode/mcp.json` or the user profile's `mcp.json` (`servers`, `inputs`), or a
//!   `settings.json` with `mcp.servers`: `type` `stdio` (`command`/`args`/`env`/`envFile`) or
//!   `http`/`sse` (`url`/`headers`); `${input:ID}` prompts, `${env:NAME}` and the predefined
//!   variables in values.
//! - Claude Code, `.mcp.json` (and `~/.claude.json`): `mcpServers`, `type` `stdio`/`http`/`sse`;
//!   `${VAR}` and `${VAR:-default}` in `command`, `args`, `env`, `url` and `headers`.
//!
//! The gateway's config reads `${VAR}` and `${VAR:-default}` from its own environment. A
//! variable the client resolves (`${input:...}`, `${workspaceFolder}`, `${env:NAME}`) becomes a
//! `${VAR}` of the gateway's config plus a `"VAR": "${...}"` in the env of the client's entry for
//! the gateway, so the client still resolves it (and still prompts for an input) and hands the
//! value to the gateway.

use crate::mcp::config::is_variable_name;
use serde_json::{Map, Value};
use std::path::Path;

/// A client whose config `mcp import` reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Client {
    /// Claude Desktop.
    ClaudeDesktop,
    /// Cursor.
    Cursor,
    /// Visual Studio Code.
    VsCode,
    /// Claude Code.
    ClaudeCode,
}

/// The spellings `--client` takes.
pub const CLIENT_NAMES: &str = "claude-desktop, cursor, vscode or claude-code";

impl Client {
    /// `--client NAME`.
    pub fn parse(name: &str) -> Result<Client, String> {
        match name {
            "claude-desktop" => Ok(Client::ClaudeDesktop),
            "cursor" => Ok(Client::Cursor),
            "vscode" | "vs-code" => Ok(Client::VsCode),
            "claude-code" => Ok(Client::ClaudeCode),
            other => Err(format!(
                "--client: {other:?} is not a client this knows ({CLIENT_NAMES})"
            )),
        }
    }

    /// The client's name for messages.
    pub fn label(self) -> &'static str {
        match self {
            Client::ClaudeDesktop => "Claude Desktop",
            Client::Cursor => "Cursor",
            Client::VsCode => "VS Code",
            Client::ClaudeCode => "Claude Code",
        }
    }

    /// Which client wrote the config at `path` (or `forced`), and the keys leading to its servers
    /// object. `mcpServers` files are told apart by their name, since their shapes are alike; one
    /// whose name says nothing and whose values use `${...}` (read differently by each client)
    /// needs `--client`.
    pub fn detect(
        path: &Path,
        value: &Value,
        forced: Option<Client>,
    ) -> Result<(Client, Vec<&'static str>), String> {
        let has = |path: &[&str]| {
            let mut v = value;
            for key in path {
                match v.get(key) {
                    Some(next) => v = next,
                    None => return false,
                }
            }
            v.is_object()
        };
        let vscode_path = if has(&["servers"]) {
            Some(vec!["servers"])
        } else if has(&["mcp", "servers"]) {
            Some(vec!["mcp", "servers"])
        } else {
            None
        };
        let expected = || {
            "no \"mcpServers\" object (Claude Desktop, Cursor, Claude Code) nor \"servers\" \
             (VS Code's mcp.json) nor \"mcp\": {\"servers\"} (VS Code's settings.json): \
             not an MCP client's config"
                .to_string()
        };
        match forced {
            Some(Client::VsCode) => return Ok((Client::VsCode, vscode_path.ok_or_else(expected)?)),
            Some(client) if has(&["mcpServers"]) => return Ok((client, vec!["mcpServers"])),
            Some(client) => {
                return Err(format!(
                    "no \"mcpServers\" object, where {} keeps its servers",
                    client.label()
                ));
            }
            None => {}
        }
        if !has(&["mcpServers"]) {
            return vscode_path
                .map(|p| (Client::VsCode, p))
                .ok_or_else(expected);
        }
        let file = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dir = path
            .parent()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .unwrap_or("");
        let client = if file == "claude_desktop_config.json" {
            Client::ClaudeDesktop
        } else if file == ".mcp.json" || file == ".claude.json" {
            Client::ClaudeCode
        } else if dir == ".cursor" {
            Client::Cursor
        } else if value["mcpServers"].to_string().contains("${") {
            return Err(format!(
                "cannot tell which client this config is for (by its name it is not \
                 claude_desktop_config.json, .mcp.json or .cursor/mcp.json), and its values \
                 use ${{...}}, which each client reads differently: pass --client \
                 ({CLIENT_NAMES})"
            ));
        } else {
            // No variables: every client reads the values alike.
            Client::ClaudeDesktop
        };
        Ok((client, vec!["mcpServers"]))
    }

    /// A value of the client's config as the gateway's config writes it (see the module's
    /// comment), with what the client must hand the gateway.
    pub fn translate(self, value: &str) -> Result<Translated, String> {
        let mut out = Translated::default();
        let mut rest = value;
        let mut last_literal_ends_in_dollar = false;
        while let Some(at) = rest.find("${") {
            let Some(end) = rest[at + 2..].find('}') else {
                break;
            };
            let inner = &rest[at + 2..at + 2 + end];
            let literal = &rest[..at];
            out.literal(literal);
            last_literal_ends_in_dollar =
                literal.ends_with('$') || (literal.is_empty() && last_literal_ends_in_dollar);
            rest = &rest[at + 2 + end + 1..];
            match self.piece(inner) {
                Piece::Literal(text) => {
                    out.literal(&text);
                    last_literal_ends_in_dollar = text.ends_with('$');
                    continue;
                }
                Piece::Variable { .. } | Piece::Client(_) if last_literal_ends_in_dollar => {
                    return Err(format!(
                        "a \"$\" right before ${{{inner}}} cannot be written in the gateway's \
                         config (\"$${{\" is its literal \"${{\")"
                    ));
                }
                Piece::Variable { name, default } => {
                    let passed = match (self, &default) {
                        (Client::ClaudeCode, None) => format!("${{{name}}}"),
                        (Client::ClaudeCode, Some(_)) => format!("${{{name}:-}}"),
                        _ => format!("${{env:{name}}}"),
                    };
                    match &default {
                        Some(d) => out.text.push_str(&format!("${{{name}:-{d}}}")),
                        None => out.text.push_str(&format!("${{{name}}}")),
                    }
                    out.pass(name, passed);
                }
                Piece::Client(inner) => {
                    let name = gateway_variable(&inner);
                    out.text.push_str(&format!("${{{name}}}"));
                    out.pass(name, format!("${{{inner}}}"));
                }
            }
            last_literal_ends_in_dollar = false;
        }
        out.literal(rest);
        Ok(out)
    }

    /// What `${inner}` is in this client's values.
    fn piece(self, inner: &str) -> Piece {
        let literal = || Piece::Literal(format!("${{{inner}}}"));
        let separator = || Piece::Literal(std::path::MAIN_SEPARATOR.to_string());
        match self {
            Client::ClaudeDesktop => literal(),
            Client::ClaudeCode => {
                let (name, default) = match inner.split_once(":-") {
                    Some((n, d)) => (n, Some(d.to_string())),
                    None => (inner, None),
                };
                if is_variable_name(name) {
                    Piece::Variable {
                        name: name.to_string(),
                        default,
                    }
                } else {
                    literal()
                }
            }
            Client::Cursor | Client::VsCode => match inner.strip_prefix("env:") {
                Some(name) if is_variable_name(name) => Piece::Variable {
                    name: name.to_string(),
                    default: None,
                },
                _ if inner == "pathSeparator" || inner == "/" => separator(),
                _ if self == Client::VsCode && !inner.is_empty() => Piece::Client(inner.into()),
                _ if matches!(
                    inner,
                    "userHome" | "workspaceFolder" | "workspaceFolderBasename"
                ) =>
                {
                    Piece::Client(inner.into())
                }
                _ => literal(),
            },
        }
    }

    /// The entry that runs the gateway in this client's config: `argv` (the gateway's program
    /// and its arguments up to `mcp --config FILE`) and the variables the client hands it.
    /// `existing` is an entry of the client's that already runs the gateway with this config:
    /// its other keys and variables are kept (so a second import changes nothing).
    pub fn gateway_entry(
        self,
        argv: &[String],
        pass: &Map<String, Value>,
        existing: Option<&Map<String, Value>>,
    ) -> Map<String, Value> {
        let mut entry = existing.cloned().unwrap_or_default();
        if matches!(self, Client::VsCode | Client::ClaudeCode) && !entry.contains_key("type") {
            entry.insert("type".into(), "stdio".into());
        }
        if let Some(t) = entry.get_mut("type") {
            *t = "stdio".into();
        }
        entry.insert("command".into(), argv[0].clone().into());
        entry.insert(
            "args".into(),
            argv[1..].iter().cloned().map(Value::from).collect(),
        );
        if !pass.is_empty() {
            let env = entry
                .entry("env")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(env) = env.as_object_mut() {
                for (k, v) in pass {
                    env.insert(k.clone(), v.clone());
                }
            }
        }
        entry
    }
}

/// One `${...}` of a client's value.
enum Piece {
    /// Text the client does not replace.
    Literal(String),
    /// An environment variable, which the gateway reads from its own environment.
    Variable {
        name: String,
        default: Option<String>,
    },
    /// A variable only the client can resolve (an input prompt, the workspace folder).
    Client(String),
}

/// A client's value as the gateway's config writes it.
#[derive(Debug, Default, PartialEq)]
pub struct Translated {
    /// The value in the gateway's syntax.
    pub text: String,
    /// The text that is not a variable (what decides whether the value may be printed).
    pub literal_text: String,
    /// The variables the gateway reads, with what the client's entry for the gateway sets them to.
    pub passed: Vec<(String, String)>,
}

impl Translated {
    fn literal(&mut self, text: &str) {
        self.text.push_str(&text.replace("${", "$${"));
        self.literal_text.push_str(text);
    }

    fn pass(&mut self, name: String, value: String) {
        if !self.passed.iter().any(|(n, _)| *n == name) {
            self.passed.push((name, value));
        }
    }

    /// Whether this env or header value may be printed: it names variables and its own text is
    /// at most a short word around them (`Bearer ${TOKEN}`, `${HOME}/notes`). Any other value
    /// may be a secret written into the client's config, and is withheld.
    pub fn printable(&self) -> bool {
        !self.passed.is_empty()
            && self.literal_text.len() <= 32
            && self
                .literal_text
                .chars()
                .all(|c| c.is_ascii_alphabetic() || " :/._-".contains(c))
    }
}

/// The gateway's variable for a client-resolved `${inner}`: `${input:api-key}` is
/// `TOOLREGISTRY_INPUT_API_KEY`.
fn gateway_variable(inner: &str) -> String {
    let mut name = String::from("TOOLREGISTRY_");
    for c in inner.chars() {
        name.push(if c.is_ascii_alphanumeric() {
            c.to_ascii_uppercase()
        } else {
            '_'
        });
    }
    name
}

/// If `argv` (an entry's command and arguments) runs the gateway, its `--config` value (or
/// `Some(None)` without one): a program named `toolregistry` (a path, `.exe`, or an npm
/// `toolregistry@VERSION`) followed by `mcp`, as `npx -y toolregistry mcp ...` and `uvx --from
/// toolregistry-rs toolregistry mcp ...` have it too.
pub fn runs_gateway(argv: &[&str]) -> Option<Option<String>> {
    let at = argv.windows(2).position(|w| {
        let base = w[0].rsplit(['/', '\\']).next().unwrap_or(w[0]);
        let base = base.split('@').next().unwrap_or(base);
        let base = base
            .strip_suffix(".exe")
            .or_else(|| base.strip_suffix(".js"))
            .or_else(|| base.strip_suffix(".cmd"))
            .unwrap_or(base);
        base == "toolregistry" && w[1] == "mcp"
    })?;
    let rest = &argv[at + 2..];
    for (i, a) in rest.iter().enumerate() {
        if *a == "--config" {
            return Some(rest.get(i + 1).map(|s| s.to_string()));
        }
        if let Some(v) = a.strip_prefix("--config=") {
            return Some(Some(v.to_string()));
        }
    }
    Some(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(client: Client, value: &str) -> Translated {
        client.translate(value).unwrap()
    }

    #[test]
    fn claude_desktop_values_are_literal() {
        let v = t(Client::ClaudeDesktop, "a${HOME}b$${X}");
        assert_eq!(v.text, "a$${HOME}b$$${X}");
        assert!(v.passed.is_empty() && !v.printable());
        // What the gateway reads back is the text as written.
        let back = crate::mcp::config::expand(&v.text, &|_| Some("WRONG".into())).unwrap();
        assert_eq!(back, "a${HOME}b$${X}");
    }

    #[test]
    fn claude_code_keeps_its_references() {
        let v = t(Client::ClaudeCode, "Bearer ${API_KEY}");
        assert_eq!(v.text, "Bearer ${API_KEY}");
        assert_eq!(v.passed, vec![("API_KEY".into(), "${API_KEY}".into())]);
        assert!(v.printable());
        let v = t(
            Client::ClaudeCode,
            "${API_BASE_URL:-https://api.example.com}/mcp",
        );
        assert_eq!(v.text, "${API_BASE_URL:-https://api.example.com}/mcp");
        assert_eq!(
            v.passed[0],
            ("API_BASE_URL".into(), "${API_BASE_URL:-}".into())
        );
        // Not a variable name: literal.
        assert_eq!(t(Client::ClaudeCode, "${not a var}").text, "$${not a var}");
        assert!(Client::ClaudeCode.translate("$${HOME}").is_err());
        assert!(!t(Client::ClaudeCode, "sk-live-1234567890").printable());
    }

    #[test]
    fn vscode_and_cursor_variables_are_handed_over() {
        let v = t(Client::VsCode, "${input:api-key}");
        assert_eq!(v.text, "${TOOLREGISTRY_INPUT_API_KEY}");
        assert_eq!(
            v.passed,
            vec![(
                "TOOLREGISTRY_INPUT_API_KEY".into(),
                "${input:api-key}".into()
            )]
        );
        let v = t(Client::VsCode, "${workspaceFolder}${/}data ${env:TOKEN}");
        let sep = std::path::MAIN_SEPARATOR;
        assert_eq!(
            v.text,
            format!("${{TOOLREGISTRY_WORKSPACEFOLDER}}{sep}data ${{TOKEN}}")
        );
        assert_eq!(v.passed[1], ("TOKEN".into(), "${env:TOKEN}".into()));
        let v = t(Client::Cursor, "${userHome}/x ${env:GH} ${unknown}");
        assert_eq!(v.text, "${TOOLREGISTRY_USERHOME}/x ${GH} $${unknown}");
        assert_eq!(t(Client::Cursor, "no vars").text, "no vars");
    }

    #[test]
    fn gateway_entries_are_recognised() {
        assert_eq!(
            runs_gateway(&["/opt/bin/toolregistry", "mcp", "--config", "/x.json"]),
            Some(Some("/x.json".into()))
        );
        assert_eq!(
            runs_gateway(&["npx", "-y", "toolregistry@0.1.0", "mcp", "--config=/y.json"]),
            Some(Some("/y.json".into()))
        );
        assert_eq!(
            runs_gateway(&["uvx", "--from", "toolregistry-rs", "toolregistry", "mcp"]),
            Some(None)
        );
        assert_eq!(runs_gateway(&["toolregistry", "discover", "mcp"]), None);
        assert_eq!(runs_gateway(&["npx", "mcp-server-toolregistry"]), None);
    }

    #[test]
    fn detection_by_shape_and_name() {
        let mcp = serde_json::json!({"mcpServers": {"a": {"command": "x"}}});
        let vars = serde_json::json!({"mcpServers": {"a": {"command": "${X}"}}});
        let d = |p: &str, v: &Value| Client::detect(Path::new(p), v, None).map(|r| r.0);
        assert_eq!(
            d("/h/claude_desktop_config.json", &vars),
            Ok(Client::ClaudeDesktop)
        );
        assert_eq!(d("/p/.mcp.json", &vars), Ok(Client::ClaudeCode));
        assert_eq!(d("/p/.cursor/mcp.json", &vars), Ok(Client::Cursor));
        assert_eq!(d("/p/other.json", &mcp), Ok(Client::ClaudeDesktop));
        assert!(d("/p/other.json", &vars).unwrap_err().contains("--client"));
        let vs = serde_json::json!({"inputs": [], "servers": {}});
        assert_eq!(
            Client::detect(Path::new("mcp.json"), &vs, None).unwrap().1,
            vec!["servers"]
        );
        let settings = serde_json::json!({"editor.tabSize": 2, "mcp": {"servers": {}}});
        assert_eq!(
            Client::detect(Path::new("settings.json"), &settings, None).unwrap(),
            (Client::VsCode, vec!["mcp", "servers"])
        );
        assert!(d("/p/x.json", &serde_json::json!({"a": 1})).is_err());
        let forced = Client::detect(Path::new("x.json"), &vars, Some(Client::ClaudeCode));
        assert_eq!(forced.unwrap().0, Client::ClaudeCode);
    }
}
