//! Discovery: options, the exact-name shortcut, the query filter, ranking and the answer.
//!
//! The scoring itself lives in [`crate::index`]; this module decides which tokens are scored and
//! turns scored documents into [`Hit`]s.

use crate::analyzer::{REFERENCE_FIELDS, tokenize};
use crate::error::{Error, Result};
use crate::format::{ApiFormat, into_string, write_f64, write_opt_str, write_schema, write_str};
use crate::index::Bm25Params;
use crate::limits::{MAX_QUERY_BYTES, MAX_QUERY_TOKENS, kind_of, parse_json};
use crate::registry::{Shared, State};
use serde_json::{Map, Value};
use std::sync::Arc;

/// Default relative score floor: hits below this fraction of the best are dropped.
pub const DEFAULT_MIN_SCORE_RATIO: f64 = 0.3;
/// Default document-frequency ratio at which a query token counts as filler.
pub const DEFAULT_MAX_DF_RATIO: f64 = 0.5;
/// A token must occur in at least this many tools before the filter may call it filler: in a small
/// catalog a word shared by two of four tools is the very word a user searches for.
pub const MIN_DF_FOR_FILTER: usize = 3;
/// Default number of results.
pub const DEFAULT_TOP_K: usize = 10;

/// Per-field BM25F weights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FieldWeights {
    /// Tool name, with `_` and `-` read as spaces.
    pub name: f64,
    /// Description.
    pub description: f64,
    /// Tags, predefined and custom alike.
    pub tags: f64,
    /// Top-level parameter names.
    pub params: f64,
    /// The author's search hint.
    pub search_hint: f64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            name: 3.0,
            description: 2.0,
            tags: 1.5,
            params: 1.0,
            search_hint: 2.0,
        }
    }
}

impl FieldWeights {
    /// The weights in index field order (see [`REFERENCE_FIELDS`]).
    pub fn as_array(&self) -> [f64; 5] {
        [
            self.name,
            self.description,
            self.tags,
            self.params,
            self.search_hint,
        ]
    }

    fn set(&mut self, field: &str, w: f64) -> bool {
        match field {
            "name" => self.name = w,
            "description" => self.description = w,
            "tags" => self.tags = w,
            "params" => self.params = w,
            "search_hint" => self.search_hint = w,
            _ => return false,
        }
        true
    }
}

/// How a discoverer ranks. Every field has a default; see [`DiscoveryOptions::from_json`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscoveryOptions {
    /// Field weights; fields not given keep their defaults.
    pub field_weights: FieldWeights,
    /// Relative score floor in `[0, 1]`; 0 disables it.
    pub min_score_ratio: f64,
    /// Query filler threshold in `[0, 1]`; 0 disables the filter.
    pub max_df_ratio: f64,
    /// BM25 term-frequency saturation (>= 0).
    pub k1: f64,
    /// BM25 length normalization in `[0, 1]`.
    pub b: f64,
    /// BM25+ lower bound (>= 0).
    pub delta: f64,
}

impl Default for DiscoveryOptions {
    fn default() -> Self {
        DiscoveryOptions {
            field_weights: FieldWeights::default(),
            min_score_ratio: DEFAULT_MIN_SCORE_RATIO,
            max_df_ratio: DEFAULT_MAX_DF_RATIO,
            k1: 1.5,
            b: 0.75,
            delta: 1.0,
        }
    }
}

impl DiscoveryOptions {
    /// Parses `{"field_weights": {...}, "min_score_ratio", "max_df_ratio", "k1", "b", "delta"}`,
    /// all optional; `None`, `null` or `{}` give the defaults. Unknown keys and out-of-range or
    /// non-finite numbers are refused.
    pub fn from_json(text: Option<&str>) -> Result<Self> {
        match text {
            None => Ok(Self::default()),
            Some(t) => Self::from_value(&parse_json(t, "discovery options")?, "options"),
        }
    }

    /// Like [`from_json`](Self::from_json), from a parsed value; `path` prefixes error messages.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let mut o = Self::default();
        let Some(obj) = object_or_null(value, path)? else {
            return Ok(o);
        };
        for (key, v) in obj {
            let here = format!("{path}.{key}");
            match key.as_str() {
                "field_weights" => {
                    let Some(weights) = object_or_null(v, &here)? else {
                        continue;
                    };
                    for (field, w) in weights {
                        let w = number_in(w, &format!("{here}.{field}"), 0.0, f64::MAX)?;
                        if !o.field_weights.set(field, w) {
                            return Err(Error::invalid(format!(
                                "{here}.{field}: unknown field (expected one of {})",
                                REFERENCE_FIELDS.join(", ")
                            )));
                        }
                    }
                }
                "min_score_ratio" => o.min_score_ratio = number_in(v, &here, 0.0, 1.0)?,
                "max_df_ratio" => o.max_df_ratio = number_in(v, &here, 0.0, 1.0)?,
                "k1" => o.k1 = number_in(v, &here, 0.0, f64::MAX)?,
                "b" => o.b = number_in(v, &here, 0.0, 1.0)?,
                "delta" => o.delta = number_in(v, &here, 0.0, f64::MAX)?,
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected field_weights, min_score_ratio, max_df_ratio, k1, b or delta)"
                    )));
                }
            }
        }
        Ok(o)
    }

    fn bm25(&self) -> Bm25Params<5> {
        Bm25Params {
            weights: self.field_weights.as_array(),
            k1: self.k1,
            b: self.b,
            delta: self.delta,
        }
    }
}

/// One discover call's parameters besides the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiscoverRequest {
    /// Most results to return (>= 1; larger than the catalog is fine).
    pub top_k: usize,
    /// Format of the schemas in the answer.
    pub api_format: ApiFormat,
}

impl Default for DiscoverRequest {
    fn default() -> Self {
        DiscoverRequest {
            top_k: DEFAULT_TOP_K,
            api_format: ApiFormat::default(),
        }
    }
}

impl DiscoverRequest {
    /// Parses `{"top_k"?, "api_format"?}`; `None` or `null` give the defaults.
    pub fn from_json(text: Option<&str>) -> Result<Self> {
        let mut r = Self::default();
        let Some(text) = text else { return Ok(r) };
        let value = parse_json(text, "discover options")?;
        let Some(obj) = object_or_null(&value, "options")? else {
            return Ok(r);
        };
        for (key, v) in obj {
            let here = format!("options.{key}");
            match key.as_str() {
                "top_k" => r.top_k = parse_top_k(v, &here)?,
                "api_format" => r.api_format = parse_api_format(v, &here)?,
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected top_k or api_format)"
                    )));
                }
            }
        }
        Ok(r)
    }
}

/// One discovered tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Registered name.
    pub name: String,
    /// Full description.
    pub description: String,
    /// BM25F score, or 1.0 for an exact name match.
    pub score: f64,
    /// Namespace, if any.
    pub namespace: Option<String>,
    /// Whether the tool is deferred.
    pub deferred: bool,
    /// The tool's schema as JSON text: always for an exact match, for fuzzy hits only when deferred.
    pub schema: Option<String>,
}

/// Renders hits as the JSON answer: `[{"name", "description", "score", "namespace", "deferred", "schema"?}]`.
pub fn hits_to_json(hits: &[Hit]) -> String {
    let mut out = Vec::with_capacity(128 * hits.len() + 2);
    out.push(b'[');
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"name\":");
        write_str(&mut out, &h.name);
        out.extend_from_slice(b",\"description\":");
        write_str(&mut out, &h.description);
        out.extend_from_slice(b",\"score\":");
        write_f64(&mut out, h.score);
        out.extend_from_slice(b",\"namespace\":");
        write_opt_str(&mut out, h.namespace.as_deref());
        out.extend_from_slice(if h.deferred {
            b",\"deferred\":true"
        } else {
            b",\"deferred\":false"
        });
        if let Some(schema) = &h.schema {
            out.extend_from_slice(b",\"schema\":");
            out.extend_from_slice(schema.as_bytes());
        }
        out.push(b'}');
    }
    out.push(b']');
    into_string(out)
}

/// A search handle with its own options over a registry's live state.
///
/// It follows every change to the registry by itself (the index is shared and kept in step), and
/// it keeps the registry state alive, so it may outlive the [`Registry`](crate::Registry) handle.
/// `Send + Sync`: discovers from many threads run in parallel.
#[derive(Debug, Clone)]
pub struct Discoverer {
    shared: Arc<Shared>,
    options: DiscoveryOptions,
}

impl Discoverer {
    pub(crate) fn new(shared: Arc<Shared>, options: DiscoveryOptions) -> Self {
        Discoverer { shared, options }
    }

    /// The options this discoverer ranks with.
    pub fn options(&self) -> &DiscoveryOptions {
        &self.options
    }

    /// Finds tools by exact name or natural-language query.
    pub fn discover(&self, query: &str, request: &DiscoverRequest) -> Result<Vec<Hit>> {
        let state = self.shared.read()?;
        discover(&state, &self.options, query, request)
    }

    /// [`discover`](Self::discover), answered as JSON text.
    pub fn discover_json(&self, query: &str, request: &DiscoverRequest) -> Result<String> {
        Ok(hits_to_json(&self.discover(query, request)?))
    }

    /// Rebuilds the shared index from the registry. Never needed (upkeep is incremental) and
    /// changes nothing observable; kept for callers of the reference's API.
    pub fn rebuild_index(&self) -> Result<()> {
        self.shared.write()?.rebuild_index();
        Ok(())
    }
}

/// Checks a query: non-empty, not only whitespace, within the size limit.
pub fn validate_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(Error::invalid(
            "query: empty; pass a tool name or a capability keyword such as \"web search\"",
        ));
    }
    if query.len() > MAX_QUERY_BYTES {
        return Err(Error::TooLarge(format!(
            "query: {} bytes; the limit is {MAX_QUERY_BYTES}",
            query.len()
        )));
    }
    Ok(())
}

/// Answers one query against `state`: the exact-name shortcut, else the filtered BM25F ranking.
pub(crate) fn discover(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
) -> Result<Vec<Hit>> {
    validate_query(query)?;
    if request.top_k < 1 {
        return Err(Error::invalid("top_k: must be at least 1"));
    }
    if let Some(slot) = state.exact_match(query) {
        let tool = state.tool_at(slot);
        let mut schema = Vec::new();
        write_schema(&mut schema, tool, request.api_format);
        return Ok(vec![Hit {
            name: tool.name().to_string(),
            description: tool.description().to_string(),
            score: 1.0,
            namespace: tool.namespace().map(str::to_string),
            deferred: tool.metadata().defer,
            schema: Some(into_string(schema)),
        }]);
    }
    let tokens = tokenize(query);
    if tokens.len() > MAX_QUERY_TOKENS {
        return Err(Error::TooLarge(format!(
            "query: {} tokens; the limit is {MAX_QUERY_TOKENS}",
            tokens.len()
        )));
    }
    let kept = filter_query_tokens(state, options, tokens);
    if kept.is_empty() {
        return Ok(Vec::new());
    }
    // The reference joins the kept tokens and analyzes them again, which may bring back CJK bigrams.
    let tokens = tokenize(&kept.join(" "));
    let mut scored = state
        .index()
        .search(&tokens, &options.bm25(), request.top_k);
    scored.retain(|h| h.score > 0.0);
    if let (Some(best), true) = (scored.first(), options.min_score_ratio > 0.0) {
        let floor = best.score * options.min_score_ratio;
        scored.retain(|h| h.score >= floor);
    }
    Ok(scored
        .iter()
        .map(|h| {
            let tool = state.tool_at(h.doc);
            let deferred = tool.metadata().defer;
            let schema = deferred.then(|| {
                let mut s = Vec::new();
                write_schema(&mut s, tool, request.api_format);
                into_string(s)
            });
            Hit {
                name: tool.name().to_string(),
                description: tool.description().to_string(),
                score: h.score,
                namespace: tool.namespace().map(str::to_string),
                deferred,
                schema,
            }
        })
        .collect())
}

/// Drops query tokens that occur in too many tools to carry signal (see the crate docs); when all
/// would go, keeps the rarest one that names some tool, or nothing.
pub(crate) fn filter_query_tokens(
    state: &State,
    options: &DiscoveryOptions,
    tokens: Vec<String>,
) -> Vec<String> {
    if options.max_df_ratio <= 0.0 || tokens.len() < 2 {
        return tokens;
    }
    let index = state.index();
    let n = index.doc_count() as f64;
    let ubiquitous = |t: &str| {
        let df = index.doc_freq(t);
        df >= MIN_DF_FOR_FILTER && df as f64 / n >= options.max_df_ratio
    };
    let kept: Vec<String> = tokens.iter().filter(|t| !ubiquitous(t)).cloned().collect();
    if !kept.is_empty() {
        return kept;
    }
    let mut rarest: Option<(&String, usize)> = None;
    for t in tokens.iter().filter(|t| index.name_doc_freq(t) > 0) {
        let df = index.doc_freq(t);
        if rarest.is_none_or(|(_, best)| df < best) {
            rarest = Some((t, df));
        }
    }
    rarest.map(|(t, _)| vec![t.clone()]).unwrap_or_default()
}

/// The arguments of a `discover_tools` call: `{"query", "top_k"?, "api_format"?}`.
pub(crate) fn parse_discover_tools_args(text: &str) -> Result<(String, DiscoverRequest)> {
    let value = parse_json(text, "arguments")?;
    let obj = value.as_object().ok_or_else(|| {
        Error::invalid(format!(
            "arguments: expected an object, got {}",
            kind_of(&value)
        ))
    })?;
    let mut request = DiscoverRequest::default();
    let mut query = None;
    for (key, v) in obj {
        let here = format!("arguments.{key}");
        match key.as_str() {
            "query" => match v {
                Value::String(s) => query = Some(s.clone()),
                other => {
                    return Err(Error::invalid(format!(
                        "{here}: expected a string, got {}",
                        kind_of(other)
                    )));
                }
            },
            "top_k" => request.top_k = parse_top_k(v, &here)?,
            "api_format" => request.api_format = parse_api_format(v, &here)?,
            _ => {
                return Err(Error::invalid(format!(
                    "{here}: unknown argument (discover_tools takes query, top_k and api_format)"
                )));
            }
        }
    }
    let query = query.ok_or_else(|| Error::invalid("arguments.query: missing"))?;
    Ok((query, request))
}

fn object_or_null<'a>(value: &'a Value, path: &str) -> Result<Option<&'a Map<String, Value>>> {
    match value {
        Value::Null => Ok(None),
        Value::Object(m) => Ok(Some(m)),
        other => Err(Error::invalid(format!(
            "{path}: expected an object, got {}",
            kind_of(other)
        ))),
    }
}

fn number_in(v: &Value, path: &str, min: f64, max: f64) -> Result<f64> {
    let x = v
        .as_f64()
        .ok_or_else(|| Error::invalid(format!("{path}: expected a number, got {}", kind_of(v))))?;
    if !x.is_finite() || x < min || x > max {
        let range = if max == f64::MAX {
            format!(">= {min}")
        } else {
            format!("in [{min}, {max}]")
        };
        return Err(Error::invalid(format!(
            "{path}: {x} is out of range (must be {range})"
        )));
    }
    Ok(x)
}

fn parse_top_k(v: &Value, path: &str) -> Result<usize> {
    match v.as_u64() {
        Some(k) if k >= 1 => Ok(usize::try_from(k).unwrap_or(usize::MAX)),
        _ => Err(Error::invalid(format!(
            "{path}: expected an integer >= 1, got {v}"
        ))),
    }
}

fn parse_api_format(v: &Value, path: &str) -> Result<ApiFormat> {
    match v {
        Value::String(s) => ApiFormat::parse(s).map_err(|_| {
            Error::invalid(format!(
                "{path}: unknown format {s:?} (expected openai-chat, openai-responses, anthropic or gemini)"
            ))
        }),
        other => Err(Error::invalid(format!("{path}: expected a string, got {}", kind_of(other)))),
    }
}
