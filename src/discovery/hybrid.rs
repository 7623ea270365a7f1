//! Words and meaning, a step of the fuse stage (the `hybrid` profile): one need's `enhanced`
//! ranking fused with the embedder's cosine similarity.
//!
//! Both lists are cut to their own best [`CANDIDATES`](super::retrieve::CANDIDATES); each score is standardized over its
//! list's distribution (a z-score: minus the mean, over the standard deviation), and the fused
//! score is the mean of the two. BM25F scores exactly the tools sharing a word with the query, so
//! the lexical distribution is that whole list and one more score, the 0 of a tool sharing no
//! word; the cosine has no such boundary, so its distribution is its candidates. A candidate of
//! one list outside the other keeps its own score there (the store scores every tool exactly;
//! BM25F every tool sharing a word), standardized the same way and never above that list's
//! lowest candidate; a semantic candidate sharing no word takes the z-score of 0. Equal weights and
//! each list's own distribution: nothing is fitted to a catalog, and neither a BM25 scale (which
//! grows with the query's length and the catalog's IDF) nor a cosine scale (which differs per
//! model) decides the balance; a list whose best stands far above its rest counts for more than
//! one whose scores are all alike. The answer's scores are the fused ones rescaled so that the
//! best candidate is 1 and the worst 0. EVALUATION.md has the ablation (min-max, reciprocal rank
//! fusion, each list alone).

pub use super::options::Fusion;
use super::phrases::RERANKED;
use super::retrieve::Retrieved;
use super::semantic;
use crate::index::{DocId, ScoredDoc};
use crate::registry::State;
use std::collections::{HashMap, HashSet};

/// One fused hit, with what each side gave it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FusedHit {
    pub doc: DocId,
    pub score: f64,
    /// The lexical (enhanced BM25F) score, when in the lexical candidates.
    pub lexical: Option<f64>,
    /// The cosine similarity, when the tool and the query have vectors.
    pub cosine: Option<f32>,
    /// Whether the tool is among the semantic candidates (the best cosines).
    pub semantic: bool,
    /// The phrase score the words score was raised by (0: none, or not among the best looked at).
    pub phrase: f64,
}

/// Fuses what retrieval found for one need into one list, best first, every candidate of either
/// side (the caller cuts it): the lexical candidates (the best `candidates` of `need.lexical`),
/// the semantic ones, each standardized, and the best raised by their phrases. Without a query
/// vector (the embedder failed), the lexical ranking alone, its best raised by their phrases.
pub(crate) fn rank(
    state: &State,
    need: &Retrieved<'_>,
    candidates: usize,
    fusion: Fusion,
) -> Vec<FusedHit> {
    let cosine_of = |id| semantic::cosine(state, need.vector, id);
    let analysis = state.enhanced().map(|(analysis, _)| analysis);
    let phrase_of = |id| match analysis {
        Some(analysis) if !need.pairs.is_empty() => need.pairs.score(state.tool_at(id), analysis),
        _ => 0.0,
    };
    fuse(
        &need.lexical,
        candidates,
        &need.semantic,
        cosine_of,
        phrase_of,
        fusion,
    )
}

/// Fuses a lexical and a semantic list (each best first) into one, best first; ties by slot.
/// `lex_all` is every tool sharing a word with the query, its best `candidates` first (the
/// lexical candidates) and the rest in any order; `cosine_of` gives the cosine of a lexical
/// candidate the semantic list left out, `phrase_of` the phrase score of one of the best
/// ([`phrases`](super::phrases)), on the lexical scale.
pub(crate) fn fuse(
    lex_all: &[ScoredDoc],
    candidates: usize,
    sem: &[(DocId, f32)],
    cosine_of: impl Fn(DocId) -> Option<f32>,
    phrase_of: impl Fn(DocId) -> f64,
    fusion: Fusion,
) -> Vec<FusedHit> {
    let lex = &lex_all[..candidates.min(lex_all.len())];
    let lex_scores: Vec<f64> = lex.iter().map(|h| h.score).collect();
    let sem_scores: Vec<f64> = sem.iter().map(|h| h.1 as f64).collect();
    // BM25F scores only the tools sharing a word with the query, so that whole list is the
    // lexical side's own distribution, with one more score: 0, what a tool sharing no word gets.
    // A few matches then stand out from no match by what they scored, not by how they differ
    // among themselves (three tools scoring 10, 9 and 8 are not the spread of a thousand), and
    // a single match stands above the rest. The cosine has no such boundary (every tool has
    // one), so its candidates are its distribution.
    let lex_population = lex_all.iter().map(|h| h.score).chain(std::iter::once(0.0));
    let (lex_part, lex_missing, lex_z) = normalized(&lex_scores, lex_population, fusion);
    // A tool sharing no word scores that 0, standardized like the rest.
    let lex_none = match lex_z {
        Some((mean, sd)) => ((0.0 - mean) / sd).min(lex_missing),
        None => lex_missing,
    };
    let (sem_part, sem_missing, sem_z) =
        normalized(&sem_scores, sem_scores.iter().copied(), fusion);
    let sem_outside = |cos: Option<f32>| match (sem_z, cos) {
        (Some((mean, sd)), Some(c)) => ((c as f64 - mean) / sd).min(sem_missing),
        _ => sem_missing,
    };
    // A semantic candidate below the lexical candidates keeps its own words score, as a lexical
    // candidate below the semantic ones keeps its own cosine: one pass over the rest of the
    // lexical list picks out the (at most CANDIDATES) semantic candidates' scores.
    let below: HashMap<DocId, f64> = match lex_z {
        Some(_) if !sem.is_empty() && lex_all.len() > lex.len() => {
            let wanted: HashSet<DocId> = sem.iter().map(|h| h.0).collect();
            lex_all[lex.len()..]
                .iter()
                .filter(|h| wanted.contains(&h.doc))
                .map(|h| (h.doc, h.score))
                .collect()
        }
        _ => HashMap::new(),
    };
    let lex_outside = |doc: DocId| match (lex_z, below.get(&doc)) {
        (Some((mean, sd)), Some(&s)) => (Some(s), ((s - mean) / sd).min(lex_missing)),
        _ => (None, lex_none),
    };
    let mut all: Vec<FusedHit> = Vec::with_capacity(lex.len() + sem.len());
    let mut parts: Vec<(f64, f64)> = Vec::with_capacity(lex.len() + sem.len());
    for (h, &p) in lex.iter().zip(&lex_part) {
        let cosine = if sem.is_empty() {
            None
        } else {
            cosine_of(h.doc)
        };
        all.push(FusedHit {
            doc: h.doc,
            score: 0.0,
            lexical: Some(h.score),
            cosine,
            semantic: false,
            phrase: 0.0,
        });
        parts.push((p, sem_outside(cosine)));
    }
    let mut at: HashMap<DocId, usize> = all.iter().enumerate().map(|(i, f)| (f.doc, i)).collect();
    for (&(doc, cos), &p) in sem.iter().zip(&sem_part) {
        match at.get(&doc) {
            Some(&i) => {
                all[i].cosine = Some(cos);
                all[i].semantic = true;
                parts[i].1 = p;
            }
            None => {
                let (lexical, l) = lex_outside(doc);
                at.insert(doc, all.len());
                all.push(FusedHit {
                    doc,
                    score: 0.0,
                    lexical,
                    cosine: Some(cos),
                    semantic: true,
                    phrase: 0.0,
                });
                parts.push((l, p));
            }
        }
    }
    let parts_floor = parts.iter().fold(f64::INFINITY, |m, p| m.min(p.1));
    let combine = |l: f64, s: f64| match fusion {
        Fusion::ZScore | Fusion::MinMax => (l + s) / 2.0,
        Fusion::Rrf => l + s,
        Fusion::LexicalOnly => l,
        Fusion::SemanticOnly => s,
    };
    for (f, (l, s)) in all.iter_mut().zip(parts) {
        f.score = combine(l, s);
    }
    all.retain(|f| match fusion {
        Fusion::LexicalOnly => f.lexical.is_some(),
        Fusion::SemanticOnly => f.semantic,
        _ => true,
    });
    let by_score = |a: &FusedHit, b: &FusedHit| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc));
    all.sort_by(by_score);
    // A phrase is more words matched: it adds to the words score, standardized like it. Only the
    // best few are looked at, and a bonus only raises a score, so the rest keep their order below.
    if let (Fusion::ZScore, Some((_, sd))) = (fusion, lex_z) {
        let best = RERANKED.min(all.len());
        let mut raised = false;
        for f in &mut all[..best] {
            if f.lexical.is_some() {
                let p = phrase_of(f.doc);
                if p > 0.0 {
                    f.score += combine(p / sd, 0.0);
                    f.phrase = p;
                    raised = true;
                }
            }
        }
        if raised {
            all[..best].sort_by(by_score);
        }
    }
    // What a tool in neither list would count: no more than the least any candidate got.
    let sem_floor = parts_floor.min(sem_missing);
    rescale(&mut all, combine(lex_none, sem_floor));
    all
}

/// Each score of a list (best first) as `fusion` counts it, what a tool missing from the list
/// counts, and for a z-score the mean and standard deviation of `population` (the whole list the
/// candidates `scores` head), to standardize another score the same way.
fn normalized(
    scores: &[f64],
    population: impl Iterator<Item = f64> + Clone,
    fusion: Fusion,
) -> (Vec<f64>, f64, Option<(f64, f64)>) {
    if scores.is_empty() {
        return (Vec::new(), 0.0, None);
    }
    let (max, min) = scores
        .iter()
        .fold((f64::NEG_INFINITY, f64::INFINITY), |(mx, mn), &s| {
            (mx.max(s), mn.min(s))
        });
    match fusion {
        Fusion::ZScore => {
            let n = population.clone().count() as f64;
            let mean = population.clone().sum::<f64>() / n;
            let sd = (population.map(|s| (s - mean).powi(2)).sum::<f64>() / n).sqrt();
            if sd > 0.0 {
                let z: Vec<f64> = scores.iter().map(|s| (s - mean) / sd).collect();
                (z, (min - mean) / sd, Some((mean, sd)))
            } else {
                // One candidate, or all alike: no evidence to tell them apart.
                (vec![0.0; scores.len()], 0.0, None)
            }
        }
        Fusion::Rrf => (
            (0..scores.len()).map(|r| 1.0 / (61.0 + r as f64)).collect(),
            0.0,
            None,
        ),
        _ => (
            scores
                .iter()
                .map(|s| {
                    if max > min {
                        (s - max + (max - min)) / (max - min)
                    } else {
                        1.0
                    }
                })
                .collect(),
            0.0,
            None,
        ),
    }
}

/// Rescales fused scores (best first) so the best is 1 and `absent`, what a tool in neither list
/// would score, is 0: an answer's scores then read like the other profiles' (higher is better, 0
/// is no evidence, the floor is a share of the best) whatever the fusion's own scale.
fn rescale(fused: &mut [FusedHit], absent: f64) {
    let Some(best) = fused.first().map(|f| f.score) else {
        return;
    };
    for f in fused.iter_mut() {
        f.score = if best > absent {
            ((f.score - absent) / (best - absent)).max(0.0)
        } else {
            1.0
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_phrase(_: DocId) -> f64 {
        0.0
    }

    fn lex(scores: &[(DocId, f64)]) -> Vec<ScoredDoc> {
        scores
            .iter()
            .map(|&(doc, score)| ScoredDoc { doc, score })
            .collect()
    }

    #[test]
    fn a_lexical_candidate_outside_the_semantic_list_keeps_its_own_cosine() {
        // Slots 5 and 4 tie on words and are both below the semantic list; slot 5's cosine is
        // the higher, so it ranks first although ties go to the lower slot.
        let words = lex(&[(1, 3.0), (4, 2.0), (5, 2.0)]);
        let meaning = [(7, 0.9), (8, 0.8), (9, 0.7)];
        let cosine = |id: DocId| Some(if id == 5 { 0.5 } else { 0.1 });
        let fused = fuse(&words, 100, &meaning, cosine, no_phrase, Fusion::ZScore);
        let order: Vec<DocId> = fused.iter().map(|f| f.doc).collect();
        let (p4, p5) = (
            order.iter().position(|&d| d == 4).unwrap(),
            order.iter().position(|&d| d == 5).unwrap(),
        );
        assert!(p5 < p4, "{order:?}");
        let f5 = fused.iter().find(|f| f.doc == 5).unwrap();
        assert_eq!((f5.cosine, f5.semantic), (Some(0.5), false));
        assert!(fused.iter().all(|f| (0.0..=1.0).contains(&f.score)));
        assert_eq!(fused[0].score, 1.0);
        // Min-max and rank fusion keep their rule: a tool missing from the list counts 0.
        let mm = fuse(&words, 100, &meaning, cosine, no_phrase, Fusion::MinMax);
        let s = |d: DocId| mm.iter().find(|f| f.doc == d).unwrap().score;
        assert_eq!(s(4), s(5));
    }

    #[test]
    fn a_phrase_raises_one_of_the_best_and_only_those() {
        // Slots 1 and 2 tie on words and meaning; slot 2 has the query's words side by side.
        let words = lex(&[(1, 3.0), (2, 3.0), (3, 1.0)]);
        let meaning = [(1, 0.5), (2, 0.5), (3, 0.4)];
        let cosine = |_: DocId| None;
        let phrase = |d: DocId| if d == 2 { 1.0 } else { 0.0 };
        let plain = fuse(&words, 100, &meaning, cosine, no_phrase, Fusion::ZScore);
        let with = fuse(&words, 100, &meaning, cosine, phrase, Fusion::ZScore);
        let order = |v: &[FusedHit]| v.iter().map(|f| f.doc).collect::<Vec<_>>();
        assert_eq!(order(&plain), [1, 2, 3]);
        assert_eq!(order(&with), [2, 1, 3]);
        // The fusions kept for comparison rank as they did.
        let rrf = fuse(&words, 100, &meaning, cosine, phrase, Fusion::Rrf);
        assert_eq!(order(&rrf), [1, 2, 3]);
        // A phrase below the best RERANKED is not looked at: its place does not depend on top_k.
        let many: Vec<ScoredDoc> = (0..RERANKED as DocId + 5)
            .map(|d| ScoredDoc {
                doc: d,
                score: 100.0 - d as f64,
            })
            .collect();
        let last = RERANKED as DocId + 4;
        let looked = std::cell::RefCell::new(Vec::new());
        let phrase = |d: DocId| {
            looked.borrow_mut().push(d);
            if d == last { 1e6 } else { 0.0 }
        };
        let fused = fuse(&many, 100, &[], cosine, phrase, Fusion::ZScore);
        assert_eq!(fused.last().unwrap().doc, last);
        assert_eq!(looked.borrow().len(), RERANKED);
    }

    #[test]
    fn a_semantic_candidate_below_the_lexical_candidates_keeps_its_own_words_score() {
        // Two lexical candidates; slot 6 shares a word but ranks below them, slot 7 shares none.
        // Both are semantic candidates with the same cosine: the word slot 6 shares puts it
        // above slot 7 (some evidence is more than none) and its score is reported; slot 7
        // takes the z-score of 0, below every tool sharing a word.
        let words = lex(&[(1, 9.0), (2, 8.0), (6, 0.5)]);
        let meaning = [(6, 0.9), (7, 0.9), (8, 0.1)];
        let cosine = |_: DocId| Some(0.2);
        let fused = fuse(&words, 2, &meaning, cosine, no_phrase, Fusion::ZScore);
        let f = |d: DocId| *fused.iter().find(|f| f.doc == d).unwrap();
        assert_eq!(f(6).lexical, Some(0.5));
        assert_eq!(f(7).lexical, None);
        assert!(f(6).score > f(7).score, "{fused:?}");
        assert!(f(7).score > f(8).score, "{fused:?}");
        // Its own words score is what lifts it: above slot 1 (best by words, far from the query's
        // meaning), where without that score (a list of the two candidates only) slot 6 would
        // share no word, take the z-score of 0 and rank below slot 1.
        let pos = |v: &[FusedHit], d: DocId| v.iter().position(|f| f.doc == d).unwrap();
        assert!(pos(&fused, 6) < pos(&fused, 1), "{fused:?}");
        let alone = fuse(&words[..2], 2, &meaning, cosine, no_phrase, Fusion::ZScore);
        assert!(pos(&alone, 1) < pos(&alone, 6), "{alone:?}");
    }

    #[test]
    fn a_single_match_by_words_counts_against_tools_sharing_no_word() {
        // One tool shares a word with the query (a rare word: the only evidence the words give).
        // Measured against the 0 of a tool sharing none, it stands above them, and its fair
        // cosine lifts it over the nearest tool by meaning, which shares no word. Without that 0
        // the list of one would have no spread and count for nothing.
        let words = lex(&[(1, 3.0)]);
        let meaning = [(2, 0.5), (3, 0.45), (1, 0.44), (4, 0.3), (5, 0.2), (6, 0.1)];
        let fused = fuse(&words, 100, &meaning, |_| None, no_phrase, Fusion::ZScore);
        assert_eq!(fused[0].doc, 1, "{fused:?}");
        assert_eq!(fused[1].doc, 2, "{fused:?}");
        assert!(fused.iter().all(|f| f.score.is_finite()), "{fused:?}");
    }
}
