//! What an MPNet model (all-mpnet-base-v2 and its kin) does differently from BERT; the forward
//! pass itself is BERT's (`bert.rs`), with these pieces in place of BERT's own:
//!
//! - positions count from `pad_token_id + 1`, as in RoBERTa, and a padding token sits at
//!   `pad_token_id` (what the Hugging Face model computes from the token ids);
//! - there are no token types;
//! - every layer's attention scores get a bias per head that depends only on the distance between
//!   the two tokens: T5's bidirectional buckets (half for each direction, exact up to a quarter of
//!   the buckets, then logarithmic up to a maximum distance), one table shared by all layers
//!   (`encoder.relative_attention_bias.weight`, `[buckets, heads]`).

use super::weights::{LayerNames, Tensors};
use crate::error::Result;

/// Where an MPNet layer's weights are, beside their BERT names.
pub(crate) const LAYER_NAMES: LayerNames = LayerNames {
    query: "attention.attn.q",
    key: "attention.attn.k",
    value: "attention.attn.v",
    attn_out: "attention.attn.o",
    attn_norm: "attention.LayerNorm",
    up: "intermediate.dense",
    down: "output.dense",
    out_norm: "output.LayerNorm",
};

/// The distance past which every pair falls in a direction's last bucket (fixed in MPNet).
const MAX_DISTANCE: usize = 128;

/// The position of each token of `ids`: `pad + 1` for the first non-padding token, counting up;
/// `pad` for a padding token (it does not advance the count).
pub(crate) fn positions(ids: &[u32], pad: u32) -> impl Iterator<Item = usize> + '_ {
    let mut seen = 0usize;
    ids.iter().map(move |&id| {
        if id == pad {
            pad as usize
        } else {
            seen += 1;
            pad as usize + seen
        }
    })
}

/// The bucket of a key `relative` positions after its query (negative: before), as the Hugging
/// Face MPNet computes it: the logarithm in `f32`, truncated.
pub(crate) fn bucket(relative: i64, buckets: usize) -> usize {
    let half = buckets / 2;
    let n = -relative;
    let mut ret = if n < 0 { half } else { 0 };
    let n = n.unsigned_abs() as usize;
    let exact = half / 2;
    if n < exact {
        return ret + n;
    }
    let log = (n as f32 / exact as f32).ln() / ((MAX_DISTANCE as f64 / exact as f64).ln() as f32)
        * (half - exact) as f32;
    ret += (exact + log as usize).min(half - 1);
    ret
}

/// The attention bias of every head by distance, for sequences of at most `max_len` tokens.
#[derive(Debug)]
pub(crate) struct RelativeBias {
    max_len: usize,
    /// Head `h`, distance `d = key - query`: `by_distance[h * (2 * max_len - 1) + d + max_len - 1]`.
    by_distance: Vec<f32>,
}

impl RelativeBias {
    /// Reads the table of `buckets` rows of `heads` values from `t`.
    pub(crate) fn load(
        t: &mut Tensors,
        buckets: usize,
        heads: usize,
        max_len: usize,
    ) -> Result<Self> {
        let table = t.take("encoder.relative_attention_bias.weight", &[buckets, heads])?;
        let width = 2 * max_len - 1;
        let mut by_distance = vec![0f32; heads * width];
        for (i, d) in (-(max_len as i64 - 1)..max_len as i64).enumerate() {
            let b = bucket(d, buckets);
            for h in 0..heads {
                by_distance[h * width + i] = table[b * heads + h];
            }
        }
        Ok(RelativeBias {
            max_len,
            by_distance,
        })
    }

    /// The bias of head `head` for query `query` against keys `0..n` (`n <= max_len`).
    #[inline]
    pub(crate) fn row(&self, head: usize, query: usize, n: usize) -> &[f32] {
        let width = 2 * self.max_len - 1;
        let start = head * width + self.max_len - 1 - query;
        &self.by_distance[start..start + n]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// T5's buckets by integer arithmetic alone: exact below 8; then `8 + k` for the largest `k`
    /// with `8 · 2^(k/2) <= n`, i.e. `n² >= 64 · 2^k`, at most 15; keys after the query in the
    /// upper half.
    fn integer_bucket(relative: i64) -> usize {
        let n = relative.unsigned_abs() as usize;
        let base = if relative > 0 { 16 } else { 0 };
        if n < 8 {
            return base + n;
        }
        let k = (0..8).rev().find(|&k| n * n >= 64 << k).unwrap_or(0);
        base + 8 + k
    }

    #[test]
    fn buckets_match_the_integer_rule_at_every_distance() {
        for d in -600i64..=600 {
            assert_eq!(bucket(d, 32), integer_bucket(d), "distance {d}");
        }
        // Boundaries where the logarithm is an exact integer.
        for (d, b) in [
            (-16, 10),
            (-32, 12),
            (-64, 14),
            (-128, 15),
            (16, 26),
            (-15, 9),
        ] {
            assert_eq!(bucket(d, 32), b, "distance {d}");
        }
    }

    #[test]
    fn positions_start_after_padding_and_skip_it() {
        let got: Vec<usize> = positions(&[0, 7, 1, 8, 2], 1).collect();
        assert_eq!(got, vec![2, 3, 1, 4, 5]);
    }
}
