//! Discovery: options, the exact-name shortcut, the query filter, ranking and the answer.
//!
//! The scoring itself lives in [`crate::index`]; this module decides which tokens are scored and
//! turns scored documents into [`Hit`]s.

use crate::analyzer::{
    ENHANCED_FIELDS, EnhancedAnalysis, REFERENCE_FIELDS, enhanced_query_tokens_within, tokenize,
};
use crate::error::{Error, Result};
use crate::format::{
    ApiFormat, into_string, write_f64, write_opt_str, write_schema_strict, write_str,
};
use crate::index::{Bm25Params, Index};
use crate::limits::{
    MAX_QUERY_BYTES, MAX_QUERY_TOKENS, MAX_RANKING_PARAMETER, kind_of, parse_json,
};
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
    /// floor). See EVALUATION.md for what each change contributes.
    #[default]
    Enhanced,
}

impl Profile {
    /// Parses `reference` or `enhanced`.
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "reference" => Ok(Profile::Reference),
            "enhanced" => Ok(Profile::Enhanced),
            _ => Err(Error::invalid(format!(
                "profile: unknown profile {name:?} (expected reference or enhanced)"
            ))),
        }
    }

    /// The profile's name as it appears in JSON options.
    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Reference => "reference",
            Profile::Enhanced => "enhanced",
        }
    }

    /// The names of the fields this profile indexes, in index order.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            Profile::Reference => &REFERENCE_FIELDS,
            Profile::Enhanced => &ENHANCED_FIELDS,
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
}

impl Default for DiscoveryOptions {
    /// The enhanced profile's defaults (see [`DiscoveryOptions::for_profile`]).
    fn default() -> Self {
        Self::for_profile(Profile::default())
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
        };
        match profile {
            Profile::Reference => reference,
            Profile::Enhanced => DiscoveryOptions {
                profile,
                field_weights: FieldWeights::enhanced(),
                delta: 0.0,
                ..reference
            },
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
    /// "delta"}`, all optional; `None`, `null` or `{}` give the defaults. `profile` (`enhanced`,
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
        let profile = match obj.get("profile") {
            None | Some(Value::Null) => Profile::default(),
            Some(Value::String(name)) => Profile::parse(name).map_err(|_| {
                Error::invalid(format!(
                    "{path}.profile: unknown profile {name:?} (expected reference or enhanced)"
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
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected profile, field_weights, min_score_ratio, max_df_ratio, k1, b or delta)"
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
            saturate_query: false,
        }
    }

    /// The enhanced profile's parameters; `analysis` says which of its scoring changes are on.
    pub(crate) fn bm25_enhanced(&self, analysis: &EnhancedAnalysis) -> Bm25Params<6> {
        Bm25Params {
            weights: self.field_weights.as_enhanced_array(),
            k1: self.k1,
            b: self.b,
            delta: self.delta,
            saturate_query: analysis.query_saturation,
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
    /// top hit is always returned (as name + summary if its schema alone is too big).
    pub max_tokens: Option<usize>,
}

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
    /// bool, "strict"?: bool}`; `None` or `null` give the defaults.
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
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected top_k, api_format, namespaces, tags, deferred, strict or max_tokens)"
                    )));
                }
            }
        }
        crate::schema::check_strict(r.strict, r.api_format, "options")?;
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
    /// Strict mode was asked for and this schema cannot be strict: why (the schema is non-strict).
    pub warning: Option<String>,
}

/// Renders hits as the JSON answer: `[{"name", "description", "score", "namespace", "deferred", "schema"?, "warning"?}]`.
pub fn hits_to_json(hits: &[Hit]) -> String {
    let mut out = Vec::with_capacity(128 * hits.len() + 2);
    out.push(b'[');
    for (i, h) in hits.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_hit_head(
            &mut out,
            &h.name,
            &h.description,
            h.score,
            h.namespace.as_deref(),
            h.deferred,
        );
        if let Some(schema) = &h.schema {
            out.extend_from_slice(b",\"schema\":");
            out.extend_from_slice(schema.as_bytes());
        }
        write_warning(&mut out, h.warning.as_deref());
        out.push(b'}');
    }
    out.push(b']');
    into_string(out)
}

/// Writes a hit's strict-mode warning, if any.
fn write_warning(out: &mut Vec<u8>, warning: Option<&str>) {
    if let Some(w) = warning {
        out.extend_from_slice(b",\"warning\":");
        write_str(out, w);
    }
}

/// Writes a hit's object up to (not including) its schema and closing brace.
fn write_hit_head(
    out: &mut Vec<u8>,
    name: &str,
    description: &str,
    score: f64,
    namespace: Option<&str>,
    deferred: bool,
) {
    out.extend_from_slice(b"{\"name\":");
    write_str(out, name);
    out.extend_from_slice(b",\"description\":");
    write_str(out, description);
    out.extend_from_slice(b",\"score\":");
    write_f64(out, score);
    out.extend_from_slice(b",\"namespace\":");
    write_opt_str(out, namespace);
    out.extend_from_slice(if deferred {
        b",\"deferred\":true"
    } else {
        b",\"deferred\":false"
    });
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
        // The first user of a profile builds its index; from then on mutations keep it in step.
        // A poisoned lock is reported by the first discover instead.
        if let Ok(mut state) = shared.write() {
            state.ensure_index(options.profile);
        }
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
        let state = self.shared.read()?;
        discover_json(&state, &self.options, query, request)
    }

    /// Explains how `query` ranks the tool `tool_name` with this discoverer's options and
    /// `request.top_k`: the analyzed query tokens and the filter's verdicts, the tool's score
    /// taken apart per token and field, its rank, or why it is not in the answer. An unknown tool
    /// is NOT_FOUND; query and `top_k` are checked as for [`discover`](Self::discover).
    pub fn explain(
        &self,
        query: &str,
        tool_name: &str,
        request: &DiscoverRequest,
    ) -> Result<crate::explain::Explanation> {
        let state = self.shared.read()?;
        crate::explain::explain(&state, &self.options, query, tool_name, request)
    }

    /// [`explain`](Self::explain), as JSON text.
    pub fn explain_json(
        &self,
        query: &str,
        tool_name: &str,
        request: &DiscoverRequest,
    ) -> Result<String> {
        Ok(self.explain(query, tool_name, request)?.to_json())
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

/// Why the query filter set a token aside.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// An English function word (enhanced profile only).
    Stopword,
    /// In at least [`MIN_DF_FOR_FILTER`] tools and in at least `max_df_ratio` of them.
    Filler,
}

/// One analyzed query token and what the query filter did with it.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryToken {
    /// The token as analyzed (lowercased; stemmed in the enhanced profile).
    pub token: String,
    /// Number of indexed tools containing it in any field.
    pub df: usize,
    /// `df` over the number of indexed tools (0 when there are none).
    pub df_ratio: f64,
    /// Why it is not scored, if it is not.
    pub dropped: Option<Dropped>,
    /// Every token was filler, and this one was kept as the rarest that names some tool.
    pub rescued: bool,
}

/// The analyzed query, the filter's verdicts, and the tokens that are scored.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct QueryPlan {
    pub tokens: Vec<QueryToken>,
    /// Tokens the analysis produced; when over [`MAX_QUERY_TOKENS`], only the first
    /// [`MAX_QUERY_TOKENS`] are in `tokens`.
    pub analyzed: usize,
    /// What is scored, in order (duplicates count again).
    pub scored: Vec<String>,
}

/// A query's ranking before the score floor: `plan`, and the best `top_k` documents.
pub(crate) struct Ranking {
    pub plan: QueryPlan,
    pub hits: Vec<crate::index::ScoredDoc>,
}

/// Applies the query filter to analyzed tokens (`(token, is_stopword)`).
///
/// Stopwords go first. Then, with two or more tokens left and `max_df_ratio` > 0, every token
/// found in at least [`MIN_DF_FOR_FILTER`] tools and in at least that fraction of them is filler;
/// if all are, the rarest one that occurs in some tool's name is kept (first in query order on
/// ties), else nothing. `reanalyze` runs the kept tokens, joined by spaces, through the reference
/// analyzer again, as the reference does (it may bring back CJK bigrams).
fn plan_query<const F: usize>(
    index: &Index<F>,
    max_df_ratio: f64,
    tokens: Vec<(String, bool)>,
    analyzed: usize,
    reanalyze: bool,
) -> QueryPlan {
    let n = index.doc_count();
    let mut plan: Vec<QueryToken> = tokens
        .into_iter()
        .map(|(token, stop)| {
            let df = index.doc_freq(&token);
            QueryToken {
                df_ratio: if n == 0 { 0.0 } else { df as f64 / n as f64 },
                df,
                token,
                dropped: stop.then_some(Dropped::Stopword),
                rescued: false,
            }
        })
        .collect();
    let candidates: Vec<usize> = (0..plan.len())
        .filter(|&i| plan[i].dropped.is_none())
        .collect();
    if max_df_ratio > 0.0 && candidates.len() >= 2 {
        for &i in &candidates {
            let t = &plan[i];
            if t.df >= MIN_DF_FOR_FILTER && t.df as f64 / n as f64 >= max_df_ratio {
                plan[i].dropped = Some(Dropped::Filler);
            }
        }
        if candidates.iter().all(|&i| plan[i].dropped.is_some()) {
            let mut rarest: Option<(usize, usize)> = None;
            for &i in &candidates {
                if index.name_doc_freq(&plan[i].token) > 0
                    && rarest.is_none_or(|(_, best)| plan[i].df < best)
                {
                    rarest = Some((i, plan[i].df));
                }
            }
            if let Some((i, _)) = rarest {
                plan[i].dropped = None;
                plan[i].rescued = true;
            }
        }
    }
    let kept: Vec<&str> = plan
        .iter()
        .filter(|t| t.dropped.is_none())
        .map(|t| t.token.as_str())
        .collect();
    let scored = if kept.is_empty() {
        Vec::new()
    } else if reanalyze && !kept.iter().all(|t| t.is_ascii()) {
        // ASCII tokens are single lowercase `\w` runs: analyzing them again changes nothing.
        tokenize(&kept.join(" "))
    } else {
        kept.iter().map(|t| t.to_string()).collect()
    };
    QueryPlan {
        tokens: plan,
        analyzed,
        scored,
    }
}

/// Analyzes, filters and scores `query` in `options.profile`, keeping the best `top_k`
/// (before the score floor and the zero-score cut).
///
/// Only the first [`MAX_QUERY_TOKENS`] analyzed tokens are used: a query within
/// [`MAX_QUERY_BYTES`] always gets an answer (a pasted log or blob is not a reason to refuse the
/// words around it), and scoring time stays bounded. `QueryPlan::analyzed` says when more were cut.
pub(crate) fn rank_query(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    top_k: usize,
) -> Result<Ranking> {
    match options.profile {
        Profile::Reference => {
            let mut tokens = tokenize(query);
            let analyzed = tokens.len();
            tokens.truncate(MAX_QUERY_TOKENS);
            let tokens = tokens.into_iter().map(|t| (t, false)).collect();
            let params = options.bm25();
            let index = state.index().ok_or_else(|| {
                Error::Internal("the reference index was not built for this registry".into())
            })?;
            plan_and_search(index, options, (tokens, analyzed), true, &params, top_k)
        }
        Profile::Enhanced => {
            let (analysis, index) = state.enhanced().ok_or_else(|| {
                Error::Internal("the enhanced index was not built for this registry".into())
            })?;
            let tokens = enhanced_query_tokens_within(query, analysis, MAX_QUERY_TOKENS);
            let params = options.bm25_enhanced(analysis);
            plan_and_search(index, options, tokens, false, &params, top_k)
        }
    }
}

/// The steps both profiles share once the query is analyzed (and cut to the token limit): the
/// filter, scoring. `tokens` carries the number of tokens before the cut.
fn plan_and_search<const F: usize>(
    index: &Index<F>,
    options: &DiscoveryOptions,
    (tokens, analyzed): (Vec<(String, bool)>, usize),
    reanalyze: bool,
    params: &Bm25Params<F>,
    top_k: usize,
) -> Result<Ranking> {
    let plan = plan_query(index, options.max_df_ratio, tokens, analyzed, reanalyze);
    let hits = if plan.scored.is_empty() {
        Vec::new()
    } else {
        index.search(&plan.scored, params, top_k)
    };
    Ok(Ranking { plan, hits })
}

/// The relative score floor: `min_score_ratio` times the best score, or `None` when disabled.
pub(crate) fn score_floor(options: &DiscoveryOptions, best: Option<f64>) -> Option<f64> {
    match best {
        Some(best) if options.min_score_ratio > 0.0 => Some(best * options.min_score_ratio),
        _ => None,
    }
}

/// Answers one query against `state`: the exact-name shortcut, else the filtered BM25F ranking.
pub(crate) fn discover(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
) -> Result<Vec<Hit>> {
    let (hits, exact) = answer(state, options, query, request)?;
    Ok(hits
        .iter()
        .map(|h| {
            let tool = state.tool_at(h.doc);
            let deferred = tool.metadata().defer;
            let mut warning = None;
            let schema = (exact || deferred).then(|| {
                let mut s = Vec::new();
                warning = write_schema_strict(&mut s, tool, request.api_format, request.strict)
                    .map(str::to_string);
                into_string(s)
            });
            Hit {
                name: tool.name().to_string(),
                description: tool.description().to_string(),
                score: h.score,
                namespace: tool.namespace().map(str::to_string),
                deferred,
                schema,
                warning,
            }
        })
        .collect())
}

/// [`discover`] answered as JSON text (as [`hits_to_json`] writes it), written straight from
/// the registry's tools instead of through copied [`Hit`] values.
pub(crate) fn discover_json(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
) -> Result<String> {
    let (hits, exact) = answer(state, options, query, request)?;
    // The answer's byte budget (`max_tokens` estimated at 4 bytes a token), closing `]` included.
    let budget = request.max_tokens.map(|t| t.saturating_mul(4));
    let fits = |out: &Vec<u8>| budget.is_none_or(|b| out.len() < b);
    let mut compact = false;
    let mut out = Vec::with_capacity(1024);
    out.push(b'[');
    for (i, h) in hits.iter().enumerate() {
        let start = out.len();
        if i > 0 {
            out.push(b',');
        }
        let tool = state.tool_at(h.doc);
        let deferred = tool.metadata().defer;
        if !compact {
            write_hit_head(
                &mut out,
                tool.name(),
                tool.description(),
                h.score,
                tool.namespace(),
                deferred,
            );
            if exact || deferred {
                out.extend_from_slice(b",\"schema\":");
                let warning =
                    write_schema_strict(&mut out, tool, request.api_format, request.strict);
                write_warning(&mut out, warning);
            }
            out.push(b'}');
            if fits(&out) {
                continue;
            }
            // Over budget with its schema: from here on, names and one-line summaries only.
            out.truncate(start);
            if i > 0 {
                out.push(b',');
            }
            compact = true;
        }
        write_hit_head(
            &mut out,
            tool.name(),
            crate::registry::first_sentence(tool.description()),
            h.score,
            tool.namespace(),
            deferred,
        );
        out.push(b'}');
        if !fits(&out) && i > 0 {
            out.truncate(start);
            break;
        }
    }
    out.push(b']');
    Ok(into_string(out))
}

/// The documents a query answers with, best first, and whether it is the exact-name match
/// (score 1.0, with its schema whether deferred or not).
fn answer(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
) -> Result<(Vec<crate::index::ScoredDoc>, bool)> {
    validate_query(query)?;
    if request.top_k < 1 {
        return Err(Error::invalid("top_k: must be at least 1"));
    }
    if let Some(doc) = state
        .exact_match(query)
        .filter(|&doc| request.admits(state.tool_at(doc)))
    {
        return Ok((vec![crate::index::ScoredDoc { doc, score: 1.0 }], true));
    }
    if let Some(names) = select_names(query) {
        return Ok((select(state, names), true));
    }
    let mut scored = if request.has_filters() {
        // Rank every matching tool, keep the admitted ones, then cut: the filter comes first.
        let everything = state.indexed_count().max(1);
        let mut all = rank_query(state, options, query, everything)?.hits;
        all.retain(|h| request.admits(state.tool_at(h.doc)));
        all.truncate(request.top_k);
        all
    } else {
        rank_query(state, options, query, request.top_k)?.hits
    };
    scored.retain(|h| h.score > 0.0);
    if let Some(floor) = score_floor(options, scored.first().map(|h| h.score)) {
        scored.retain(|h| h.score >= floor);
    }
    Ok((scored, false))
}

/// The prefix of a query that names its tools: `select:a,b,c`.
pub const SELECT_PREFIX: &str = "select:";

/// The names of a `select:a,b,c` query (trimmed, empty ones skipped), or `None` for any other
/// query. The prefix is matched ignoring ASCII case and leading whitespace.
pub fn select_names(query: &str) -> Option<impl Iterator<Item = &str>> {
    let q = query.trim_start();
    let head = q.get(..SELECT_PREFIX.len())?;
    if !head.eq_ignore_ascii_case(SELECT_PREFIX) {
        return None;
    }
    Some(
        q[SELECT_PREFIX.len()..]
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty()),
    )
}

/// The tools a `select:` query names, by tolerant exact name (as a whole-query exact match is
/// found), in the given order, each once, unknown or disabled names skipped; score 1.0 each.
fn select<'a>(state: &State, names: impl Iterator<Item = &'a str>) -> Vec<crate::index::ScoredDoc> {
    let mut out: Vec<crate::index::ScoredDoc> = Vec::new();
    for name in names {
        if let Some(doc) = state.exact_match(name) {
            if !out.iter().any(|h| h.doc == doc) {
                out.push(crate::index::ScoredDoc { doc, score: 1.0 });
            }
        }
    }
    out
}

/// The arguments of a `discover_tools` call: `{"query", "top_k"?, "api_format"?, "namespace"?:
/// str | [str], "tags"?: [str] | str}`.
pub fn parse_discover_tools_args(text: &str) -> Result<(String, DiscoverRequest)> {
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
            // A model may well send one namespace or tag as a plain string.
            "namespace" => request.namespaces = parse_string_or_strings(v, &here)?,
            "tags" => request.tags = parse_string_or_strings(v, &here)?,
            _ => {
                return Err(Error::invalid(format!(
                    "{here}: unknown argument (discover_tools takes query, top_k, api_format, namespace and tags)"
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
