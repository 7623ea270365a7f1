//! The trust subcommands: `toolregistry mcp review`, `approve` and `scan`.

use super::pins;
use super::scan::{self, Context, Severity};
use super::severity_name;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The state file: `--state`, or the one in the user's data folder.
pub fn state_path(state: Option<&Path>) -> Result<PathBuf, String> {
    state
        .map(Path::to_path_buf)
        .or_else(pins::default_path)
        .ok_or_else(|| "no state file: pass --state FILE (HOME is not set)".to_string())
}

fn server_names(config: &Path) -> Result<Vec<String>, String> {
    Ok(crate::mcp::config::load(config)?
        .into_iter()
        .map(|s| s.name)
        .collect())
}

/// `review`: the quarantined tools of the config's servers, with their diffs and findings.
pub fn review(config: &Path, state: Option<&Path>) -> Result<String, String> {
    let servers = server_names(config)?;
    let state = pins::load(&state_path(state)?)?;
    Ok(super::review(&servers, &state))
}

/// `approve SERVER[/TOOL]`: pins what is quarantined, in one atomic write.
pub fn approve(config: &Path, state: Option<&Path>, target: &str) -> Result<String, String> {
    let servers = server_names(config)?;
    let path = state_path(state)?;
    let mut state = pins::load(&path)?;
    let out = super::approve(&servers, target, &mut state)?;
    pins::save(&path, &state)?;
    Ok(out)
}

/// `scan FILE...`: the scanner over tool catalogs (JSON arrays of tool definitions, MCP or the
/// library's format), each file counted as one server whose neighbours are the other files'
/// tools. Prints the findings per rule and severity, then every high-severity finding.
pub fn scan_catalogs(files: &[PathBuf]) -> Result<String, String> {
    let mut catalogs = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(f).map_err(|e| format!("{}: {e}", f.display()))?;
        let value: Value =
            serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", f.display()))?;
        let tools = match value {
            Value::Array(a) => a,
            Value::Object(mut o) => match o.remove("tools") {
                Some(Value::Array(a)) => a,
                _ => return Err(format!("{}: expected an array of tools", f.display())),
            },
            _ => return Err(format!("{}: expected an array of tools", f.display())),
        };
        catalogs.push((f.display().to_string(), tools));
    }
    let names = |t: &Value| t.get("name").and_then(Value::as_str).map(str::to_string);
    let mut out = String::new();
    let mut highs = String::new();
    for (i, (file, tools)) in catalogs.iter().enumerate() {
        let others: Vec<String> = catalogs
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .flat_map(|(_, (_, t))| t.iter().filter_map(names))
            .collect();
        let context = Context::new(others.iter().map(String::as_str));
        let mut counts = scan::Counts::new();
        let mut flagged: BTreeMap<Severity, usize> = BTreeMap::new();
        for tool in tools {
            let findings = scan::scan_tool(tool, &context);
            for (k, n) in scan::count(&findings) {
                *counts.entry(k).or_insert(0) += n;
            }
            if let Some(w) = scan::worst(&findings) {
                *flagged.entry(w).or_insert(0) += 1;
            }
            for f in findings.iter().filter(|f| f.severity == Severity::High) {
                highs.push_str(&format!(
                    "{file}: {:?} {} {} [{}..{}] {:?}\n",
                    names(tool).unwrap_or_default(),
                    f.rule,
                    f.field,
                    f.start,
                    f.end,
                    f.excerpt
                ));
            }
        }
        let n = |s| flagged.get(&s).copied().unwrap_or(0);
        out.push_str(&format!(
            "{file}: {} tools; tools whose worst finding is high {}, medium {}, low {}\n",
            tools.len(),
            n(Severity::High),
            n(Severity::Medium),
            n(Severity::Low)
        ));
        for ((rule, sev), n) in counts {
            out.push_str(&format!("  {rule:30} {:6} {n}\n", severity_name(sev)));
        }
    }
    if !highs.is_empty() {
        out.push_str("high-severity findings:\n");
        out.push_str(&highs);
    }
    Ok(out)
}
