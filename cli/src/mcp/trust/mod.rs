//! Trust in downstream tool definitions: every definition is scanned ([`scan`]) and pinned
//! ([`pins`]) before a client can see it. A tool whose pinned definition changed ("rug pull"), a
//! new tool of a server under `"trust": "review"`, and a tool with a high-severity finding are
//! held in quarantine: not listed, not searchable, their calls answered with an error naming the
//! reason, until `toolregistry mcp approve`.

pub mod commands;
pub mod pins;
pub mod scan;

use pins::{Held, Pin, StateFile, StoredFinding};
use scan::{Context, Severity};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Mutex;

/// A server's `"trust"` in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Policy {
    /// A tool seen for the first time is pinned as it is; a change is quarantined.
    #[default]
    Pin,
    /// New tools wait for approval too.
    Review,
    /// No pinning (the scanner still quarantines high-severity findings).
    Off,
}

impl Policy {
    /// The config's value: `"pin"`, `"review"` or `"off"`.
    pub fn parse(v: &Value, at: &str) -> Result<Policy, String> {
        match v.as_str() {
            Some("pin") => Ok(Policy::Pin),
            Some("review") => Ok(Policy::Review),
            Some("off") => Ok(Policy::Off),
            _ => Err(format!("{at}: expected \"pin\", \"review\" or \"off\"")),
        }
    }
}

/// One tool of a server's listing, as the gate sees it.
pub struct Listed<'a> {
    /// The tool's name on its server.
    pub name: &'a str,
    /// The registered (namespaced) name, which other servers' text might use too.
    pub registered: &'a str,
    /// The whole `tools/list` entry.
    pub entry: &'a Value,
}

/// The gate every listing passes through.
pub struct Gate {
    /// Where pins are kept; `None` when pinning is off.
    path: Option<PathBuf>,
    /// Why pinning is off (no path, or the state file failed), if it is.
    off: Mutex<Option<String>>,
    /// Every server's tool names, own and registered, for the cross-server rule.
    names: Mutex<BTreeMap<String, Vec<String>>>,
    /// Serializes read-modify-write of the state file within this process.
    io: Mutex<()>,
    /// The last listing's findings per server, counted by rule and severity.
    counts: Mutex<BTreeMap<String, scan::Counts>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Gate {
    /// A gate keeping pins in `path` (checked now: a corrupt or unwritable file turns pinning
    /// off with its reason on stderr, and the proxy keeps going).
    pub fn new(path: Option<PathBuf>) -> Gate {
        let off = match &path {
            None => Some("no state file (set --state or HOME)".to_string()),
            Some(p) => pins::probe(p).err(),
        };
        if let Some(reason) = &off {
            eprintln!("toolregistry mcp: pinning is off: {reason}");
        }
        Gate {
            path: if off.is_none() { path } else { None },
            off: Mutex::new(off),
            names: Mutex::new(BTreeMap::new()),
            io: Mutex::new(()),
            counts: Mutex::new(BTreeMap::new()),
        }
    }

    /// `pinning on (FILE)` or `pinning off: WHY`.
    pub fn status(&self) -> String {
        match (&*lock(&self.off), &self.path) {
            (Some(why), _) => format!("pinning off: {why}"),
            (None, Some(p)) => format!("pinning on ({})", p.display()),
            (None, None) => "pinning off".into(),
        }
    }

    fn turn_off(&self, why: String) {
        eprintln!("toolregistry mcp: pinning is off: {why}");
        *lock(&self.off) = Some(why);
    }

    fn pinning(&self) -> Option<&PathBuf> {
        if lock(&self.off).is_some() {
            None
        } else {
            self.path.as_ref()
        }
    }

    /// Judges one server's whole listing. Returns, for each held tool (by its own name), the
    /// message its calls get. Updates the state file (new pins, quarantine) in one write.
    pub fn judge(&self, server: &str, policy: Policy, tools: &[Listed]) -> HashMap<String, String> {
        let context = self.context(server, tools);
        let _io = lock(&self.io);
        let path = self.pinning().cloned();
        let mut state = match &path {
            Some(p) => match pins::load(p) {
                Ok(s) => Some(s),
                Err(e) => {
                    self.turn_off(e);
                    None
                }
            },
            None => None,
        };
        let before = state.clone();
        let mut held = HashMap::new();
        let mut warned = BTreeMap::new();
        let mut listed = std::collections::HashSet::new();
        let mut counts = BTreeMap::new();
        for tool in tools {
            listed.insert(tool.name);
            let definition = pins::canonical(tool.entry);
            let hash = pins::hash(&definition);
            let findings = scan::scan_tool(tool.entry, &context);
            let high: Vec<_> = findings
                .iter()
                .filter(|f| f.severity == Severity::High)
                .collect();
            let servers = state
                .as_mut()
                .map(|s| s.servers.entry(server.to_string()).or_default());
            let pinned = servers
                .as_ref()
                .and_then(|s| s.pinned.get(tool.name))
                .cloned();
            let mut reasons = Vec::new();
            match (&pinned, policy) {
                // Pinned as it is now: approved (or clean when first pinned).
                (Some(p), _) if p.hash == hash => {}
                (Some(_), Policy::Pin | Policy::Review) => reasons.push("changed"),
                (None, Policy::Review) if servers.is_some() => reasons.push("new"),
                _ => {}
            }
            let approved = pinned.as_ref().is_some_and(|p| p.hash == hash);
            if !high.is_empty() && !approved {
                reasons.push("scan");
            }
            for (key, n) in scan::count(&findings) {
                *counts.entry(key).or_insert(0) += n;
            }
            let stored: Vec<StoredFinding> = findings.iter().map(StoredFinding::from).collect();
            if !stored.is_empty() {
                warned.insert(tool.name.to_string(), stored.clone());
            }
            let Some(s) = servers else {
                if !reasons.is_empty() {
                    held.insert(
                        tool.name.to_string(),
                        message(server, tool.name, &reasons, &findings, None),
                    );
                }
                continue;
            };
            if reasons.is_empty() {
                s.quarantined.remove(tool.name);
                if pinned.is_none() && policy != Policy::Off {
                    s.pinned
                        .insert(tool.name.to_string(), Pin { hash, definition });
                }
                continue;
            }
            held.insert(
                tool.name.to_string(),
                message(server, tool.name, &reasons, &findings, path.as_ref()),
            );
            s.quarantined.insert(
                tool.name.to_string(),
                Held {
                    hash,
                    definition,
                    reasons: reasons.iter().map(|r| r.to_string()).collect(),
                    findings: stored,
                },
            );
        }
        lock(&self.counts).insert(server.to_string(), counts);
        if let Some(state) = state.as_mut() {
            let s = state.servers.entry(server.to_string()).or_default();
            // What the server no longer lists cannot be approved; its pin stays (a tool that
            // comes back changed is still a change).
            s.quarantined
                .retain(|name, _| listed.contains(name.as_str()));
            s.warnings = warned;
            if state
                .servers
                .get(server)
                .is_some_and(|s| *s == pins::ServerState::default())
            {
                state.servers.remove(server);
            }
        }
        if let (Some(p), Some(state)) = (&path, &state) {
            if before.as_ref() != Some(state) {
                if let Err(e) = pins::save(p, state) {
                    self.turn_off(e);
                }
            }
        }
        held
    }

    /// The other servers' tool names, after recording this server's.
    fn context(&self, server: &str, tools: &[Listed]) -> Context {
        let mut names = lock(&self.names);
        let own: Vec<String> = tools
            .iter()
            .flat_map(|t| [t.name.to_string(), t.registered.to_string()])
            .collect();
        let own_set: std::collections::HashSet<&str> = own.iter().map(String::as_str).collect();
        let context = Context::new(
            names
                .iter()
                .filter(|(s, _)| s.as_str() != server)
                .flat_map(|(_, n)| n.iter().map(String::as_str))
                .filter(|n| !own_set.contains(n)),
        );
        names.insert(server.to_string(), own);
        context
    }

    /// Forgets a server that left the config (its pins stay in the state file).
    pub fn forget(&self, server: &str) {
        lock(&self.names).remove(server);
        lock(&self.counts).remove(server);
    }

    /// The state file as it is now, or why there is none (pinning off).
    pub fn state(&self) -> Result<StateFile, String> {
        let _io = lock(&self.io);
        match self.pinning() {
            Some(p) => pins::load(p),
            None => Err(self.status()),
        }
    }

    /// [`approve`] on the state file, as `toolregistry mcp approve` does (load, approve, one
    /// atomic write), serialized with this process's own listings' writes.
    pub fn approve(&self, servers: &[String], target: &str) -> Result<String, String> {
        let _io = lock(&self.io);
        let path = self.pinning().cloned().ok_or_else(|| self.status())?;
        let mut state = pins::load(&path)?;
        let out = approve(servers, target, &mut state)?;
        pins::save(&path, &state)?;
        Ok(out)
    }

    /// The scanner's findings on a server's last listing, as `rule (severity) N, ...`.
    pub fn findings(&self, server: &str) -> String {
        let counts = lock(&self.counts);
        let Some(c) = counts.get(server).filter(|c| !c.is_empty()) else {
            return "no findings".into();
        };
        c.iter()
            .map(|((rule, sev), n)| format!("{rule} ({}) {n}", severity_name(*sev)))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `high`, `medium` or `low`.
pub fn severity_name(s: Severity) -> &'static str {
    match s {
        Severity::High => "high",
        Severity::Medium => "medium",
        Severity::Low => "low",
    }
}

/// What a held tool's calls answer, and what stderr says when it is held.
fn message(
    server: &str,
    tool: &str,
    reasons: &[&str],
    findings: &[scan::Finding],
    state: Option<&PathBuf>,
) -> String {
    let mut why = Vec::new();
    for r in reasons {
        match *r {
            "changed" => why.push("its definition changed since it was pinned".to_string()),
            "new" => why.push("it is new and this server's trust is \"review\"".to_string()),
            _ => {
                for f in findings.iter().filter(|f| f.severity == Severity::High) {
                    why.push(format!("{} in {} ({:?})", f.rule, f.field, f.excerpt));
                }
            }
        }
    }
    let next = match state {
        Some(_) => format!(
            "; see `toolregistry mcp review --config FILE`, then `toolregistry mcp approve --config FILE {server}/{tool}`"
        ),
        None => String::new(),
    };
    format!(
        "tool {tool:?} of MCP server {server:?} is quarantined: {}{next}",
        why.join("; ")
    )
}

/// `toolregistry mcp review`: each quarantined tool with its reasons, findings and a diff of
/// the pinned definition against the new one; then the warnings. Only the config's servers.
pub fn review(servers: &[String], state: &StateFile) -> String {
    let mut out = String::new();
    let mut count = 0;
    for name in servers {
        let Some(s) = state.servers.get(name) else {
            continue;
        };
        for (tool, held) in &s.quarantined {
            count += 1;
            out.push_str(&format!(
                "{name}/{tool}  quarantined: {}\n",
                held.reasons.join(", ")
            ));
            for f in &held.findings {
                out.push_str(&format!(
                    "  {} {}  {} [{}..{}]  {:?}\n",
                    f.severity, f.rule, f.field, f.start, f.end, f.excerpt
                ));
            }
            let old = s
                .pinned
                .get(tool)
                .map_or(Value::Null, |p| p.definition.clone());
            out.push_str(&format!(
                "  pinned {} -> now {}\n",
                s.pinned.get(tool).map_or("(none)", |p| &p.hash),
                held.hash
            ));
            for line in pins::diff(&old, &held.definition).lines() {
                out.push_str(&format!("  {line}\n"));
            }
        }
    }
    for name in servers {
        let Some(s) = state.servers.get(name) else {
            continue;
        };
        for (tool, findings) in &s.warnings {
            if s.quarantined.contains_key(tool) {
                continue;
            }
            for f in findings {
                out.push_str(&format!(
                    "{name}/{tool}  warning: {} {}  {} [{}..{}]  {:?}\n",
                    f.severity, f.rule, f.field, f.start, f.end, f.excerpt
                ));
            }
        }
    }
    if count == 0 {
        out.insert_str(0, "nothing is quarantined\n");
    }
    out
}

/// `toolregistry mcp approve SERVER[/TOOL]`: pins the held definitions. Returns the lines to
/// print, or why nothing was approved.
pub fn approve(servers: &[String], target: &str, state: &mut StateFile) -> Result<String, String> {
    let (server, tool) = match servers.iter().find(|s| s.as_str() == target) {
        Some(s) => (s.clone(), None),
        None => servers
            .iter()
            .filter_map(|s| {
                target
                    .strip_prefix(s.as_str())?
                    .strip_prefix('/')
                    .map(|t| (s.clone(), Some(t)))
            })
            .max_by_key(|(s, _)| s.len())
            .ok_or_else(|| {
                format!("{target:?}: no server of that name in the config (SERVER or SERVER/TOOL)")
            })?,
    };
    let s = state
        .servers
        .get_mut(&server)
        .filter(|s| !s.quarantined.is_empty())
        .ok_or_else(|| format!("server {server:?} has nothing quarantined"))?;
    let chosen: Vec<String> = match tool {
        Some(t) if s.quarantined.contains_key(t) => vec![t.to_string()],
        Some(t) => return Err(format!("{server}/{t}: not quarantined")),
        None => s.quarantined.keys().cloned().collect(),
    };
    let mut out = String::new();
    for name in chosen {
        if let Some(held) = s.quarantined.remove(&name) {
            out.push_str(&format!("approved {server}/{name} ({})\n", held.hash));
            s.pinned.insert(
                name,
                Pin {
                    hash: held.hash,
                    definition: held.definition,
                },
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
