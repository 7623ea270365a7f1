//! Plan, the second stage: what kind of answer a query gets. A tool's exact name is that tool
//! alone; `select:a,b,c` names its tools; anything else is a search, of the whole query and, when
//! it holds several needs, of each of them ([`intents`](super::intents)).

use std::ops::Range;

use super::intents;
use super::{DiscoverRequest, DiscoveryOptions, Profile};
use crate::analyzer::enhanced_query_tokens_within;
use crate::index::DocId;
use crate::limits::MAX_QUERY_TOKENS;
use crate::registry::State;

/// What the plan decided for a query.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Plan {
    /// The query is this tool's name (tolerantly: case, `-`/`_`, namespace prefix): it alone
    /// answers, with score 1.0 and its schema.
    Exact(DocId),
    /// A `select:a,b,c` query: the tools so named, in that order, each once.
    Select(Vec<DocId>),
    /// A ranked search.
    Search(Search),
}

/// A ranked search: the profile and the query's needs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Search {
    /// The profile that ranks (never unnamed: `hybrid` when the registry has an embedder and the
    /// options named none).
    pub profile: Profile,
    /// The query's needs as byte ranges of it, in query order: two or more, or none when the
    /// query is one need (or the profile or the options do not look for needs).
    pub intents: Vec<Range<usize>>,
}

/// Plans `query` (already validated) against `state`.
pub(crate) fn plan(
    state: &State,
    options: &DiscoveryOptions,
    profile: Profile,
    query: &str,
    request: &DiscoverRequest,
) -> Plan {
    if let Some(doc) = state
        .exact_match(query)
        .filter(|&doc| request.admits(state.tool_at(doc)))
    {
        return Plan::Exact(doc);
    }
    if let Some(names) = select_names(query) {
        return Plan::Select(select(state, names));
    }
    Plan::Search(Search {
        profile,
        intents: needs(state, options, profile, query),
    })
}

/// The needs of `query`: none for the reference profile (its rankings are the reference's) or
/// with `"intents": false`.
fn needs(
    state: &State,
    options: &DiscoveryOptions,
    profile: Profile,
    query: &str,
) -> Vec<Range<usize>> {
    if profile == Profile::Reference || !options.intents {
        return Vec::new();
    }
    let Some((analysis, _)) = state.enhanced() else {
        return Vec::new();
    };
    // Content words as the enhanced analysis sees them: not function words, and words (a
    // letter first, two or more characters), not numbers, units of them ("6cm") or initials.
    intents::split(query, |text| {
        let (tokens, _) = enhanced_query_tokens_within(text, analysis, MAX_QUERY_TOKENS);
        tokens
            .iter()
            .filter(|(t, stop)| {
                !stop
                    && t.chars().next().is_some_and(char::is_alphabetic)
                    && t.chars().nth(1).is_some()
            })
            .count()
    })
}

/// The tools a `select:` query names, by tolerant exact name (as a whole-query exact match is
/// found), in the given order, each once, unknown or disabled names skipped.
fn select<'a>(state: &State, names: impl Iterator<Item = &'a str>) -> Vec<DocId> {
    let mut out: Vec<DocId> = Vec::new();
    for name in names {
        if let Some(doc) = state.exact_match(name) {
            if !out.contains(&doc) {
                out.push(doc);
            }
        }
    }
    out
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
