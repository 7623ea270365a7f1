//! Answer, the last stage: the ranked tools as typed [`Hit`]s or as JSON written straight from
//! the registry's tools, within `max_tokens`.

use super::DiscoverRequest;
use super::fuse::Ranked;
use crate::format::{into_string, write_f64, write_opt_str, write_schema_strict, write_str};
use crate::registry::State;

/// What a discover answers before it is written out.
pub(crate) struct Answer<'q> {
    /// The tools, best first.
    pub hits: Vec<Ranked>,
    /// An exact name or `select:`: every hit carries its schema, deferred or not.
    pub exact: bool,
    /// The query's needs as text, when it has several (a hit's `intent` indexes them).
    pub intents: Vec<&'q str>,
}

impl Answer<'_> {
    /// The answer to an exact name or a `select:` query: these tools, score 1.0, with schemas.
    pub(crate) fn named(docs: Vec<crate::index::DocId>) -> Self {
        Answer {
            hits: docs
                .into_iter()
                .map(|doc| Ranked {
                    doc,
                    score: 1.0,
                    intent: None,
                    brought_in: None,
                })
                .collect(),
            exact: true,
            intents: Vec::new(),
        }
    }

    /// The need `hit` answers, as text.
    fn intent_of(&self, hit: &Ranked) -> Option<&str> {
        hit.intent.and_then(|i| self.intents.get(i).copied())
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
    /// The need of the query this tool answers, when the query holds several (its words, as the
    /// query has them).
    pub intent: Option<String>,
    /// Why the tool is in the answer when the query did not rank it there: brought in by a hit
    /// it is used with ("used with `X` in 12 of its 15 tasks"; see [`crate::discovery::usage`]).
    pub brought_in: Option<String>,
}

/// Renders hits as the JSON answer: `[{"name", "description", "score", "namespace", "deferred", "intent"?, "brought_in"?, "schema"?, "warning"?}]`.
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
        h.intent.as_deref(),
        h.brought_in.as_deref(),
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
#[allow(clippy::too_many_arguments)]
fn write_hit_head(
    out: &mut Vec<u8>,
    name: &str,
    description: &str,
    score: f64,
    namespace: Option<&str>,
    deferred: bool,
    intent: Option<&str>,
    brought_in: Option<&str>,
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
    if let Some(intent) = intent {
        out.extend_from_slice(b",\"intent\":");
        write_str(out, intent);
    }
    if let Some(why) = brought_in {
        out.extend_from_slice(b",\"brought_in\":");
        write_str(out, why);
    }
}

/// The answer as typed hits.
pub(crate) fn hits(state: &State, answer: &Answer<'_>, request: &DiscoverRequest) -> Vec<Hit> {
    let hits = answer
        .hits
        .iter()
        .map(|h| {
            let tool = state.tool_at(h.doc);
            let deferred = tool.metadata().defer;
            let mut warning = None;
            let schema = (answer.exact || deferred).then(|| {
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
                intent: answer.intent_of(h).map(str::to_string),
                brought_in: h.brought_in.map(|b| super::usage::reason(state, &b)),
            }
        })
        .collect();
    cut_to_budget(hits, request.max_tokens)
}

/// The answer as JSON text (as [`hits_to_json`] writes [`hits`]), written straight from the
/// registry's tools instead of through copied [`Hit`] values.
pub(crate) fn json(state: &State, answer: &Answer<'_>, request: &DiscoverRequest) -> String {
    let (hits, exact) = (&answer.hits, answer.exact);
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
        let brought_in = h.brought_in.map(|b| super::usage::reason(state, &b));
        if !compact {
            write_hit_head(
                &mut out,
                tool.name(),
                tool.description(),
                h.score,
                tool.namespace(),
                deferred,
                answer.intent_of(h),
                brought_in.as_deref(),
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
            answer.intent_of(h),
            brought_in.as_deref(),
        );
        out.push(b'}');
        if !fits(&out) && i > 0 {
            out.truncate(start);
            break;
        }
    }
    out.push(b']');
    into_string(out)
}
