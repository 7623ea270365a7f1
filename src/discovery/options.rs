//! How a discoverer ranks ([`DiscoveryOptions`], [`Profile`], [`FieldWeights`]) and what one
//! search asks ([`DiscoverRequest`], the `discover_tools` arguments), parsed from JSON with the
//! path of every bad value. Nothing here reads the registry, which keeps these options.

use crate::analyzer::{ENHANCED_FIELDS, EnhancedAnalysis, REFERENCE_FIELDS};
use crate::error::{Error, Result};
use crate::format::ApiFormat;
use crate::index::Bm25Params;
use crate::limits::{MAX_RANKING_PARAMETER, kind_of, object_or_null, parse_json};
use serde_json::Value;

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
    /// Parameter descriptions and enum values; searched by the enhanced profile only.
    pub param_docs: f64,
}

impl Default for FieldWeights {
    fn default() -> Self {
        FieldWeights {
            name: 3.0,
            description: 2.0,
            tags: 1.5,
            params: 1.0,
            search_hint: 2.0,
            param_docs: 0.0,
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

    /// The enhanced profile's weights in its index field order (see [`ENHANCED_FIELDS`]).
    pub fn as_enhanced_array(&self) -> [f64; 6] {
        [
            self.name,
            self.description,
            self.tags,
            self.params,
            self.search_hint,
            self.param_docs,
        ]
    }

    /// The enhanced profile's defaults: the reference's weights plus parameter documentation,
    /// weighted like parameter names (it describes the same parameters, in longer words).
    pub fn enhanced() -> Self {
        FieldWeights {
            param_docs: 1.0,
            ..Self::default()
        }
    }

    fn set(&mut self, field: &str, w: f64) -> bool {
        match field {
            "param_docs" => self.param_docs = w,
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

/// Which ranking a discoverer uses. The default is [`Profile::Enhanced`]; ask for
/// [`Profile::Reference`] (`"profile": "reference"`) for exact parity with the Python reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Profile {
    /// Exactly the reference engine's ranking (`toolregistry` 0.19.0), as the golden vectors pin.
    Reference,
    /// The default. Better retrieval on real tool catalogs: identifier splitting, stemming, NFKC,
    /// parameter descriptions, English function words dropped from queries, plain BM25 (no BM25+
    /// floor), per-field BM25F, and common English words' IDF discounted by a built-in table of
    /// English word frequencies. See EVALUATION.md for what each change contributes.
    #[default]
    Enhanced,
    /// `Enhanced` fused with the registry embedder's cosine similarity: finds tools by meaning
    /// where the words differ. Needs an embedder (see [`crate::embed`]); a registry with one
    /// ranks with it unless the options name a profile.
    Hybrid,
}

impl Profile {
    /// Parses `reference` or `enhanced`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "reference" => Ok(Profile::Reference),
            "enhanced" => Ok(Profile::Enhanced),
            "hybrid" => Ok(Profile::Hybrid),
            _ => Err(Error::invalid(format!(
                "profile: unknown profile {name:?} (expected reference, enhanced or hybrid)"
            ))),
        }
    }

    /// The profile whose lexical index and scoring this profile uses.
    pub fn lexical(self) -> Profile {
        match self {
            Profile::Hybrid => Profile::Enhanced,
            p => p,
        }
    }

    /// The profile's name as it appears in JSON options.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Reference => "reference",
            Profile::Enhanced => "enhanced",
            Profile::Hybrid => "hybrid",
        }
    }

    /// The names of the fields this profile indexes, in index order.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Profile::Reference => &REFERENCE_FIELDS,
            Profile::Enhanced | Profile::Hybrid => &ENHANCED_FIELDS,
        }
    }
}

/// How a discoverer ranks. Every field has a default; see [`DiscoveryOptions::from_json`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DiscoveryOptions {
    /// The ranking profile; it also sets the defaults of the other options.
    pub profile: Profile,
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
    /// The options named the profile. When they did not, a registry with an embedder ranks
    /// with [`Profile::Hybrid`] instead of `profile`.
    pub profile_named: bool,
    /// How `hybrid` fuses its two lists (see [`crate::discovery::hybrid`]); other profiles
    /// ignore it.
    pub fusion: Fusion,
    /// Whether a query that holds several needs is searched for each of them too and the answer
    /// keeps every need's best tools (`enhanced` and `hybrid`; `reference` never does). Default
    /// true; `"intents": false` ranks every query as one need.
    pub intents: bool,
    /// Whether the answer's best hits bring in the tools they are used with, when usage was
    /// recorded (see [`crate::discovery::usage`]; `enhanced` and `hybrid`, never `reference`).
    /// Default true; `"usage": false` ranks as if nothing were recorded.
    pub usage: bool,
}

impl Default for DiscoveryOptions {
    /// The enhanced profile's defaults (see [`DiscoveryOptions::for_profile`]), with the
    /// profile not named: a registry with an embedder ranks with [`Profile::Hybrid`].
    fn default() -> Self {
        DiscoveryOptions {
            profile_named: false,
            ..Self::for_profile(Profile::default())
        }
    }
}

impl DiscoveryOptions {
    /// The defaults of `profile`: the reference's for [`Profile::Reference`]; for
    /// [`Profile::Enhanced`] the same but for `delta` 0 (plain BM25: a matched word earns what its
    /// frequency says, not at least its full IDF) and a parameter-documentation weight of 1.0.
    pub fn for_profile(profile: Profile) -> Self {
        let reference = DiscoveryOptions {
            profile: Profile::Reference,
            field_weights: FieldWeights::default(),
            min_score_ratio: DEFAULT_MIN_SCORE_RATIO,
            max_df_ratio: DEFAULT_MAX_DF_RATIO,
            k1: 1.5,
            b: 0.75,
            delta: 1.0,
            profile_named: true,
            fusion: Default::default(),
            intents: true,
            usage: true,
        };
        match profile {
            Profile::Reference => reference,
            Profile::Enhanced | Profile::Hybrid => DiscoveryOptions {
                profile,
                field_weights: FieldWeights::enhanced(),
                delta: 0.0,
                ..reference
            },
        }
    }

    /// The profile to rank with on a registry that has an embedder (`with_embedder`) or not.
    pub fn effective_profile(&self, with_embedder: bool) -> Profile {
        if !self.profile_named && with_embedder {
            Profile::Hybrid
        } else {
            self.profile
        }
    }

    /// The enhanced profile's defaults, which are also [`Default`]'s (see
    /// [`for_profile`](Self::for_profile)).
    pub fn enhanced() -> Self {
        Self::for_profile(Profile::Enhanced)
    }

    /// The reference profile's defaults: exactly the Python reference's ranking.
    pub fn reference() -> Self {
        Self::for_profile(Profile::Reference)
    }

    /// Parses `{"profile", "field_weights": {...}, "min_score_ratio", "max_df_ratio", "k1", "b",
    /// "delta", "fusion", "intents"}`, all optional; `None`, `null` or `{}` give the defaults. `profile` (`enhanced`,
    /// the default, or `reference` for exact parity with the Python reference) picks the defaults
    /// of the others. Unknown keys and out-of-range
    /// or non-finite numbers are refused.
    pub fn from_json(text: Option<&str>) -> Result<Self> {
        match text {
            None => Ok(Self::default()),
            Some(t) => Self::from_value(&parse_json(t, "discovery options")?, "options"),
        }
    }

    /// Like [`from_json`](Self::from_json), from a parsed value; `path` prefixes error messages.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let Some(obj) = object_or_null(value, path)? else {
            return Ok(Self::default());
        };
        let named = !matches!(obj.get("profile"), None | Some(Value::Null));
        let profile = match obj.get("profile") {
            None | Some(Value::Null) => Profile::default(),
            Some(Value::String(name)) => Profile::parse(name).map_err(|_| {
                Error::invalid(format!(
                    "{path}.profile: unknown profile {name:?} (expected reference, enhanced or hybrid)"
                ))
            })?,
            Some(other) => {
                return Err(Error::invalid(format!(
                    "{path}.profile: expected a string, got {}",
                    kind_of(other)
                )));
            }
        };
        let mut o = Self::for_profile(profile);
        o.profile_named = named;
        for (key, v) in obj {
            let here = format!("{path}.{key}");
            match key.as_str() {
                "profile" => {}
                "field_weights" => {
                    let Some(weights) = object_or_null(v, &here)? else {
                        continue;
                    };
                    for (field, w) in weights {
                        let w =
                            number_in(w, &format!("{here}.{field}"), 0.0, MAX_RANKING_PARAMETER)?;
                        if !profile.fields().contains(&field.as_str())
                            || !o.field_weights.set(field, w)
                        {
                            return Err(Error::invalid(format!(
                                "{here}.{field}: unknown field for the {} profile (expected one of {})",
                                profile.as_str(),
                                profile.fields().join(", ")
                            )));
                        }
                    }
                }
                "min_score_ratio" => o.min_score_ratio = number_in(v, &here, 0.0, 1.0)?,
                "max_df_ratio" => o.max_df_ratio = number_in(v, &here, 0.0, 1.0)?,
                "k1" => o.k1 = number_in(v, &here, 0.0, MAX_RANKING_PARAMETER)?,
                "b" => o.b = number_in(v, &here, 0.0, 1.0)?,
                "delta" => o.delta = number_in(v, &here, 0.0, MAX_RANKING_PARAMETER)?,
                "fusion" => {
                    o.fusion = v
                        .as_str()
                        .and_then(Fusion::parse)
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "{here}: expected \"zscore\", \"minmax\", \"rrf\", \"lexical\" or \"semantic\", got {v}"
                            ))
                        })?
                }
                "intents" => {
                    o.intents = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                "usage" => {
                    o.usage = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected profile, field_weights, min_score_ratio, max_df_ratio, k1, b, delta, fusion, intents or usage)"
                    )));
                }
            }
        }
        Ok(o)
    }

    pub(crate) fn bm25(&self) -> Bm25Params<5> {
        Bm25Params {
            weights: self.field_weights.as_array(),
            k1: self.k1,
            b: self.b,
            delta: self.delta,
            per_field: false,
            saturate_query: false,
            background: None,
        }
    }

    /// The enhanced profile's parameters; `analysis` says which of its scoring changes are on.
    pub(crate) fn bm25_enhanced(&self, analysis: &EnhancedAnalysis) -> Bm25Params<6> {
        Bm25Params {
            weights: self.field_weights.as_enhanced_array(),
            k1: self.k1,
            b: self.b,
            delta: self.delta,
            per_field: analysis.per_field_norm,
            saturate_query: analysis.query_saturation,
            background: analysis
                .background
                .then_some(crate::analyzer::background_rate as fn(&str) -> Option<f64>),
        }
    }
}

/// One discover call's parameters besides the query.
///
/// The filters (`namespaces`, `tags`, `deferred`) choose which tools may be in the answer before
/// it is ranked and cut to `top_k`: a filtered search returns the best `top_k` of the admitted
/// tools. Scores are those of the whole catalog (IDF counts every enabled tool), so a tool scores
/// the same with or without a filter. They apply to an exact-name match too (a tool that does not
/// pass is not matched by name), but not to `select:` queries, which name their tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoverRequest {
    /// Most results to return (>= 1; larger than the catalog is fine).
    pub top_k: usize,
    /// Format of the schemas in the answer.
    pub api_format: ApiFormat,
    /// Only tools registered under one of these namespaces (compared ignoring ASCII case);
    /// empty: any tool, with or without a namespace.
    pub namespaces: Vec<String>,
    /// Only tools carrying at least one of these tags (compared ignoring ASCII case); empty: any.
    pub tags: Vec<String>,
    /// Only deferred tools (`Some(true)`) or only loaded ones (`Some(false)`); `None`: both.
    pub deferred: Option<bool>,
    /// OpenAI strict mode for the schemas in the answer (OpenAI formats only; see
    /// [`crate::schema`]): a hit whose schema cannot be strict carries a `warning`.
    pub strict: bool,
    /// Most tokens the JSON answer may take, estimated as its UTF-8 bytes / 4 rounded up: hits
    /// keep their schemas while they fit, then come as name + one-line summary, then stop. The
    /// top hit is always returned (as name + summary if its schema alone is too big), so a budget
    /// smaller than that one summary is exceeded by it alone. Applies to the JSON answers and to
    /// the typed hits alike.
    pub max_tokens: Option<usize>,
    /// The query's vector, computed by the host (the pull model: an embedder the library cannot
    /// call for a query). `hybrid` ranks with it instead of embedding the query; other profiles
    /// ignore it.
    pub query_vector: Option<QueryEmbedding>,
}

/// A query vector given with a discover, compared bit for bit (so requests stay `Eq`).
#[derive(Debug, Clone)]
pub struct QueryEmbedding(pub std::sync::Arc<[f32]>);

impl PartialEq for QueryEmbedding {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(other.0.iter())
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Eq for QueryEmbedding {}

impl Default for DiscoverRequest {
    fn default() -> Self {
        DiscoverRequest {
            top_k: DEFAULT_TOP_K,
            api_format: ApiFormat::default(),
            namespaces: Vec::new(),
            tags: Vec::new(),
            deferred: None,
            strict: false,
            max_tokens: None,
            query_vector: None,
        }
    }
}

impl DiscoverRequest {
    /// Whether any filter is set.
    pub fn has_filters(&self) -> bool {
        !self.namespaces.is_empty() || !self.tags.is_empty() || self.deferred.is_some()
    }

    /// Whether `tool` passes the filters.
    pub fn admits(&self, tool: &crate::tool::Tool) -> bool {
        let meta = tool.metadata();
        self.deferred.is_none_or(|d| d == meta.defer)
            && (self.namespaces.is_empty()
                || tool
                    .namespace()
                    .is_some_and(|ns| self.namespaces.iter().any(|n| n.eq_ignore_ascii_case(ns))))
            && (self.tags.is_empty()
                || meta
                    .tags
                    .iter()
                    .any(|t| self.tags.iter().any(|w| w.eq_ignore_ascii_case(t))))
    }

    /// Parses `{"top_k"?, "api_format"?, "namespaces"?: [str], "tags"?: [str], "deferred"?:
    /// bool, "strict"?: bool, "max_tokens"?: int >= 1, "query_vector"?: [number]}`; `None` or
    /// `null` give the defaults.
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
                "namespaces" => r.namespaces = parse_strings(v, &here)?,
                "tags" => r.tags = parse_strings(v, &here)?,
                "deferred" => r.deferred = parse_opt_bool(v, &here)?,
                "strict" => {
                    r.strict = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                "max_tokens" => {
                    r.max_tokens = match v {
                        Value::Null => None,
                        _ => Some(v.as_u64().filter(|&n| n >= 1).ok_or_else(|| {
                            Error::invalid(format!("{here}: expected an integer >= 1, got {v}"))
                        })? as usize),
                    }
                }
                "query_vector" => {
                    r.query_vector = match v {
                        Value::Null => None,
                        Value::Array(items) if !items.is_empty() => Some(QueryEmbedding(
                            items
                                .iter()
                                .enumerate()
                                .map(|(i, x)| {
                                    x.as_f64().map(|x| x as f32).ok_or_else(|| {
                                        Error::invalid(format!(
                                            "{here}[{i}]: expected a number, got {}",
                                            kind_of(x)
                                        ))
                                    })
                                })
                                .collect::<Result<Vec<f32>>>()?
                                .into(),
                        )),
                        _ => {
                            return Err(Error::invalid(format!(
                                "{here}: expected a non-empty array of numbers, got {}",
                                kind_of(v)
                            )));
                        }
                    }
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected top_k, api_format, namespaces, tags, deferred, strict, max_tokens or query_vector)"
                    )));
                }
            }
        }
        crate::schema::check_strict(r.strict, r.api_format, "options")?;
        Ok(r)
    }
}

/// The arguments of a `discover_tools` call: `{"query", "top_k"?, "api_format"?, "namespace"?:
/// str | [str], "tags"?: [str] | str}`.
pub fn parse_discover_tools_args(text: &str) -> Result<(String, DiscoverRequest)> {
    match parse_plain_args(text) {
        Some(plain) => Ok(plain),
        None => parse_general_args(text),
    }
}

/// [`parse_discover_tools_args`] through a `Value` tree: every form, and every error message.
fn parse_general_args(text: &str) -> Result<(String, DiscoverRequest)> {
    let value = parse_json(text, "arguments")?;
    let obj = value.as_object().ok_or_else(|| {
        Error::invalid(format!(
            "arguments: expected an object, got {}",
            kind_of(&value)
        ))
    })?;
    let mut request = DiscoverRequest::default();
    let mut query = None;
    // Each known key's path is a literal: no `format!` per argument on every discover.
    for (key, v) in obj {
        match key.as_str() {
            "query" => match v {
                Value::String(s) => query = Some(s.clone()),
                other => {
                    return Err(Error::invalid(format!(
                        "arguments.query: expected a string, got {}",
                        kind_of(other)
                    )));
                }
            },
            "top_k" => request.top_k = parse_top_k(v, "arguments.top_k")?,
            "api_format" => request.api_format = parse_api_format(v, "arguments.api_format")?,
            // A model may well send one namespace or tag as a plain string.
            "namespace" => request.namespaces = parse_string_or_strings(v, "arguments.namespace")?,
            "tags" => request.tags = parse_string_or_strings(v, "arguments.tags")?,
            _ => {
                return Err(Error::invalid(format!(
                    "arguments.{key}: unknown argument (discover_tools takes query, top_k, api_format, namespace and tags)"
                )));
            }
        }
    }
    let query = query.ok_or_else(|| Error::invalid("arguments.query: missing"))?;
    Ok((query, request))
}

/// The common `{"query": "...", "top_k": N}` (`top_k` optional) read without a `Value` tree,
/// as [`parse_discover_tools_args`] reads it; `None` for anything else (another key, a repeated
/// key, `null`, a `top_k` below 1, text that is not an object, too large or not JSON), which
/// the general path then reads and reports.
fn parse_plain_args(text: &str) -> Option<(String, DiscoverRequest)> {
    #[derive(serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Plain<'a> {
        #[serde(borrow)]
        query: std::borrow::Cow<'a, str>,
        // Absent: the default; `null` fails here (the general path reports it).
        #[serde(default = "default_top_k")]
        top_k: u64,
    }
    fn default_top_k() -> u64 {
        DEFAULT_TOP_K as u64
    }
    // A derived struct also reads a JSON array; only an object is this form.
    if text.len() > crate::limits::MAX_INPUT_BYTES || !text.trim_start().starts_with('{') {
        return None;
    }
    let plain: Plain = serde_json::from_str(text).ok()?;
    if plain.top_k < 1 {
        return None;
    }
    let request = DiscoverRequest {
        top_k: usize::try_from(plain.top_k).unwrap_or(usize::MAX),
        ..DiscoverRequest::default()
    };
    Some((plain.query.into_owned(), request))
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
        // The JSON number as written: `{x}` would spell 1e308 with 309 digits.
        return Err(Error::invalid(format!(
            "{path}: {v} is out of range (must be {range})"
        )));
    }
    Ok(x)
}

/// An array of strings; `null` is the empty list.
fn parse_strings(v: &Value, path: &str) -> Result<Vec<String>> {
    Ok(crate::limits::string_list(v, path)?.unwrap_or_default())
}

/// One string or an array of strings.
fn parse_string_or_strings(v: &Value, path: &str) -> Result<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        other => parse_strings(other, path),
    }
}

/// A boolean; `null` is `None`.
fn parse_opt_bool(v: &Value, path: &str) -> Result<Option<bool>> {
    match v {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        other => Err(Error::invalid(format!(
            "{path}: expected true or false, got {}",
            kind_of(other)
        ))),
    }
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

/// How the two lists are fused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fusion {
    /// Mean of the z-scores (the default).
    #[default]
    ZScore,
    /// Mean of the min-max normalized scores (best 1, last candidate 0; missing from the lexical
    /// list 0).
    MinMax,
    /// Reciprocal rank fusion, `1/(60 + rank)` summed: ranks only, no scores.
    Rrf,
    /// The lexical list alone (an ablation).
    LexicalOnly,
    /// The semantic list alone (an ablation).
    SemanticOnly,
}

impl Fusion {
    /// Parses `zscore`, `minmax`, `rrf`, `lexical` or `semantic`.
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "zscore" => Fusion::ZScore,
            "minmax" => Fusion::MinMax,
            "rrf" => Fusion::Rrf,
            "lexical" => Fusion::LexicalOnly,
            "semantic" => Fusion::SemanticOnly,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fast reading answers exactly like the general one wherever it answers, and leaves
    /// every other form (and every error) to it.
    #[test]
    fn plain_arguments_read_like_the_general_path() {
        let cases = [
            (r#"{"query":"send email"}"#, true),
            (r#"{"query":"send email","top_k":3}"#, true),
            (r#" {"top_k":1,"query":"a \"quoted\" \u00e9 word"}"#, true),
            (r#"{"query":"x","top_k":18446744073709551615}"#, true),
            (r#"{"query":"x","top_k":0}"#, false),
            (r#"{"query":"x","top_k":null}"#, false),
            (r#"{"query":"x","top_k":2.0}"#, false),
            (r#"{"query":"x","top_k":-1}"#, false),
            (r#"{"query":null}"#, false),
            (r#"{"query":"a","query":"b"}"#, false),
            (r#"{"query":"x","api_format":"anthropic"}"#, false),
            (r#"{"query":"x","namespace":"github"}"#, false),
            (r#"{"query":"x","other":1}"#, false),
            (r#"["x",3]"#, false),
            (r#"{"top_k":3}"#, false),
            (r#"{"query":"x"} trailing"#, false),
            (r#"{"query":"\ud800"}"#, false),
            ("", false),
        ];
        for (text, plain) in cases {
            let fast = parse_plain_args(text);
            assert_eq!(fast.is_some(), plain, "{text}");
            let general = parse_general_args(text);
            if let Some((query, request)) = fast {
                let (q, r) = general.expect(text);
                assert_eq!((query, request.top_k), (q, r.top_k), "{text}");
                assert_eq!(request.api_format, r.api_format);
                assert!(r.namespaces.is_empty() && r.tags.is_empty());
            }
            // Whatever the fast path declines, the public entry answers like the general path.
            assert_eq!(
                format!("{:?}", parse_discover_tools_args(text)),
                format!("{:?}", parse_general_args(text)),
                "{text}"
            );
        }
    }
}
