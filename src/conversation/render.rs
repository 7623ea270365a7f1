//! The bytes of a conversation's tool list, per mode and provider.

use super::{ConversationOptions, Mode, SearchSide};
use crate::builtins::DiscoverTools;
use crate::error::Result;
use crate::format::{ApiFormat, into_string, write_schema_strict, write_str};
use crate::provider::{SearchTool, provider, write_defer_loading};
use crate::registry::{Builtin, CALL_DEFERRED, Registry, State, Summary, write_builtin_schema};
use serde_json::Value;

/// The part of the tool list that is the same for every conversation with these options.
pub(super) struct SharedParts {
    /// The tools array's elements before the loaded tools, comma-separated, no brackets.
    pub prefix: String,
    /// The text for the system prompt, as a JSON string literal (escaped once, copied per
    /// request: in `stable` mode it lists every deferred tool).
    pub system_text_json: String,
    /// Whether the loaded deferred tools follow the prefix (not in `native` mode nor when `auto`
    /// sends everything).
    pub appends_loaded: bool,
}

/// The shared parts for `options`, rendered once per registry change.
pub(super) fn shared_parts(
    registry: &Registry,
    options: &ConversationOptions,
) -> Result<std::sync::Arc<SharedParts>> {
    let key = [
        (options.api_format as u64)
            | (options.mode as u64) << 4
            | (options.strict as u64) << 8
            | (options.search as u64) << 9,
        options.defer_threshold_tokens as u64,
        options.summary_budget().map_or(u64::MAX, |n| n as u64),
    ];
    registry.derived(key, |state| build(state, options))
}

fn build(state: &State, options: &ConversationOptions) -> SharedParts {
    let (format, strict) = (options.api_format, options.strict);
    match options.mode {
        Mode::Native => native(state, options),
        Mode::Auto => {
            let mut all = Vec::new();
            for (i, tool) in state.enabled_tools().enumerate() {
                if i > 0 {
                    all.push(b',');
                }
                write_schema_strict(&mut all, tool, format, strict);
            }
            if all.len().div_ceil(4) < options.defer_threshold_tokens {
                return SharedParts {
                    prefix: into_string(all),
                    system_text_json: json_string(""),
                    appends_loaded: false,
                };
            }
            listed(state, options, true)
        }
        Mode::Stable => listed(state, options, true),
        Mode::Summaries => listed(state, options, false),
    }
}

/// `summaries` and `stable`: core tools, then the search built-ins.
fn listed(state: &State, options: &ConversationOptions, stable: bool) -> SharedParts {
    let (format, strict) = (options.api_format, options.strict);
    let summaries = state.summaries();
    let mut prefix = Vec::new();
    for tool in state.enabled_tools().filter(|t| !t.metadata().defer) {
        if !prefix.is_empty() {
            prefix.push(b',');
        }
        write_schema_strict(&mut prefix, tool, format, strict);
    }
    let call_deferred = state.builtins().iter().find(|b| b.name() == CALL_DEFERRED);
    let builtins: Vec<&dyn Builtin> = std::iter::once(&DiscoverTools as &dyn Builtin)
        .chain(call_deferred.map(|b| b.as_ref()))
        .collect();
    for b in builtins {
        if !prefix.is_empty() {
            prefix.push(b',');
        }
        let description = if stable {
            b.base_description().to_string()
        } else {
            b.description(&summaries, options.summary_budget())
        };
        write_builtin_schema(&mut prefix, b, &description, format, strict);
    }
    let system_text = if stable && !summaries.is_empty() {
        deferred_text(&summaries, options.summary_budget())
    } else {
        String::new()
    };
    SharedParts {
        prefix: into_string(prefix),
        system_text_json: json_string(&system_text),
        appends_loaded: true,
    }
}

fn json_string(s: &str) -> String {
    let mut out = Vec::with_capacity(s.len() + 2);
    write_str(&mut out, s);
    into_string(out)
}

/// The system-prompt list of deferred tools (`stable` mode).
fn deferred_text(summaries: &[Summary], max_tokens: Option<usize>) -> String {
    format!(
        "Tools available on demand (call discover_tools for the full schema):\n{}",
        crate::builtins::deferred_list(summaries, max_tokens)
    )
}

/// The search tool of `format`'s native deferred loading when searches run on `side` (`None`:
/// the provider has none).
pub(super) fn search_tool(format: ApiFormat, side: SearchSide) -> Option<SearchTool> {
    provider(format).native_search_tool(side, DiscoverTools.base_description())
}

/// `native`: the search tool, then every enabled tool, deferred ones marked `defer_loading`.
fn native(state: &State, options: &ConversationOptions) -> SharedParts {
    let (format, strict) = (options.api_format, options.strict);
    let mut prefix = Vec::new();
    match search_tool(format, options.search) {
        Some(SearchTool::DiscoverTools) => {
            let d = &DiscoverTools as &dyn Builtin;
            write_builtin_schema(
                &mut prefix,
                d,
                DiscoverTools.base_description(),
                format,
                strict,
            );
        }
        Some(SearchTool::Object(tool)) => prefix.extend_from_slice(tool.as_bytes()),
        // Only options built by hand get here (parsed ones are refused): no search tool then.
        None => {}
    }
    for tool in state.enabled_tools() {
        if !prefix.is_empty() {
            prefix.push(b',');
        }
        write_native_tool(&mut prefix, tool, format, strict);
    }
    SharedParts {
        prefix: into_string(prefix),
        system_text_json: json_string(""),
        appends_loaded: false,
    }
}

/// A tool as a native-deferring provider takes it: `"defer_loading": true` when deferred.
fn write_native_tool(out: &mut Vec<u8>, tool: &crate::tool::Tool, format: ApiFormat, strict: bool) {
    write_schema_strict(out, tool, format, strict);
    if tool.metadata().defer {
        write_defer_loading(out);
    }
}

/// Appends the loaded deferred tools that are still registered, enabled and deferred.
pub(super) fn write_loaded(
    registry: &Registry,
    options: &ConversationOptions,
    names: &[String],
    out: &mut Vec<u8>,
    mut first: bool,
) -> Result<()> {
    registry.with_state(|state| {
        for name in names {
            if let Some(tool) = state.enabled_tool(name).filter(|t| t.metadata().defer) {
                if !first {
                    out.push(b',');
                }
                first = false;
                write_schema_strict(out, tool, options.api_format, options.strict);
            }
        }
    })
}

/// The native definitions of these tools (found by a search), in order.
pub(super) fn definitions(
    registry: &Registry,
    options: &ConversationOptions,
    names: &[String],
) -> Result<Vec<Value>> {
    registry.with_state(|state| {
        names
            .iter()
            .filter_map(|n| state.enabled_tool(n))
            .map(|tool| {
                let mut out = Vec::new();
                write_native_tool(&mut out, tool, options.api_format, options.strict);
                serde_json::from_slice(&out).expect("our schema writer emits JSON")
            })
            .collect()
    })
}
