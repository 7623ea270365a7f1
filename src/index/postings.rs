//! Posting lists stored as blocks of delta- and varint-coded postings.
//!
//! A posting is the gap to the previous document of its block (varint), then a header
//! `(field mask << 1) | all-ones` (varint, one byte up to 6 fields) and, unless every non-zero
//! frequency is 1, the non-zero frequencies (varint). The common posting, a word once in one field,
//! takes 2 bytes instead of 4 + F. Each block keeps its first and last document (for seeks) and,
//! per field, the largest frequency and the shortest length of its documents: from them a search
//! bounds the score of any document in the block for any weights, k1, b and delta, and skips the
//! block (block-max pruning). The bounds stay valid after a removal (a maximum can only fall, a
//! minimum only rise), so a removal rewrites only its own block: no change costs work over all of
//! a long list.

mod codec;

use super::DocId;
pub(super) use codec::Freqs;
use codec::{ENCODED_MAX, decode, decode_lazy, encode, encode_common, skip, skip_common_before};

/// Postings per block when appending.
pub(super) const BLOCK: usize = 128;

/// Bytes kept inline in a block before it takes a heap allocation: most terms occur in a tool
/// or two, and their whole list fits here.
const INLINE: usize = 14;

/// A block's encoded postings: inline while short, else one heap slice whose length is the
/// capacity (no separate capacity word). An empty heap slice (no allocation) means inline; it
/// is never null, which lets [`Store`] keep its tag in that pointer.
#[derive(Debug, Clone, Default)]
struct Bytes {
    len: u16,
    inline: [u8; INLINE],
    heap: Box<[u8]>,
}

impl Bytes {
    #[inline]
    fn as_slice(&self) -> &[u8] {
        if self.heap.is_empty() {
            &self.inline[..self.len as usize]
        } else {
            &self.heap[..self.len as usize]
        }
    }

    fn len(&self) -> usize {
        self.len as usize
    }

    fn capacity(&self) -> usize {
        if self.heap.is_empty() {
            INLINE
        } else {
            self.heap.len()
        }
    }

    fn extend(&mut self, data: &[u8]) {
        let len = self.len as usize;
        let need = len + data.len();
        assert!(
            need <= usize::from(u16::MAX),
            "a block's postings fit in 64 KiB"
        );
        if need > self.capacity() {
            // Grow by a quarter rather than doubling: postings are most of the index's memory.
            let cap = need.max(len + len / 4);
            // Rounded up to what the allocator hands out for that request anyway (glibc: 24
            // bytes, then steps of 16): fewer reallocations of short lists for no memory.
            let cap = (((cap + 23) & !15) - 8).min(usize::from(u16::MAX));
            self.heap = if self.heap.is_empty() {
                let mut heap = vec![0u8; cap].into_boxed_slice();
                heap[..len].copy_from_slice(&self.inline[..len]);
                heap
            } else {
                // Grown with `realloc`, often in place: a new block for every growth left the
                // old one as a hole in the heap (several MB of resident memory at 100,000 tools).
                let mut heap = std::mem::take(&mut self.heap).into_vec();
                heap.reserve_exact(cap - heap.len());
                heap.resize(cap, 0);
                heap.into_boxed_slice()
            };
        }
        if self.heap.is_empty() {
            self.inline[len..need].copy_from_slice(data);
        } else {
            self.heap[len..need].copy_from_slice(data);
        }
        self.len = need as u16;
    }

    /// [`extend`](Self::extend) by two bytes, copied without a call when they fit.
    #[inline]
    fn extend_two(&mut self, data: [u8; 2]) {
        let len = self.len as usize;
        let buf: &mut [u8] = if self.heap.is_empty() {
            &mut self.inline
        } else {
            &mut self.heap
        };
        if let Some(room) = buf.get_mut(len..len + 2) {
            room.copy_from_slice(&data);
            self.len += 2;
        } else {
            self.extend(&data);
        }
    }

    /// Replaces the contents, keeping the heap slice when it fits without much to spare.
    fn set(&mut self, data: &[u8]) {
        let n = data.len();
        assert!(
            n <= usize::from(u16::MAX),
            "a block's postings fit in 64 KiB"
        );
        if n <= INLINE {
            self.heap = Box::default();
            self.inline[..n].copy_from_slice(data);
        } else if self.heap.len() >= n && self.heap.len() <= n + n / 4 + 8 {
            self.heap[..n].copy_from_slice(data);
        } else {
            self.heap = data.into();
        }
        self.len = n as u16;
    }

    /// Replaces `start..end` by `with`, which is not longer, in place (no allocation); gives back
    /// the heap slice's spare room when it grows past a quarter, as [`set`](Self::set) would.
    fn cut(&mut self, start: usize, end: usize, with: &[u8]) {
        let len = self.len as usize;
        assert!(start <= end && end <= len && with.len() <= end - start);
        let new_len = len - (end - start) + with.len();
        let buf: &mut [u8] = if self.heap.is_empty() {
            &mut self.inline
        } else {
            &mut self.heap
        };
        buf[start..start + with.len()].copy_from_slice(with);
        buf.copy_within(end..len, start + with.len());
        self.len = new_len as u16;
        if !self.heap.is_empty()
            && (new_len <= INLINE || self.heap.len() > new_len + new_len / 4 + 8)
        {
            self.shrink_to_fit();
        }
    }

    fn shrink_to_fit(&mut self) {
        let len = self.len as usize;
        if self.heap.len() > len {
            if len <= INLINE {
                let heap = std::mem::take(&mut self.heap);
                self.inline[..len].copy_from_slice(&heap[..len]);
            } else {
                // Shrunk with `realloc`, in place (a copy would leave the old block as a hole).
                let mut heap = std::mem::take(&mut self.heap).into_vec();
                heap.truncate(len);
                self.heap = heap.into_boxed_slice();
            }
        }
    }
}

/// One block of a posting list.
#[derive(Debug, Clone)]
pub(super) struct Block<const F: usize> {
    bytes: Bytes,
    /// First and last documents of the block.
    pub(super) first: DocId,
    pub(super) last: DocId,
    len: u16,
    /// Postings with a non-zero frequency in field 0 (the name).
    name_count: u16,
    /// Per field, the largest frequency of any posting (255 means 255 or more).
    pub(super) max_tf: [u8; F],
    /// Per field, a lower bound of the field's length in every document of the block
    /// (saturated at 255: fields are rarely longer, and a lower bound stays valid).
    pub(super) min_len: [u8; F],
}

/// A posting list: blocks in document order.
#[derive(Debug, Clone, Default)]
pub(super) struct PostingList<const F: usize> {
    /// Counts are summed over the blocks when asked (a few hundred blocks at most per 100,000
    /// documents), which keeps the entry of a term at 56 bytes.
    store: Store<F>,
}

/// The blocks: a list of one block (most lists) is held without a vector's allocation.
#[derive(Debug, Clone)]
enum Store<const F: usize> {
    One(Block<F>),
    Many(Vec<Block<F>>),
}

impl<const F: usize> Default for Store<F> {
    fn default() -> Self {
        Store::Many(Vec::new())
    }
}

impl<const F: usize> Block<F> {
    fn new(doc: DocId) -> Self {
        Block {
            bytes: Bytes::default(),
            first: doc,
            last: doc,
            len: 0,
            name_count: 0,
            max_tf: [0; F],
            min_len: [u8::MAX; F],
        }
    }

    /// Appends a posting after `last` (or as the first of an empty block).
    fn push(&mut self, doc: DocId, tf: &[u32; F], lengths: &[u32; F]) {
        let gap = if self.len == 0 { 0 } else { doc - self.last };
        if self.len == 0 {
            self.first = doc;
        }
        if let Some(two) = encode_common(gap, tf) {
            self.bytes.extend_two(two);
        } else {
            let mut buf = [0u8; ENCODED_MAX];
            let n = encode(&mut buf, gap, tf);
            self.bytes.extend(&buf[..n]);
        }
        self.last = doc;
        self.len += 1;
        self.note(tf, lengths);
        if self.len as usize == BLOCK {
            self.bytes.shrink_to_fit();
        }
    }

    /// The block's postings in order, frequencies decoded.
    pub(super) fn iter(&self) -> impl Iterator<Item = (DocId, [u32; F])> + '_ {
        self.postings().map(|(doc, tf)| (doc, tf.to_array()))
    }

    /// The block's postings in order, frequencies left encoded (what the search reads).
    #[inline]
    pub(super) fn postings(&self) -> LazyIter<'_> {
        LazyIter {
            bytes: self.bytes.as_slice(),
            at: 0,
            prev: self.first,
        }
    }

    fn decode_all(&self) -> Vec<(DocId, [u32; F])> {
        self.iter().collect()
    }

    /// A block holding `postings` (sorted, non-empty), bounds computed afresh.
    fn from_postings(postings: &[(DocId, [u32; F])], lengths: &impl Fn(DocId) -> [u32; F]) -> Self {
        let mut b = Block::new(postings[0].0);
        let mut out = Vec::with_capacity(postings.len() * 4);
        let mut buf = [0u8; ENCODED_MAX];
        let mut prev = b.first;
        for (doc, tf) in postings {
            let n = encode(&mut buf, doc - prev, tf);
            out.extend_from_slice(&buf[..n]);
            prev = *doc;
            b.note(tf, &lengths(*doc));
        }
        b.len = postings.len() as u16;
        b.last = prev;
        b.bytes.set(&out);
        b
    }

    /// Widens the bounds and counts for one more posting.
    fn note(&mut self, tf: &[u32; F], lengths: &[u32; F]) {
        if F > 0 && tf[0] > 0 {
            self.name_count += 1;
        }
        for f in 0..F {
            self.max_tf[f] = self.max_tf[f].max(tf[f].min(255) as u8);
            self.min_len[f] = self.min_len[f].min(lengths[f].min(255) as u8);
        }
    }

    /// Removes the posting of `doc` in place: the next posting's gap is re-encoded and the
    /// rest moved down. Bounds stay (see [`PostingList::remove`]). `None` if absent.
    fn remove(&mut self, doc: DocId) -> Option<[u32; F]> {
        let bytes = self.bytes.as_slice();
        let (mut pos, mut prev) = (0, self.first);
        let mut before: Option<DocId> = None;
        // Frequencies are skipped, not decoded, until the document is found.
        let (start, end, tf) = loop {
            // Runs of common postings before `doc` are passed four at a time, as seeks pass them.
            let from = pos;
            let passed = skip_common_before(bytes, &mut pos, prev, doc);
            if pos != from {
                before = Some(passed);
                prev = passed;
            }
            if pos >= bytes.len() {
                return None;
            }
            let start = pos;
            let d = skip(bytes, &mut pos, prev);
            if d == doc {
                let mut at = start;
                let (_, tf) = decode::<F>(bytes, &mut at, prev);
                break (start, pos, tf);
            }
            if d > doc {
                return None;
            }
            before = Some(d);
            prev = d;
        };
        // Rewritten in place: the next posting's gap grows by the removed one's, and a varint of
        // a sum is never longer than the two varints, so the block only shrinks.
        if end < bytes.len() {
            let mut next_end = end;
            let (next, next_tf) = decode::<F>(bytes, &mut next_end, doc);
            let mut buf = [0u8; ENCODED_MAX];
            let n = encode(&mut buf, before.map_or(0, |b| next - b), &next_tf);
            self.bytes.cut(start, next_end, &buf[..n]);
            if before.is_none() {
                self.first = next;
            }
        } else {
            self.bytes.cut(start, end, &[]);
            if let Some(b) = before {
                self.last = b;
            }
        }
        self.len -= 1;
        if F > 0 && tf[0] > 0 {
            self.name_count -= 1;
        }
        Some(tf)
    }
}

/// Iterates one block's postings, frequencies left encoded.
pub(super) struct LazyIter<'a> {
    bytes: &'a [u8],
    at: usize,
    prev: DocId,
}

impl<'a> Iterator for LazyIter<'a> {
    type Item = (DocId, Freqs<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.at >= self.bytes.len() {
            return None;
        }
        let (doc, freqs) = decode_lazy(self.bytes, &mut self.at, self.prev);
        self.prev = doc;
        Some((doc, freqs))
    }
}

/// A position in a posting list for forward seeks: documents sought must not decrease.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Cursor {
    block: usize,
    /// Byte offset of the next posting in the block, and the document before it (unused at
    /// offset 0, where the gap counts from the block's first document).
    at: usize,
    prev: DocId,
}

impl<const F: usize> PostingList<F> {
    /// The blocks, in document order.
    #[inline]
    pub(super) fn blocks(&self) -> &[Block<F>] {
        match &self.store {
            Store::One(b) => std::slice::from_ref(b),
            Store::Many(v) => v,
        }
    }

    /// The blocks as a vector to edit; [`settle`](Self::settle) afterwards.
    fn blocks_mut(&mut self) -> &mut Vec<Block<F>> {
        if let Store::One(_) = self.store {
            let Store::One(b) = std::mem::take(&mut self.store) else {
                unreachable!()
            };
            self.store = Store::Many(vec![b]);
        }
        match &mut self.store {
            Store::Many(v) => v,
            Store::One(_) => unreachable!(),
        }
    }

    /// Holds a single block without the vector.
    fn settle(&mut self) {
        if let Store::Many(v) = &mut self.store {
            if v.len() == 1 {
                let b = v.pop().expect("one block");
                self.store = Store::One(b);
            }
        }
    }

    /// Gives back spare capacity (after a bulk build).
    pub(super) fn shrink_to_fit(&mut self) {
        match &mut self.store {
            Store::One(b) => b.bytes.shrink_to_fit(),
            Store::Many(v) => {
                v.shrink_to_fit();
                if let Some(b) = v.last_mut() {
                    b.bytes.shrink_to_fit();
                }
            }
        }
    }

    /// Number of postings whose field 0 (the name) holds the term.
    pub(super) fn name_df(&self) -> usize {
        self.blocks().iter().map(|b| b.name_count as usize).sum()
    }

    /// Number of postings.
    pub(super) fn len(&self) -> usize {
        self.blocks().iter().map(|b| b.len as usize).sum()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.blocks().is_empty()
    }

    /// All postings in document order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (DocId, [u32; F])> + '_ {
        self.blocks().iter().flat_map(Block::iter)
    }

    /// Adds the posting of `doc`, which must not be in the list yet. `lengths` gives the field
    /// lengths of any indexed document (the new one included).
    pub(super) fn insert(
        &mut self,
        doc: DocId,
        tf: &[u32; F],
        lengths: &impl Fn(DocId) -> [u32; F],
    ) {
        let last = match &mut self.store {
            Store::One(b) => Some(b),
            Store::Many(v) => v.last_mut(),
        };
        match last {
            Some(last) if last.last >= doc => {}
            Some(last) if (last.len as usize) < BLOCK => {
                return last.push(doc, tf, &lengths(doc));
            }
            _ => {
                let mut b = Block::new(doc);
                b.push(doc, tf, &lengths(doc));
                if let Store::Many(v) = &self.store {
                    if v.is_empty() {
                        self.store = Store::One(b);
                        return;
                    }
                }
                let blocks = self.blocks_mut();
                if blocks.len() == blocks.capacity() {
                    // Grow by a quarter, not doubling (see `Bytes::extend`).
                    let len = blocks.len();
                    blocks.reserve_exact((len / 4).max(1));
                }
                return blocks.push(b);
            }
        }
        // Into the middle: rewrite the block it falls in, split when it has doubled.
        let blocks = self.blocks_mut();
        let at = blocks.partition_point(|b| b.last < doc);
        let mut postings = blocks[at].decode_all();
        let pos = postings.partition_point(|p| p.0 < doc);
        postings.insert(pos, (doc, *tf));
        if postings.len() >= 2 * BLOCK {
            let (a, b) = postings.split_at(BLOCK);
            blocks[at] = Block::from_postings(a, lengths);
            blocks.insert(at + 1, Block::from_postings(b, lengths));
        } else {
            blocks[at] = Block::from_postings(&postings, lengths);
        }
        self.settle();
    }

    /// Removes the posting of `doc` and returns its frequencies, if present. Only its block is
    /// rewritten; its bounds stay (still valid: the maximum can only have fallen, the minimum risen).
    pub(super) fn remove(&mut self, doc: DocId) -> Option<[u32; F]> {
        let at = self.blocks().partition_point(|b| b.last < doc);
        let block = self.blocks().get(at)?;
        if block.first > doc {
            return None;
        }
        if block.len == 1 {
            let tf = block.iter().next().filter(|p| p.0 == doc)?.1;
            self.blocks_mut().remove(at);
            self.settle();
            return Some(tf);
        }
        match &mut self.store {
            Store::One(one) => one.remove(doc),
            Store::Many(v) => v[at].remove(doc),
        }
    }

    /// The frequencies of `doc`, if the list holds it.
    pub(super) fn get(&self, doc: DocId) -> Option<[u32; F]> {
        let at = self.blocks().partition_point(|b| b.last < doc);
        let block = self.blocks().get(at)?;
        block
            .iter()
            .find(|p| p.0 >= doc)
            .filter(|p| p.0 == doc)
            .map(|p| p.1)
    }

    /// Renumbers documents through `map` (order-preserving); blocks are re-encoded.
    pub(super) fn renumber(&mut self, map: &[Option<DocId>], lengths: &impl Fn(DocId) -> [u32; F]) {
        let postings: Vec<(DocId, [u32; F])> = self
            .iter()
            .map(|(d, tf)| {
                (
                    map[d as usize].expect("indexed documents survive compaction"),
                    tf,
                )
            })
            .collect();
        self.store = Store::Many(
            postings
                .chunks(BLOCK)
                .map(|c| Block::from_postings(c, lengths))
                .collect(),
        );
        self.settle();
    }

    /// Moves `c` to the first posting whose document is >= `doc` (without passing it); returns
    /// the frequencies when that document is `doc`. Galloping over blocks, then decoding forward within one.
    #[inline(always)]
    pub(super) fn seek(&self, c: &mut Cursor, doc: DocId) -> Option<Freqs<'_>> {
        let blocks = self.blocks();
        if c.block >= blocks.len() {
            return None;
        }
        if blocks[c.block].last < doc {
            let rest = &blocks[c.block..];
            let mut bound = 1;
            while bound < rest.len() && rest[bound].last < doc {
                bound *= 2;
            }
            let lo = bound / 2;
            let hi = (bound + 1).min(rest.len());
            c.block += lo + rest[lo..hi].partition_point(|b| b.last < doc);
            if c.block >= blocks.len() {
                return None;
            }
            c.at = 0;
        }
        let b = &blocks[c.block];
        if doc < b.first {
            return None;
        }
        let bytes = b.bytes.as_slice();
        let mut at = c.at;
        let mut prev = if at == 0 { b.first } else { c.prev };
        loop {
            prev = skip_common_before(bytes, &mut at, prev, doc);
            // `b.last >= doc`, so a posting >= doc lies ahead in this block.
            let start = at;
            let d = skip(bytes, &mut at, prev);
            if d >= doc {
                // Left on the posting found, so the same document may be sought again (a
                // query may repeat a word).
                c.at = start;
                c.prev = prev;
                if d > doc {
                    return None;
                }
                let mut from = start;
                return Some(decode_lazy(bytes, &mut from, prev).1);
            }
            prev = d;
        }
    }

    /// Encoded bytes, and bytes allocated (block headers and spare capacity included).
    pub(super) fn bytes(&self) -> (usize, usize) {
        let used = self.blocks().iter().map(|b| b.bytes.len()).sum();
        let vector = match &self.store {
            Store::One(_) => 0,
            Store::Many(v) => v.capacity() * std::mem::size_of::<Block<F>>(),
        };
        let held = vector
            + self
                .blocks()
                .iter()
                .map(|b| b.bytes.heap.len())
                .sum::<usize>();
        (used, held)
    }

    /// Bytes held (for memory accounting in tests and benchmarks).
    #[cfg(test)]
    pub(super) fn encoded_bytes(&self) -> usize {
        self.blocks().iter().map(|b| b.bytes.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inserts_removes_and_seeks_agree_with_a_sorted_list() {
        agrees_with_a_sorted_list(3000, |r| [r % 3, [1, 2, 300, 70_000][(r / 3 % 4) as usize]]);
    }

    /// Mostly common postings (small gaps, every frequency 1): the runs that removal and seeks
    /// pass four at a time.
    #[test]
    fn common_postings_agree_with_a_sorted_list() {
        agrees_with_a_sorted_list(1500, |r| if r % 16 == 0 { [2, 1] } else { [1, 1] });
    }

    /// Random inserts and removals of documents below `docs`, frequencies from `tf` of a random
    /// number, checked against a sorted vector.
    fn agrees_with_a_sorted_list(docs: u64, tf: impl Fn(u32) -> [u32; 2]) {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let lengths = |d: DocId| [d % 7, d % 300];
        let mut list = PostingList::<2>::default();
        let mut model: Vec<(DocId, [u32; 2])> = Vec::new();
        for _ in 0..5000 {
            let doc = next(docs) as DocId;
            let present = model.binary_search_by_key(&doc, |p| p.0);
            match (present, next(3)) {
                (Err(at), 0 | 1) => {
                    let tf = tf(next(1 << 20) as u32);
                    list.insert(doc, &tf, &lengths);
                    model.insert(at, (doc, tf));
                }
                (Ok(at), _) => {
                    assert_eq!(list.remove(doc), Some(model.remove(at).1));
                }
                (Err(_), _) => assert_eq!(list.remove(doc), None),
            }
        }
        assert_eq!(list.iter().collect::<Vec<_>>(), model);
        assert_eq!(list.len(), model.len());
        for b in list.blocks() {
            for (d, tf) in b.iter() {
                for (f, t) in tf.iter().enumerate() {
                    assert!(u32::from(b.max_tf[f]) >= (*t).min(255));
                    assert!(u32::from(b.min_len[f]) <= lengths(d)[f]);
                }
            }
        }
        let mut c = Cursor::default();
        for doc in 0..docs as DocId + 100 {
            let want = model
                .binary_search_by_key(&doc, |p| p.0)
                .ok()
                .map(|i| model[i].1);
            assert_eq!(list.get(doc), want);
            if doc % 3 == 0 {
                assert_eq!(list.seek(&mut c, doc).map(Freqs::to_array), want, "{doc}");
            }
        }
        assert!(list.encoded_bytes() < model.len() * 6);
    }
}
