//! What the console shows of the gateway's activity: the last tool calls, in a bounded ring
//! (time, client session, tool, latency, ok or the error; never the arguments or the result),
//! and the outcome of the last live reload of the config. Process-wide, so that the sessions
//! (stdio, or one per HTTP client) and the reloader record without knowing of the console.

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Most calls kept: memory stays bounded whatever the traffic.
pub const MAX_CALLS: usize = 200;

/// Longest error text kept per call (a server's error may be long).
const MAX_ERROR_CHARS: usize = 300;

/// One call, as the console shows it.
#[derive(Debug, Clone)]
pub struct Call {
    /// Its number since the gateway started (the page's key for "new since last look").
    pub seq: u64,
    /// Milliseconds since the Unix epoch, when it began.
    pub at_ms: u64,
    /// The client session: `#N` and the client's name when it gave one.
    pub session: String,
    /// The tool called (the registered name, or a built-in).
    pub tool: String,
    pub latency: Duration,
    /// `None` when it succeeded; the error's text (cut) when it failed.
    pub error: Option<String>,
}

static CALLS: Mutex<VecDeque<Call>> = Mutex::new(VecDeque::new());
static SEQ: AtomicU64 = AtomicU64::new(0);
static SESSIONS: AtomicU64 = AtomicU64::new(0);
static RELOAD: Mutex<Option<(u64, bool, String)>> = Mutex::new(None);

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A new client session's number (1, 2, ...).
pub fn next_session() -> u64 {
    SESSIONS.fetch_add(1, Ordering::Relaxed) + 1
}

/// Records a finished call; the oldest leaves when the ring is full.
pub fn record(
    session: String,
    tool: &str,
    began: SystemTime,
    latency: Duration,
    error: Option<String>,
) {
    let seq = SEQ.fetch_add(1, Ordering::Relaxed) + 1;
    let at_ms = began
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let error = error.map(|e| {
        if e.chars().count() > MAX_ERROR_CHARS {
            let cut: String = e.chars().take(MAX_ERROR_CHARS).collect();
            format!("{cut}…")
        } else {
            e
        }
    });
    let mut calls = lock(&CALLS);
    if calls.len() >= MAX_CALLS {
        calls.pop_front();
    }
    calls.push_back(Call {
        seq,
        at_ms,
        session,
        tool: toolregistry::limits::cut(tool, 200).to_string(),
        latency,
        error,
    });
}

/// The calls kept, newest first, as the API answers them.
pub fn calls_json() -> Value {
    let calls = lock(&CALLS);
    Value::Array(
        calls
            .iter()
            .rev()
            .map(|c| {
                json!({
                    "seq": c.seq,
                    "at_ms": c.at_ms,
                    "session": c.session,
                    "tool": c.tool,
                    "latency_ms": (c.latency.as_secs_f64() * 1000.0 * 10.0).round() / 10.0,
                    "ok": c.error.is_none(),
                    "error": c.error,
                })
            })
            .collect(),
    )
}

/// Records the outcome of a live reload: applied (with what changed) or refused (with why).
pub fn note_reload(ok: bool, what: String) {
    *lock(&RELOAD) = Some((now_ms(), ok, what));
}

/// The last reload's outcome, or null when the config was not reloaded since the start.
pub fn reload_json() -> Value {
    match &*lock(&RELOAD) {
        None => Value::Null,
        Some((at, ok, what)) => json!({"at_ms": at, "ok": ok, "outcome": what}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_ring_is_bounded_and_newest_first() {
        let began = SystemTime::now();
        for i in 0..(MAX_CALLS + 5) {
            let error = (i % 2 == 1).then(|| "x".repeat(1000));
            record(
                format!("#{i}"),
                &format!("t{i}"),
                began,
                Duration::from_millis(3),
                error,
            );
        }
        let calls = calls_json();
        let calls = calls.as_array().unwrap();
        // Other tests of this process may record too: only what this one wrote is checked.
        assert_eq!(calls.len(), MAX_CALLS);
        assert_eq!(calls[0]["tool"], format!("t{}", MAX_CALLS + 4));
        assert!(calls.iter().all(|c| c["tool"] != "t0" && c["tool"] != "t4"));
        let failed = calls.iter().find(|c| c["ok"] == false).unwrap();
        assert!(failed["error"].as_str().unwrap().chars().count() <= MAX_ERROR_CHARS + 1);
        assert!(calls.iter().all(|c| c.get("arguments").is_none()));
    }
}
