//! The co-use counts on disk: JSON, written to a temporary file beside the target and renamed
//! over it (a reader never sees half a file), read whole and checked before anything is kept (a
//! corrupt, foreign or oversized file is refused as a whole, never half-read).
//!
//! `{"toolregistry_usage": 1, "tasks": N, "tools": [[name, tasks], ...], "pairs": [[i, j,
//! together], ...]}`: `i < j` index `tools`.

use super::{MAX_COUNT, MAX_PARTNERS, MAX_TOOLS, UsageStore};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The format's marker and version: a file of another version is refused (an empty start).
pub const USAGE_FORMAT: u64 = 1;
/// Largest usage file read (64 MiB): [`MAX_TOOLS`] tools with their partners fit.
pub const MAX_USAGE_FILE_BYTES: u64 = 64 * 1024 * 1024;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OnDisk {
    toolregistry_usage: u64,
    tasks: u64,
    tools: Vec<(String, u32)>,
    pairs: Vec<(u32, u32, u32)>,
}

/// [`OnDisk`], borrowed, for writing.
#[derive(Serialize)]
struct ToDisk<'a> {
    toolregistry_usage: u64,
    tasks: u64,
    tools: &'a [(&'a str, u32)],
    pairs: &'a [(u32, u32, u32)],
}

impl UsageStore {
    /// Reads the store at `path`: `Ok(None)` when there is no file, `Err(why)` when it cannot
    /// be used (the caller starts empty and says why).
    pub fn load(path: &Path) -> Result<Option<UsageStore>, String> {
        let meta = match std::fs::metadata(path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
            Ok(m) => m,
        };
        if meta.len() > MAX_USAGE_FILE_BYTES {
            return Err(format!(
                "{}: {} bytes, over the {MAX_USAGE_FILE_BYTES}-byte limit of a usage file",
                path.display(),
                meta.len()
            ));
        }
        let bytes =
            std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::from_bytes(&bytes)
            .map(Some)
            .map_err(|why| format!("{}: {why}", path.display()))
    }

    /// Parses and checks a whole file's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<UsageStore, String> {
        if bytes.len() as u64 > MAX_USAGE_FILE_BYTES {
            return Err("over the size limit of a usage file".into());
        }
        let text = std::str::from_utf8(bytes).map_err(|_| "not UTF-8: not a usage file")?;
        let disk: OnDisk =
            serde_json::from_str(text).map_err(|e| format!("not a usage file ({e})"))?;
        if disk.toolregistry_usage != USAGE_FORMAT {
            return Err(format!(
                "usage format {} (this build reads {USAGE_FORMAT})",
                disk.toolregistry_usage
            ));
        }
        if disk.tools.len() > MAX_TOOLS {
            return Err(format!("{} tools, over {MAX_TOOLS}", disk.tools.len()));
        }
        let mut store = UsageStore::new();
        for (i, (name, tasks)) in disk.tools.iter().enumerate() {
            if name.is_empty() || name.len() > crate::limits::MAX_NAME_BYTES {
                return Err(format!("tools[{i}]: a name of {} bytes", name.len()));
            }
            if *tasks == 0 || *tasks > MAX_COUNT {
                return Err(format!("tools[{i}]: a task count of {tasks}"));
            }
            let id = store.intern(name).ok_or("too many tools")?;
            if id as usize != i {
                return Err(format!("tools[{i}]: {name:?} is listed twice"));
            }
            store.hot[id as usize].tasks = *tasks;
        }
        let n = disk.tools.len() as u32;
        for (k, &(a, b, c)) in disk.pairs.iter().enumerate() {
            if a >= b || b >= n {
                return Err(format!("pairs[{k}]: tools {a} and {b} (of {n})"));
            }
            let most = store.hot[a as usize].tasks.min(store.hot[b as usize].tasks);
            if c == 0 || c > most {
                return Err(format!(
                    "pairs[{k}]: {c} tasks together, more than either's"
                ));
            }
            if store.pair(a, b) > 0 {
                return Err(format!("pairs[{k}]: listed twice"));
            }
            if store.entries[a as usize].partners.len() >= MAX_PARTNERS
                || store.entries[b as usize].partners.len() >= MAX_PARTNERS
            {
                return Err(format!(
                    "pairs[{k}]: over {MAX_PARTNERS} partners of a tool"
                ));
            }
            store.entries[a as usize].partners.push((b, c));
            store.entries[b as usize].partners.push((a, c));
        }
        store.tasks = disk.tasks;
        Ok(store)
    }

    /// The store as its file's bytes. Forgotten ids are left out and the rest renumbered.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut index = vec![u32::MAX; self.entries.len()];
        let mut tools = Vec::with_capacity(self.ids.len());
        for (id, e) in self.entries.iter().enumerate() {
            if !e.name.is_empty() {
                index[id] = tools.len() as u32;
                tools.push((&*e.name, self.hot[id].tasks));
            }
        }
        let mut pairs: Vec<(u32, u32, u32)> = self
            .pairs()
            .map(|(a, b, c)| {
                let (x, y) = (index[a as usize], index[b as usize]);
                (x.min(y), x.max(y), c)
            })
            .collect();
        pairs.sort_unstable();
        // Written straight from the lists (no JSON tree: a full store has millions of pairs).
        let disk = ToDisk {
            toolregistry_usage: USAGE_FORMAT,
            tasks: self.tasks,
            tools: &tools,
            pairs: &pairs,
        };
        serde_json::to_vec(&disk).expect("plain values serialize")
    }

    /// Writes the store to `path` atomically: a temporary file beside it, renamed over it.
    pub fn save(&self, path: &Path) -> Result<(), String> {
        let bytes = self.to_bytes();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!(".tmp{}", std::process::id()));
        let tmp = std::path::PathBuf::from(tmp);
        std::fs::write(&tmp, &bytes)
            .and_then(|_| std::fs::rename(&tmp, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                format!("cannot write {}: {e}", path.display())
            })
    }
}
