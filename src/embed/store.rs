//! Each tool's vector, kept in step with the registry's slots: which text each slot wants
//! embedded, which vector it has, and the exact cosine search over them.
//!
//! The store lives in the registry state beside the lexical indexes and changes under the same
//! write lock, but the embedding itself happens elsewhere, with no lock held (see the
//! registry's embedding thread): a slot whose text changed is marked pending and keeps no stale vector until
//! its new one is installed. Vectors sit in one contiguous array, slot-major, so the search is a
//! run of dot products the compiler vectorizes.
//!
//! Each vector is kept as 8-bit integers with one scale (`x ≈ scale · q`, `q` in −127..=127, the
//! scale set by the largest component): a quarter of the memory of `f32`, and a quarter of the
//! bytes a search streams, which is what bounds a scan of thousands of tools. The query stays
//! `f32`. On the three public sets the rankings move by at most 0.0004 MRR@10 (EVALUATION.md);
//! the on-disk cache keeps the encoder's exact `f32` output.

use crate::index::DocId;

/// A slot's embedding state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VectorState {
    /// No live tool, or its text not asked for yet.
    #[default]
    None,
    /// Waiting for the embedder.
    Pending,
    /// Has the vector of the text it wants.
    Ready,
    /// The embedder failed on this text; retried when the text changes.
    Failed,
}

#[derive(Debug, Clone, Copy, Default)]
struct SlotVector {
    /// Hash of the text this slot wants embedded ([`super::text_hash`]).
    want: u128,
    state: VectorState,
}

/// Vectors by slot, with their pending work.
#[derive(Debug)]
pub struct VectorStore {
    dim: usize,
    slots: Vec<SlotVector>,
    /// `slots.len() * dim` quantized components; a slot's row is meaningful only when `Ready`.
    data: Vec<i8>,
    /// Each slot's scale: component `i` of slot `s` is `scales[s] * data[s * dim + i]`.
    scales: Vec<f32>,
    /// Slots to embed, oldest first; an entry is stale (skipped) when its slot no longer waits.
    pending: std::collections::VecDeque<DocId>,
}

impl VectorStore {
    /// An empty store of `dim`-dimensional vectors.
    pub fn new(dim: usize) -> Self {
        VectorStore {
            dim,
            slots: Vec::new(),
            data: Vec::new(),
            scales: Vec::new(),
            pending: Default::default(),
        }
    }

    /// The dimension of every vector.
    pub fn dim(&self) -> usize {
        self.dim
    }

    fn grow(&mut self, id: DocId) {
        let need = id as usize + 1;
        if self.slots.len() < need {
            let room = crate::index::with_room(need);
            self.slots.reserve(room.saturating_sub(self.slots.len()));
            self.data
                .reserve(room * self.dim - self.data.len().min(room * self.dim));
            self.scales.reserve(room.saturating_sub(self.scales.len()));
            self.slots.resize(need, SlotVector::default());
            self.scales.resize(need, 0.0);
            self.data.resize(need * self.dim, 0);
        }
    }

    /// Slot `id` now holds a tool whose text hashes to `hash`: nothing to do when its vector is
    /// of that text already, else it waits for one. Returns whether it became pending.
    pub fn want(&mut self, id: DocId, hash: u128) -> bool {
        self.grow(id);
        let s = &mut self.slots[id as usize];
        if s.want == hash && s.state != VectorState::None {
            return false;
        }
        *s = SlotVector {
            want: hash,
            state: VectorState::Pending,
        };
        self.pending.push_back(id);
        true
    }

    /// Slot `id` no longer holds a tool.
    pub fn clear(&mut self, id: DocId) {
        if let Some(s) = self.slots.get_mut(id as usize) {
            *s = SlotVector::default();
        }
    }

    /// Takes up to `n` pending slots with the text hash each wants (stale entries dropped).
    pub fn take_pending(&mut self, n: usize) -> Vec<(DocId, u128)> {
        let mut out = Vec::new();
        while out.len() < n {
            let Some(id) = self.pending.pop_front() else {
                break;
            };
            if let Some(s) = self.slots.get(id as usize) {
                if s.state == VectorState::Pending && !out.iter().any(|&(d, _)| d == id) {
                    out.push((id, s.want));
                }
            }
        }
        out
    }

    /// Installs the vector of text `hash` in slot `id`, if the slot still wants that text.
    pub fn install(&mut self, id: DocId, hash: u128, vector: &[f32]) -> bool {
        debug_assert_eq!(vector.len(), self.dim);
        match self.slots.get_mut(id as usize) {
            Some(s) if s.want == hash && s.state == VectorState::Pending => {
                s.state = VectorState::Ready;
                let at = id as usize * self.dim;
                self.scales[id as usize] = quantize(vector, &mut self.data[at..at + self.dim]);
                true
            }
            _ => false,
        }
    }

    /// Marks slot `id` failed for text `hash`, if it still wants it (why is in the embedding
    /// thread's warnings).
    pub fn fail(&mut self, id: DocId, hash: u128) {
        if let Some(s) = self.slots.get_mut(id as usize) {
            if s.want == hash && s.state == VectorState::Pending {
                s.state = VectorState::Failed;
            }
        }
    }

    /// Slot `id`'s state.
    pub fn state(&self, id: DocId) -> VectorState {
        self.slots
            .get(id as usize)
            .map_or(VectorState::None, |s| s.state)
    }

    /// Slot `id`'s vector (as stored: within one quantization step of what was installed), when
    /// ready.
    pub fn vector(&self, id: DocId) -> Option<Vec<f32>> {
        (self.state(id) == VectorState::Ready).then(|| {
            let scale = self.scales[id as usize];
            self.row(id).iter().map(|&q| scale * q as f32).collect()
        })
    }

    #[inline(always)]
    fn row(&self, id: DocId) -> &[i8] {
        let at = id as usize * self.dim;
        &self.data[at..at + self.dim]
    }

    /// The cosine of `query` (a unit vector) with slot `id`, when its vector is ready.
    pub fn cosine(&self, query: &[f32], id: DocId) -> Option<f32> {
        (self.state(id) == VectorState::Ready)
            .then(|| self.scales[id as usize] * dot_i8(query, self.row(id)))
    }

    /// Renumbers slots through `map` (old slot to new slot, order kept), as the registry does
    /// when it compacts.
    pub fn renumber(&mut self, map: &[Option<DocId>]) {
        let dim = self.dim;
        let live = map.iter().flatten().count();
        let mut slots = Vec::with_capacity(live);
        let mut scales = Vec::with_capacity(live);
        let mut data = Vec::with_capacity(live * dim);
        for (old, new) in map.iter().enumerate() {
            if let Some(new) = new {
                debug_assert_eq!(*new as usize, slots.len());
                let s = self.slots.get(old).copied().unwrap_or_default();
                slots.push(s);
                if s.state == VectorState::Ready {
                    data.extend_from_slice(&self.data[old * dim..(old + 1) * dim]);
                    scales.push(self.scales[old]);
                } else {
                    data.resize(data.len() + dim, 0);
                    scales.push(0.0);
                }
            }
        }
        self.pending = self
            .pending
            .iter()
            .filter_map(|&id| map.get(id as usize).copied().flatten())
            .collect();
        self.slots = slots;
        self.scales = scales;
        self.data = data;
    }

    /// Counts of the slots `counted` lets through, by state: (ready, pending, failed).
    pub fn counts(&self, counted: impl Fn(DocId) -> bool) -> (usize, usize, usize) {
        let mut c = (0, 0, 0);
        for (id, s) in self.slots.iter().enumerate() {
            if !counted(id as DocId) {
                continue;
            }
            match s.state {
                VectorState::Ready => c.0 += 1,
                VectorState::Pending => c.1 += 1,
                VectorState::Failed => c.2 += 1,
                VectorState::None => {}
            }
        }
        c
    }

    /// The `k` ready slots most similar to `query` (a unit vector) among those `admit` lets
    /// through, best first, as (slot, cosine); ties by slot.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        admit: impl Fn(DocId) -> bool,
    ) -> Vec<(DocId, f32)> {
        let mut all: Vec<(DocId, f32)> = (0..self.slots.len() as DocId)
            .filter(|&id| self.slots[id as usize].state == VectorState::Ready && admit(id))
            .map(|id| (id, 0.0))
            .collect();
        pulp::Arch::new().dispatch(Scan {
            store: self,
            query,
            hits: &mut all,
        });
        let better = |a: &(DocId, f32), b: &(DocId, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        if all.len() > k && k > 0 {
            all.select_nth_unstable_by(k - 1, better);
            all.truncate(k);
        }
        all.truncate(k);
        all.sort_by(better);
        all
    }
}

/// Writes `v` as 8-bit integers into `out` and returns their scale (0 for a zero vector).
fn quantize(v: &[f32], out: &mut [i8]) -> f32 {
    let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
    if !(max > 0.0 && max.is_finite()) {
        out.fill(0);
        return 0.0;
    }
    let scale = max / 127.0;
    for (o, x) in out.iter_mut().zip(v) {
        *o = (x / scale).round().clamp(-127.0, 127.0) as i8;
    }
    scale
}

/// The cosines of a search's candidates, as `pulp` runs it: compiled for the best instruction set
/// the CPU has (widening 8-bit integers to floats is many instructions on the x86-64 baseline,
/// one with AVX2 or AVX-512), chosen at run time.
struct Scan<'a> {
    store: &'a VectorStore,
    query: &'a [f32],
    hits: &'a mut [(DocId, f32)],
}

impl pulp::WithSimd for Scan<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: pulp::Simd>(self, _simd: S) {
        for (id, score) in self.hits.iter_mut() {
            *score = self.store.scales[*id as usize] * dot_i8(self.query, self.store.row(*id));
        }
    }
}

/// The dot product of an `f32` vector with an `i8` one, in sixteen independent lanes so the
/// compiler keeps them in vector registers.
#[inline(always)]
pub fn dot_i8(a: &[f32], b: &[i8]) -> f32 {
    const L: usize = 16;
    let mut acc = [0f32; L];
    let (ca, cb) = (a.chunks_exact(L), b.chunks_exact(L));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, &y)| x * y as f32)
        .sum();
    for (x, y) in ca.zip(cb) {
        for l in 0..L {
            acc[l] += x[l] * y[l] as f32;
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let mut v = v.to_vec();
        crate::embed::normalize(&mut v);
        v
    }

    #[test]
    fn follows_wants_installs_and_renumbering() {
        let mut s = VectorStore::new(2);
        assert!(s.want(0, 1));
        assert!(s.want(2, 3));
        assert!(!s.want(2, 3), "same text: no new work");
        assert_eq!(s.take_pending(10), vec![(0, 1), (2, 3)]);
        assert!(s.install(0, 1, &unit(&[1.0, 0.0])));
        assert!(!s.install(2, 99, &unit(&[0.0, 1.0])), "stale text");
        assert!(s.install(2, 3, &unit(&[0.0, 1.0])));
        assert_eq!(s.counts(|_| true), (2, 0, 0));
        // Text changes: the old vector is gone until the new one comes.
        assert!(s.want(2, 4));
        assert_eq!(s.vector(2), None);
        assert_eq!(s.counts(|_| true), (1, 1, 0));
        s.renumber(&[Some(0), None, Some(1)]);
        assert_eq!(s.take_pending(10), vec![(1, 4)]);
        assert!(s.install(1, 4, &unit(&[0.0, 1.0])));
        let near = |v: Option<Vec<f32>>, want: [f32; 2]| {
            v.is_some_and(|v| v.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-6))
        };
        assert!(near(s.vector(1), [0.0, 1.0]));
        assert!(near(s.vector(0), [1.0, 0.0]));
        s.clear(0);
        assert_eq!(s.vector(0), None);
    }

    #[test]
    fn search_ranks_by_cosine_and_filters_first() {
        let mut s = VectorStore::new(3);
        for (id, v) in [[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.0, 1.0]]
            .iter()
            .enumerate()
        {
            s.want(id as DocId, id as u128);
            s.take_pending(1);
            s.install(id as DocId, id as u128, v);
        }
        let q = unit(&[1.0, 1.0, 0.0]);
        let hits = s.search(&q, 2, |_| true);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), vec![1, 0]);
        let filtered = s.search(&q, 2, |id| id != 1);
        assert_eq!(filtered.iter().map(|h| h.0).collect::<Vec<_>>(), vec![0, 2]);
        let exact: f32 = q.iter().zip([0.6, 0.8, 0.0]).map(|(x, y)| x * y).sum();
        assert!((exact - hits[0].1).abs() < 0.01, "{exact} vs {}", hits[0].1);
        assert_eq!(s.cosine(&q, 1), Some(hits[0].1));
        assert_eq!(s.cosine(&q, 7), None);
    }

    #[test]
    fn quantized_vectors_keep_their_cosines() {
        // Pseudo-random unit vectors of a real model's dimension: every cosine within 0.01.
        let mut seed = 0x9e3779b97f4a7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % 2001) as f32 / 1000.0 - 1.0
        };
        let vs: Vec<Vec<f32>> = (0..20)
            .map(|_| unit(&(0..384).map(|_| next()).collect::<Vec<_>>()))
            .collect();
        let mut s = VectorStore::new(384);
        for (id, v) in vs.iter().enumerate() {
            s.want(id as DocId, 1);
            s.install(id as DocId, 1, v);
        }
        for (id, v) in vs.iter().enumerate() {
            let exact: f32 = vs[0].iter().zip(v).map(|(x, y)| x * y).sum();
            let got = s.cosine(&vs[0], id as DocId).unwrap();
            assert!((exact - got).abs() < 0.01, "{id}: {exact} vs {got}");
        }
        let mut zero = vec![7i8; 3];
        assert_eq!(quantize(&[0.0, 0.0, 0.0], &mut zero), 0.0);
        assert_eq!(zero, vec![0, 0, 0]);
    }

    #[test]
    fn dot_i8_matches_the_plain_sum() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.1).collect();
        let b: Vec<i8> = (0..37).map(|i| (i * 7 % 255 - 127) as i8).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, &y)| x * y as f32).sum();
        assert!((dot_i8(&a, &b) - plain).abs() < 1e-2);
    }
}
