//! The BERT encoder's forward pass on the CPU, over a packed batch: the tokens of every sequence
//! of a batch are rows of one matrix, so the dense layers (nearly all the work) are a few large
//! matrix products with no padding, and only attention looks at each sequence apart. MPNet runs
//! the same pass with its own positions and attention bias (`mpnet.rs`).

use super::gemm::Packed;
use super::mpnet::{self, RelativeBias};
use super::weights::{LayerNames, Tensors};
use crate::error::{Error, Result};
use ndarray::{Array2, Axis, linalg::general_mat_mul, s};

/// The shape of a BERT or MPNet model, from its `config.json`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct BertConfig {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub intermediate: usize,
    pub vocab: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
    pub eps: f32,
    /// What MPNet adds (`model_type` `mpnet`); `None` for BERT.
    pub mpnet: Option<MpnetShape>,
}

/// An MPNet model's padding token (positions start after it) and its number of relative
/// position buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MpnetShape {
    pub pad: u32,
    pub buckets: usize,
}

impl BertConfig {
    /// The longest sequence the position table holds.
    pub(crate) fn max_tokens(&self) -> usize {
        match self.mpnet {
            Some(m) => self.max_positions.saturating_sub(m.pad as usize + 1),
            None => self.max_positions,
        }
    }

    /// The name of the model family (`bert` or `mpnet`).
    pub(crate) fn family(&self) -> &'static str {
        if self.mpnet.is_some() {
            "mpnet"
        } else {
            "bert"
        }
    }
}

const BERT_LAYER_NAMES: LayerNames = LayerNames {
    query: "attention.self.query",
    key: "attention.self.key",
    value: "attention.self.value",
    attn_out: "attention.output.dense",
    attn_norm: "attention.output.LayerNorm",
    up: "intermediate.dense",
    down: "output.dense",
    out_norm: "output.LayerNorm",
};

impl BertConfig {
    /// Reads the fields a BERT or MPNet forward pass needs; anything else (another model type)
    /// is an error that says what is unsupported.
    pub(crate) fn from_json(text: &str, path: &str) -> Result<Self> {
        let v: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| Error::invalid(format!("{path}: not JSON ({e})")))?;
        let num = |key: &str| -> Result<usize> {
            v.get(key)
                .and_then(|x| x.as_u64())
                .filter(|&n| n > 0 && n <= 1 << 20)
                .map(|n| n as usize)
                .ok_or_else(|| {
                    Error::invalid(format!("{path}: {key} missing or not a positive integer"))
                })
        };
        let model_type = v.get("model_type").and_then(|x| x.as_str()).unwrap_or("");
        if !matches!(model_type, "bert" | "" | "mpnet") {
            return Err(Error::invalid(format!(
                "{path}: model_type {model_type:?} is not supported (expected bert or mpnet)"
            )));
        }
        let mpnet = if model_type == "mpnet" {
            let small = |key: &str, default: u64, limit: u64| -> Result<u64> {
                match v.get(key) {
                    None => Ok(default),
                    Some(x) => x.as_u64().filter(|&n| n <= limit).ok_or_else(|| {
                        Error::invalid(format!("{path}: {key} is not an integer from 0 to {limit}"))
                    }),
                }
            };
            let buckets = small("relative_attention_num_buckets", 32, 1024)? as usize;
            if buckets < 4 {
                return Err(Error::invalid(format!(
                    "{path}: relative_attention_num_buckets {buckets} is below 4"
                )));
            }
            Some(MpnetShape {
                pad: small("pad_token_id", 1, 1 << 20)? as u32,
                buckets,
            })
        } else {
            None
        };
        let act = v
            .get("hidden_act")
            .and_then(|x| x.as_str())
            .unwrap_or("gelu");
        if act != "gelu" {
            return Err(Error::invalid(format!(
                "{path}: hidden_act {act:?} is not supported (expected gelu)"
            )));
        }
        let position = v
            .get("position_embedding_type")
            .and_then(|x| x.as_str())
            .unwrap_or("absolute");
        if position != "absolute" {
            return Err(Error::invalid(format!(
                "{path}: position_embedding_type {position:?} is not supported (expected absolute)"
            )));
        }
        let c = BertConfig {
            hidden: num("hidden_size")?,
            layers: num("num_hidden_layers")?,
            heads: num("num_attention_heads")?,
            intermediate: num("intermediate_size")?,
            vocab: num("vocab_size")?,
            max_positions: num("max_position_embeddings")?,
            type_vocab: if mpnet.is_some() {
                0
            } else {
                num("type_vocab_size").unwrap_or(2)
            },
            eps: v
                .get("layer_norm_eps")
                .and_then(|x| x.as_f64())
                .unwrap_or(1e-12) as f32,
            mpnet,
        };
        if c.max_tokens() < 2 {
            return Err(Error::invalid(format!(
                "{path}: max_position_embeddings {} leaves no room for a sequence",
                c.max_positions
            )));
        }
        if c.hidden % c.heads != 0 {
            return Err(Error::invalid(format!(
                "{path}: hidden_size {} is not a multiple of num_attention_heads {}",
                c.hidden, c.heads
            )));
        }
        Ok(c)
    }
}

/// One transformer layer's weights; matrices are packed input-major (`[in, out]`), so a dense
/// layer is `x · W`.
#[derive(Debug)]
struct Layer {
    /// Query, key and value side by side: `[hidden, 3 * hidden]`.
    qkv: Packed,
    qkv_bias: Vec<f32>,
    attn_out: Packed,
    attn_out_bias: Vec<f32>,
    attn_norm: (Vec<f32>, Vec<f32>),
    up: Packed,
    up_bias: Vec<f32>,
    down: Packed,
    down_bias: Vec<f32>,
    out_norm: (Vec<f32>, Vec<f32>),
}

/// A BERT (or MPNet) model's weights.
#[derive(Debug)]
pub(crate) struct Bert {
    pub config: BertConfig,
    words: Array2<f32>,
    positions: Array2<f32>,
    /// BERT's first token type (every token is of type 0); MPNet has none.
    token_type: Option<Vec<f32>>,
    embed_norm: (Vec<f32>, Vec<f32>),
    layers: Vec<Layer>,
    /// MPNet's attention bias by distance.
    relative: Option<RelativeBias>,
}

/// `[out, in]` as stored by PyTorch to `[in, out]`, packed.
fn transposed(w: Vec<f32>, out: usize, inp: usize) -> Packed {
    let a = Array2::from_shape_vec((out, inp), w).expect("shape checked on load");
    Packed::new(&a.t().as_standard_layout().into_owned())
}

impl Bert {
    /// Takes the weights for `config` out of `t`.
    pub(crate) fn load(config: BertConfig, t: &mut Tensors) -> Result<Self> {
        let h = config.hidden;
        let norm = |t: &mut Tensors, p: &str| -> Result<(Vec<f32>, Vec<f32>)> {
            Ok((
                t.take(&format!("{p}.weight"), &[h])?,
                t.take(&format!("{p}.bias"), &[h])?,
            ))
        };
        let words = Array2::from_shape_vec(
            (config.vocab, h),
            t.take("embeddings.word_embeddings.weight", &[config.vocab, h])?,
        )
        .expect("shape checked");
        let positions = Array2::from_shape_vec(
            (config.max_positions, h),
            t.take(
                "embeddings.position_embeddings.weight",
                &[config.max_positions, h],
            )?,
        )
        .expect("shape checked");
        let token_type = match config.mpnet {
            Some(_) => None,
            None => Some(
                t.take(
                    "embeddings.token_type_embeddings.weight",
                    &[config.type_vocab, h],
                )?[..h]
                    .to_vec(),
            ),
        };
        let names = match config.mpnet {
            Some(_) => mpnet::LAYER_NAMES,
            None => BERT_LAYER_NAMES,
        };
        let embed_norm = norm(t, "embeddings.LayerNorm")?;
        let mut layers = Vec::with_capacity(config.layers);
        for l in 0..config.layers {
            let p = format!("encoder.layer.{l}");
            let dense = |t: &mut Tensors, name: &str, out: usize, inp: usize| -> Result<_> {
                Ok((
                    t.take(&format!("{p}.{name}.weight"), &[out, inp])?,
                    t.take(&format!("{p}.{name}.bias"), &[out])?,
                ))
            };
            let (q, qb) = dense(t, names.query, h, h)?;
            let (k, kb) = dense(t, names.key, h, h)?;
            let (v, vb) = dense(t, names.value, h, h)?;
            let mut qkv = Vec::with_capacity(3 * h * h);
            qkv.extend(q);
            qkv.extend(k);
            qkv.extend(v);
            let (o, ob) = dense(t, names.attn_out, h, h)?;
            let (u, ub) = dense(t, names.up, config.intermediate, h)?;
            let (d, db) = dense(t, names.down, h, config.intermediate)?;
            layers.push(Layer {
                qkv: transposed(qkv, 3 * h, h),
                qkv_bias: [qb, kb, vb].concat(),
                attn_out: transposed(o, h, h),
                attn_out_bias: ob,
                attn_norm: norm(t, &format!("{p}.{}", names.attn_norm))?,
                up: transposed(u, config.intermediate, h),
                up_bias: ub,
                down: transposed(d, h, config.intermediate),
                down_bias: db,
                out_norm: norm(t, &format!("{p}.{}", names.out_norm))?,
            });
        }
        let relative = match config.mpnet {
            Some(m) => Some(RelativeBias::load(
                t,
                m.buckets,
                config.heads,
                config.max_tokens(),
            )?),
            None => None,
        };
        Ok(Bert {
            config,
            words,
            positions,
            token_type,
            embed_norm,
            layers,
            relative,
        })
    }

    /// The last hidden states of a packed batch: `seqs` are the token ids of each sequence
    /// (each within [`BertConfig::max_tokens`], ids within the vocabulary); the answer has one row
    /// per token, sequences one after the other.
    pub(crate) fn forward(&self, seqs: &[Vec<u32>]) -> Array2<f32> {
        let c = &self.config;
        let h = c.hidden;
        let total: usize = seqs.iter().map(Vec::len).sum();
        let mut x = Array2::<f32>::zeros((total, h));
        let mut row = 0;
        for seq in seqs {
            let mut add = |pos: usize, id: u32| {
                let mut r = x.row_mut(row);
                let w = self.words.row(id as usize);
                let p = self.positions.row(pos);
                match &self.token_type {
                    Some(t) => (0..h).for_each(|j| r[j] = w[j] + p[j] + t[j]),
                    None => (0..h).for_each(|j| r[j] = w[j] + p[j]),
                }
                row += 1;
            };
            match c.mpnet {
                Some(m) => mpnet::positions(seq, m.pad)
                    .zip(seq)
                    .for_each(|(pos, &id)| add(pos, id)),
                None => seq.iter().enumerate().for_each(|(pos, &id)| add(pos, id)),
            }
        }
        layer_norm(&mut x, &self.embed_norm, c.eps);
        let mut qkv = Array2::<f32>::zeros((total, 3 * h));
        let mut ctx = Array2::<f32>::zeros((total, h));
        let mut attn = Array2::<f32>::zeros((total, h));
        let mut up = Array2::<f32>::zeros((total, c.intermediate));
        let mut down = Array2::<f32>::zeros((total, h));
        for layer in &self.layers {
            dense(&x, &layer.qkv, &layer.qkv_bias, &mut qkv);
            self.attention(seqs, &qkv, &mut ctx);
            dense(&ctx, &layer.attn_out, &layer.attn_out_bias, &mut attn);
            attn += &x;
            layer_norm(&mut attn, &layer.attn_norm, c.eps);
            dense(&attn, &layer.up, &layer.up_bias, &mut up);
            gelu_all(up.as_slice_mut().expect("activations are standard layout"));
            dense(&up, &layer.down, &layer.down_bias, &mut down);
            down += &attn;
            layer_norm(&mut down, &layer.out_norm, c.eps);
            std::mem::swap(&mut x, &mut down);
        }
        x
    }

    /// Self-attention of each sequence apart, every head: `softmax(q kᵀ / √d + bias) v` into
    /// `ctx` (the bias: MPNet's by distance; BERT has none).
    fn attention(&self, seqs: &[Vec<u32>], qkv: &Array2<f32>, ctx: &mut Array2<f32>) {
        let h = self.config.hidden;
        let d = h / self.config.heads;
        let scale = 1.0 / (d as f32).sqrt();
        let mut start = 0;
        let mut scores = Array2::<f32>::zeros((0, 0));
        for seq in seqs {
            let n = seq.len();
            if scores.dim() != (n, n) {
                scores = Array2::zeros((n, n));
            }
            let rows = qkv.slice(s![start..start + n, ..]);
            for head in 0..self.config.heads {
                let q = rows.slice(s![.., head * d..(head + 1) * d]);
                let k = rows.slice(s![.., h + head * d..h + (head + 1) * d]);
                let v = rows.slice(s![.., 2 * h + head * d..2 * h + (head + 1) * d]);
                general_mat_mul(scale, &q, &k.t(), 0.0, &mut scores);
                for (i, mut r) in scores.axis_iter_mut(Axis(0)).enumerate() {
                    if let Some(rel) = &self.relative {
                        r.iter_mut()
                            .zip(rel.row(head, i, n))
                            .for_each(|(s, b)| *s += b);
                    }
                    let max = r.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                    let mut sum = 0.0;
                    r.mapv_inplace(|s| {
                        let e = (s - max).exp();
                        sum += e;
                        e
                    });
                    r.mapv_inplace(|e| e / sum);
                }
                let mut out = ctx.slice_mut(s![start..start + n, head * d..(head + 1) * d]);
                general_mat_mul(1.0, &scores, &v, 0.0, &mut out);
            }
            start += n;
        }
    }
}

/// `out = x · w + bias` (each row).
fn dense(x: &Array2<f32>, w: &Packed, bias: &[f32], out: &mut Array2<f32>) {
    debug_assert_eq!(x.ncols(), w.k());
    let x = x.as_slice().expect("activations are standard layout");
    let out = out.as_slice_mut().expect("activations are standard layout");
    w.apply(x, bias, out);
}

/// Normalizes each row to zero mean and unit variance, then scales and shifts.
fn layer_norm(x: &mut Array2<f32>, (gamma, beta): &(Vec<f32>, Vec<f32>), eps: f32) {
    let n = x.ncols() as f32;
    for mut r in x.axis_iter_mut(Axis(0)) {
        let mean = r.sum() / n;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / n;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, g), b) in r.iter_mut().zip(gamma).zip(beta) {
            *v = (*v - mean) * inv * g + b;
        }
    }
}

/// GELU over a whole activation matrix, compiled for the CPU's vectors (`pulp`): the erf and its
/// exponential run in the vector lanes, where a library `exp` per number took a quarter of a
/// query's forward pass.
fn gelu_all(xs: &mut [f32]) {
    struct Gelu<'a>(&'a mut [f32]);
    impl pulp::WithSimd for Gelu<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: pulp::Simd>(self, _simd: S) {
            for x in self.0.iter_mut() {
                *x = 0.5 * *x * (1.0 + erf_fast(*x * std::f32::consts::FRAC_1_SQRT_2));
            }
        }
    }
    pulp::Arch::new().dispatch(Gelu(xs));
}

/// The error function to within 5e-7 (Abramowitz and Stegun 7.1.26, max error 1.5e-7, plus
/// f32 rounding: 4.2e-7 at most over −12..12 in steps of 0.001), branch-free so that it vectorizes.
#[inline(always)]
fn erf_fast(x: f32) -> f32 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * z);
    let poly = t
        * (0.254_829_6
            + t * (-0.284_496_72 + t * (1.421_413_8 + t * (-1.453_152_1 + t * 1.061_405_4))));
    (1.0 - poly * exp_fast(-z * z)).copysign(x)
}

/// `e^x` to within about 2e-7 relative, branch-free: `x = n ln 2 + r`, a degree-6 polynomial of
/// `r` (|r| ≤ ln 2 / 2), and `2^n` written into the exponent bits.
#[inline(always)]
fn exp_fast(x: f32) -> f32 {
    const ROUND: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer, in any lane
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.clamp(-87.0, 88.0);
    let n = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    p * f32::from_bits(((n as i32 + 127) as u32) << 23)
}

/// The exact GELU, `x Φ(x)`, as BERT's `gelu` activation computes it (the reference the fast one
/// is tested against).
#[cfg(test)]
fn gelu(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// The error function, to within 1.2e-7 (Numerical Recipes' `erfc` by Chebyshev fitting, in
/// f64).
#[cfg(test)]
fn erf(x: f32) -> f32 {
    let z = (x as f64).abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98
                                + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let erfc = t * poly.exp();
    let r = 1.0 - erfc;
    (if x >= 0.0 { r } else { -r }) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0f32, 0.0f64),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (-1.0, -0.842_700_792_9),
            (2.0, 0.995_322_265_0),
            (3.5, 0.999_999_256_9),
        ] {
            assert!((erf(x) as f64 - want).abs() < 2e-7, "erf({x})");
        }
    }

    #[test]
    fn the_vectorized_gelu_matches_the_exact_one() {
        let xs: Vec<f32> = (-12_000..=12_000).map(|i| i as f32 / 1000.0).collect();
        let mut fast = xs.clone();
        gelu_all(&mut fast);
        for (&x, &f) in xs.iter().zip(&fast) {
            assert!(
                (f - gelu(x)).abs() <= 4e-7 * x.abs().max(1.0),
                "gelu({x}): {f} vs {}",
                gelu(x)
            );
            assert!((erf_fast(x) - erf(x)).abs() < 5e-7, "erf({x})");
        }
        for x in [-200.0f32, -88.5, 0.0, 88.5, 200.0] {
            assert!((erf_fast(x) - erf(x)).abs() < 5e-7, "erf({x})");
        }
        for x in [-87.0f32, -20.0, -1.0, -1e-3, 0.0, 0.5, 1.0] {
            let rel = (exp_fast(x) as f64 - (x as f64).exp()).abs() / (x as f64).exp();
            assert!(rel < 3e-7, "exp({x}): {rel}");
        }
    }

    #[test]
    fn layer_norm_centers_and_scales() {
        let mut x = Array2::from_shape_vec((1, 4), vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        layer_norm(&mut x, &(vec![1.0; 4], vec![0.5; 4]), 1e-12);
        let r = x.row(0);
        assert!((r.sum() / 4.0 - 0.5).abs() < 1e-6);
        assert!((r[3] - r[0] - 2.0 * 1.5 / 1.25f32.sqrt()).abs() < 1e-5);
    }

    #[test]
    fn config_refuses_unsupported_models() {
        let ok = r#"{"model_type":"bert","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"intermediate_size":16,"vocab_size":10,"max_position_embeddings":16}"#;
        assert_eq!(BertConfig::from_json(ok, "c").unwrap().hidden, 8);
        for bad in [
            "{",
            r#"{"model_type":"gpt2"}"#,
            &ok.replace("\"hidden_size\":8", "\"hidden_size\":7"),
            &ok.replace("\"bert\"", "\"bert\",\"hidden_act\":\"relu\""),
            &ok.replace(",\"vocab_size\":10", ""),
        ] {
            assert!(BertConfig::from_json(bad, "c").is_err(), "{bad}");
        }
    }
}
