//! The proxy's catalog: every downstream server's tools in one [`Registry`] (each server's name is
//! its tools' namespace) and the route from a registered name back to its server; and, per client
//! session, a [`View`]: the tool list that client sees, kept by its own [`Conversation`] (core
//! tools, the built-ins, then the tools its searches found, appended in the order they were
//! found). One client's search never changes another's list.
//!
//! Downstream definitions are untrusted: an entry that is not a valid tool, is too large, or
//! would take a name another server already has is skipped with its reason on stderr.

use super::config::ServerConfig;
use super::trust::{Gate, Listed};
use super::usage::SessionTasks;
use rmcp::model::Tool as McpTool;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::sync::RwLock;
use toolregistry::{Conversation, ConversationOptions, Registry, Tool};

/// Largest tool definition taken from a server, as JSON: the library bounds the searchable text
/// (1 MiB); this bounds the schema the client is sent as well.
pub const MAX_ENTRY_BYTES: usize = 1024 * 1024;

/// Most tools taken from one server; the rest are skipped.
pub const MAX_TOOLS_PER_SERVER: usize = 10_000;

/// Where a registered name's calls go.
#[derive(Debug, Clone)]
pub struct Route {
    /// Index of the server in the config's order.
    pub server: usize,
    /// The server's name (for messages).
    pub owner: String,
    /// The tool's name on its server.
    pub tool: String,
    /// The definition the client is shown: the server's own, under the registered name.
    pub listed: McpTool,
}

/// The registry and the routes, shared by every client session.
pub struct Catalog {
    registry: Registry,
    routes: RwLock<HashMap<String, Route>>,
    /// Every listing passes the trust gate; what it holds back is here, by registered name,
    /// with the server's index and the message its calls get.
    gate: Gate,
    held: RwLock<HashMap<String, (usize, String)>>,
    /// Servers stopped by a config reload: a listing of theirs still under way is ignored.
    retired: RwLock<HashSet<usize>>,
    /// Each server's last `tools/list` answer, as it came (the console shows what the allow and
    /// deny lists left out, and judges it again after an approval).
    listings: RwLock<HashMap<usize, Vec<Value>>>,
    /// The client sessions' tasks (co-use), recorded into the registry's usage when on.
    tasks: SessionTasks,
}

/// One client session's tool list (see the module doc).
pub struct View {
    conversation: Conversation,
}

/// A poisoned lock means a panic elsewhere already failed a request; the data is still whole
/// (every update below replaces entries, never leaves one half-written).
fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Prints why a tool of a server was skipped.
fn skip(server: &ServerConfig, what: &str, reason: &str) {
    eprintln!(
        "toolregistry mcp: server {:?}: skipped {what}: {}",
        server.name,
        server.redact(reason)
    );
}

impl Catalog {
    /// A catalog over `registry` (discovery enabled); every listing passes `gate`; with
    /// `usage`, the client sessions' tasks are recorded into the registry's usage.
    pub fn new(registry: Registry, gate: Gate, usage: bool) -> Result<Catalog, String> {
        Ok(Catalog {
            tasks: SessionTasks::new(usage.then(|| registry.share())),
            registry,
            routes: RwLock::new(HashMap::new()),
            gate,
            held: RwLock::new(HashMap::new()),
            retired: RwLock::new(HashSet::new()),
            listings: RwLock::new(HashMap::new()),
        })
    }

    /// A new client session's view: nothing found yet.
    pub fn view(&self) -> Result<View, String> {
        // The built-ins list the deferred tools in their descriptions: capped, since a proxy in
        // front of a dozen servers may defer thousands.
        let options = ConversationOptions::from_json(Some(
            r#"{"api_format": "anthropic", "mode": "summaries", "summary_max_tokens": 2000}"#,
        ))
        .map_err(|e| e.to_string())?;
        let conversation = Conversation::new(&self.registry, options).map_err(|e| e.to_string())?;
        Ok(View { conversation })
    }

    /// The registry (discover_tools and call_deferred run on it).
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The client sessions' tasks (co-use).
    pub fn tasks(&self) -> &SessionTasks {
        &self.tasks
    }

    /// Where calls of `name` go, if it is a downstream tool.
    pub fn route(&self, name: &str) -> Option<Route> {
        read(&self.routes).get(name).cloned()
    }

    /// The trust gate (for its status).
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// Why `name` is quarantined, if it is: the error result its calls get.
    pub fn held(&self, name: &str) -> Option<String> {
        read(&self.held).get(name).map(|(_, m)| m.clone())
    }

    /// Takes every tool of server `index` out (it left the config); later listings of it are
    /// ignored.
    pub fn remove_server(&self, index: usize) {
        write(&self.retired).insert(index);
        let mut routes = write(&self.routes);
        let names: Vec<String> = routes
            .iter()
            .filter(|(_, r)| r.server == index)
            .map(|(n, _)| n.clone())
            .collect();
        for name in names {
            routes.remove(&name);
            if let Err(e) = self.registry.unregister(&name) {
                eprintln!("toolregistry mcp: unregistering {name:?}: {e}");
            }
        }
        write(&self.held).retain(|_, (s, _)| *s != index);
        write(&self.listings).remove(&index);
    }

    /// Server `index`'s last `tools/list` answer (empty before its first).
    pub fn listing(&self, index: usize) -> Vec<Value> {
        read(&self.listings)
            .get(&index)
            .cloned()
            .unwrap_or_default()
    }

    /// Server `index`'s registered tools' routes, in name order.
    pub fn routes_of(&self, index: usize) -> Vec<(String, Route)> {
        let mut out: Vec<(String, Route)> = read(&self.routes)
            .iter()
            .filter(|(_, r)| r.server == index)
            .map(|(n, r)| (n.clone(), r.clone()))
            .collect();
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// Server `index`'s quarantined tools: registered name and the message its calls get.
    pub fn held_of(&self, index: usize) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = read(&self.held)
            .iter()
            .filter(|(_, (s, _))| *s == index)
            .map(|(n, (_, m))| (n.clone(), m.clone()))
            .collect();
        out.sort();
        out
    }

    /// How many tools of server `index` are quarantined.
    pub fn held_count(&self, index: usize) -> usize {
        read(&self.held)
            .values()
            .filter(|(s, _)| *s == index)
            .count()
    }

    /// How many tools server `index` has registered.
    pub fn count(&self, index: usize) -> usize {
        read(&self.routes)
            .values()
            .filter(|r| r.server == index)
            .count()
    }

    /// Replaces server `index`'s tools with this `tools/list` answer (every page). Returns
    /// whether anything the client sees may have changed.
    pub fn sync(&self, index: usize, server: &ServerConfig, entries: &[Value]) -> bool {
        let mut routes = write(&self.routes);
        if read(&self.retired).contains(&index) {
            return false;
        }
        write(&self.listings).insert(index, entries.to_vec());
        let mut fresh: Vec<(Tool, Route)> = Vec::new();
        let mut raw: Vec<&Value> = Vec::new();
        let mut seen = HashSet::new();
        for (i, entry) in entries.iter().enumerate() {
            let label = match entry.get("name").and_then(Value::as_str) {
                Some(n) => format!("tool #{i} {:?}", toolregistry::limits::cut(n, 80)),
                None => format!("tool #{i}"),
            };
            if fresh.len() >= MAX_TOOLS_PER_SERVER {
                skip(
                    server,
                    &format!("{} tools", entries.len() - i),
                    &format!("more than {MAX_TOOLS_PER_SERVER} tools"),
                );
                break;
            }
            match accept(index, server, entry) {
                Ok(None) => {}
                Ok(Some((tool, route))) => {
                    let name = tool.name().to_string();
                    if let Some(other) = routes.get(&name).filter(|r| r.server != index) {
                        skip(
                            server,
                            &label,
                            &format!("{name:?} is already a tool of server {:?}", other.owner),
                        );
                    } else if !seen.insert(name.clone()) {
                        skip(server, &label, &format!("{name:?} is listed twice"));
                    } else {
                        fresh.push((tool, route));
                        raw.push(entry);
                    }
                }
                Err(reason) => skip(server, &label, &reason),
            }
        }
        // The trust gate: a held tool is left out as if the server had not listed it.
        let listing: Vec<Listed> = fresh
            .iter()
            .zip(&raw)
            .map(|((tool, route), entry)| Listed {
                name: &route.tool,
                registered: tool.name(),
                entry,
            })
            .collect();
        let verdict = self.gate.judge(&server.name, server.trust, &listing);
        let mut held = write(&self.held);
        held.retain(|_, (s, _)| *s != index);
        fresh.retain(|(tool, route)| match verdict.get(&route.tool) {
            Some(message) => {
                eprintln!("toolregistry mcp: {}", server.redact(message));
                seen.remove(tool.name());
                held.insert(tool.name().to_string(), (index, message.clone()));
                false
            }
            None => true,
        });
        drop(held);
        let gone: Vec<String> = routes
            .iter()
            .filter(|(name, r)| r.server == index && !seen.contains(*name))
            .map(|(name, _)| name.clone())
            .collect();
        let changed = !gone.is_empty()
            || fresh.iter().any(|(t, r)| {
                routes
                    .get(t.name())
                    .is_none_or(|old| old.listed != r.listed)
            });
        for name in gone {
            routes.remove(&name);
            if let Err(e) = self.registry.unregister(&name) {
                eprintln!("toolregistry mcp: unregistering {name:?}: {e}");
            }
        }
        let (tools, new_routes): (Vec<Tool>, Vec<Route>) = fresh.into_iter().unzip();
        let names: Vec<String> = tools.iter().map(|t| t.name().to_string()).collect();
        // All at once (one index update); if the library refuses the batch, one at a time so
        // that only the refused tools are left out.
        let registered: Vec<bool> = match self.registry.register(tools.clone()) {
            Ok(_) => vec![true; tools.len()],
            Err(_) => tools
                .into_iter()
                .map(|t| {
                    let name = t.name().to_string();
                    self.registry
                        .register(vec![t])
                        .map_err(|e| skip(server, &format!("tool {name:?}"), &e.to_string()))
                        .is_ok()
                })
                .collect(),
        };
        for ((name, route), ok) in names.into_iter().zip(new_routes).zip(registered) {
            if ok {
                routes.insert(name, route);
            } else if routes.remove(&name).is_some() {
                let _ = self.registry.unregister(&name);
            }
        }
        changed
    }
}

impl View {
    /// The tools this client sees: the core tools, `discover_tools` and `call_deferred`, then
    /// the deferred tools it found so far in the order they were found.
    pub fn listed(&self, catalog: &Catalog) -> Result<Vec<McpTool>, String> {
        let text = self.conversation.tools_json().map_err(|e| e.to_string())?;
        let value: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        let routes = read(&catalog.routes);
        let mut out = Vec::new();
        for t in value["tools"].as_array().into_iter().flatten() {
            let name = t["name"].as_str().unwrap_or_default();
            match routes.get(name) {
                Some(route) => out.push(route.listed.clone()),
                // A built-in, in the library's Anthropic shape.
                None => out.push(
                    serde_json::from_value(json!({
                        "name": name,
                        "description": t["description"],
                        "inputSchema": t["input_schema"],
                    }))
                    .map_err(|e| format!("built-in {name:?}: {e}"))?,
                ),
            }
        }
        Ok(out)
    }

    /// Adds the deferred tools of a search answer (`discover_tools`' JSON) to the client's view.
    /// Returns whether the view grew.
    pub fn load_found(&self, answer: &str) -> bool {
        let Ok(Value::Array(hits)) = serde_json::from_str::<Value>(answer) else {
            return false;
        };
        let names: Vec<String> = hits
            .iter()
            .filter(|h| h["deferred"] == Value::Bool(true))
            .filter_map(|h| h["name"].as_str().map(str::to_string))
            .collect();
        self.load(&names)
    }

    /// Adds these deferred tools to the client's view; returns whether it grew.
    pub fn load(&self, names: &[String]) -> bool {
        let before = self.conversation.loaded().map_or(0, |l| l.len());
        // A name unregistered since the search is NOT_FOUND and loads nothing: one at a time.
        for name in names {
            let _ = self.conversation.reveal(std::slice::from_ref(name));
        }
        self.conversation.loaded().map_or(0, |l| l.len()) > before
    }
}

/// The library tool and the route for one `tools/list` entry; `None` when the allow/deny lists
/// leave it out; the reason when it is not a valid tool.
fn accept(
    index: usize,
    server: &ServerConfig,
    entry: &Value,
) -> Result<Option<(Tool, Route)>, String> {
    let obj = entry.as_object().ok_or("not an object")?;
    let name = obj
        .get("name")
        .and_then(Value::as_str)
        .ok_or("\"name\" is missing or not a string")?;
    if !server.admits(name) {
        return Ok(None);
    }
    let size = serde_json::to_string(entry).map_or(usize::MAX, |s| s.len());
    if size > MAX_ENTRY_BYTES {
        return Err(format!(
            "{size} bytes of definition; the limit is {MAX_ENTRY_BYTES}"
        ));
    }
    let schema = obj.get("inputSchema").ok_or("\"inputSchema\" is missing")?;
    // Only the fields the library reads, so that no other key of the entry changes its meaning.
    let tool = Tool::from_value(
        &json!({
            "name": name,
            "description": obj.get("description").cloned().unwrap_or(Value::Null),
            "inputSchema": schema,
            "namespace": server.name,
            "metadata": {"defer": server.defer},
        }),
        "tool",
    )
    .map_err(|e| e.to_string())?;
    let mut listed = entry.clone();
    listed["name"] = Value::String(tool.name().to_string());
    let listed: McpTool = serde_json::from_value(listed).map_err(|e| e.to_string())?;
    Ok(Some((
        tool,
        Route {
            server: index,
            owner: server.name.clone(),
            tool: name.to_string(),
            listed,
        },
    )))
}
