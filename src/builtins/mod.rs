//! The built-in tools the library runs itself: `discover_tools` (find a tool by name or query) and
//! `call_deferred` (run a deferred tool by name). Each is a [`Builtin`] built only on the public
//! registry, discovery and execution APIs; enabling discovery installs them in the registry,
//! which lists them in schemas and runs their calls like any other tool.

mod call_deferred;
mod discover_tools;

pub use call_deferred::CallDeferred;
pub use discover_tools::DiscoverTools;

use crate::discovery::DiscoveryOptions;
use crate::error::{Error, Result};
use crate::limits::{kind_of, parse_json};
use crate::registry::{Builtin, Registry, Summary};
use serde_json::Value;
use std::sync::Arc;

impl Registry {
    /// Turns discovery on with these ranking options: registers `discover_tools` and
    /// `call_deferred` (again: replaces them and their options).
    pub fn enable_discovery(&self, options: DiscoveryOptions) -> Result<()> {
        self.enable_discovery_with(options, true)
    }

    /// Like [`enable_discovery`](Self::enable_discovery); `call_deferred` only when asked.
    pub fn enable_discovery_with(
        &self,
        options: DiscoveryOptions,
        call_deferred: bool,
    ) -> Result<()> {
        let mut builtins: Vec<Arc<dyn Builtin>> = vec![Arc::new(DiscoverTools)];
        if call_deferred {
            builtins.push(Arc::new(CallDeferred));
        }
        self.install_discovery(options, builtins)
    }

    /// [`enable_discovery_with`](Self::enable_discovery_with) from options JSON: the discovery
    /// options plus `"call_deferred": bool` (default true). `None`/`null` give the defaults.
    pub fn enable_discovery_json(&self, options_json: Option<&str>) -> Result<()> {
        let (options, call_deferred) = parse_enable_options(options_json)?;
        self.enable_discovery_with(options, call_deferred)
    }
}

/// Splits `"call_deferred"` off the discovery options.
fn parse_enable_options(text: Option<&str>) -> Result<(DiscoveryOptions, bool)> {
    let Some(text) = text else {
        return Ok((DiscoveryOptions::default(), true));
    };
    let mut value = parse_json(text, "discovery options")?;
    let mut call_deferred = true;
    if let Value::Object(m) = &mut value {
        if let Some(v) = m.shift_remove("call_deferred") {
            call_deferred = v.as_bool().ok_or_else(|| {
                Error::invalid(format!(
                    "options.call_deferred: expected a boolean, got {}",
                    kind_of(&v)
                ))
            })?;
        }
    }
    Ok((
        DiscoveryOptions::from_value(&value, "options")?,
        call_deferred,
    ))
}

/// The list of deferred tools as the built-ins' descriptions show it: `- name: summary` lines.
/// With `max_tokens`, the lines stop where the list would pass that many tokens (estimated as
/// UTF-8 bytes / 4, rounded up, like a search's `max_tokens`), and a last line says how many were
/// left out: a catalog of thousands of deferred tools would otherwise put all of them in every
/// request, which is what deferring is meant to avoid. The count line is always written, so a
/// budget smaller than it is exceeded by that line alone.
pub(crate) fn deferred_list(deferred: &[Summary], max_tokens: Option<usize>) -> String {
    let budget = max_tokens.map_or(usize::MAX, |t| t.saturating_mul(4));
    // Room for the count line at its longest, so cutting never needs to take a line back.
    let reserve = 1 + omitted_line(deferred.len()).len();
    let mut text = String::new();
    for (i, s) in deferred.iter().enumerate() {
        let line_len = 2
            + s.name.len()
            + if s.description.is_empty() {
                0
            } else {
                2 + s.description.len()
            };
        let sep = usize::from(i > 0);
        let rest = if i + 1 < deferred.len() { reserve } else { 0 };
        if text.len() + sep + line_len + rest > budget {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&omitted_line(deferred.len() - i));
            return text;
        }
        if i > 0 {
            text.push('\n');
        }
        text.push_str("- ");
        text.push_str(&s.name);
        if !s.description.is_empty() {
            text.push_str(": ");
            text.push_str(&s.description);
        }
    }
    text
}

/// The line that ends a cut list of deferred tools.
fn omitted_line(count: usize) -> String {
    format!("- ... and {count} more (call discover_tools to find them)")
}
