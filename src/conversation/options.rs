//! Options of a conversation.

use crate::discovery::{DiscoverRequest, DiscoveryOptions};
use crate::error::{Error, Result};
use crate::format::ApiFormat;
use crate::limits::{kind_of, object_or_null, parse_json, string_list};
use serde_json::Value;

/// Which tools a conversation sends, and where the deferred tools are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The reference's behaviour: the core tools, the built-ins with the deferred tools listed in
    /// `discover_tools`' description, then the loaded deferred tools.
    #[default]
    Summaries,
    /// The same tools, but the built-ins' descriptions never change: the deferred tools are listed
    /// in `system_text`, so a new deferred tool changes only that, and loading one appends.
    Stable,
    /// The provider defers natively (Anthropic, OpenAI Responses): every enabled tool, deferred
    /// ones marked `"defer_loading": true`, plus the search tool.
    Native,
    /// Everything, without a search tool, while all enabled tools together stay under
    /// `defer_threshold_tokens`; `Stable` above it.
    Auto,
}

impl Mode {
    fn parse(s: &str, path: &str) -> Result<Mode> {
        match s {
            "summaries" => Ok(Mode::Summaries),
            "stable" => Ok(Mode::Stable),
            "native" => Ok(Mode::Native),
            "auto" => Ok(Mode::Auto),
            other => Err(Error::invalid(format!(
                "{path}: unknown mode {other:?} (expected summaries, stable, native or auto)"
            ))),
        }
    }
}

pub use crate::provider::SearchSide;

/// Options of [`Conversation::new`](super::Conversation::new).
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationOptions {
    /// The provider whose request shapes the conversation produces and reads.
    pub api_format: ApiFormat,
    /// Which tools go in each request.
    pub mode: Mode,
    /// Who runs searches in `native` mode.
    pub search: SearchSide,
    /// Deferred tools already loaded (restoring a saved conversation), in load order.
    pub loaded: Vec<String>,
    /// OpenAI strict mode for the tools' schemas.
    pub strict: bool,
    /// The size under which `auto` sends every tool (estimated tokens: bytes / 4).
    pub defer_threshold_tokens: usize,
    /// Most tokens (bytes / 4) the list of deferred tools may take, wherever the mode writes it;
    /// past it the list ends with how many were left out. `None`: [`Self::summary_budget`]'s
    /// default for the mode.
    pub summary_max_tokens: Option<usize>,
    /// How the conversation's searches rank (default: the registry's `discover_tools` options,
    /// else the default profile).
    pub discovery: Option<DiscoveryOptions>,
    /// Options of each search (`top_k`, filters, `max_tokens`); its `api_format` and `strict` are
    /// the conversation's (set by [`Conversation::new`](super::Conversation::new)).
    pub request: DiscoverRequest,
}

impl Default for ConversationOptions {
    fn default() -> Self {
        ConversationOptions {
            api_format: ApiFormat::default(),
            mode: Mode::default(),
            search: SearchSide::default(),
            loaded: Vec::new(),
            strict: false,
            defer_threshold_tokens: 10_000,
            summary_max_tokens: None,
            discovery: None,
            request: DiscoverRequest::default(),
        }
    }
}

/// The default `summary_max_tokens` of `stable` and `auto`: about a hundred one-line summaries.
pub const DEFAULT_SUMMARY_MAX_TOKENS: usize = 2_000;

impl ConversationOptions {
    /// The budget of the deferred list in effect: `summary_max_tokens` when given, else none in
    /// `summaries` mode (the reference lists every deferred tool in `discover_tools`'
    /// description) and `DEFAULT_SUMMARY_MAX_TOKENS` (2,000) in `stable` and `auto` (a list of
    /// thousands of tools in every system prompt would cost what deferring saves).
    pub fn summary_budget(&self) -> Option<usize> {
        match (self.summary_max_tokens, self.mode) {
            (Some(n), _) => Some(n),
            (None, Mode::Summaries | Mode::Native) => None,
            (None, Mode::Stable | Mode::Auto) => Some(DEFAULT_SUMMARY_MAX_TOKENS),
        }
    }

    /// Parses `{"api_format"?, "mode"?, "search"?, "loaded"?, "strict"?,
    /// "defer_threshold_tokens"?, "summary_max_tokens"?, "discovery"?: {ranking options}, "top_k"?, "max_tokens"?,
    /// "namespaces"?, "tags"?}`; `None`/`null` give the defaults.
    pub fn from_json(text: Option<&str>) -> Result<Self> {
        let mut o = Self::default();
        let Some(text) = text else { return Ok(o) };
        let value = parse_json(text, "conversation options")?;
        let Some(obj) = object_or_null(&value, "options")? else {
            return Ok(o);
        };
        let mut request = serde_json::Map::new();
        for (key, v) in obj {
            let here = format!("options.{key}");
            let string = || {
                v.as_str().ok_or_else(|| {
                    Error::invalid(format!("{here}: expected a string, got {}", kind_of(v)))
                })
            };
            match key.as_str() {
                "api_format" => o.api_format = ApiFormat::parse(string()?)?,
                "mode" => o.mode = Mode::parse(string()?, &here)?,
                "search" => {
                    o.search = match string()? {
                        "client" => SearchSide::Client,
                        "server" => SearchSide::Server,
                        other => {
                            return Err(Error::invalid(format!(
                                "{here}: expected \"client\" or \"server\", got {other:?}"
                            )));
                        }
                    }
                }
                "loaded" => o.loaded = string_list(v, &here)?.unwrap_or_default(),
                "strict" => {
                    o.strict = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                "defer_threshold_tokens" => {
                    o.defer_threshold_tokens = v.as_u64().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected an integer >= 0, got {v}"))
                    })? as usize
                }
                "summary_max_tokens" => {
                    o.summary_max_tokens = match v {
                        Value::Null => None,
                        _ => Some(v.as_u64().ok_or_else(|| {
                            Error::invalid(format!("{here}: expected an integer >= 0, got {v}"))
                        })? as usize),
                    }
                }
                "discovery" => o.discovery = Some(DiscoveryOptions::from_value(v, &here)?),
                "top_k" | "max_tokens" | "namespaces" | "tags" => {
                    request.insert(key.clone(), v.clone());
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected api_format, mode, search, loaded, strict, \
                         defer_threshold_tokens, summary_max_tokens, discovery, top_k, max_tokens, \
                         namespaces or tags)"
                    )));
                }
            }
        }
        o.request = DiscoverRequest::from_json(Some(&Value::Object(request).to_string()))?;
        o.check()?;
        Ok(o)
    }

    /// Refuses combinations no provider takes (also for options built in Rust, which
    /// [`Conversation::new`](super::Conversation::new) checks): `native` mode for a provider
    /// without native deferral, strict mode outside OpenAI.
    pub fn check(&self) -> Result<()> {
        if self.mode == Mode::Native
            && super::render::search_tool(self.api_format, self.search).is_none()
        {
            return Err(Error::invalid(format!(
                "options.mode: \"native\" needs api_format anthropic or openai-responses, not {}",
                self.api_format.as_str()
            )));
        }
        crate::schema::check_strict(self.strict, self.api_format, "options.strict")
    }
}
