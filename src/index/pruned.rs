//! The top-k search: MaxScore over the query's terms, with block bounds and per-document
//! early exits, answering exactly like the exhaustive scorer.
//!
//! A term's contribution to any document of a block is below the block's bound (from its
//! largest frequency and shortest length per field, see [`block_bound`]); a term's bound is the
//! largest of its blocks'. Terms are ranked highest bound first and taken in that order as the
//! lead. The threshold is the k-th best score found so far, raised to the answer's score floor
//! when the caller applies one (see [`Index::search_floored`]). Nothing can beat the threshold:
//!
//! - once the bounds of the terms left are below it, the search stops;
//! - a lead's block is skipped when its bound plus the bounds of the later terms is;
//! - a document is dropped, before its next later term is sought, as soon as what it has
//!   (its exact contributions so far) plus the bounds of the later terms is.
//!
//! A document reached and not dropped is scored exactly, adding its contributions in
//! query-token order as the exhaustive search does, so scores agree to the bit, and ties are
//! ordered by the same first-touch key: the first query token containing the document, then
//! registration order. Every document of an earlier lead is already decided, so later leads
//! neither seek earlier terms nor reach those documents again; a document of a skipped block
//! that a later lead reaches is scored without the skipped term, below its true score and so
//! below the threshold it was skipped under, and is dropped like the others.
//!
//! Several rankings searched together (a merge of a query's needs) share one walk: see
//! [`joint`](super::joint).

use super::postings::{Cursor, Freqs};
use super::{
    Bm25Params, DocId, Index, LengthStats, SCRATCH, ScoredDoc, TermEntry, block_bound, doc_norm,
    field_scale, rank, saturate,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Relative slack on every sum of bounds: bounds are added in another order than scores are.
pub(super) const SLACK: f64 = 1.0 + 1e-9;

/// One distinct query term.
pub(super) struct Term<'a, const F: usize> {
    pub entry: &'a TermEntry<F>,
    /// The IDF times the query weight (see [`Bm25Params::query_weight`]).
    pub idf: f64,
    /// How often the query holds the term.
    pub times: f64,
    /// Bound of the term's total contribution to one document.
    bound: f64,
    /// A name term ([`super::names`]): it leads before the others (see [`Index::search_pruned`]).
    leads_first: bool,
}

/// A document's part of the formula, computed field by field as its postings need it: with
/// per-field normalization a field's scale costs a division, and a posting is seldom in more
/// than one or two of the fields. A field a posting does not hold adds nothing (`+ 0.0`) to the
/// weighted frequency, so leaving it out changes no bit.
pub(super) struct DocScale<const F: usize> {
    lengths: [u32; F],
    /// Per-field normalization: each field's scale once `known` has its bit.
    scale: [f64; F],
    known: u32,
    k: f64,
}

impl<const F: usize> DocScale<F> {
    #[inline]
    pub(super) fn new(lengths: [u32; F], p: &Bm25Params<F>, stats: &LengthStats<F>) -> Self {
        let k = if p.per_field {
            p.k1
        } else {
            // The weights are the scales; only `k` depends on the document (as `doc_norm`).
            doc_norm(&lengths, p, stats).k
        };
        DocScale {
            lengths,
            scale: [0.0; F],
            known: 0,
            k,
        }
    }

    /// The BM25+ normalized frequency of a posting (as `tf_norm_with` on `doc_norm`).
    #[inline]
    pub(super) fn tf_norm(
        &mut self,
        tf: Freqs<'_>,
        p: &Bm25Params<F>,
        stats: &LengthStats<F>,
    ) -> f64 {
        let mut wtf = 0.0;
        tf.for_each(|f, tf| {
            let scale = if !p.per_field {
                p.weights[f]
            } else if self.known & (1 << f) != 0 {
                self.scale[f]
            } else {
                self.known |= 1 << f;
                self.scale[f] = field_scale(p.weights[f], self.lengths[f], stats.avg[f], p.b);
                self.scale[f]
            };
            wtf += scale * f64::from(tf);
        });
        saturate(wtf, self.k, p)
    }
}

impl<const F: usize> Index<F> {
    /// The query's distinct terms, each with its IDF times its query weight, and for each query
    /// token (duplicates count again) the index of its term.
    pub(super) fn distinct_terms<'a>(
        &self,
        terms: &[(&str, &'a TermEntry<F>)],
        p: &Bm25Params<F>,
    ) -> (Vec<Term<'a, F>>, Vec<usize>) {
        let mut distinct: Vec<Term<F>> = Vec::new();
        let mut order: Vec<usize> = Vec::with_capacity(terms.len());
        for &(text, e) in terms {
            let at = match distinct.iter().position(|t| std::ptr::eq(t.entry, e)) {
                Some(at) => at,
                None => {
                    distinct.push(Term {
                        entry: e,
                        idf: self.term_idf(text, e.postings.len(), p),
                        times: 0.0,
                        bound: 0.0,
                        leads_first: super::is_name_term(text),
                    });
                    distinct.len() - 1
                }
            };
            distinct[at].times += 1.0;
            order.push(at);
        }
        for t in &mut distinct {
            t.idf *= p.query_weight(t.times as usize);
        }
        (distinct, order)
    }

    /// The scores of `docs` (ascending, each once) for the query terms `terms`, 0 for a document
    /// no term reaches: the same bits as the search gives them, since each is computed as a kept
    /// document is there (the same per-document scale, contributions added in query-token
    /// order). A handful of documents cost a forward seek per term each, not a search.
    pub(super) fn score_listed(
        &self,
        terms: &[(&str, &TermEntry<F>)],
        p: &Bm25Params<F>,
        docs: &[DocId],
    ) -> Vec<f64> {
        debug_assert!(docs.windows(2).all(|w| w[0] < w[1]), "docs ascending");
        let stats = self.length_stats(p);
        let (terms, order) = self.distinct_terms(terms, p);
        let mut cursors = vec![Cursor::default(); terms.len()];
        let mut contribution: Vec<Option<f64>> = vec![None; terms.len()];
        docs.iter()
            .map(|&doc| {
                let Some(lengths) = self.docs.get(doc) else {
                    return 0.0;
                };
                let mut scale = DocScale::new(lengths, p, &stats);
                for (t, term) in terms.iter().enumerate() {
                    contribution[t] = term
                        .entry
                        .postings
                        .seek(&mut cursors[t], doc)
                        .map(|tf| term.idf * scale.tf_norm(tf, p, &stats));
                }
                let mut score = 0.0;
                for &t in &order {
                    if let Some(c) = contribution[t] {
                        score += c;
                    }
                }
                score
            })
            .collect()
    }

    /// Whether [`score_listed`](Self::score_listed) would give each of `docs` (ascending, each
    /// once) a score above 0: some query term is in it in a field of positive weight, or in any
    /// field when BM25+'s `delta` is positive. Every IDF, query weight and length normalization
    /// is positive (`b` is at most 1), so this needs no IDF, no document length and no sum, and
    /// stops at a document's first term found (the co-use step asks it of partners that mostly
    /// share no word with the query).
    pub(super) fn reaches_listed(
        &self,
        terms: &[(&str, &TermEntry<F>)],
        p: &Bm25Params<F>,
        docs: &[DocId],
    ) -> Vec<bool> {
        debug_assert!(docs.windows(2).all(|w| w[0] < w[1]), "docs ascending");
        let mut entries: Vec<&TermEntry<F>> = Vec::with_capacity(terms.len());
        for &(_, e) in terms {
            if !entries.iter().any(|&x| std::ptr::eq(x, e)) {
                entries.push(e);
            }
        }
        // When any posting scores, a posting found is a score above 0 and its frequencies need
        // not be read.
        let every = p.every_posting_scores();
        let weighs = |tf: Freqs<'_>| {
            let mut any = every;
            if !any {
                tf.for_each(|f, tf| any |= tf > 0 && p.weights[f] > 0.0);
            }
            any
        };
        let mut cursors = vec![Cursor::default(); entries.len()];
        docs.iter()
            .map(|&doc| {
                // A term skipped for one document is sought from where it was for the next:
                // seeks only go forward.
                entries
                    .iter()
                    .zip(cursors.iter_mut())
                    .any(|(e, c)| e.postings.seek(c, doc).is_some_and(weighs))
            })
            .collect()
    }

    /// The best `top_k` documents for the query terms `terms` (one per query token, in query
    /// order, with its entry), skipping those that cannot make them (see the module's
    /// documentation).
    pub(super) fn search_pruned(
        &self,
        terms: &[(&str, &TermEntry<F>)],
        p: &Bm25Params<F>,
        top_k: usize,
        floor_ratio: f64,
    ) -> Vec<ScoredDoc> {
        let stats = self.length_stats(p);
        let (mut distinct, mut order) = self.distinct_terms(terms, p);
        for t in &mut distinct {
            let best_block = t
                .entry
                .postings
                .blocks()
                .iter()
                .map(|b| block_bound(b, p, &stats))
                .fold(0.0, f64::max);
            t.bound = t.times * t.idf * best_block * SLACK;
        }
        // Ranked highest bound first (a stable sort: equal bounds keep query order); `order`
        // then refers to ranks. Name terms lead before any other: their few tools usually score
        // best, which raises the threshold at once, and once they have led, no document reached
        // later is bounded by them. Its weight is its most common word's, so ranked by bound it
        // would sit among the common words and loosen the bound of every document they reach.
        // Any order of leads gives the same answer.
        let mut ranked: Vec<(usize, Term<F>)> = distinct.into_iter().enumerate().collect();
        ranked.sort_by(|a, b| {
            (b.1.leads_first.cmp(&a.1.leads_first)).then(b.1.bound.total_cmp(&a.1.bound))
        });
        let mut rank_of = vec![0; ranked.len()];
        for (j, (t, _)) in ranked.iter().enumerate() {
            rank_of[*t] = j;
        }
        for t in &mut order {
            *t = rank_of[*t];
        }
        let terms: Vec<Term<F>> = ranked.into_iter().map(|(_, t)| t).collect();
        let n = terms.len();
        // rest[j]: bound of what terms j.. can add to a document.
        let mut rest = vec![0.0; n + 1];
        for j in (0..n).rev() {
            rest[j] = (rest[j + 1] + terms[j].bound) * SLACK;
        }
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let s = &mut *s;
            s.start_reaching(self.docs.len());
            // (doc, score, first query token containing it) of every document kept.
            let mut scored = std::mem::take(&mut s.scored);
            // The best `top_k` scores so far, as bits (scores are >= 0, so bits order like values).
            let mut best: BinaryHeap<Reverse<u64>> =
                BinaryHeap::with_capacity(top_k.min(self.doc_count) + 1);
            let mut top = 0.0f64;
            // What a document must reach to be kept, once anything is.
            let mut threshold: Option<f64> = None;
            let mut cursors = vec![Cursor::default(); n];
            // A document's contribution from each term, valid where `has` holds the document.
            let mut contribution = vec![0.0; n];
            let mut has = vec![DocId::MAX; n];
            for (j, lead) in terms.iter().enumerate() {
                if threshold.is_some_and(|th| rest[j] < th) {
                    break;
                }
                cursors.fill(Cursor::default());
                for block in lead.entry.postings.blocks() {
                    if let Some(th) = threshold {
                        let bound = lead.times * lead.idf * block_bound(block, p, &stats);
                        if (bound + rest[j + 1]) * SLACK < th {
                            continue;
                        }
                    }
                    'doc: for (doc, lead_tf) in block.postings() {
                        if !s.first_reach(doc) {
                            continue;
                        }
                        let mut scale = DocScale::new(self.docs.of(doc), p, &stats);
                        let c = lead.idf * scale.tf_norm(lead_tf, p, &stats);
                        contribution[j] = c;
                        has[j] = doc;
                        let mut so_far = lead.times * c;
                        for t in j + 1..n {
                            if threshold.is_some_and(|th| (so_far + rest[t]) * SLACK < th) {
                                continue 'doc;
                            }
                            let term = &terms[t];
                            if let Some(tf) = term.entry.postings.seek(&mut cursors[t], doc) {
                                let c = term.idf * scale.tf_norm(tf, p, &stats);
                                contribution[t] = c;
                                has[t] = doc;
                                so_far += term.times * c;
                            }
                        }
                        let mut score = 0.0;
                        let mut first = u32::MAX;
                        for (qpos, &t) in order.iter().enumerate() {
                            if has[t] == doc {
                                score += contribution[t];
                                first = first.min(qpos as u32);
                            }
                        }
                        if threshold.is_some_and(|th| score < th) {
                            continue;
                        }
                        best.push(Reverse(score.to_bits()));
                        if best.len() > top_k {
                            best.pop();
                        }
                        top = top.max(score);
                        let floor = top * floor_ratio;
                        threshold = match (best.len() >= top_k).then(|| best.peek()).flatten() {
                            Some(kth) => Some(f64::from_bits(kth.0).max(floor)),
                            None => (floor > 0.0).then_some(floor),
                        };
                        // Tie key: first token, then registration order (postings are sorted by doc).
                        let key = (u64::from(first) << 32) | u64::from(doc);
                        scored.push((ScoredDoc { doc, score }, key));
                    }
                }
            }
            s.forget_reached();
            rank(&mut scored, top_k);
            let hits = scored.iter().map(|&(h, _)| h).collect();
            // Kept up to 64 KB: a query reaching most of a large catalog does not pin its list.
            if scored.capacity() <= 4096 {
                scored.clear();
                s.scored = scored;
            }
            hits
        })
    }
}
