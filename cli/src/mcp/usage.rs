//! Co-use in the gateway (see the library's `usage` module): one client session is one task,
//! the tools it called that ran (routed to their server, or through `call_deferred`, and
//! answered without a tool error). Unknown, quarantined or refused calls and calls that failed
//! do not count, nor the built-ins. A long session is several tasks: when one more tool runs
//! after [`SESSION_TASK_TOOLS`] distinct ones, the task so far is recorded and a new one begins,
//! as a conversation's. The counts live in `mcp-usage.json` beside the `--state` file (loaded at
//! start, written atomically at most every [`SAVE_EVERY`] while serving, and at shutdown);
//! `"usage": false` in the config turns all of it off.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;
use toolregistry::Registry;

/// The usage file's name, in the folder of the `--state` file.
pub const USAGE_FILE: &str = "mcp-usage.json";

/// Most distinct tools of one session's task (as a conversation's window).
pub const SESSION_TASK_TOOLS: usize = toolregistry::conversation::CONVERSATION_TASK_TOOLS;

/// How often the counts are written while serving, when tasks were recorded since.
pub const SAVE_EVERY: Duration = Duration::from_secs(10);

/// The usage file for the `--state` file `state`: beside it.
pub fn path_beside(state: &Path) -> PathBuf {
    match state.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(dir) => dir.join(USAGE_FILE),
        None => PathBuf::from(USAGE_FILE),
    }
}

/// Turns usage on for the gateway's registry, kept in `path` (none: in memory only). A file
/// that cannot be read is a warning on stderr and an empty start.
pub fn enable(registry: &Registry, path: Option<&Path>) -> Result<(), String> {
    match registry.enable_usage(path) {
        Ok(Some(warning)) => {
            eprintln!("toolregistry mcp: {warning}");
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(e) => Err(format!("usage: {e}")),
    }
}

/// The sessions' tasks under way, by session number.
pub struct SessionTasks {
    /// None when usage is off.
    registry: Option<Registry>,
    live: Mutex<HashMap<u64, Vec<String>>>,
}

impl SessionTasks {
    /// Tasks recorded into `registry`'s usage; `None`: usage is off, nothing is kept.
    pub fn new(registry: Option<Registry>) -> SessionTasks {
        SessionTasks {
            registry,
            live: Mutex::new(HashMap::new()),
        }
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Vec<String>>> {
        self.live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A call of the registered tool `name` ran in `session`.
    pub fn ran(&self, session: u64, name: &str) {
        let Some(registry) = &self.registry else {
            return;
        };
        let full = {
            let mut live = self.live();
            let task = live.entry(session).or_default();
            if task.iter().any(|n| n == name) {
                return;
            }
            let full = (task.len() == SESSION_TASK_TOOLS).then(|| std::mem::take(task));
            task.push(name.to_string());
            full
        };
        if let Some(task) = full {
            record(registry, &task);
        }
    }

    /// `session` ended: its task is recorded.
    pub fn end(&self, session: u64) {
        let Some(registry) = &self.registry else {
            return;
        };
        let task = self.live().remove(&session);
        if let Some(task) = task {
            record(registry, &task);
        }
    }

    /// Writes the counts if tasks were recorded since the last write.
    pub fn save(&self) {
        if let Some(registry) = &self.registry {
            if let Err(e) = registry.save_usage() {
                eprintln!("toolregistry mcp: usage: {e}");
            }
        }
    }

    /// The gateway stops: every session still open ends (its task recorded), then the counts
    /// are written.
    pub fn finish(&self) {
        let sessions: Vec<u64> = self.live().keys().copied().collect();
        for s in sessions {
            self.end(s);
        }
        self.save();
    }
}

fn record(registry: &Registry, task: &[String]) {
    let names: Vec<&str> = task.iter().map(String::as_str).collect();
    // A tool unregistered since its call no longer counts; nothing else can fail here.
    let _ = registry.record_usage(&names);
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolregistry::Tool;

    fn registry() -> Registry {
        let r = Registry::new();
        let defs: Vec<String> = (0..40)
            .map(|i| format!(r#"{{"name": "t{i}", "description": "tool {i}"}}"#))
            .collect();
        let tools: Vec<Tool> = Tool::parse_many(&format!("[{}]", defs.join(","))).unwrap();
        r.register(tools).unwrap();
        r
    }

    #[test]
    fn a_session_is_one_bounded_task() {
        let r = registry();
        let tasks = SessionTasks::new(Some(r.share()));
        for name in ["t0", "t1", "t0", "t1"] {
            tasks.ran(1, name);
        }
        tasks.ran(2, "t2");
        assert_eq!(r.usage_status().unwrap().tasks, 0, "recorded when it ends");
        tasks.end(1);
        assert_eq!(r.usage_status().unwrap().tasks, 1);
        assert_eq!(r.usage_partners("t0").unwrap()[0].together, 1);
        assert!(r.usage_partners("t2").unwrap().is_empty());
        // A long session: the window's tools are one task, the next ones the next task.
        for i in 0..SESSION_TASK_TOOLS + 3 {
            tasks.ran(3, &format!("t{}", i + 3));
        }
        assert_eq!(r.usage_status().unwrap().tasks, 2);
        tasks.finish();
        // Sessions 2 and 3 (its last three tools) ended at shutdown.
        assert_eq!(r.usage_status().unwrap().tasks, 4);
        assert_eq!(
            r.usage_partners(&format!("t{}", SESSION_TASK_TOOLS + 4))
                .unwrap()
                .len(),
            2
        );
        tasks.end(3);
        assert_eq!(r.usage_status().unwrap().tasks, 4, "ended once");
    }

    #[test]
    fn off_keeps_nothing() {
        let r = registry();
        let tasks = SessionTasks::new(None);
        tasks.ran(1, "t0");
        tasks.ran(1, "t1");
        tasks.finish();
        assert_eq!(r.usage_status().unwrap().tasks, 0);
    }

    #[test]
    fn the_file_is_beside_the_state_file() {
        assert_eq!(
            path_beside(Path::new("/x/y/mcp-state.json")),
            Path::new("/x/y/mcp-usage.json")
        );
        assert_eq!(path_beside(Path::new("state.json")), Path::new(USAGE_FILE));
    }
}
