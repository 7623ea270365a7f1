//! Adding and removing one document from tokens handed over one at a time (by the analyzer, as
//! it finds them), so no token needs a heap `String` of its own: each is turned into a term id
//! at once.

use super::{DocId, Index, TermEntry};
use std::hash::BuildHasher;

/// Receives the tokens of the document being added (see [`Index::add_with`]).
pub struct DocTokens<'a, const F: usize> {
    index: &'a mut Index<F>,
    /// Tokens per field so far.
    lens: [u64; F],
    /// Bulk build: term frequencies by term id, in first-seen order (`Index::in_doc` points
    /// into it). Otherwise empty.
    counts: Vec<(u32, [u32; F])>,
    /// Outside a bulk build: `term id << 8 | field` per token, sorted when the document ends.
    keys: Vec<u64>,
}

impl<const F: usize> DocTokens<'_, F> {
    /// One token of field `field` (the index's field order). Order within a field does not matter.
    #[inline]
    pub fn push(&mut self, field: usize, token: &str) {
        let id = self.index.term_id_or_insert(token);
        // A name term repeats words its field already counts (see `names`).
        if !super::is_name_term(token) {
            self.lens[field] += 1;
        }
        if !self.index.bulk {
            // Keys `term id << 8 | field` (at most 20 fields): one integer sort at the end, no
            // table sized by the dictionary for one document added to a built index.
            self.keys.push(u64::from(id) << 8 | field as u64);
            return;
        }
        // A table by term id (`in_doc`, all zero between documents): the cheapest way when many
        // documents are added, at 4 bytes per term while the bulk build lasts.
        let id = id as usize;
        let in_doc = &mut self.index.in_doc;
        if in_doc.len() <= id {
            in_doc.resize(self.index.terms.len(), 0);
        }
        let at = match in_doc[id] {
            0 => {
                self.counts.push((id as u32, [0; F]));
                in_doc[id] = self.counts.len() as u32;
                self.counts.len() - 1
            }
            n => n as usize - 1,
        };
        let tf = &mut self.counts[at].1[field];
        *tf = tf.saturating_add(1);
    }

    /// Term frequencies by term id (each term once).
    fn finish(mut self) -> ([u64; F], Vec<(u32, [u32; F])>) {
        if self.index.bulk {
            for &(id, _) in &self.counts {
                self.index.in_doc[id as usize] = 0;
            }
            return (self.lens, self.counts);
        }
        self.keys.sort_unstable();
        let mut counts: Vec<(u32, [u32; F])> = Vec::with_capacity(self.keys.len());
        for &key in &self.keys {
            let (id, f) = ((key >> 8) as u32, (key & 0xff) as usize);
            match counts.last_mut() {
                Some((last, tf)) if *last == id => tf[f] = tf[f].saturating_add(1),
                _ => {
                    let mut tf = [0; F];
                    tf[f] = 1;
                    counts.push((id, tf));
                }
            }
        }
        (self.lens, counts)
    }
}

impl<const F: usize> Index<F> {
    /// Indexes `doc` from the tokens `tokens` hands to [`DocTokens::push`]. Adding a document
    /// that is already indexed is a logic error and is refused (no token is read).
    pub fn add_with(&mut self, doc: DocId, tokens: impl FnOnce(&mut DocTokens<'_, F>)) -> bool {
        self.forward.forget(doc);
        if self.contains(doc) {
            return false;
        }
        let counts = std::mem::take(&mut self.doc_counts);
        // Room for a typical tool's tokens: no regrowth from empty for one added document.
        let keys = if self.bulk {
            Vec::new()
        } else {
            Vec::with_capacity(128)
        };
        let mut d = DocTokens {
            index: self,
            lens: [0; F],
            counts,
            keys,
        };
        tokens(&mut d);
        let (lens, mut counts) = d.finish();
        let mut lengths = [0u32; F];
        for f in 0..F {
            lengths[f] = u32::try_from(lens[f]).unwrap_or(u32::MAX);
            self.total_lengths[f] += lens[f];
        }
        // The document's lengths first: its postings' blocks take their bounds from them.
        self.docs.set(doc, Some(lengths));
        let docs = &self.docs;
        let lengths_of = |d: DocId| docs.of(d);
        for &(id, tf) in &counts {
            self.terms[id as usize]
                .postings
                .insert(doc, &tf, &lengths_of);
        }
        self.doc_count += 1;
        if self.bulk {
            counts.clear();
            self.doc_counts = counts;
        }
        true
    }

    /// Removes `doc`, given the same tokens it was added with (handed to the callback's sink, in
    /// any order and field). Returns false if it was not indexed.
    pub fn remove_with(&mut self, doc: DocId, tokens: impl FnOnce(&mut dyn FnMut(&str))) -> bool {
        self.forward.forget(doc);
        let Some(lengths) = self.doc_lengths(doc) else {
            return false;
        };
        for (f, len) in lengths.iter().enumerate() {
            self.total_lengths[f] -= u64::from(*len);
        }
        let mut ids: Vec<u32> = Vec::new();
        tokens(&mut |token| {
            if let Some(id) = self.term_id(token) {
                ids.push(id);
            }
        });
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let entry = &mut self.terms[id as usize];
            entry.postings.remove(doc);
            if entry.postings.is_empty() {
                let hash = self
                    .term_hasher
                    .hash_one(&self.term_text[entry.at as usize..(entry.at + entry.len) as usize]);
                if let Ok(found) = self.term_ids.find_entry(hash, |&i| i == id) {
                    found.remove();
                }
                let (at, len) = (entry.at as usize, entry.len as usize);
                self.names.removed(&self.term_text[at..at + len], id);
                self.term_garbage += len;
                self.terms[id as usize] = TermEntry::default();
                self.free_term_ids.push(id);
            }
        }
        self.docs.set(doc, None);
        self.doc_count -= 1;
        true
    }
}
