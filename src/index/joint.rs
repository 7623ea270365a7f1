//! Several rankings over one index searched in one walk: the whole query and each of its needs
//! when a discover merges them (see the discovery's retrieve stage).
//!
//! The walk is [`pruned`](super::pruned)'s MaxScore over the union of the rankings' terms, each
//! ranking with its own bounds, threshold and best: a document is reached once and each of its
//! terms looked up once, however many rankings hold them. Leads go by their highest bound in
//! any ranking. A lead, a block or a document is passed over only when no ranking can gain from
//! it, and a document leaves a ranking as soon as it cannot reach that ranking's threshold. So
//! each ranking answers exactly as it would alone, at or above its cut. A ranking may follow
//! the first: its floor is then also a lower bound of the first ranking's final `top_k`-th score
//! over its best (the `top_k`-th only rises, and the best is at most the best so far or what a
//! document not yet reached can score). The rankings' figures sit side by side in lanes, so a
//! document's bounds in all of them are checked with no branch per ranking. A document some
//! ranking keeps has its other terms looked up too, so every listed document comes with its
//! score in each ranking.

use super::postings::Cursor;
use super::pruned::{DocScale, SLACK};
use super::{
    Bm25Params, DocId, Index, LengthStats, SCRATCH, ScoredDoc, TermEntry, block_bound, rank,
};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Relative slack on a ranking's floor that follows the first ranking's share: a ratio of two
/// scores may round either way.
const FOLLOW_SLACK: f64 = 1e-9;

/// The most rankings [`Index::search_together`] takes at once.
pub const MAX_TOGETHER: usize = 8;

/// One ranking of [`Index::search_together`].
#[derive(Debug, Clone, Copy)]
pub struct Wanted<'q, S> {
    /// Its query tokens, in order (duplicates count again).
    pub tokens: &'q [S],
    /// How many best documents it keeps.
    pub top_k: usize,
    /// Documents scoring under this share of its best may be left out (0 keeps them all).
    pub floor_ratio: f64,
    /// Its floor is also the first ranking's `top_k`-th score over that ranking's best (when the
    /// first ranking has `top_k` documents), less a relative 1e-9 for rounding. For a merge in
    /// which a document outside the first ranking's `top_k` takes a place only by scoring above
    /// that share of another ranking's best.
    pub follows_first: bool,
}

/// What [`Index::search_together`] found.
#[derive(Debug, Clone, Default)]
pub struct Together {
    /// Each ranking's best, in the order of the rankings.
    pub hits: Vec<Vec<ScoredDoc>>,
    /// With more than one ranking: every document some ranking's hits hold, ascending, with its
    /// score in each ranking (0 where a ranking does not reach it), bit for bit.
    pub scores: Vec<(DocId, Vec<f64>)>,
}

/// One ranking of a search, its query tokens resolved to their entries (see [`Wanted`]).
struct Resolved<'a, const F: usize> {
    terms: Vec<(&'a str, &'a TermEntry<F>)>,
    top_k: usize,
    floor_ratio: f64,
    follows_first: bool,
}

impl<const F: usize> Index<F> {
    /// The best documents of several rankings over one index, in one pass (each document is
    /// reached once, however many rankings hold its terms), each ranking as
    /// [`search_floored`](Self::search_floored) answers it: at or above its floor, the same
    /// documents with the same scores in the same order. With more than one ranking, every
    /// document some ranking lists comes with its score in each (for a merge of them). At most
    /// [`MAX_TOGETHER`] rankings: a caller's bound, checked where it is fixed (discovery's
    /// needs), so more is a bug that panics.
    pub fn search_together<S: AsRef<str>>(
        &self,
        wanted: &[Wanted<'_, S>],
        p: &Bm25Params<F>,
    ) -> Together {
        if let [one] = wanted {
            // One ranking has its own loop, without the sets of rankings: every discover's path.
            let hits = self.search_floored(one.tokens, p, one.top_k, one.floor_ratio);
            return Together {
                hits: vec![hits],
                scores: Vec::new(),
            };
        }
        let resolved: Vec<Resolved<F>> = wanted
            .iter()
            .map(|w| Resolved {
                terms: if w.top_k == 0 {
                    Vec::new()
                } else {
                    self.query_terms(w.tokens)
                },
                top_k: w.top_k,
                floor_ratio: w.floor_ratio,
                follows_first: w.follows_first,
            })
            .collect();
        if self.doc_count == 0 || resolved.iter().all(|r| r.terms.is_empty()) {
            return Together {
                hits: vec![Vec::new(); wanted.len()],
                scores: Vec::new(),
            };
        }
        self.search_joint(&resolved, p)
    }

    /// The best documents of each ranking in `wanted` (see [`Index::search_together`]), in one
    /// pass: a document is reached once, its length scale and each term's frequency computed once,
    /// whatever the number of rankings. Each ranking keeps its own threshold, and a block, a lead
    /// or a document is passed over only when no ranking can gain from it.
    fn search_joint(&self, wanted: &[Resolved<'_, F>], p: &Bm25Params<F>) -> Together {
        let stats = self.length_stats(p);
        let m = wanted.len();
        debug_assert!(
            (2..=MAX_TOGETHER).contains(&m),
            "2 to {MAX_TOGETHER} rankings"
        );
        // The query's distinct terms over every ranking, in order of first use.
        let mut entries: Vec<(&str, &TermEntry<F>)> = Vec::new();
        for w in wanted {
            for &(text, e) in &w.terms {
                if !entries.iter().any(|t| std::ptr::eq(t.1, e)) {
                    entries.push((text, e));
                }
            }
        }
        let n = entries.len();
        let best_block: Vec<f64> = entries
            .iter()
            .map(|(_, e)| {
                e.postings
                    .blocks()
                    .iter()
                    .map(|b| block_bound(b, p, &stats))
                    .fold(0.0, f64::max)
            })
            .collect();
        // Per ranking: each term's IDF times query weight, how often its query holds the term,
        // its query tokens as terms, and each term's bound.
        let terms: Vec<(Vec<f64>, Vec<f64>, Vec<usize>)> = wanted
            .iter()
            .map(|w| self.side_terms(&entries, &w.terms, p))
            .collect();
        let bound = |l: usize, u: usize| terms[l].1[u] * terms[l].0[u] * best_block[u] * SLACK;
        // Leads by their highest bound in any ranking (a stable sort: equal bounds keep the
        // order of first use, so one ranking's leads are its terms by bound, query order on
        // ties); from here on a term is its rank.
        let top_bound = |u: usize| (0..m).map(|l| bound(l, u)).fold(0.0, f64::max);
        // Name terms lead first, as in one ranking's search (see `search_pruned`).
        let first = |u: usize| super::is_name_term(entries[u].0);
        let mut lead_order: Vec<usize> = (0..n).collect();
        lead_order.sort_by(|&a, &b| {
            first(b)
                .cmp(&first(a))
                .then(top_bound(b).total_cmp(&top_bound(a)))
        });
        let entries: Vec<&TermEntry<F>> = lead_order.iter().map(|&u| entries[u].1).collect();
        // As few lanes as the rankings need: most merges are of two or three needs.
        if m <= 4 {
            let sides = Sides::<4>::new(wanted, &terms, &lead_order, bound);
            self.walk(&entries, sides, p, &stats)
        } else {
            let sides = Sides::<LANES>::new(wanted, &terms, &lead_order, bound);
            self.walk(&entries, sides, p, &stats)
        }
    }

    /// The joint search proper over the terms `entries` (by lead rank).
    fn walk<const L: usize>(
        &self,
        entries: &[&TermEntry<F>],
        mut sides: Sides<L>,
        p: &Bm25Params<F>,
        stats: &LengthStats<F>,
    ) -> Together {
        let (n, m) = (entries.len(), sides.m);
        // Each document some ranking keeps, with its score in each.
        let mut kept_docs: Vec<DocId> = Vec::new();
        let mut kept_scores: Vec<f64> = Vec::new();
        SCRATCH.with(|cell| {
            let mut s = cell.borrow_mut();
            let s = &mut *s;
            s.start_reaching(self.docs.len());
            sides.each[0].scored = std::mem::take(&mut s.scored);
            let mut cursors = vec![Cursor::default(); n];
            // A document's normalized frequency of each term, valid where `has` holds the
            // document; `sought` marks the terms already looked up for it.
            let mut tf_norm = vec![0.0; n];
            let mut has = vec![DocId::MAX; n];
            let mut sought = vec![DocId::MAX; n];
            for (j, lead) in entries.iter().enumerate() {
                // Rankings that can still take a document first reached at this lead.
                let open = (0..m)
                    .filter(|&l| sides.rest[j][l] >= sides.threshold[l])
                    .fold(0u32, |set, l| set | 1 << l);
                if open == 0 {
                    break;
                }
                sides.follow(j);
                cursors.fill(Cursor::default());
                for block in lead.postings.blocks() {
                    if ones(open).all(|l| sides.threshold[l] > 0.0) {
                        let bb = block_bound(block, p, stats);
                        let skip = ones(open).all(|l| {
                            let lead_bound = sides.times[j][l] * sides.weight[j][l] * bb;
                            (lead_bound + sides.rest[j + 1][l]) * SLACK < sides.threshold[l]
                        });
                        if skip {
                            continue;
                        }
                    }
                    'doc: for (doc, lead_tf) in block.postings() {
                        if !s.first_reach(doc) {
                            continue;
                        }
                        let mut scale = DocScale::new(self.docs.of(doc), p, stats);
                        tf_norm[j] = scale.tf_norm(lead_tf, p, stats);
                        has[j] = doc;
                        sought[j] = doc;
                        let mut live = open;
                        let mut so_far = [0.0; L];
                        sides.add(&mut so_far, j, tf_norm[j]);
                        for t in j + 1..n {
                            live &= !sides.out_of_reach(&so_far, t);
                            if live == 0 {
                                continue 'doc;
                            }
                            if sides.holders[t] & live == 0 {
                                continue;
                            }
                            sought[t] = doc;
                            if let Some(tf) = entries[t].postings.seek(&mut cursors[t], doc) {
                                tf_norm[t] = scale.tf_norm(tf, p, stats);
                                has[t] = doc;
                                sides.add(&mut so_far, t, tf_norm[t]);
                            }
                        }
                        let mut kept = false;
                        for l in ones(live) {
                            let (score, first) = sides.score(l, doc, &has, &tf_norm);
                            if score >= sides.threshold[l] {
                                kept = true;
                                sides.keep(l, doc, score, first);
                                if l == 0 {
                                    sides.follow(j);
                                }
                            }
                        }
                        if kept {
                            // Its score in every ranking, for a merge of them: the terms no
                            // ranking still wanted are looked up now (seeks only go forward,
                            // and this is the latest document of the lead).
                            for t in j + 1..n {
                                if sought[t] != doc {
                                    sought[t] = doc;
                                    let found = entries[t].postings.seek(&mut cursors[t], doc);
                                    if let Some(tf) = found {
                                        tf_norm[t] = scale.tf_norm(tf, p, stats);
                                        has[t] = doc;
                                    }
                                }
                            }
                            kept_docs.push(doc);
                            for l in 0..m {
                                kept_scores.push(sides.score(l, doc, &has, &tf_norm).0);
                            }
                        }
                    }
                }
            }
            s.forget_reached();
            let hits: Vec<Vec<ScoredDoc>> = sides
                .each
                .iter_mut()
                .map(|side| {
                    rank(&mut side.scored, side.top_k);
                    side.scored.iter().map(|&(h, _)| h).collect()
                })
                .collect();
            // Kept up to 64 KB: a query reaching most of a large catalog does not pin its list.
            let mut scored = std::mem::take(&mut sides.each[0].scored);
            if scored.capacity() <= 4096 {
                scored.clear();
                s.scored = scored;
            }
            let mut listed: Vec<DocId> = hits.iter().flatten().map(|h| h.doc).collect();
            listed.sort_unstable();
            listed.dedup();
            let mut scores: Vec<(DocId, Vec<f64>)> = Vec::new();
            for (i, doc) in kept_docs.iter().enumerate() {
                if listed.binary_search(doc).is_ok() {
                    scores.push((*doc, kept_scores[i * m..(i + 1) * m].to_vec()));
                }
            }
            scores.sort_unstable_by_key(|&(doc, _)| doc);
            Together { hits, scores }
        })
    }

    /// One ranking's terms over the query's distinct terms `entries`: each term's IDF times its
    /// query weight (see [`Bm25Params::query_weight`]) and how often the ranking's query holds it
    /// (0 for a term it does not hold), and for each of its query tokens (duplicates count again)
    /// the index of its term.
    fn side_terms(
        &self,
        entries: &[(&str, &TermEntry<F>)],
        terms: &[(&str, &TermEntry<F>)],
        p: &Bm25Params<F>,
    ) -> (Vec<f64>, Vec<f64>, Vec<usize>) {
        let (distinct, order) = self.distinct_terms(terms, p);
        let mut weight = vec![0.0; entries.len()];
        let mut times = vec![0.0; entries.len()];
        let mut at = vec![0; distinct.len()];
        for (d, t) in distinct.iter().enumerate() {
            let u = entries
                .iter()
                .position(|e| std::ptr::eq(e.1, t.entry))
                .expect("every ranking's terms are among the entries");
            weight[u] = t.idf;
            times[u] = t.times;
            at[d] = u;
        }
        (weight, times, order.iter().map(|&d| at[d]).collect())
    }
}

/// The members of a bit set, lowest first.
#[inline]
fn ones(mut set: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let l = set.trailing_zeros() as usize;
            set &= set - 1;
            l
        })
    })
}

/// The most rankings one joint search takes.
const LANES: usize = MAX_TOGETHER;

/// The rankings of a joint search. What the inner loop reads is laid out term by term (by lead
/// rank), the rankings side by side.
/// `L` lanes, one per ranking (lanes past the last ranking are 0).
struct Sides<const L: usize> {
    m: usize,
    /// IDF times query weight, and how often the ranking's query holds the term (0: not at all).
    weight: Vec<[f64; L]>,
    times: Vec<[f64; L]>,
    /// `rest[t][l]`: the bound of what terms `t..` can add to a document in ranking `l`.
    rest: Vec<[f64; L]>,
    /// Per ranking, what a document must reach to be kept: 0 until anything is known (no
    /// score is below 0). It only rises, so a document passed over under it is never kept
    /// later with a partial score.
    threshold: [f64; L],
    /// Per term, the rankings that hold it, as a bit set.
    holders: Vec<u32>,
    each: Vec<Side>,
}

/// One ranking's running state.
struct Side {
    /// Its query tokens in query order, as lead ranks.
    order: Vec<usize>,
    top_k: usize,
    floor_ratio: f64,
    /// Whether its floor follows the first ranking's (see
    /// [`Wanted::follows_first`]), and the last lower bound of
    /// that share taken.
    follows: bool,
    follow: f64,
    /// The best `top_k` scores so far, as bits (scores are >= 0, so bits order like values).
    best: BinaryHeap<Reverse<u64>>,
    top: f64,
    /// (doc, score, tie key) of every document kept.
    scored: Vec<(ScoredDoc, u64)>,
}

impl<const L: usize> Sides<L> {
    /// The rankings `wanted`, given per ranking each term's IDF times query weight, how often
    /// its query holds the term and its query tokens as terms (`terms`), the terms by lead rank
    /// (`lead_order`) and each term's bound per ranking.
    fn new<const F: usize>(
        wanted: &[Resolved<'_, F>],
        terms: &[(Vec<f64>, Vec<f64>, Vec<usize>)],
        lead_order: &[usize],
        bound: impl Fn(usize, usize) -> f64,
    ) -> Self {
        let (n, m) = (lead_order.len(), wanted.len());
        assert!(m <= L, "at most {L} rankings");
        let mut rank_of = vec![0; n];
        for (r, &u) in lead_order.iter().enumerate() {
            rank_of[u] = r;
        }
        let mut sides = Sides {
            m,
            weight: vec![[0.0; L]; n],
            times: vec![[0.0; L]; n],
            rest: vec![[0.0; L]; n + 1],
            threshold: [0.0; L],
            holders: vec![0; n],
            each: Vec::with_capacity(m),
        };
        for (l, (w, (weight, times, order))) in wanted.iter().zip(terms).enumerate() {
            for (r, &u) in lead_order.iter().enumerate() {
                sides.weight[r][l] = weight[u];
                sides.times[r][l] = times[u];
                if times[u] > 0.0 {
                    sides.holders[r] |= 1 << l;
                }
            }
            for r in (0..n).rev() {
                sides.rest[r][l] = (sides.rest[r + 1][l] + bound(l, lead_order[r])) * SLACK;
            }
            sides.each.push(Side {
                order: order.iter().map(|&u| rank_of[u]).collect(),
                top_k: w.top_k,
                floor_ratio: w.floor_ratio,
                follows: w.follows_first,
                follow: 0.0,
                best: BinaryHeap::with_capacity(w.top_k.min(4096) + 1),
                top: 0.0,
                scored: Vec::new(),
            });
        }
        sides
    }

    /// Adds term `t`'s contribution to a document's score so far in every ranking, given its
    /// normalized frequency (nothing where a ranking does not hold it): a fixed number of lanes,
    /// with no branch, costs less than a loop over the rankings a document is still live in.
    #[inline(always)]
    fn add(&self, so_far: &mut [f64; L], t: usize, tf_norm: f64) {
        let (times, weight) = (&self.times[t], &self.weight[t]);
        for l in 0..L {
            so_far[l] += times[l] * (weight[l] * tf_norm);
        }
    }

    /// The rankings (a bit set) in which a document scoring `so_far` before term `t` cannot
    /// reach the threshold, whatever terms `t..` add.
    #[inline(always)]
    fn out_of_reach(&self, so_far: &[f64; L], t: usize) -> u32 {
        let rest = &self.rest[t];
        let mut out = 0;
        for l in 0..L {
            out |= u32::from((so_far[l] + rest[l]) * SLACK < self.threshold[l]) << l;
        }
        out
    }

    /// A document's score in ranking `l` and its tie key (its first query token), adding its
    /// contributions in query-token order as the exhaustive search does, so scores agree to the
    /// bit.
    #[inline]
    fn score(&self, l: usize, doc: DocId, has: &[DocId], tf_norm: &[f64]) -> (f64, u32) {
        let mut score = 0.0;
        let mut first = u32::MAX;
        for (qpos, &t) in self.each[l].order.iter().enumerate() {
            if has[t] == doc {
                score += self.weight[t][l] * tf_norm[t];
                first = first.min(qpos as u32);
            }
        }
        (score, first)
    }

    /// Keeps a document that reached ranking `l`'s threshold.
    fn keep(&mut self, l: usize, doc: DocId, score: f64, first: u32) {
        let side = &mut self.each[l];
        side.best.push(Reverse(score.to_bits()));
        if side.best.len() > side.top_k {
            side.best.pop();
        }
        side.top = side.top.max(score);
        // Tie key: first token, then registration order (postings are sorted by doc).
        let key = (u64::from(first) << 32) | u64::from(doc);
        side.scored.push((ScoredDoc { doc, score }, key));
        self.refresh(l);
    }

    /// Raises ranking `l`'s threshold to what its scores kept so far imply.
    fn refresh(&mut self, l: usize) {
        let side = &self.each[l];
        let floor = side.top * side.floor_ratio.max(side.follow);
        let kth = match side.best.peek() {
            Some(kth) if side.best.len() >= side.top_k => f64::from_bits(kth.0),
            _ => 0.0,
        };
        self.threshold[l] = self.threshold[l].max(kth).max(floor);
    }

    /// Passes the rankings that follow the first a lower bound of its final `top_k`-th score
    /// over its best, while lead `j` is read (0 until it has `top_k`): the `top_k`-th only
    /// rises, and the best is at most the best so far or what a document not yet reached can
    /// score.
    fn follow(&mut self, j: usize) {
        let first = &self.each[0];
        let share = match first.best.peek() {
            Some(kth) if first.best.len() >= first.top_k => {
                f64::from_bits(kth.0) / first.top.max(self.rest[j][0]) * (1.0 - FOLLOW_SLACK)
            }
            _ => return,
        };
        for l in 1..self.m {
            if self.each[l].follows {
                self.each[l].follow = share;
                self.refresh(l);
            }
        }
    }
}
