//! The console's JSON API (docs/mcp-console.md): what the page polls, and the two changes it
//! makes, Approve and Sign in. Every answer is JSON; every string in it passes each server's
//! redaction.

use super::{Console, activity, query_value};
use crate::mcp::downstream::State as Run;
use crate::mcp::oauth;
use crate::mcp::trust::pins;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Instant;
use toolregistry::DiscoverRequest;

/// Shown instead of every `env` and `headers` value of the config.
pub const MASK: &str = "••••••";

/// Most hits a search answers.
const MAX_TOP_K: usize = 50;

/// Largest body of a POST (a target or server name).
const MAX_BODY: usize = 64 * 1024;

type Shared = State<Arc<Console>>;

/// `value` with every string passed through every running server's redaction.
fn redacted(console: &Console, mut value: Value) -> Value {
    let servers = console.context.servers.live();
    fn walk(v: &mut Value, redact: &dyn Fn(&str) -> String) {
        match v {
            Value::String(s) => *s = redact(s),
            Value::Array(a) => a.iter_mut().for_each(|x| walk(x, redact)),
            Value::Object(o) => o.values_mut().for_each(|x| walk(x, redact)),
            _ => {}
        }
    }
    let redact = |s: &str| {
        servers
            .iter()
            .fold(s.to_string(), |acc, srv| srv.config.redact(&acc))
    };
    walk(&mut value, &redact);
    value
}

fn answer(console: &Console, status: StatusCode, value: Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        redacted(console, value).to_string(),
    )
        .into_response()
}

/// `GET /api/session`: the CSRF token POSTs carry (for scripts; the page has it already).
pub async fn session(State(c): Shared) -> Response {
    let body = json!({"csrf": c.csrf, "csrf_header": super::CSRF_HEADER, "version": toolregistry::VERSION});
    answer(&c, StatusCode::OK, body)
}

/// `GET /api/overview`: servers, tools, quarantine, calls and the last reload, in one answer.
pub async fn overview(State(c): Shared) -> Response {
    let body = json!({
        "servers": servers_json(&c),
        "tools": tools_json(&c),
        "quarantine": quarantine_json(&c),
        "calls": activity::calls_json(),
        "reload": activity::reload_json(),
        "pinning": c.context.catalog.gate().status(),
    });
    answer(&c, StatusCode::OK, body)
}

/// `GET /api/servers`.
pub async fn servers(State(c): Shared) -> Response {
    let body = servers_json(&c);
    answer(&c, StatusCode::OK, body)
}

/// `GET /api/tools`.
pub async fn tools(State(c): Shared) -> Response {
    let body = tools_json(&c);
    answer(&c, StatusCode::OK, body)
}

/// `GET /api/quarantine`.
pub async fn quarantine(State(c): Shared) -> Response {
    let body = quarantine_json(&c);
    answer(&c, StatusCode::OK, body)
}

/// `GET /api/calls`.
pub async fn calls(State(c): Shared) -> Response {
    answer(&c, StatusCode::OK, activity::calls_json())
}

/// `GET /api/config`: the config file with every `env` and `headers` value masked, and the
/// last live reload's outcome.
pub async fn config(State(c): Shared) -> Response {
    let path = &c.context.config;
    let body = match std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str::<Value>(&t).map_err(|e| format!("not JSON: {e}")))
    {
        Ok(mut value) => {
            mask(&mut value);
            json!({"path": path.display().to_string(), "config": value, "reload": activity::reload_json()})
        }
        Err(e) => {
            json!({"path": path.display().to_string(), "error": e, "reload": activity::reload_json()})
        }
    };
    answer(&c, StatusCode::OK, body)
}

/// Every value of every server's `env` and `headers` replaced by [`MASK`] (the keys stay).
pub fn mask(config: &mut Value) {
    let Some(servers) = config.get_mut("mcpServers").and_then(Value::as_object_mut) else {
        return;
    };
    for server in servers.values_mut() {
        for key in ["env", "headers"] {
            match server.get_mut(key) {
                Some(Value::Object(o)) => o.values_mut().for_each(|v| *v = MASK.into()),
                Some(v) if !v.is_null() => *v = MASK.into(),
                _ => {}
            }
        }
    }
}

/// `GET /api/search?q=QUERY[&top_k=N]`: the gateway's own discover over its registry (what
/// `discover_tools` runs), each hit with `explain`'s reasons.
pub async fn search(State(c): Shared, request: Request) -> Response {
    let query = request.uri().query().unwrap_or_default();
    let q = query_value(query, "q").unwrap_or_default();
    let top_k = query_value(query, "top_k")
        .and_then(|k| k.parse::<usize>().ok())
        .unwrap_or(10)
        .clamp(1, MAX_TOP_K);
    match search_json(&c, &q, top_k) {
        Ok(v) => answer(&c, StatusCode::OK, v),
        Err(e) => answer(&c, StatusCode::BAD_REQUEST, json!({"error": e})),
    }
}

fn search_json(c: &Console, q: &str, top_k: usize) -> Result<Value, String> {
    let registry = c.context.catalog.registry();
    let options = registry
        .discovery_options()
        .map_err(|e| e.to_string())?
        .ok_or("discovery is off")?;
    let discoverer = registry.discoverer(options);
    let request = DiscoverRequest {
        top_k,
        ..Default::default()
    };
    let began = Instant::now();
    let hits = discoverer
        .discover(q, &request)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for hit in hits {
        // A tool unregistered since the search has no explanation: its hit stays, without one.
        let explained = discoverer
            .explain(q, &hit.name, &request)
            .map(|e| e.to_value())
            .ok();
        let reason = explained
            .as_ref()
            .and_then(|e| e["tool"]["reason"].as_str().map(str::to_string));
        let terms: Vec<Value> = explained
            .as_ref()
            .and_then(|e| e["tool"]["terms"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .map(|t| {
                let fields: Vec<&str> = t["fields"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|f| f["field"].as_str())
                    .collect();
                json!({"token": t["token"], "score": t["score"], "fields": fields})
            })
            .collect();
        out.push(json!({
            "name": hit.name,
            "namespace": hit.namespace,
            "score": hit.score,
            "deferred": hit.deferred,
            "description": toolregistry::limits::cut(&hit.description, 400),
            "reason": reason,
            "terms": terms,
        }));
    }
    let profile = discoverer.profile().map(|p| p.as_str()).unwrap_or("");
    Ok(json!({
        "query": q,
        "profile": profile,
        "took_ms": began.elapsed().as_secs_f64() * 1000.0,
        "hits": out,
    }))
}

/// `POST /api/approve` with `{"target": "SERVER"}` or `{"target": "SERVER/TOOL"}`: what
/// `toolregistry mcp approve` does to the state file, then the server's last listing is
/// judged again so that the approved tools are listed (and the clients told) at once.
pub async fn approve(State(c): Shared, request: Request) -> Response {
    let target = match string_field(request, "target").await {
        Ok(Some(t)) => t,
        Ok(None) => {
            let e = "expected {\"target\": \"SERVER\"} or {\"target\": \"SERVER/TOOL\"}";
            return answer(&c, StatusCode::BAD_REQUEST, json!({"error": e}));
        }
        Err(status) => return answer(&c, status, json!({"error": "body too large"})),
    };
    match approve_target(&c, &target) {
        Ok(lines) => answer(&c, StatusCode::OK, json!({"approved": lines})),
        Err(e) => answer(&c, StatusCode::CONFLICT, json!({"error": e})),
    }
}

/// The string `field` of a POST's JSON body; `None` when the body is not such an object.
async fn string_field(request: Request, field: &str) -> Result<Option<String>, StatusCode> {
    let body = axum::body::to_bytes(request.into_body(), MAX_BODY)
        .await
        .map_err(|_| StatusCode::PAYLOAD_TOO_LARGE)?;
    Ok(serde_json::from_slice::<Value>(&body)
        .ok()
        .and_then(|v| v.get(field)?.as_str().map(str::to_string)))
}

/// `POST /api/sign-in` with `{"server": "SERVER"}`: the gateway's own sign-in for a remote
/// server that needs one (its `--open-with` or the system's opener, its token file), started
/// now. `202` with the authorization URL once the browser is sent there (for a person to open
/// when no browser opened); the sign-in goes on in the background, and the server starts again
/// (its tools listed, the clients told) as soon as it is done.
pub async fn sign_in(State(c): Shared, request: Request) -> Response {
    let name = match string_field(request, "server").await {
        Ok(Some(n)) => n,
        Ok(None) => {
            let e = "expected {\"server\": \"SERVER\"}";
            return answer(&c, StatusCode::BAD_REQUEST, json!({"error": e}));
        }
        Err(status) => return answer(&c, status, json!({"error": "body too large"})),
    };
    let Some(server) = c
        .context
        .servers
        .live()
        .into_iter()
        .find(|s| s.config.name == name)
    else {
        let e = format!("no server of that name: {name:?}");
        return answer(&c, StatusCode::CONFLICT, json!({"error": e}));
    };
    match oauth::sign_in_now(&server.config).await {
        Ok(started) => {
            eprintln!("toolregistry mcp: console: sign-in to {name:?} started");
            let body = json!({
                "server": name,
                "authorization_url": started.authorization_url,
                "opener": started.opener,
            });
            answer(&c, StatusCode::ACCEPTED, body)
        }
        Err(oauth::SignInError::NotApplicable(e)) => {
            answer(&c, StatusCode::CONFLICT, json!({"error": e}))
        }
        Err(oauth::SignInError::Failed(e)) => {
            let e = format!("server {name:?}: sign-in failed: {e}");
            answer(&c, StatusCode::BAD_GATEWAY, json!({"error": e}))
        }
    }
}

fn approve_target(c: &Console, target: &str) -> Result<Vec<String>, String> {
    let live = c.context.servers.live();
    let names: Vec<String> = live.iter().map(|s| s.config.name.clone()).collect();
    let out = c.context.catalog.gate().approve(&names, target)?;
    for line in out.lines() {
        eprintln!("toolregistry mcp: console: {line}");
    }
    let catalog = &c.context.catalog;
    let mut changed = false;
    for s in &live {
        let ours = target == s.config.name
            || target
                .strip_prefix(s.config.name.as_str())
                .is_some_and(|t| t.starts_with('/'));
        if ours && s.peer().is_some() {
            changed |= catalog.sync(s.index(), &s.config, &catalog.listing(s.index()));
        }
    }
    if changed {
        (c.context.on_change)();
    }
    Ok(out.lines().map(str::to_string).collect())
}

fn servers_json(c: &Console) -> Value {
    let catalog = &c.context.catalog;
    let gate = catalog.gate();
    Value::Array(
        c.context
            .servers
            .live()
            .iter()
            .map(|s| {
                let sign_in = oauth::status(&s.config);
                let needed = sign_in.as_ref().is_some_and(|x| x.needed);
                let (state, error, retry) = match s.state() {
                    Run::Starting if s.restarts() > 0 => ("restarting", None, None),
                    Run::Starting => ("starting", None, None),
                    Run::Running(_) => ("running", None, None),
                    Run::Down { reason, retry_at } => (
                        "failed",
                        Some(reason),
                        Some(
                            retry_at
                                .saturating_duration_since(Instant::now())
                                .as_secs_f64(),
                        ),
                    ),
                };
                // A server whose last answer was a challenge no sign-in got past: whatever its
                // supervisor is doing (waiting to start again, starting), it needs sign-in.
                let state = if needed { "needs sign-in" } else { state };
                let sign_in = sign_in.map(|x| {
                    let url = x
                        .authorization_url
                        .filter(|u| u.starts_with("https://") || u.starts_with("http://"));
                    json!({"needed": x.needed, "signing": x.signing,
                           "authorization_url": url, "last_failure": x.last_failure})
                });
                let (transport, target) = match &s.config.remote {
                    Some(r) => ("http", r.url.clone()),
                    None => ("stdio", s.config.command.clone()),
                };
                json!({
                    "name": s.config.name,
                    "transport": transport,
                    "target": target,
                    "state": state,
                    "last_error": error,
                    "retry_in_s": retry,
                    "tools": catalog.count(s.index()),
                    "quarantined": catalog.held_count(s.index()),
                    "restarts": s.restarts(),
                    "defer": s.config.defer,
                    "findings": gate.findings(&s.config.name),
                    "sign_in": sign_in,
                })
            })
            .collect(),
    )
}

fn tools_json(c: &Console) -> Value {
    let catalog = &c.context.catalog;
    let mut out = Vec::new();
    for s in c.context.servers.live() {
        let routes = catalog.routes_of(s.index());
        let held = catalog.held_of(s.index());
        for (name, route) in &routes {
            out.push(json!({
                "name": name,
                "tool": route.tool,
                "server": s.config.name,
                "status": if s.config.defer { "deferred" } else { "listed" },
                "description": route.listed.description.as_deref().map(|d| toolregistry::limits::cut(d, 300)),
            }));
        }
        for (name, why) in &held {
            out.push(json!({
                "name": name,
                "server": s.config.name,
                "status": "quarantined",
                "why": why,
            }));
        }
        // What the allow and deny lists leave out is in the server's listing only.
        for entry in catalog.listing(s.index()) {
            let Some(tool) = entry.get("name").and_then(Value::as_str) else {
                continue;
            };
            if s.config.admits(tool) {
                continue;
            }
            let description = entry
                .get("description")
                .and_then(Value::as_str)
                .map(|d| toolregistry::limits::cut(d, 300).to_string());
            out.push(json!({
                "name": format!("{}/{tool}", s.config.name),
                "tool": tool,
                "server": s.config.name,
                "status": "disabled",
                "description": description,
            }));
        }
    }
    Value::Array(out)
}

fn quarantine_json(c: &Console) -> Value {
    let state = match c.context.catalog.gate().state() {
        Ok(s) => s,
        Err(e) => return json!({"error": e, "tools": []}),
    };
    let mut tools = Vec::new();
    for s in c.context.servers.live() {
        let name = &s.config.name;
        let Some(server) = state.servers.get(name) else {
            continue;
        };
        for (tool, held) in &server.quarantined {
            let pinned = server.pinned.get(tool);
            let old = pinned.map_or(Value::Null, |p| p.definition.clone());
            let findings: Vec<Value> = held
                .findings
                .iter()
                .map(|f| {
                    json!({"rule": f.rule, "severity": f.severity, "field": f.field,
                           "start": f.start, "end": f.end, "excerpt": f.excerpt})
                })
                .collect();
            tools.push(json!({
                "server": name,
                "tool": tool,
                "target": format!("{name}/{tool}"),
                "reasons": held.reasons,
                "findings": findings,
                "pinned_hash": pinned.map(|p| p.hash.clone()),
                "new_hash": held.hash,
                "old": old,
                "new": held.definition,
                "diff": pins::diff(&old, &held.definition),
            }));
        }
    }
    json!({"tools": tools})
}

/// The JSON object's keys, for tests of the API's shapes.
#[cfg(test)]
fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .map(|o: &serde_json::Map<String, Value>| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_and_headers_are_masked() {
        let mut config = json!({"console": "127.0.0.1:0", "mcpServers": {
            "a": {"command": "x", "env": {"TOKEN": "s3cret-value", "REF": "${HOME}"}},
            "b": {"url": "http://h/mcp", "headers": {"Authorization": "Bearer abcdef123456"}},
            "c": {"command": "y"}
        }});
        mask(&mut config);
        let text = config.to_string();
        assert!(
            !text.contains("s3cret-value") && !text.contains("abcdef123456"),
            "{text}"
        );
        assert_eq!(config["mcpServers"]["a"]["env"]["TOKEN"], MASK);
        assert_eq!(config["mcpServers"]["a"]["env"]["REF"], MASK);
        assert_eq!(config["mcpServers"]["b"]["headers"]["Authorization"], MASK);
        assert_eq!(keys(&config["mcpServers"]["c"]), vec!["command"]);
    }
}
