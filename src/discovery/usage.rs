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
//! (the answer was short of `top_k`) or the place of the lowest hit past the first half, and goes
//! after the hits it does not replace, with their lowest score (the answer stays in score order).
//! With nothing recorded, with `"usage": false` or with the `reference` profile, the answer is
//! exactly fuse's.
//!
//! What a discover reads is kept for the next one: each anchor's partners that pass on counts,
//! with where each is (in the store: [`crate::usage::UsageStore::with_picks_of`]), and each
//! partner's terms for the fit test (in the index: [`crate::index::Index::reaches_docs_kept`]).
//! Both hold exactly what would be read again, so answers are the same with or without them.

use super::fuse::{BroughtIn, Ranked};
use super::lexical::reaches_docs;
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

/// One partner an anchor may bring in.
struct Candidate {
    /// Where the registry has the partner.
    doc: DocId,
    share: f64,
    by: DocId,
    together: u32,
    tasks: u32,
}

/// One partner's candidates (see [`bring_in`]): the first anchor's, and the first anchor's
/// that needs no fit (share at least [`MIN_SHARE`]), as indexes into the candidates.
struct Grouped {
    doc: DocId,
    first: usize,
    strong: Option<usize>,
}

/// Brings the partners of `hits`' best into `hits` (see the module documentation). `version`
/// is the registry's generation under the lock `state` is read under: what the store keeps of
/// the anchors' partners names registry places of that generation.
#[allow(clippy::too_many_arguments)]
pub(crate) fn bring_in(
    state: &State,
    version: u64,
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
    // Empty places first, then the lowest hits past the protected ones.
    let room = request.top_k.saturating_sub(hits.len()) + hits.len().saturating_sub(keep);
    if room == 0 {
        return;
    }
    let candidates = candidates(state, version, usage, hits, keep);
    if candidates.is_empty() {
        return;
    }
    let resolved = by_partner(&candidates, |doc| {
        !hits.iter().any(|h| h.doc == doc)
            && (!request.has_filters() || request.admits(state.tool_at(doc)))
    });
    // Whether each weaker one fits the query: asked of all of them at once. Those
    // only a weak anchor brings in sort after every partner a strong anchor brings in, so when
    // there are `room` of those, only the partners with both kinds of anchor are asked about.
    let strong = resolved
        .iter()
        .filter(|p| candidates[p.first].share >= MIN_SHARE)
        .count();
    let mut weak: Vec<DocId> = resolved
        .iter()
        .filter(|p| candidates[p.first].share < MIN_SHARE && (strong < room || p.strong.is_some()))
        .map(|p| p.doc)
        .collect();
    weak.sort_unstable();
    let best_cosine = (!weak.is_empty() && search.profile == Profile::Hybrid)
        .then(|| cosine(state, lists.whole.vector, hits[0].doc))
        .flatten();
    let fit = fitting(state, options, lists, best_cosine, &weak);
    let mut found: Vec<(f64, Ranked)> = Vec::with_capacity(resolved.len());
    for p in resolved {
        let doc = p.doc;
        // The first anchor that brings it in names it; one it fits only with a stronger
        // anchor's evidence comes with that.
        let first = &candidates[p.first];
        let at = if first.share >= MIN_SHARE || fit.binary_search(&doc).is_ok() {
            p.first
        } else if let Some(strong) = p.strong {
            strong
        } else {
            continue;
        };
        let c = &candidates[at];
        found.push((
            c.share,
            Ranked {
                doc,
                score: 0.0,
                intent: None,
                brought_in: Some(BroughtIn {
                    by: c.by,
                    together: c.together,
                    tasks: c.tasks,
                }),
            },
        ));
    }
    if found.is_empty() {
        return;
    }
    found.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.doc.cmp(&b.1.doc)));
    let take = found.len().min(room);
    let stay = hits.len().min(request.top_k - take);
    hits.truncate(stay);
    let score = hits.last().map_or(0.0, |h| h.score);
    hits.extend(found.into_iter().take(take).map(|(_, mut h)| {
        h.score = score;
        h
    }));
}

/// The enabled tool named `name`, if the registry has it. An enabled tool is exactly an
/// indexed one, and both change only with the registry's version.
fn locate(state: &State, name: &str) -> Option<DocId> {
    state.slot_of(name).filter(|&s| state.is_indexed(s))
}

/// Whether a pair passes on its own counts (`together` of the anchor's `tasks`), with the lower
/// bound on its share when it does: a repeated pair, used in a good share of the anchor's tasks.
fn judge(together: u32, tasks: u32) -> Option<f64> {
    // The cheap test first: the lower bound is below the share itself.
    if together < MIN_TOGETHER || f64::from(together) < MIN_SHARE_FIT * f64::from(tasks) {
        return None;
    }
    let share = wilson_lower(together, tasks);
    (share >= MIN_SHARE_FIT).then_some(share)
}

/// The partners of the first `keep` hits strong enough to be brought in if they fit, by
/// anchor (best hit first). What passes on a pair's counts alone is kept in the store between
/// discovers ([`UsageStore::with_picks_of`]); only the test against all tasks is made here.
fn candidates(
    state: &State,
    version: u64,
    usage: &UsageStore,
    hits: &[Ranked],
    keep: usize,
) -> Vec<Candidate> {
    let total = usage.task_count().max(1) as f64;
    let anchors = &hits[..keep.min(hits.len())];
    let places: Vec<DocId> = anchors.iter().map(|h| h.doc).collect();
    let mut out = Vec::with_capacity(32);
    usage.with_picks_of(
        &places,
        version,
        |doc| state.tool_at(doc).name(),
        judge,
        |name| locate(state, name),
        |i, tasks, picks| {
            for pick in picks {
                // Used with this hit more than with tasks in general (a tool in every task is
                // nobody's partner in particular).
                let together = pick.together;
                if f64::from(together) / f64::from(tasks) > f64::from(pick.partner_tasks) / total {
                    out.push(Candidate {
                        doc: pick.place,
                        share: pick.share,
                        by: anchors[i].doc,
                        together,
                        tasks,
                    });
                }
            }
        },
    );
    out
}

/// The candidates grouped by partner, those `free` says may join the answer, in the order
/// they were first met (the answer's order is decided by share afterwards). The groups are
/// few (a handful of anchors' strong partners): a scan finds a partner's group.
fn by_partner(candidates: &[Candidate], free: impl Fn(DocId) -> bool) -> Vec<Grouped> {
    let mut partners: Vec<Grouped> = Vec::with_capacity(candidates.len());
    let mut taken: Vec<DocId> = Vec::with_capacity(candidates.len());
    for (i, c) in candidates.iter().enumerate() {
        let at = match partners.iter().position(|p| p.doc == c.doc) {
            Some(at) => at,
            None if taken.contains(&c.doc) => continue,
            None if !free(c.doc) => {
                taken.push(c.doc);
                continue;
            }
            None => {
                partners.push(Grouped {
                    doc: c.doc,
                    first: i,
                    strong: None,
                });
                partners.len() - 1
            }
        };
        let p = &mut partners[at];
        if p.strong.is_none() && c.share >= MIN_SHARE {
            p.strong = Some(i);
        }
    }
    partners
}

/// The tools of `docs` (ascending, distinct) that fit the query at all, ascending: a scored
/// word of the query in their text, or (in `hybrid`) a cosine near the best hit's.
fn fitting(
    state: &State,
    options: &DiscoveryOptions,
    lists: &Lists<'_>,
    best_cosine: Option<f32>,
    docs: &[DocId],
) -> Vec<DocId> {
    if docs.is_empty() {
        return Vec::new();
    }
    let reached = reaches_docs(state, options, &lists.whole.tokens, docs)
        .unwrap_or_else(|_| vec![false; docs.len()]);
    docs.iter()
        .zip(reached)
        .filter(|&(&doc, reached)| {
            reached
                || match (best_cosine, cosine(state, lists.whole.vector, doc)) {
                    (Some(best), Some(c)) => best > 0.0 && c >= MIN_FIT * best,
                    _ => false,
                }
        })
        .map(|(&doc, _)| doc)
        .collect()
}

/// The sentence a hit brought in carries: "used with `A` in 12 of its 15 tasks".
pub(crate) fn reason(state: &State, b: &BroughtIn) -> String {
    // Built by hand: `format!` cost a tenth of the step, once per tool brought in.
    let name = state.tool_at(b.by).name();
    let mut out = String::with_capacity(name.len() + 48);
    out.push_str("used with `");
    out.push_str(name);
    out.push_str("` in ");
    push_u32(&mut out, b.together);
    out.push_str(" of its ");
    push_u32(&mut out, b.tasks);
    out.push_str(" tasks");
    out
}

/// Appends `n` in decimal.
fn push_u32(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
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
    fn a_reason_reads_as_format_would_write_it() {
        for n in [0, 7, 10, 12, 99, 100, 4_294_967_295] {
            let mut out = String::new();
            push_u32(&mut out, n);
            assert_eq!(out, n.to_string());
        }
    }

    #[test]
    fn half_the_answer_is_protected() {
        assert_eq!(protected(10), 5);
        assert_eq!(protected(5), 3);
        assert_eq!(protected(1), 3);
        assert_eq!(protected(11), 6);
    }
}
