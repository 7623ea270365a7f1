//! Co-use, a step of the fuse stage: the answer's best hits bring in the tools they are used
//! with (learned from the tasks the host ran: [`crate::usage`]), when the evidence is strong.
//!
//! A tool `B` is brought in by a hit `A` among the answer's first half ([`protected`]: the
//! hits the query ranks well) when all hold:
//!
//! - **A repeated pair**: used together in at least [`MIN_TOGETHER`] tasks (a pair seen once, a
//!   random combination, says nothing).
//! - **Used with `A` in a good share of `A`'s tasks, with confidence**: the lower bound of the
//!   Wilson interval ([`Z`]) on "`B` used in a task of `A`" is at least [`MIN_SHARE_FIT`] when
//!   `B` fits the query, at least [`MIN_SHARE`] when it does not (a login step nobody asks for
//!   is brought in only by the tools it goes with nearly always); and `B` was used with `A` more
//!   often than in tasks overall (a tool in every task is nobody's partner in particular).
//! - **Fits the query**: it shares a scored word with the query, or in `hybrid` its cosine with
//!   the query is at least [`MIN_FIT`] of the best hit's.
//! - **May be in the answer**: registered, enabled (a quarantined or disabled tool is not
//!   indexed, and never brought in), admitted by the request's filters, and not in it already.
//!
//! A tool brought in never pushes out a hit the query itself ranks well: it takes an empty place
//! (the answer was short of `top_k`) or the place of the lowest hit past the first half, and goes after the hits it does not replace, with their lowest score
//! (the answer stays in score order). With nothing recorded, with `"usage": false` or with the
//! `reference` profile, the answer is exactly fuse's.

use super::fuse::{BroughtIn, Ranked};
use super::lexical::score_docs;
use super::plan::Search;
use super::retrieve::Lists;
use super::semantic::cosine;
use super::{DiscoverRequest, DiscoveryOptions, Profile};
use crate::index::DocId;
use crate::registry::State;
use crate::usage::UsageStore;

/// A pair seen once says nothing (a one-off, a random combination): partners are tools used
/// together in at least this many tasks.
pub const MIN_TOGETHER: u32 = 2;
/// The least lower bound on the share of a hit's tasks its partner was used in, for a partner
/// that fits the query.
pub const MIN_SHARE_FIT: f64 = 0.1;
/// The same for a partner that does not fit the query (a login step nobody asks for): it must
/// be used in most of the hit's tasks.
pub const MIN_SHARE: f64 = 0.6;
/// The Wilson interval's z (one-sided about 84 %): a small count is trusted less.
pub const Z: f64 = 1.0;
/// In `hybrid`, a partner sharing no word with the query fits it when its cosine is at least
/// this share of the best hit's.
pub const MIN_FIT: f32 = 0.5;

/// The first places of an answer of `top_k`, the hits the query ranks well: they bring in
/// partners and no tool brought in takes their place. Half the answer, rounded up, at least 3.
pub fn protected(top_k: usize) -> usize {
    top_k.div_ceil(2).max(3)
}

/// The lower bound of the Wilson score interval (z = [`Z`]) on a share of `k` in `n`.
pub fn wilson_lower(k: u32, n: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let (k, n) = (f64::from(k.min(n)), f64::from(n));
    let p = k / n;
    let z2 = Z * Z;
    let centre = p + z2 / (2.0 * n);
    let spread = Z * ((p * (1.0 - p) + z2 / (4.0 * n)) / n).sqrt();
    ((centre - spread) / (1.0 + z2 / n)).max(0.0)
}

/// Brings the partners of `hits`' best into `hits` (see the module documentation).
pub(crate) fn bring_in(
    state: &State,
    usage: &UsageStore,
    options: &DiscoveryOptions,
    search: &Search,
    lists: &Lists<'_>,
    request: &DiscoverRequest,
    hits: &mut Vec<Ranked>,
) {
    if !options.usage || search.profile == Profile::Reference || usage.is_empty() || hits.is_empty()
    {
        return;
    }
    let keep = protected(request.top_k);
    let total = usage.task_count().max(1) as f64;
    let best_cosine = (search.profile == Profile::Hybrid)
        .then(|| cosine(state, lists.whole.vector, hits[0].doc))
        .flatten();
    let mut found: Vec<(f64, Ranked)> = Vec::new();
    for anchor in hits.iter().take(keep) {
        let name = state.tool_at(anchor.doc).name();
        let tasks = usage.tasks_of(name);
        for p in usage.partners(name) {
            let share = wilson_lower(p.together, tasks);
            // Used with this hit more than with tasks in general (a tool in every task is
            // nobody's partner in particular).
            let related = f64::from(p.together) / f64::from(tasks) > f64::from(p.tasks) / total;
            if p.together < MIN_TOGETHER || share < MIN_SHARE_FIT || !related {
                continue;
            }
            let Some(doc) = state.enabled_slot(&p.name) else {
                continue;
            };
            if hits.iter().any(|h| h.doc == doc)
                || found.iter().any(|(_, h)| h.doc == doc)
                || !request.admits(state.tool_at(doc))
                || (share < MIN_SHARE && !fits(state, options, lists, best_cosine, doc))
            {
                continue;
            }
            found.push((
                share,
                Ranked {
                    doc,
                    score: 0.0,
                    intent: None,
                    brought_in: Some(BroughtIn {
                        by: anchor.doc,
                        together: p.together,
                        tasks,
                    }),
                },
            ));
        }
    }
    if found.is_empty() {
        return;
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.doc.cmp(&b.1.doc)));
    // Empty places first, then the lowest hits past the protected ones.
    let room = request.top_k.saturating_sub(hits.len()) + hits.len().saturating_sub(keep);
    let take = found.len().min(room);
    let stay = hits.len().min(request.top_k - take);
    hits.truncate(stay);
    let score = hits.last().map_or(0.0, |h| h.score);
    hits.extend(found.into_iter().take(take).map(|(_, mut h)| {
        h.score = score;
        h
    }));
}

/// Whether the tool at `doc` fits the query at all: a scored word of the query in its text, or
/// (in `hybrid`) a cosine near the best hit's.
fn fits(
    state: &State,
    options: &DiscoveryOptions,
    lists: &Lists<'_>,
    best_cosine: Option<f32>,
    doc: DocId,
) -> bool {
    if score_docs(state, options, &lists.whole.tokens, &[doc])
        .is_ok_and(|s| s.first().is_some_and(|&x| x > 0.0))
    {
        return true;
    }
    match (best_cosine, cosine(state, lists.whole.vector, doc)) {
        (Some(best), Some(c)) => best > 0.0 && c >= MIN_FIT * best,
        _ => false,
    }
}

/// The sentence a hit brought in carries: "used with `A` in 12 of its 15 tasks".
pub(crate) fn reason(state: &State, b: &BroughtIn) -> String {
    format!(
        "used with `{}` in {} of its {} tasks",
        state.tool_at(b.by).name(),
        b.together,
        b.tasks
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_counts_are_trusted_less() {
        assert!(wilson_lower(1, 1) < MIN_SHARE);
        assert!(wilson_lower(2, 2) >= MIN_SHARE);
        assert!(wilson_lower(2, 2) < wilson_lower(3, 3));
        assert!(wilson_lower(12, 15) >= MIN_SHARE);
        assert!(wilson_lower(3, 15) < MIN_SHARE);
        assert!(wilson_lower(3, 15) >= MIN_SHARE_FIT);
        assert!(wilson_lower(2, 40) < MIN_SHARE_FIT);
        assert_eq!(wilson_lower(0, 0), 0.0);
        assert!(wilson_lower(100, 100) < 1.0);
    }

    #[test]
    fn half_the_answer_is_protected() {
        assert_eq!(protected(10), 5);
        assert_eq!(protected(5), 3);
        assert_eq!(protected(1), 3);
        assert_eq!(protected(11), 6);
    }
}
