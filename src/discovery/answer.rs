//! The answer to a search: the exact-name shortcut and `select:`, the score floor, and the hits
//! as typed [`Hit`]s or JSON written straight from the registry's tools, within `max_tokens`.

use super::hybrid::{QueryVector, rank_hybrid};
use super::{DiscoverRequest, DiscoveryOptions, rank_query, score_floor, validate_query};
use crate::error::{Error, Result};
use crate::format::{into_string, write_f64, write_opt_str, write_schema_strict, write_str};
use crate::registry::State;

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
        write_hit(&mut out, h);
    }
    out.push(b']');
    into_string(out)
}

/// Writes one hit's object.
fn write_hit(out: &mut Vec<u8>, h: &Hit) {
    write_hit_head(
        out,
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
    write_warning(out, h.warning.as_deref());
    out.push(b'}');
}

/// Cuts typed hits to `max_tokens` exactly as [`discover_json`] cuts its answer, so
/// `hits_to_json(&cut)` is that answer: full hits while the answer fits, then name and one-line
/// summary, then stop; the top hit always stays.
fn cut_to_budget(hits: Vec<Hit>, max_tokens: Option<usize>) -> Vec<Hit> {
    let Some(budget) = max_tokens.map(|t| t.saturating_mul(4)) else {
        return hits;
    };
    // The answer so far without its closing `]`, as discover_json measures it.
    let mut len = 1;
    let mut compact = false;
    let mut out = Vec::with_capacity(hits.len());
    let mut buf = Vec::new();
    for (i, mut h) in hits.into_iter().enumerate() {
        let comma = usize::from(i > 0);
        if !compact {
            buf.clear();
            write_hit(&mut buf, &h);
            if len + comma + buf.len() < budget {
                len += comma + buf.len();
                out.push(h);
                continue;
            }
            compact = true;
        }
        h.description = crate::registry::first_sentence(&h.description).to_string();
        h.schema = None;
        h.warning = None;
        buf.clear();
        write_hit(&mut buf, &h);
        if len + comma + buf.len() >= budget && i > 0 {
            break;
        }
        len += comma + buf.len();
        out.push(h);
    }
    out
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

/// Answers one query against `state`: the exact-name shortcut, else the filtered BM25F ranking.
pub(crate) fn discover(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
    vector: &QueryVector,
) -> Result<Vec<Hit>> {
    let (hits, exact) = answer(state, options, query, request, vector)?;
    let hits = hits
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
        .collect();
    Ok(cut_to_budget(hits, request.max_tokens))
}

/// [`discover`] answered as JSON text (as [`hits_to_json`] writes it), written straight from
/// the registry's tools instead of through copied [`Hit`] values.
pub(crate) fn discover_json(
    state: &State,
    options: &DiscoveryOptions,
    query: &str,
    request: &DiscoverRequest,
    vector: &QueryVector,
) -> Result<String> {
    let (hits, exact) = answer(state, options, query, request, vector)?;
    // The answer's byte budget (`max_tokens` estimated at 4 bytes a token), closing `]` included.
    let budget = request.max_tokens.map(|t| t.saturating_mul(4));
    let fits = |out: &Vec<u8>| budget.is_none_or(|b| out.len() < b);
    let mut compact = false;
    // Sized for the heads of the hits (name, description and ~100 bytes of keys and score), so
    // the common answer without schemas is written without growing the buffer.
    let heads: usize = hits
        .iter()
        .map(|h| {
            let tool = state.tool_at(h.doc);
            tool.name().len() + tool.description().len() + 112
        })
        .sum();
    let mut out = Vec::with_capacity(heads + 2);
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
    vector: &QueryVector,
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
    let mut scored = if !matches!(vector, QueryVector::NotNeeded) {
        // The filters apply inside: each list is of admitted tools only.
        rank_hybrid(state, options, query, vector, request, options.fusion)?
            .into_iter()
            .map(|f| crate::index::ScoredDoc {
                doc: f.doc,
                score: f.score,
            })
            .collect()
    } else if request.has_filters() {
        // Rank every matching tool, keep the admitted ones, then cut: the filter comes first.
        let everything = state.indexed_count().max(1);
        // No floor here: it is taken over the admitted tools only.
        let mut all = rank_query(state, options, query, everything, 0.0)?.hits;
        all.retain(|h| request.admits(state.tool_at(h.doc)));
        all.truncate(request.top_k);
        all
    } else {
        // The floor below drops what the search may leave out with it.
        rank_query(
            state,
            options,
            query,
            request.top_k,
            options.min_score_ratio,
        )?
        .hits
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
