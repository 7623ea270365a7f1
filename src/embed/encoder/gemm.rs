//! The dense layers' products, `x · W + b`, with each weight matrix packed once at load.
//!
//! A general SGEMM packs the weight matrix into cache-sized panels on every call. For a batch of
//! thousands of tokens that copy is nothing beside the arithmetic, but a query is a dozen or two
//! tokens, and there the packing cost as much as the products themselves (a profile of one
//! query: about 23% of the time packing, 22% multiplying). So the weights are stored already
//! packed: panels of [`WIDTH`] output columns, each panel's rows contiguous. A block of a few
//! input rows against one panel keeps its `rows × WIDTH` sums in vector registers for the whole
//! inner dimension, reading the panel once from cache and nothing else.
//!
//! The loops are plain safe Rust; `pulp` runs them compiled for the best instruction set the CPU
//! has (AVX-512, AVX2 with FMA, or the x86-64 baseline), chosen at run time, so one binary runs
//! everywhere and the core keeps no `unsafe`.

use ndarray::Array2;

/// Output columns per panel: two AVX2 vectors of `f32`.
pub(crate) const WIDTH: usize = 16;
/// Input rows per tile: a tile's rows stay in cache while every panel passes over them.
const TILE: usize = 64;

/// A `[k, n]` weight matrix packed into panels of [`WIDTH`] columns.
#[derive(Debug)]
pub(crate) struct Packed {
    k: usize,
    n: usize,
    /// Panel `p`, row `i`, column `c`: `panels[(p * k + i) * WIDTH + c]` = `W[i, p * WIDTH + c]`
    /// (0 past the last column).
    panels: Vec<f32>,
}

impl Packed {
    /// Packs `w` (`[k, n]`, input-major).
    pub(crate) fn new(w: &Array2<f32>) -> Self {
        let (k, n) = w.dim();
        let count = n.div_ceil(WIDTH);
        let mut panels = vec![0f32; count * k * WIDTH];
        for p in 0..count {
            for i in 0..k {
                for c in 0..WIDTH.min(n - p * WIDTH) {
                    panels[(p * k + i) * WIDTH + c] = w[(i, p * WIDTH + c)];
                }
            }
        }
        Packed { k, n, panels }
    }

    /// The inner dimension.
    pub(crate) fn k(&self) -> usize {
        self.k
    }

    /// `out = x · W + bias`, for `x` of `m` rows of `k` (row-major) and `out` of `m` rows of `n`.
    pub(crate) fn apply(&self, x: &[f32], bias: &[f32], out: &mut [f32]) {
        let m = x.len() / self.k.max(1);
        assert_eq!(x.len(), m * self.k, "x is m rows of k");
        assert_eq!(out.len(), m * self.n, "out is m rows of n");
        assert_eq!(bias.len(), self.n, "one bias per output column");
        pulp::Arch::new().dispatch(Apply {
            w: self,
            x,
            m,
            bias,
            out,
        });
    }

    /// The product by blocks of `ROWS` rows, each block against each panel through `kernel`.
    #[inline(always)]
    fn run<const ROWS: usize>(
        &self,
        x: &[f32],
        m: usize,
        bias: &[f32],
        out: &mut [f32],
        kernel: impl Fn(&[[f32; ROWS]], &[f32], &[f32; WIDTH]) -> [[f32; WIDTH]; ROWS],
    ) {
        let (k, n) = (self.k, self.n);
        // A tile's rows interleaved by blocks of ROWS: block b, inner index i holds the ROWS
        // values x[b * ROWS + r, i] side by side (rows past m are 0), so the inner loop reads
        // them as one array with no bounds checks.
        let mut blocks: Vec<[f32; ROWS]> = Vec::new();
        for tile in (0..m).step_by(TILE) {
            let rows = TILE.min(m - tile);
            let nblocks = rows.div_ceil(ROWS);
            blocks.clear();
            blocks.resize(nblocks * k, [0.0; ROWS]);
            for r in 0..rows {
                let row = &x[(tile + r) * k..(tile + r + 1) * k];
                let block = &mut blocks[(r / ROWS) * k..(r / ROWS + 1) * k];
                for (b, &v) in block.iter_mut().zip(row) {
                    b[r % ROWS] = v;
                }
            }
            for (p, panel) in self.panels.chunks_exact(k * WIDTH).enumerate() {
                let c0 = p * WIDTH;
                let width = WIDTH.min(n - c0);
                let mut b = [0f32; WIDTH];
                b[..width].copy_from_slice(&bias[c0..c0 + width]);
                for (bi, block) in blocks.chunks_exact(k).enumerate() {
                    let acc = kernel(block, panel, &b);
                    for (r, sums) in acc.iter().enumerate() {
                        let row = tile + bi * ROWS + r;
                        if row < tile + rows {
                            out[row * n + c0..row * n + c0 + width].copy_from_slice(&sums[..width]);
                        }
                    }
                }
            }
        }
    }
}

/// One product, as `pulp` runs it: its body is compiled once per instruction set, and the
/// `#[inline(always)]` chain below carries that set into the loops.
struct Apply<'a> {
    w: &'a Packed,
    x: &'a [f32],
    m: usize,
    bias: &'a [f32],
    out: &'a mut [f32],
}

impl pulp::WithSimd for Apply<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, simd: S) {
        let Apply { w, x, m, bias, out } = self;
        // Vectors per panel row, and rows per block so that the sums fill the registers (eight
        // or more independent sums hide the multiply-add's latency) without spilling: 8 rows of
        // one 512-bit vector, 4 rows of two 256-bit ones.
        match std::mem::size_of::<S::f32s>() / 4 {
            16 => w.run::<8>(x, m, bias, out, |b, p, c| {
                simd_block::<S, 8, 1>(simd, b, p, c)
            }),
            8 => w.run::<4>(x, m, bias, out, |b, p, c| {
                simd_block::<S, 4, 2>(simd, b, p, c)
            }),
            _ => w.run::<4>(x, m, bias, out, plain_block::<4>),
        }
    }
}

/// `ROWS` rows (interleaved) times one panel, starting from `bias`, in explicit vectors of
/// `WIDTH / V` lanes (a fused multiply-add where the instruction set has one).
#[inline(always)]
fn simd_block<S: pulp::Simd, const ROWS: usize, const V: usize>(
    simd: S,
    block: &[[f32; ROWS]],
    panel: &[f32],
    bias: &[f32; WIDTH],
) -> [[f32; WIDTH]; ROWS] {
    let (b, _) = S::as_simd_f32s(bias);
    let b: &[S::f32s; V] = b.try_into().expect("WIDTH is V vectors");
    let mut acc = [*b; ROWS];
    for (xs, w) in block.iter().zip(panel.chunks_exact(WIDTH)) {
        let (w, _) = S::as_simd_f32s(w);
        let w: &[S::f32s; V] = w.try_into().expect("WIDTH is V vectors");
        for r in 0..ROWS {
            let x = simd.splat_f32s(xs[r]);
            for v in 0..V {
                acc[r][v] = simd.mul_add_e_f32s(x, w[v], acc[r][v]);
            }
        }
    }
    let mut out = [[0f32; WIDTH]; ROWS];
    for (o, a) in out.iter_mut().zip(&acc) {
        let (o, _) = S::as_mut_simd_f32s(o);
        o.copy_from_slice(a);
    }
    out
}

/// The same in plain loops, for instruction sets without 256-bit vectors (the compiler
/// vectorizes what it can; a multiply and an add, as `mul_add` would be a library call).
#[inline(always)]
fn plain_block<const ROWS: usize>(
    block: &[[f32; ROWS]],
    panel: &[f32],
    bias: &[f32; WIDTH],
) -> [[f32; WIDTH]; ROWS] {
    let mut acc = [*bias; ROWS];
    for (xs, w) in block.iter().zip(panel.chunks_exact(WIDTH)) {
        let w: &[f32; WIDTH] = w.try_into().expect("a panel row is WIDTH wide");
        for r in 0..ROWS {
            let x = xs[r];
            for c in 0..WIDTH {
                acc[r][c] += x * w[c];
            }
        }
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain triple loop, in f64.
    fn naive(x: &[f32], w: &Array2<f32>, bias: &[f32]) -> Vec<f64> {
        let (k, n) = w.dim();
        let m = x.len() / k;
        let mut out = vec![0f64; m * n];
        for r in 0..m {
            for c in 0..n {
                out[r * n + c] = bias[c] as f64
                    + (0..k)
                        .map(|i| x[r * k + i] as f64 * w[(i, c)] as f64)
                        .sum::<f64>();
            }
        }
        out
    }

    #[test]
    fn matches_the_plain_product_for_every_shape_remainder() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 2001) as f32 / 1000.0 - 1.0
        };
        // Rows that fill no block, one block, blocks plus a remainder, and more than a tile;
        // columns short of a panel, exact panels, and panels plus a remainder.
        for (m, k, n) in [
            (1, 3, 5),
            (4, 16, 16),
            (7, 33, 40),
            (18, 384, 48),
            (70, 20, 17),
        ] {
            let x: Vec<f32> = (0..m * k).map(|_| next()).collect();
            let w = Array2::from_shape_fn((k, n), |_| next());
            let bias: Vec<f32> = (0..n).map(|_| next()).collect();
            let packed = Packed::new(&w);
            let want = naive(&x, &w, &bias);
            // What this CPU dispatches to, and each kernel shape whatever the CPU.
            let mut outs = vec![vec![f32::NAN; m * n]; 4];
            packed.apply(&x, &bias, &mut outs[0]);
            packed.run::<4>(&x, m, &bias, &mut outs[1], plain_block::<4>);
            let scalar = pulp::Scalar::new();
            packed.run::<8>(&x, m, &bias, &mut outs[2], |b, p, c| {
                simd_block::<_, 8, 16>(scalar, b, p, c)
            });
            packed.run::<1>(&x, m, &bias, &mut outs[3], plain_block::<1>);
            for (v, out) in outs.iter().enumerate() {
                for (i, (got, want)) in out.iter().zip(&want).enumerate() {
                    assert!(
                        (*got as f64 - want).abs() < 1e-4 * (k as f64).sqrt(),
                        "kernel {v}, {m}x{k}x{n} at {i}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
