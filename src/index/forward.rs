//! Which terms a document holds, kept for the few documents the co-use step asks about.
//!
//! Whether any query term is in a document can be told from the posting lists, but a document
//! that holds none of them (most of those asked about) costs a seek in every query term's list,
//! each a block to decode in memory nobody else read: most of the co-use step's time. The
//! document's own terms answer it in one read. They are made on demand from the tokens the
//! document was added with, kept until it is added or removed again (or the slots are
//! renumbered), and only for documents asked about: an index nobody asks this of holds none.

use super::{DocId, Index};
use std::sync::{PoisonError, RwLock};

/// The term ids of each document asked about, sorted and distinct, by slot.
#[derive(Debug, Default)]
pub(super) struct Forward(RwLock<Vec<Option<Box<[u32]>>>>);

impl Clone for Forward {
    /// Empty: made again on demand.
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Forward {
    /// Drops what is kept of `doc` (its terms change).
    pub(super) fn forget(&mut self, doc: DocId) {
        let kept = self.0.get_mut().unwrap_or_else(PoisonError::into_inner);
        if let Some(terms) = kept.get_mut(doc as usize) {
            *terms = None;
        }
    }

    /// Bytes kept, about.
    pub(super) fn memory_bytes(&self) -> usize {
        let kept = self.0.read().unwrap_or_else(PoisonError::into_inner);
        kept.capacity() * size_of::<Option<Box<[u32]>>>()
            + kept.iter().flatten().map(|t| t.len() * 4).sum::<usize>()
    }

    /// Drops everything kept (the documents were renumbered).
    pub(super) fn clear(&mut self) {
        let kept = self.0.get_mut().unwrap_or_else(PoisonError::into_inner);
        *kept = Vec::new();
    }
}

impl<const F: usize> Index<F> {
    /// Bytes the documents' kept terms take (see [`reaches_docs_kept`](Self::reaches_docs_kept)).
    pub fn kept_terms_bytes(&self) -> usize {
        self.forward.memory_bytes()
    }

    /// Whether each of `docs` holds any of the terms `ids` (sorted), in their order, from each
    /// document's kept terms; a document's terms are made the first time from the tokens
    /// `tokens_of` hands its sink (every token the document was added with, in any field).
    pub(super) fn holds_any(
        &self,
        ids: &[u32],
        docs: &[DocId],
        tokens_of: impl Fn(DocId, &mut dyn FnMut(&str)),
    ) -> Vec<bool> {
        let holds = |terms: &[u32]| ids.iter().any(|id| terms.binary_search(id).is_ok());
        let mut out = vec![false; docs.len()];
        let mut missing = Vec::new();
        {
            let kept = self
                .forward
                .0
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            // Each document's terms are a cache miss or two: looked at for all documents first
            // (the misses waited for together), then searched.
            let found: Vec<Option<&[u32]>> = docs
                .iter()
                .map(|&doc| kept.get(doc as usize).and_then(Option::as_deref))
                .collect();
            let middle = found
                .iter()
                .flatten()
                .fold(0, |x, t| x ^ t.get(t.len() / 2).copied().unwrap_or(0));
            std::hint::black_box(middle);
            for (i, (&doc, terms)) in docs.iter().zip(found).enumerate() {
                match terms {
                    Some(terms) => out[i] = holds(terms),
                    // A document not indexed holds no term (and its tokens are not asked for).
                    None if self.contains(doc) => missing.push(i),
                    None => {}
                }
            }
        }
        if missing.is_empty() {
            return out;
        }
        let made: Vec<(DocId, Box<[u32]>)> = missing
            .iter()
            .map(|&i| {
                let mut terms = Vec::new();
                tokens_of(docs[i], &mut |t| terms.extend(self.term_id(t)));
                terms.sort_unstable();
                terms.dedup();
                out[i] = holds(&terms);
                (docs[i], terms.into_boxed_slice())
            })
            .collect();
        let mut kept = self
            .forward
            .0
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for (doc, terms) in made {
            let at = doc as usize;
            if kept.len() <= at {
                kept.resize_with(at + 1, || None);
            }
            kept[at] = Some(terms);
        }
        out
    }
}
