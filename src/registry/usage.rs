//! The registry's co-use counts ([`crate::usage`]): recorded when a host asks (explicitly with
//! [`Registry::record_usage`], or from the calls the library runs once usage is on), kept beside
//! the state under their own lock (recording never takes the registry's write lock nor changes
//! its generation), saved to the `usage_path` when one is set.

use super::{Registry, Shared, State};
use crate::error::{Error, Result};
use crate::usage::UsageStore;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock};
use std::time::{Duration, Instant};

/// Least time between two automatic writes of the usage file: a busy agent records many tasks a
/// second, and each write is the whole file.
const SAVE_INTERVAL: Duration = Duration::from_secs(5);

/// The counts and where they are kept.
#[derive(Debug, Default)]
pub(crate) struct UsageCell {
    store: RwLock<UsageStore>,
    /// The calls the library runs are recorded (usage was turned on).
    recording: AtomicBool,
    file: Mutex<UsageFile>,
}

#[derive(Debug, Default)]
struct UsageFile {
    path: Option<PathBuf>,
    /// Why the file was not read at start, or why the last write failed.
    warning: Option<String>,
    /// Tasks recorded since the last write.
    unsaved: u64,
    last_save: Option<Instant>,
}

/// What usage holds, for a status report.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct UsageStatus {
    /// The calls the library runs are recorded.
    pub recording: bool,
    /// Where the counts are kept, if anywhere.
    pub path: Option<PathBuf>,
    /// Tasks recorded (loaded ones included).
    pub tasks: u64,
    /// Tools with counts.
    pub tools: usize,
    /// Bytes the counts take in memory, about, with what discovers keep of each anchor's
    /// partners.
    pub memory_bytes: usize,
    /// Why the file could not be read at start (an empty start) or the last write failed.
    pub warning: Option<String>,
}

impl UsageStatus {
    /// The status as JSON: `{"recording", "path", "tasks", "tools", "memory_bytes", "warning"}`
    /// (what `tr_registry_usage_status` answers; a path that is not UTF-8 is shown lossily).
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "recording": self.recording,
            "path": self.path.as_ref().map(|p| p.to_string_lossy()),
            "tasks": self.tasks,
            "tools": self.tools,
            "memory_bytes": self.memory_bytes,
            "warning": self.warning,
        })
        .to_string()
    }
}

impl UsageCell {
    /// The counts, read-locked (a poisoned lock still holds whole counts: every change to them
    /// is made before anything that may panic).
    pub(crate) fn read(&self) -> std::sync::RwLockReadGuard<'_, UsageStore> {
        self.store.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, UsageStore> {
        self.store.write().unwrap_or_else(|e| e.into_inner())
    }

    fn file(&self) -> std::sync::MutexGuard<'_, UsageFile> {
        self.file.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn recording(&self) -> bool {
        self.recording.load(Ordering::Acquire)
    }

    /// Forgets an unregistered tool (called under the state's write lock).
    pub(crate) fn forget(&self, name: &str) {
        let mut store = self.write();
        if store.tasks_of(name) > 0 {
            store.forget(name);
        }
    }

    /// Writes the file if a path is set and tasks were recorded since the last write.
    pub(crate) fn flush(&self) {
        let mut file = self.file();
        if file.unsaved == 0 {
            return;
        }
        let Some(path) = file.path.clone() else {
            return;
        };
        let result = self.read().save(&path);
        file.last_save = Some(Instant::now());
        match result {
            Ok(()) => {
                file.unsaved = 0;
                file.warning = None;
            }
            Err(why) => file.warning = Some(why),
        }
    }

    /// One more task recorded: written out when the last write is old enough.
    fn recorded(&self) {
        let due = {
            let mut file = self.file();
            file.unsaved += 1;
            file.path.is_some() && file.last_save.is_none_or(|t| t.elapsed() >= SAVE_INTERVAL)
        };
        if due {
            self.flush();
        }
    }
}

impl Shared {
    pub(crate) fn usage(&self) -> &UsageCell {
        &self.usage
    }
}

/// The registered tools among `names`, in order.
fn registered<'n>(state: &State, names: &'n [&'n str]) -> Vec<&'n str> {
    names
        .iter()
        .copied()
        .filter(|n| state.slot_of(n).is_some())
        .collect()
}

impl Registry {
    /// Turns usage on: from now on the calls the library runs are recorded (one model reply's
    /// calls, a conversation's recent calls: see [`crate::usage`]), and with a `path` the counts
    /// are loaded from it now (replacing the ones in memory; counts of tools not registered are
    /// kept, for tools registered later) and written back to it atomically. A missing file is
    /// an empty start; a corrupt, foreign or oversized one is an empty start too, and its
    /// warning is returned (and kept in [`usage_status`](Self::usage_status)); it is
    /// overwritten at the next write.
    pub fn enable_usage(&self, path: Option<&Path>) -> Result<Option<String>> {
        let loaded = match path {
            Some(p) => UsageStore::load(p),
            None => Ok(None),
        };
        let warning = loaded
            .as_ref()
            .err()
            .map(|why| format!("ignored the usage file ({why}); starting with no usage"));
        let usage = self.shared.usage();
        let mut file = usage.file();
        if let Some(p) = path {
            *usage.write() = loaded.ok().flatten().unwrap_or_default();
            file.path = Some(p.to_path_buf());
            file.unsaved = 0;
            file.last_save = None;
        }
        file.warning = warning.clone();
        usage.recording.store(true, Ordering::Release);
        Ok(warning)
    }

    /// Turns the recording of the calls the library runs off (what was recorded stays, and is
    /// written out if a path is set); [`record_usage`](Self::record_usage) still records.
    pub fn disable_usage(&self) -> Result<()> {
        let usage = self.shared.usage();
        usage.recording.store(false, Ordering::Release);
        usage.flush();
        Ok(())
    }

    /// Records one task: the tools in `names` were used together (for hosts that run tools
    /// themselves). Names of no registered tool, repeats and empty names do not count, nor names
    /// past the task's first [`MAX_TASK_TOOLS`](crate::usage::MAX_TASK_TOOLS) registered ones.
    /// Returns how many names counted; a task of none records nothing.
    pub fn record_usage(&self, names: &[&str]) -> Result<usize> {
        let state = self.shared.read()?;
        let known = registered(&state, names);
        let mut distinct: Vec<&str> = Vec::new();
        for n in known {
            if distinct.len() == crate::usage::MAX_TASK_TOOLS {
                break;
            }
            if !distinct.contains(&n) {
                distinct.push(n);
            }
        }
        if distinct.is_empty() {
            return Ok(0);
        }
        self.shared.usage().write().record(distinct.iter().copied());
        drop(state);
        self.shared.usage().recorded();
        Ok(distinct.len())
    }

    /// [`record_usage`](Self::record_usage) from a JSON array of names (`["a", "b"]`); anything
    /// else is INVALID_ARGUMENT and records nothing.
    pub fn record_usage_json(&self, names_json: &str) -> Result<usize> {
        let value = crate::limits::parse_json(names_json, "usage")?;
        let names = crate::limits::string_list(&value, "usage")?
            .ok_or_else(|| Error::invalid("usage: expected an array of tool names, got null"))?;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        self.record_usage(&names)
    }

    /// Whether the calls the library runs are recorded.
    pub(crate) fn usage_recording(&self) -> bool {
        self.shared.usage().recording()
    }

    /// A task the library ran: recorded when usage is on.
    pub(crate) fn record_ran(&self, names: &[&str]) {
        if self.shared.usage().recording() {
            let _ = self.record_usage(names);
        }
    }

    /// Takes one recorded task back, as far as it is still counted. For measuring with every
    /// task but one (`toolregistry eval --usage leave-one-out`); not part of the stable API.
    #[doc(hidden)]
    pub fn unrecord_usage(&self, names: &[&str]) -> Result<()> {
        self.shared.usage().write().unrecord(names.iter().copied());
        Ok(())
    }

    /// Keeps a tool's counts under a new name (a host that renames a tool: unregisters the old
    /// name and registers the new one). Call it before unregistering the old name.
    pub fn rename_usage(&self, from: &str, to: &str) -> Result<()> {
        let _state = self.shared.read()?;
        self.shared.usage().write().rename(from, to);
        Ok(())
    }

    /// Writes the usage file now, if a path is set and something is unsaved.
    pub fn save_usage(&self) -> Result<()> {
        let usage = self.shared.usage();
        usage.flush();
        let file = usage.file();
        match &file.warning {
            Some(w) if file.unsaved > 0 => Err(Error::Internal(w.clone())),
            _ => Ok(()),
        }
    }

    /// What usage holds now.
    pub fn usage_status(&self) -> Result<UsageStatus> {
        let usage = self.shared.usage();
        let file = usage.file();
        let store = usage.read();
        Ok(UsageStatus {
            recording: usage.recording(),
            path: file.path.clone(),
            tasks: store.task_count(),
            tools: store.tool_count(),
            memory_bytes: store.memory_bytes(),
            warning: file.warning.clone(),
        })
    }

    /// The co-use counts of `name`'s partners, most used together first.
    pub fn usage_partners(&self, name: &str) -> Result<Vec<crate::usage::Partner>> {
        Ok(self.shared.usage().read().partners(name))
    }
}

/// The registry options' `usage`: `true` (record, keep nothing on disk), `{"path": "..."}`
/// (record, kept in that file), `false`, `null` or absent (off). `Some(path)` when on.
pub(crate) fn options_from_value(v: Option<&serde_json::Value>) -> Result<Option<Option<PathBuf>>> {
    use serde_json::Value;
    match v {
        None | Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
        Some(Value::Bool(true)) => Ok(Some(None)),
        Some(Value::Object(obj)) => {
            let mut path = None;
            for (key, v) in obj {
                match (key.as_str(), v) {
                    ("path", Value::String(p)) if !p.is_empty() => path = Some(PathBuf::from(p)),
                    ("path", Value::Null) => {}
                    ("path", other) => {
                        return Err(Error::invalid(format!(
                            "options.usage.path: expected a non-empty string, got {}",
                            crate::limits::kind_of(other)
                        )));
                    }
                    _ => {
                        return Err(Error::invalid(format!(
                            "options.usage.{key}: unknown option (expected path)"
                        )));
                    }
                }
            }
            Ok(Some(path))
        }
        Some(other) => Err(Error::invalid(format!(
            "options.usage: expected true, false or {{\"path\": ...}}, got {}",
            crate::limits::kind_of(other)
        ))),
    }
}
