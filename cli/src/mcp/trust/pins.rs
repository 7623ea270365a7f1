//! The state file: each server's pinned tool definitions (a SHA-256 of the canonical definition,
//! and the definition itself so that a change can be shown as a diff) and the tools waiting in
//! quarantine with the definition that was refused and why.
//!
//! Written atomically (a temporary file in the same folder, flushed to disk, then renamed over
//! the old one), so a crash mid-write leaves the old pins or the new ones, never half a file.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::scan::Finding;

/// The state file's format version; a file of another version is refused, not rewritten.
const VERSION: u32 = 1;

/// The largest state file read (a pinned definition is a few kilobytes).
const MAX_STATE_BYTES: u64 = 256 << 20;

/// A definition as pinned: what the model is shown of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pin {
    /// `sha256:` and the hex digest of [`canonical`].
    pub hash: String,
    pub definition: Value,
}

/// A definition refused until `approve`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Held {
    pub hash: String,
    pub definition: Value,
    /// Why: `changed`, `new` (trust "review") or `scan` (a high-severity finding).
    pub reasons: Vec<String>,
    #[serde(default)]
    pub findings: Vec<StoredFinding>,
}

/// A scanner finding as kept in the state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredFinding {
    pub rule: String,
    pub severity: String,
    pub field: String,
    pub start: usize,
    pub end: usize,
    pub excerpt: String,
}

impl From<&Finding> for StoredFinding {
    fn from(f: &Finding) -> StoredFinding {
        StoredFinding {
            rule: f.rule.to_string(),
            severity: serde_json::to_value(f.severity)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
            field: f.field.clone(),
            start: f.start,
            end: f.end,
            excerpt: f.excerpt.clone(),
        }
    }
}

/// One server's pins and quarantine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerState {
    #[serde(default)]
    pub pinned: BTreeMap<String, Pin>,
    #[serde(default)]
    pub quarantined: BTreeMap<String, Held>,
    /// The scanner's findings below high severity on the tools last listed (shown by `review`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub warnings: BTreeMap<String, Vec<StoredFinding>>,
}

/// The whole state file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StateFile {
    pub version: u32,
    #[serde(default)]
    pub servers: BTreeMap<String, ServerState>,
}

impl Default for StateFile {
    fn default() -> StateFile {
        StateFile {
            version: VERSION,
            servers: BTreeMap::new(),
        }
    }
}

/// The part of a tool definition that is pinned: name, description, input schema and
/// annotations, with every object's keys sorted so that key order does not matter.
pub fn canonical(entry: &Value) -> Value {
    let mut out = Map::new();
    for key in ["name", "description", "inputSchema", "annotations"] {
        if let Some(v) = entry.get(key).filter(|v| !v.is_null()) {
            out.insert(key.to_string(), sorted(v));
        }
    }
    Value::Object(out)
}

fn sorted(v: &Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// `sha256:HEX` of the canonical definition's compact JSON.
pub fn hash(canonical: &Value) -> String {
    let digest = Sha256::digest(canonical.to_string().as_bytes());
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for b in digest {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Where the state is kept when `--state` is not given: the user's data folder.
pub fn default_path() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        var("APPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|h| h.join("Library/Application Support"))
    } else {
        var("XDG_DATA_HOME").or_else(|| var("HOME").map(|h| h.join(".local/share")))
    }?;
    Some(base.join("toolregistry").join("mcp-state.json"))
}

/// Reads the state file; a missing file is an empty state. Any other problem is an error that
/// names the file and what is wrong with it.
pub fn load(path: &Path) -> Result<StateFile, String> {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(StateFile::default()),
        Err(e) => return Err(format!("state file {}: {e}", path.display())),
    };
    let mut text = String::new();
    file.take(MAX_STATE_BYTES + 1)
        .read_to_string(&mut text)
        .map_err(|e| format!("state file {}: {e}", path.display()))?;
    if text.len() as u64 > MAX_STATE_BYTES {
        return Err(format!(
            "state file {}: larger than {MAX_STATE_BYTES} bytes",
            path.display()
        ));
    }
    let state: StateFile = serde_json::from_str(&text)
        .map_err(|e| format!("state file {}: not a valid state file: {e}", path.display()))?;
    if state.version != VERSION {
        return Err(format!(
            "state file {}: version {} (this program reads version {VERSION})",
            path.display(),
            state.version
        ));
    }
    Ok(state)
}

/// Writes the state file atomically (see `files::write_atomic`), readable by its owner only.
pub fn save(path: &Path, state: &StateFile) -> Result<(), String> {
    let mut text = serde_json::to_string_pretty(state).map_err(|e| e.to_string())?;
    text.push('\n');
    crate::mcp::files::write_atomic(path, text.as_bytes(), None)
        .map_err(|e| format!("state file {}: {e}", path.display()))
}

/// Checks that the state file can be read and written where it is, before the proxy relies on
/// it: a corrupt or unwritable file turns pinning off with this message.
pub fn probe(path: &Path) -> Result<StateFile, String> {
    let state = load(path)?;
    save(path, &state)?;
    Ok(state)
}

/// The old and new definitions as pretty JSON lines, with `-`/`+` marking what differs (a
/// longest-common-subsequence line diff; definitions are small).
pub fn diff(old: &Value, new: &Value) -> String {
    let a: Vec<String> = pretty_lines(old);
    let b: Vec<String> = pretty_lines(new);
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = String::new();
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            out.push_str(&format!("  {}\n", a[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            out.push_str(&format!("- {}\n", a[i]));
            i += 1;
        } else {
            out.push_str(&format!("+ {}\n", b[j]));
            j += 1;
        }
    }
    out
}

/// Pretty JSON lines with invisible characters escaped, so the diff shows what is hidden.
fn pretty_lines(v: &Value) -> Vec<String> {
    serde_json::to_string_pretty(v)
        .unwrap_or_default()
        .lines()
        .map(|l| {
            l.chars()
                .map(|c| {
                    if super::scan::excerpt(&c.to_string()).len() > c.len_utf8() {
                        format!("\\u{{{:x}}}", c as u32)
                    } else {
                        c.to_string()
                    }
                })
                .collect()
        })
        .collect()
}
