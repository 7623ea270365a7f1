//! Fuse, the fourth stage: the lists retrieval found become one ranking, cut to `top_k` and the
//! score floor.
//!
//! Each need's lists become one ranking first: in `hybrid` its words and meaning fused
//! ([`hybrid`](super::hybrid)), otherwise its words alone. A query of one need is that ranking.
//!
//! A query of several needs merges the whole query's ranking with each need's. Each ranking's
//! scores are read relative to its own best (1 for the best), and a tool's merged score is
//! [`WHOLE_WEIGHT`] times its whole-query score plus the rest times the best of its scores in the
//! whole query and the needs: the best of any one need ranks near what the whole query ranks
//! well, the whole query's best stays first (its merged score is 1, above any other), and a tool
//! that only scatters over several needs' words (high for the whole query, low for each need)
//! gives way to one that answers a need. A need's near-duplicates cannot take every place: an
//! answer that lacks a need's best tool gives it the place of the lowest hit that is not the
//! best of its own need and answers another need (what the whole query ranks well keeps its
//! place). The score floor is a share of each ranking's best: a tool stays when it reaches it in
//! the whole query or in one need. Each hit says which need it answers: the one whose ranking
//! scores it highest, relative to that ranking's best.

use super::hybrid;
use super::plan::Search;
use super::retrieve::{Lists, Retrieved, depth};
use super::{DiscoverRequest, DiscoveryOptions, Profile};
use crate::index::{DocId, ScoredDoc};
use crate::registry::State;
use std::collections::HashMap;

/// The weight of the whole query's score in a several-needs merge; the rest goes to the best of
/// the whole query's and the needs' scores. Above one half: the whole query keeps the context
/// its needs lose when cut apart ("the area of a triangle with base 10", "for that company").
pub const WHOLE_WEIGHT: f64 = 0.7;

/// One tool of the fused ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Ranked {
    /// The tool's slot.
    pub doc: DocId,
    /// Its score: the profile's for a query of one need, the merged score in `[0, 1]` otherwise.
    pub score: f64,
    /// The need it answers (an index into the plan's intents), when the query has several and
    /// some need's ranking holds it.
    pub intent: Option<usize>,
    /// Brought in by a hit it is used with (the co-use step, [`super::usage`]), not ranked by
    /// the query.
    pub brought_in: Option<BroughtIn>,
}

/// Why a tool was brought in: used with the hit `by` in `together` of `by`'s `tasks` tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BroughtIn {
    /// The hit that brought it in.
    pub by: DocId,
    /// Tasks the two were used in together.
    pub together: u32,
    /// Tasks `by` was used in.
    pub tasks: u32,
}

/// Fuses a search's lists into its answer: the best `top_k` tools, the score floor applied.
pub(crate) fn fuse(
    state: &State,
    options: &DiscoveryOptions,
    search: &Search,
    lists: &Lists<'_>,
    request: &DiscoverRequest,
) -> Vec<Ranked> {
    let whole = need_ranking(state, options, search.profile, &lists.whole, request);
    if lists.intents.is_empty() {
        let mut hits: Vec<Ranked> = whole
            .iter()
            .take(request.top_k)
            .filter(|h| h.score > 0.0)
            .map(|h| Ranked {
                doc: h.doc,
                score: h.score,
                intent: None,
                brought_in: None,
            })
            .collect();
        if let Some(floor) = score_floor(options, hits.first().map(|h| h.score)) {
            hits.retain(|h| h.score >= floor);
        }
        return hits;
    }
    let needs: Vec<Vec<ScoredDoc>> = lists
        .intents
        .iter()
        .map(|need| need_ranking(state, options, search.profile, need, request))
        .collect();
    merge(
        &whole,
        &needs,
        depth(request),
        options.min_score_ratio,
        request.top_k,
    )
}

/// One need's ranking, best first, every tool its lists hold: its words and meaning fused in
/// `hybrid`, its words alone otherwise.
pub(crate) fn need_ranking(
    state: &State,
    options: &DiscoveryOptions,
    profile: Profile,
    need: &Retrieved<'_>,
    request: &DiscoverRequest,
) -> Vec<ScoredDoc> {
    if profile == Profile::Hybrid {
        hybrid::rank(state, need, depth(request), options.fusion)
            .iter()
            .map(|f| ScoredDoc {
                doc: f.doc,
                score: f.score,
            })
            .collect()
    } else {
        need.lexical.clone()
    }
}

/// Merges the whole query's ranking with its needs' (each best first): the best `top_k` by merged
/// score, each need's best kept from being pushed out by other needs' near-duplicates, the floor
/// (`floor_ratio` of each ranking's best) applied. The candidates are each ranking's first
/// `depth`; a candidate's scores in the other rankings are looked up in them whole.
pub(crate) fn merge(
    whole: &[ScoredDoc],
    needs: &[Vec<ScoredDoc>],
    depth: usize,
    floor_ratio: f64,
    top_k: usize,
) -> Vec<Ranked> {
    let lists: Vec<&[ScoredDoc]> = std::iter::once(whole)
        .chain(needs.iter().map(Vec::as_slice))
        .collect();
    let width = lists.len();
    let mut row_of: HashMap<DocId, usize> = HashMap::new();
    for list in &lists {
        for h in list.iter().take(depth) {
            let next = row_of.len();
            row_of.entry(h.doc).or_insert(next);
        }
    }
    // Each candidate's score in each ranking, relative to that ranking's best.
    let mut rel = vec![0.0f64; row_of.len() * width];
    for (l, list) in lists.iter().enumerate() {
        let Some(best) = list.first().map(|h| h.score).filter(|&b| b > 0.0) else {
            continue;
        };
        for h in list.iter() {
            if let Some(&row) = row_of.get(&h.doc) {
                rel[row * width + l] = (h.score / best).max(0.0);
            }
        }
    }
    let mut merged: Vec<(Ranked, f64)> = row_of
        .iter()
        .map(|(&doc, &row)| {
            let r = &rel[row * width..(row + 1) * width];
            let top = r.iter().copied().fold(0.0, f64::max);
            // The need whose ranking scores it best (the first on ties), if any holds it.
            let intent = r[1..]
                .iter()
                .enumerate()
                .fold(None, |best: Option<(usize, f64)>, (i, &v)| match best {
                    Some((_, m)) if m >= v => best,
                    _ if v > 0.0 => Some((i, v)),
                    _ => best,
                })
                .map(|(i, _)| i);
            let score = WHOLE_WEIGHT * r[0] + (1.0 - WHOLE_WEIGHT) * top;
            (
                Ranked {
                    doc,
                    score,
                    intent,
                    brought_in: None,
                },
                top,
            )
        })
        .filter(|(r, top)| r.score > 0.0 && (floor_ratio <= 0.0 || *top >= floor_ratio))
        .collect();
    let by_score = |a: &(Ranked, f64), b: &(Ranked, f64)| {
        b.0.score.total_cmp(&a.0.score).then(a.0.doc.cmp(&b.0.doc))
    };
    merged.sort_by(by_score);
    let bests: Vec<DocId> = needs
        .iter()
        .filter_map(|n| n.first().filter(|h| h.score > 0.0).map(|h| h.doc))
        .collect();
    let cut = top_k.min(merged.len());
    for (need, &best) in bests.iter().enumerate() {
        if merged[..cut].iter().any(|m| m.0.doc == best) {
            continue;
        }
        let Some(at) = merged[cut..].iter().position(|m| m.0.doc == best) else {
            continue;
        };
        // The lowest hit, below the first, that answers another need and is no need's best.
        let Some(out) = merged[..cut]
            .iter()
            .skip(1)
            .rposition(|m| m.0.intent.is_some_and(|i| i != need) && !bests.contains(&m.0.doc))
        else {
            continue;
        };
        merged.swap(out + 1, cut + at);
        merged[..cut].sort_by(by_score);
    }
    merged.truncate(cut);
    merged.into_iter().map(|m| m.0).collect()
}

/// The relative score floor: `min_score_ratio` times the best score, or `None` when disabled.
pub(crate) fn score_floor(options: &DiscoveryOptions, best: Option<f64>) -> Option<f64> {
    match best {
        Some(best) if options.min_score_ratio > 0.0 => Some(best * options.min_score_ratio),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(scores: &[(DocId, f64)]) -> Vec<ScoredDoc> {
        scores
            .iter()
            .map(|&(doc, score)| ScoredDoc { doc, score })
            .collect()
    }

    fn docs(r: &[Ranked]) -> Vec<DocId> {
        r.iter().map(|h| h.doc).collect()
    }

    #[test]
    fn the_whole_querys_best_stays_first_and_each_need_is_present() {
        // The whole query: five currency converters (1-5), then the weather tool (9) far down.
        let whole = list(&[(1, 10.0), (2, 9.9), (3, 9.8), (4, 9.7), (5, 9.6), (9, 3.0)]);
        let money = list(&[(1, 8.0), (2, 7.9), (3, 7.8), (4, 7.7), (5, 7.6)]);
        let weather = list(&[(9, 6.0), (8, 2.0)]);
        let got = merge(&whole, &[money, weather], 100, 0.3, 3);
        assert_eq!(got[0].doc, 1);
        assert_eq!(got[0].score, 1.0);
        assert!(docs(&got).contains(&9), "{got:?}");
        let nine = got.iter().find(|h| h.doc == 9).unwrap();
        assert_eq!(nine.intent, Some(1));
        assert_eq!(got[0].intent, Some(0));
        assert!(got.windows(2).all(|w| w[0].score >= w[1].score), "{got:?}");
    }

    #[test]
    fn a_needs_best_is_never_pushed_out_by_another_needs_near_duplicates() {
        // Need 0 has ten near-duplicates (10-19) that the whole query also ranks high; need 1's
        // best (30) is weak in the whole query. With top_k 5 the near-duplicates would take
        // every place: need 1's best takes the place of the lowest of them.
        let whole: Vec<ScoredDoc> = (10..20)
            .map(|d| ScoredDoc {
                doc: d,
                score: 20.0 - d as f64 * 0.01,
            })
            .chain([ScoredDoc {
                doc: 30,
                score: 0.5,
            }])
            .collect();
        let first: Vec<ScoredDoc> = (10..20)
            .map(|d| ScoredDoc {
                doc: d,
                score: 30.0 - d as f64,
            })
            .collect();
        let second = list(&[(30, 4.0), (31, 3.9)]);
        let got = merge(&whole, &[first, second], 100, 0.0, 5);
        assert_eq!(got.len(), 5);
        assert!(docs(&got).contains(&30), "{got:?}");
        assert!(docs(&got).contains(&10), "{got:?}");
        assert_eq!(got.iter().find(|h| h.doc == 30).unwrap().intent, Some(1));
    }

    #[test]
    fn what_answers_no_need_keeps_its_place() {
        // Tools 1-3 are in no need's ranking: a need's best does not take their place (the
        // whole query ranks them for what its needs lose when cut apart).
        let whole = list(&[(1, 10.0), (2, 9.5), (3, 9.0)]);
        let a = list(&[(7, 5.0)]);
        let b = list(&[(8, 5.0)]);
        let got = merge(&whole, &[a, b], 100, 0.0, 2);
        assert_eq!(docs(&got), [1, 2]);
    }

    #[test]
    fn the_floor_is_a_share_of_each_rankings_best() {
        // Tool 9 is 0.1 of the whole query's best but the best of its need: it stays. Tool 4 is
        // below the floor in every ranking: it goes.
        let whole = list(&[(1, 10.0), (9, 1.0), (4, 1.0)]);
        let need = list(&[(9, 2.0), (4, 0.2)]);
        let other = list(&[(1, 3.0)]);
        let got = merge(&whole, &[need, other], 100, 0.3, 10);
        assert_eq!(docs(&got), [1, 9]);
    }

    #[test]
    fn empty_rankings_merge_to_nothing() {
        assert!(merge(&[], &[Vec::new(), Vec::new()], 100, 0.3, 10).is_empty());
        let whole = list(&[(1, 2.0)]);
        let got = merge(&whole, &[Vec::new(), Vec::new()], 100, 0.3, 10);
        assert_eq!(docs(&got), [1]);
        assert_eq!(got[0].intent, None);
    }
}
