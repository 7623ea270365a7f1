//! The scoring formula, BM25F with BM25+'s lower bound: its parameters, a document's part of it,
//! a term's normalized frequency, and the bound of a block of postings the pruned search skips by.
//! Every scorer (exhaustive, pruned, joint) goes through these functions, so their scores agree
//! to the bit.

use super::postings;

/// BM25F parameters: per-field weights, the BM25+ constants, and the enhanced profile's two
/// switches and background model (all off for the reference).
#[derive(Debug, Clone, Copy)]
pub struct Bm25Params<const F: usize> {
    /// Weight of each field, in the index's field order.
    pub weights: [f64; F],
    /// Term-frequency saturation.
    pub k1: f64,
    /// Length normalization.
    pub b: f64,
    /// BM25+ lower bound added to every matched term's normalized frequency.
    pub delta: f64,
    /// Length normalization per field (the standard BM25F): each field's frequency is divided by
    /// `1 - b + b * len / avg_len` of that field before weighting, and the weighted sum saturates
    /// with plain `k1`. Off (the reference): one normalization by the weighted document length, so a
    /// long parameter documentation also weakens a match in a short name.
    pub per_field: bool,
    /// Query-term saturation (BM25's `k3`, here equal to `k1`): a term the query holds `n` times
    /// counts `n * (k1 + 1) / (n + k1)` times instead of `n`. Off (the reference): each occurrence
    /// adds in full.
    pub saturate_query: bool,
    /// A background model of general text (the enhanced profile's English one,
    /// [`crate::analyzer::background_rate`]): the share of running text a query term makes up,
    /// when known. A term more common there than in the catalog gets the IDF it would have over
    /// the catalog together with as many background documents (see [`Index::term_idf`]). `None`
    /// (the reference): the catalog's own IDF.
    pub background: Option<fn(&str) -> Option<f64>>,
}

impl<const F: usize> Bm25Params<F> {
    /// Whether any posting scores above 0: every field is weighed, or each posting has a floor
    /// (`delta`). Otherwise where a term is found matters.
    pub fn every_posting_scores(&self) -> bool {
        self.delta > 0.0 || self.weights.iter().all(|&w| w > 0.0)
    }

    /// What each occurrence of a term the query holds `times` times is multiplied by: 1 unless
    /// [`saturate_query`](Self::saturate_query) is on, then `(k1 + 1) / (times + k1)` (exactly 1
    /// for a term given once).
    pub fn query_weight(&self, times: usize) -> f64 {
        if self.saturate_query {
            (self.k1 + 1.0) / (times as f64 + self.k1)
        } else {
            1.0
        }
    }
}

/// A document's part of the BM25F formula, the same for every term of the document: the weighted
/// frequency is `Σ scale[f] * tf[f]` and the normalized frequency `wtf * (k1 + 1) / (wtf + k)`.
#[derive(Debug, Clone, Copy)]
pub struct DocNorm<const F: usize> {
    pub(super) scale: [f64; F],
    pub(super) k: f64,
}

/// The collection statistics length normalization needs, computed once per search.
#[derive(Debug, Clone, Copy)]
pub struct LengthStats<const F: usize> {
    /// The weighted average document length (see [`Index::weighted_avgdl`]).
    pub(super) avgdl: f64,
    /// The average length of each field (0 for a field empty everywhere).
    pub(super) avg: [f64; F],
}

/// The BM25+ normalized term frequency of a document's frequencies `tf`.
#[inline]
pub(super) fn tf_norm<const F: usize>(
    tf: [u32; F],
    lengths: &[u32; F],
    p: &Bm25Params<F>,
    stats: &LengthStats<F>,
) -> f64 {
    tf_norm_with(tf, &doc_norm(lengths, p, stats), p)
}

/// The document's part of the formula, the same for every term of the document, so a search
/// computes it once per document.
///
/// Reference (`per_field` off): the field weights, and `k = k1 * (1 - b + b * wdl / avgdl)` with
/// the weighted length `wdl` summed field by field in index order, as the reference does, so
/// scores match to the last bit. BM25F (`per_field` on): each weight divided by its field's
/// `1 - b + b * len / avg_len` (left as is for a field empty in this or every document), and `k = k1`.
#[inline]
pub(super) fn doc_norm<const F: usize>(
    lengths: &[u32; F],
    p: &Bm25Params<F>,
    stats: &LengthStats<F>,
) -> DocNorm<F> {
    if p.per_field {
        let mut scale = p.weights;
        for ((s, len), avg) in scale.iter_mut().zip(lengths).zip(stats.avg) {
            // An empty field holds no term (and with b = 1 its normalization would be 0).
            *s = field_scale(*s, *len, avg, p.b);
        }
        return DocNorm { scale, k: p.k1 };
    }
    let mut wdl = 0.0;
    for (w, len) in p.weights.iter().zip(lengths) {
        wdl += w * f64::from(*len);
    }
    DocNorm {
        scale: p.weights,
        k: p.k1 * (1.0 - p.b + p.b * wdl / stats.avgdl),
    }
}

/// A field weight divided by the field's length normalization `1 - b + b * len / avg`, left as
/// is for a field empty in this document or in every one (with b = 1 its normalization would be
/// 0). The pruned search computes it lazily, field by field, through this same function, so
/// scores agree to the bit.
#[inline]
pub(super) fn field_scale(weight: f64, len: u32, avg: f64, b: f64) -> f64 {
    if avg > 0.0 && len > 0 {
        weight / (1.0 - b + b * f64::from(len) / avg)
    } else {
        weight
    }
}

/// [`tf_norm`] given the document's [`doc_norm`].
#[inline]
fn tf_norm_with<const F: usize>(tf: [u32; F], norm: &DocNorm<F>, p: &Bm25Params<F>) -> f64 {
    let mut wtf = 0.0;
    for (s, tf) in norm.scale.iter().zip(tf) {
        wtf += s * f64::from(tf);
    }
    saturate(wtf, norm.k, p)
}

/// The BM25+ saturation of a weighted frequency `wtf` with the document's `k`: the one formula
/// the exhaustive scorer, the pruned search and the block bounds share, so their scores agree to
/// the bit.
#[inline]
pub(super) fn saturate<const F: usize>(wtf: f64, k: f64, p: &Bm25Params<F>) -> f64 {
    if wtf == 0.0 {
        // The term occurs only in zero-weight fields. The formula gives 0 here whenever it is
        // defined, but with k1 = 0 (or b = 1 and no weighted text) it would be 0/0 = NaN.
        return p.delta;
    }
    (wtf * (p.k1 + 1.0)) / (wtf + k) + p.delta
}

/// A bound of one term's normalized frequency ([`tf_norm_with`], before the IDF) in any document
/// of `block`, for any non-negative weights, k1, b and delta: the formula grows with the weighted
/// frequency and falls with the weighted length, so the block's largest frequency and shortest
/// length per field bound it. A frequency of 255 or more falls back to the saturation bound
/// `k1 + 1 + delta`. Slack covers rounding. With per-field normalization each field's scale
/// likewise falls with its length, so the shortest length per field bounds it.
#[inline]
pub(super) fn block_bound<const F: usize>(
    block: &postings::Block<F>,
    p: &Bm25Params<F>,
    stats: &LengthStats<F>,
) -> f64 {
    let unit = p.k1 + 1.0 + p.delta;
    let mut wtf = 0.0;
    let mut wdl = 0.0;
    for f in 0..F {
        if block.max_tf[f] == u8::MAX {
            return unit * (1.0 + 1e-9);
        }
        let mut scale = p.weights[f];
        if p.per_field && stats.avg[f] > 0.0 {
            // A document with the term in field f has at least one token there.
            let len = f64::from(block.min_len[f].max(1));
            scale /= 1.0 - p.b + p.b * len / stats.avg[f];
        }
        wtf += scale * f64::from(block.max_tf[f]);
        wdl += p.weights[f] * f64::from(block.min_len[f]);
    }
    let norm = if p.per_field {
        p.k1
    } else {
        p.k1 * (1.0 - p.b + p.b * wdl / stats.avgdl)
    };
    saturate(wtf, norm, p).min(unit) * (1.0 + 1e-9)
}
