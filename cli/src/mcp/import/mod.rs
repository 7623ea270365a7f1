//! `toolregistry mcp import CONFIG...`: reads MCP clients' configs (Claude Desktop, Cursor, VS
//! Code, Claude Code) and makes the gateway's config of their servers; `--write FILE` writes it
//! (mode 0600: it may hold the secrets the client's config held), `--rewrite` then replaces the
//! servers in each client's config by one entry that runs the gateway with FILE.
//!
//! Nothing is written unless every config parses and every entry is understood; a literal value
//! of `env` or `headers` (a secret, as far as this can tell) is never printed, only written to
//! FILE. Entries the gateway cannot serve as the client did (an SSE server, a key such as
//! `envFile`, `cwd` or `sandbox`) stay in the client's config, each named on stderr with why.

mod clients;
pub mod jsonc;

pub use clients::Client;

use crate::mcp::files;
use serde_json::{Map, Value};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What `mcp import` was asked to do.
pub struct Options {
    /// The clients' configs.
    pub configs: Vec<PathBuf>,
    /// Write the gateway's config here (merged into it when it exists).
    pub write: Option<PathBuf>,
    /// Replace each client's servers by one entry that runs the gateway with `write`.
    pub rewrite: bool,
    /// The client, when a file's name does not tell.
    pub client: Option<String>,
    /// The gateway's program (and arguments before `mcp`) in the clients' entry; default: this
    /// program's path.
    pub command: Option<String>,
}

/// The keys of a server entry the clients share with the gateway (each translated on import).
const CLIENT_KEYS: &[&str] = &["type", "command", "args", "env", "url", "headers"];

/// The gateway's own keys of a server entry, copied as they are.
const GATEWAY_KEYS: &[&str] = &[
    "defer",
    "allow",
    "deny",
    "timeout_ms",
    "trust",
    "protocol_version",
];

/// The `"type"` spellings of a program on stdio and of streamable HTTP.
const STDIO_TYPES: &[&str] = &["stdio"];
const HTTP_TYPES: &[&str] = &[
    "http",
    "streamable-http",
    "streamableHttp",
    "streamable_http",
];

/// Stands for a withheld value in the printed config.
const WITHHELD: &str =
    "<withheld: a literal value from the client's config; --write FILE writes it>";

/// One client config, read.
struct Source {
    path: PathBuf,
    text: String,
    client: Client,
    servers_at: Vec<&'static str>,
    servers: Map<String, Value>,
}

/// What becomes of one server entry of a client's config.
enum Fate {
    /// Moves into the gateway's config.
    Import(Imported),
    /// Already runs the gateway (with this `--config`).
    Gateway(Option<String>),
    /// Stays in the client's config, for this reason.
    Keep(String),
}

/// An entry as the gateway's config has it.
struct Imported {
    name: String,
    entry: Map<String, Value>,
    /// Variables the client must hand the gateway: name and the client's expression.
    passed: Vec<(String, String)>,
    /// Paths of env and header values that must not be printed.
    withheld: Vec<String>,
}

/// Runs the command: returns what goes to stdout; notes go to stderr as they come.
pub fn run(options: &Options) -> Result<String, String> {
    let notes = |s: &str| eprintln!("toolregistry mcp import: {s}");
    if options.configs.is_empty() {
        return Err("import: name at least one client config".into());
    }
    if options.rewrite && options.write.is_none() {
        return Err(
            "import: --rewrite needs --write FILE (the gateway's config the client's entry runs)"
                .into(),
        );
    }
    let forced = options.client.as_deref().map(Client::parse).transpose()?;
    let write = options
        .write
        .as_deref()
        .map(std::path::absolute)
        .transpose()
        .map_err(|e| format!("--write: {e}"))?;
    // Read and understand everything before anything is written.
    let mut sources: Vec<Source> = Vec::new();
    for path in &options.configs {
        // The same file named twice is read once (a second rewrite would see the old text).
        let same = |p: &Path| std::fs::canonicalize(p).ok() == std::fs::canonicalize(path).ok();
        if sources.iter().any(|s| same(s.path.as_path())) {
            continue;
        }
        let source = read_source(path, forced)?;
        if let Some(w) = &write {
            if std::path::absolute(path).ok().as_ref() == Some(w) {
                return Err(format!(
                    "{}: is both a client's config and --write; the gateway's config is a file of its own",
                    path.display()
                ));
            }
        }
        sources.push(source);
    }
    let mut fates: Vec<Vec<(String, Fate)>> = Vec::new();
    for source in &sources {
        let mut list = Vec::new();
        for (name, value) in &source.servers {
            let at = format!("{}.{name}", source.servers_at.join("."));
            let fate = fate(source.client, name, value, &at)
                .map_err(|e| format!("{}: {e}", source.path.display()))?;
            match &fate {
                Fate::Import(i) if i.name != *name => notes(&format!(
                    "{}: {at}: imported as {:?} (a server's name is its tools' namespace: no spaces)",
                    source.path.display(),
                    i.name
                )),
                Fate::Import(_) => {}
                Fate::Gateway(config) => notes(&format!(
                    "{}: {at}: already runs the gateway{}; skipped",
                    source.path.display(),
                    config
                        .as_deref()
                        .map(|c| format!(" (--config {c})"))
                        .unwrap_or_default()
                )),
                Fate::Keep(reason) => notes(&format!(
                    "{}: {at}: {reason}: left in the client's config",
                    source.path.display()
                )),
            }
            list.push((name.clone(), fate));
        }
        fates.push(list);
    }
    // The gateway's config: FILE's servers, then the imported ones.
    let existing = match &write {
        Some(w) if w.exists() => Some(read_gateway_config(w)?),
        _ => None,
    };
    let mut merged = existing.clone().unwrap_or_default();
    let mut added = Vec::new();
    let mut withheld = Vec::new();
    for (source, list) in sources.iter().zip(&fates) {
        for (_, fate) in list {
            let Fate::Import(i) = fate else { continue };
            for (name, expr) in &i.passed {
                notes(&format!(
                    "{}: {:?} reads ${{{name}}} from the gateway's environment; the client's entry for the gateway sets it to {expr:?}",
                    source.path.display(),
                    i.name
                ));
            }
            match merged.get(&i.name) {
                Some(v) if v.as_object() == Some(&i.entry) => {}
                Some(_) => {
                    return Err(format!(
                        "{}: server {:?} differs from the one of that name already imported{}; \
                         rename one of them (nothing was written)",
                        source.path.display(),
                        i.name,
                        write
                            .as_ref()
                            .filter(|_| existing.as_ref().is_some_and(|e| e.contains_key(&i.name)))
                            .map(|w| format!(" into {}", w.display()))
                            .unwrap_or_default()
                    ));
                }
                None => {
                    merged.insert(i.name.clone(), Value::Object(i.entry.clone()));
                    added.push(i.name.clone());
                    withheld.extend(i.withheld.iter().cloned());
                }
            }
        }
    }
    // The result must be a config the gateway loads. Each variable stands for a value that is
    // valid wherever a variable may be (a command, an argument, a header, the start of a URL).
    let gateway = serde_json::json!({ "mcpServers": merged });
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(&gateway).unwrap_or_default()
    );
    crate::mcp::config::parse_with(&text, &|_| Some("http://x".into()))
        .map_err(|e| format!("the gateway's config would not load: {e} (nothing was written)"))?;
    let Some(write) = write else {
        for w in &withheld {
            notes(&format!(
                "{w}: a literal value, withheld here; --write FILE writes it (mode 0600)"
            ));
        }
        return Ok(printable(&gateway, &fates));
    };
    let mut out = String::new();
    if existing.is_some() && added.is_empty() {
        let _ = writeln!(
            out,
            "{}: unchanged (nothing new to import)",
            write.display()
        );
    } else {
        files::write_atomic(&write, text.as_bytes(), Some(0o600))
            .map_err(|e| format!("{}: {e}", write.display()))?;
        let _ = writeln!(
            out,
            "wrote {} (mode 0600): {} servers{}",
            write.display(),
            merged.len(),
            if added.is_empty() {
                String::new()
            } else {
                format!(", new: {}", added.join(", "))
            }
        );
    }
    let argv = gateway_argv(options.command.as_deref(), &write)?;
    for (source, list) in sources.iter().zip(&fates) {
        let passed = passed_of(list);
        if options.rewrite {
            out.push_str(&rewrite(source, list, &argv, &write, &passed)?);
        } else {
            let entry = source.client.gateway_entry(&argv, &passed, None);
            let _ = writeln!(
                out,
                "the entry for {} ({}), in place of the servers it imported:\n{}",
                source.path.display(),
                source.client.label(),
                serde_json::to_string_pretty(&serde_json::json!({ "toolregistry": entry }))
                    .unwrap_or_default()
            );
        }
    }
    Ok(out)
}

/// Reads and parses a client's config.
fn read_source(path: &Path, forced: Option<Client>) -> Result<Source, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value = jsonc::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let (client, servers_at) =
        Client::detect(path, &value, forced).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut v = &value;
    for key in &servers_at {
        v = &v[key];
    }
    let servers = v.as_object().cloned().unwrap_or_default();
    Ok(Source {
        path: path.to_path_buf(),
        text,
        client,
        servers_at,
        servers,
    })
}

/// The gateway's config already at FILE: its servers.
fn read_gateway_config(path: &Path) -> Result<Map<String, Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let value = jsonc::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    value
        .get("mcpServers")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| {
            format!(
                "{}: exists and is not a gateway config ({{\"mcpServers\": ...}}); --write \
                 merges into a gateway config or makes a new file",
                path.display()
            )
        })
}

/// Decides what becomes of one entry. Errors are entries no client would take (wrong types).
fn fate(client: Client, name: &str, value: &Value, at: &str) -> Result<Fate, String> {
    let obj = value
        .as_object()
        .ok_or_else(|| format!("{at}: expected an object"))?;
    let string = |key: &str| -> Result<Option<&str>, String> {
        match obj.get(key) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(format!("{at}.{key}: expected a string")),
        }
    };
    let strings = |key: &str| -> Result<Vec<&str>, String> {
        match obj.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) => a
                .iter()
                .map(Value::as_str)
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| format!("{at}.{key}: expected an array of strings")),
            Some(_) => Err(format!("{at}.{key}: expected an array of strings")),
        }
    };
    let table = |key: &str| -> Result<Vec<(&str, &str)>, String> {
        match obj.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Object(o)) => o
                .iter()
                // The value may be a secret: the message names the key only.
                .map(|(k, v)| {
                    v.as_str()
                        .map(|v| (k.as_str(), v))
                        .ok_or_else(|| format!("{at}.{key}.{k}: expected a string"))
                })
                .collect(),
            Some(_) => Err(format!("{at}.{key}: expected an object of strings")),
        }
    };
    let command = string("command")?;
    let args = strings("args")?;
    let url = string("url")?;
    let env = table("env")?;
    let headers = table("headers")?;
    let kind = string("type")?;
    if let Some(command) = command {
        let argv: Vec<&str> = std::iter::once(command)
            .chain(args.iter().copied())
            .collect();
        if let Some(config) = clients::runs_gateway(&argv) {
            return Ok(Fate::Gateway(config));
        }
    }
    let http = match kind {
        None => url.is_some() && command.is_none(),
        Some(t) if STDIO_TYPES.contains(&t) => false,
        Some(t) if HTTP_TYPES.contains(&t) => true,
        Some("sse") => {
            return Ok(Fate::Keep(
                "an SSE server (\"type\": \"sse\"); the gateway speaks streamable HTTP to servers"
                    .into(),
            ));
        }
        Some(t) => {
            return Ok(Fate::Keep(format!(
                "\"type\": {t:?} is not a transport the gateway speaks"
            )));
        }
    };
    let mut unserved: Vec<&str> = obj
        .keys()
        .map(String::as_str)
        .filter(|k| !CLIENT_KEYS.contains(k) && !GATEWAY_KEYS.contains(k))
        .collect();
    unserved.sort_unstable();
    if !unserved.is_empty() {
        let why = if unserved.contains(&"envFile") {
            " (the gateway reads no env file: put the variables in \"env\")"
        } else {
            ""
        };
        return Ok(Fate::Keep(format!(
            "has {}, which the gateway does not take{why}",
            unserved
                .iter()
                .map(|k| format!("{k:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    match (http, command, url) {
        (false, Some(c), _) if !c.is_empty() => {}
        (false, _, _) => return Err(format!("{at}.command: missing")),
        (true, _, Some(_)) => {}
        (true, _, None) => return Err(format!("{at}.url: missing")),
    }
    if (http && command.is_some()) || (!http && url.is_some()) {
        return Err(format!("{at}: has both \"command\" and \"url\"; give one"));
    }
    // Translate every value; one the gateway cannot write keeps the entry in the client.
    let mut passed: Vec<(String, String)> = Vec::new();
    let mut withheld = Vec::new();
    let mut tr = |value: &str, path: String, secret: bool| -> Result<String, String> {
        let t = client
            .translate(value)
            .map_err(|e| format!("{path}: {e}"))?;
        for p in t.passed.iter() {
            if !passed.iter().any(|(n, _)| *n == p.0) {
                passed.push(p.clone());
            }
        }
        if secret && !t.printable() {
            withheld.push(path);
        }
        Ok(t.text)
    };
    let translated = (|| -> Result<Map<String, Value>, String> {
        let mut entry = Map::new();
        if http {
            entry.insert("type".into(), "http".into());
            entry.insert(
                "url".into(),
                tr(url.unwrap_or_default(), format!("{at}.url"), false)?.into(),
            );
            if !headers.is_empty() {
                let mut h = Map::new();
                for (k, v) in &headers {
                    h.insert(
                        k.to_string(),
                        tr(v, format!("{at}.headers.{k}"), true)?.into(),
                    );
                }
                entry.insert("headers".into(), Value::Object(h));
            }
        } else {
            entry.insert(
                "command".into(),
                tr(command.unwrap_or_default(), format!("{at}.command"), false)?.into(),
            );
            if !args.is_empty() {
                let mut a = Vec::new();
                for (i, v) in args.iter().enumerate() {
                    a.push(Value::from(tr(v, format!("{at}.args[{i}]"), false)?));
                }
                entry.insert("args".into(), Value::Array(a));
            }
            if !env.is_empty() {
                let mut e = Map::new();
                for (k, v) in &env {
                    e.insert(k.to_string(), tr(v, format!("{at}.env.{k}"), true)?.into());
                }
                entry.insert("env".into(), Value::Object(e));
            }
        }
        for &key in GATEWAY_KEYS {
            if let Some(v) = obj.get(key) {
                entry.insert(key.into(), v.clone());
            }
        }
        Ok(entry)
    })();
    let entry = match translated {
        Ok(entry) => entry,
        Err(reason) => return Ok(Fate::Keep(reason)),
    };
    let clean: String = name
        .split(|c: char| c.is_whitespace())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join("-")
        .chars()
        .filter(|c| !c.is_control())
        .collect();
    toolregistry::tool::validate_name(&clean, at).map_err(|e| e.to_string())?;
    Ok(Fate::Import(Imported {
        name: clean,
        entry,
        passed,
        withheld,
    }))
}

/// The gateway's config to print: withheld values replaced.
fn printable(gateway: &Value, fates: &[Vec<(String, Fate)>]) -> String {
    let mut shown = gateway.clone();
    for list in fates {
        for (_, fate) in list {
            let Fate::Import(i) = fate else { continue };
            let Some(entry) = shown["mcpServers"].get_mut(&i.name) else {
                continue;
            };
            for path in &i.withheld {
                // path is "<servers>.<name>.env.KEY" or "...headers.KEY"
                for table in ["env", "headers"] {
                    let marker = format!(".{table}.");
                    if let Some(pos) = path.rfind(&marker) {
                        let key = &path[pos + marker.len()..];
                        if let Some(v) = entry.get_mut(table).and_then(|t| t.get_mut(key)) {
                            *v = WITHHELD.into();
                        }
                    }
                }
            }
        }
    }
    format!(
        "{}\n",
        serde_json::to_string_pretty(&shown).unwrap_or_default()
    )
}

/// The variables one client's imported servers need from it, as the entry's `env`.
fn passed_of(list: &[(String, Fate)]) -> Map<String, Value> {
    let mut env = Map::new();
    for (_, fate) in list {
        if let Fate::Import(i) = fate {
            for (name, expr) in &i.passed {
                env.entry(name.clone())
                    .or_insert_with(|| expr.clone().into());
            }
        }
    }
    env
}

/// The program and arguments of the clients' entry: `--command` (split at spaces) or this
/// program, then `mcp --config FILE`.
fn gateway_argv(command: Option<&str>, write: &Path) -> Result<Vec<String>, String> {
    let mut argv: Vec<String> = match command {
        Some(c) => c.split_whitespace().map(str::to_string).collect(),
        None => {
            let exe = std::env::current_exe().map_err(|e| format!("this program's path: {e}"))?;
            let exe = exe.to_string_lossy().into_owned();
            if exe.contains("/_npx/") || exe.contains("/archive-v0/") {
                eprintln!(
                    "toolregistry mcp import: the client's entry runs {exe}, a package \
                     manager's cache that may be cleaned; pass --command (e.g. --command \
                     \"npx -y toolregistry\") to run it another way"
                );
            }
            vec![exe]
        }
    };
    if argv.is_empty() {
        return Err("--command: empty".into());
    }
    argv.extend([
        "mcp".into(),
        "--config".into(),
        write.to_string_lossy().into_owned(),
    ]);
    Ok(argv)
}

/// `--rewrite` of one client's config: its servers become the gateway's entry plus the entries
/// left to it, the rest of the file unchanged byte for byte; a backup first, then an atomic
/// replace with the same permissions. Nothing happens when the text would not change.
fn rewrite(
    source: &Source,
    list: &[(String, Fate)],
    argv: &[String],
    write: &Path,
    passed: &Map<String, Value>,
) -> Result<String, String> {
    let path = &source.path;
    let ours = |config: &Option<String>| {
        config
            .as_deref()
            .and_then(|c| std::path::absolute(c).ok())
            .is_some_and(|c| c == write)
    };
    let mut servers = Map::new();
    let mut placed = false;
    let mut moved = Vec::new();
    let mut kept = Vec::new();
    for (name, fate) in list {
        match fate {
            Fate::Import(_) => moved.push(name.clone()),
            Fate::Gateway(config) if ours(config) && !placed => {
                let existing = source.servers.get(name).and_then(Value::as_object);
                let entry = source.client.gateway_entry(argv, passed, existing);
                servers.insert(name.clone(), Value::Object(entry));
                placed = true;
            }
            Fate::Gateway(config) if !ours(config) => {
                return Err(format!(
                    "{}: {:?} already runs the gateway with {}; import into that config \
                     (--write it) or remove the entry (nothing was rewritten)",
                    path.display(),
                    name,
                    config
                        .as_deref()
                        .map_or("no --config".into(), |c| format!("--config {c}"))
                ));
            }
            Fate::Gateway(_) | Fate::Keep(_) => {
                kept.push(name.clone());
                servers.insert(name.clone(), source.servers[name].clone());
            }
        }
    }
    if !placed {
        let mut key = "toolregistry".to_string();
        let mut n = 2;
        while servers.contains_key(&key) {
            key = format!("toolregistry-{n}");
            n += 1;
        }
        let entry = source.client.gateway_entry(argv, passed, None);
        let mut first = Map::new();
        first.insert(key, Value::Object(entry));
        first.extend(servers);
        servers = first;
    }
    let span = jsonc::span(&source.text, &source.servers_at).ok_or_else(|| {
        format!(
            "{}: the servers object moved while it was read",
            path.display()
        )
    })?;
    let (indent, step) = jsonc::indentation(&source.text, span.start);
    let mut text = String::with_capacity(source.text.len() + 256);
    text.push_str(&source.text[..span.start]);
    text.push_str(&jsonc::pretty_at(&Value::Object(servers), &indent, &step));
    text.push_str(&source.text[span.end..]);
    if text == source.text {
        return Ok(format!(
            "{}: unchanged (already behind the gateway)\n",
            path.display()
        ));
    }
    // A link (a dotfile kept elsewhere) stays a link: its target is what changes.
    let real = std::fs::canonicalize(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mode = files::mode_of(&real);
    let backup = files::backup(&real).map_err(|e| format!("{}: backup: {e}", path.display()))?;
    files::write_atomic(&real, text.as_bytes(), mode).map_err(|e| {
        format!(
            "{}: {e} (the original is in {})",
            path.display(),
            backup.display()
        )
    })?;
    Ok(format!(
        "rewrote {} ({}; backup {}): {} moved behind the gateway{}\n",
        path.display(),
        source.client.label(),
        backup.display(),
        if moved.is_empty() {
            "no server".into()
        } else {
            moved.join(", ")
        },
        if kept.is_empty() {
            String::new()
        } else {
            format!(", left as they were: {}", kept.join(", "))
        }
    ))
}

#[cfg(test)]
mod tests;
