//! Building a whole index with the analysis on a second thread: documents are analyzed there in
//! chunks (tokens copied into one buffer per chunk) while this thread turns the tokens of the
//! chunk before into postings. Analysis is about half of an enhanced build, so on two cores the
//! build takes about the time of its larger half. Small catalogs are built on one thread.

use super::{DocId, DocTokens, Index};
use std::sync::mpsc::sync_channel;

/// Receives a document's tokens, field by field.
pub trait TokenSink {
    /// One token of field `field` (the index's field order).
    fn token(&mut self, field: usize, token: &str);
}

impl<const F: usize> TokenSink for DocTokens<'_, F> {
    #[inline]
    fn token(&mut self, field: usize, token: &str) {
        self.push(field, token);
    }
}

/// Analyzed documents: their tokens back to back.
#[derive(Default)]
struct Chunk {
    text: String,
    /// Per token: its field and where it ends in `text`.
    tokens: Vec<(u8, u32)>,
    /// Per document: its id and where its tokens end in `tokens`.
    docs: Vec<(DocId, u32)>,
}

impl TokenSink for Chunk {
    #[inline]
    fn token(&mut self, field: usize, token: &str) {
        self.text.push_str(token);
        self.tokens.push((field as u8, self.text.len() as u32));
    }
}

/// Documents below which a build stays on one thread (a thread costs more than it saves).
const PARALLEL_MIN_DOCS: usize = 2048;
/// Documents per chunk, and the most text a chunk collects before it is handed over.
const CHUNK_DOCS: usize = 64;
const CHUNK_BYTES: usize = 1 << 16;

impl<const F: usize> Index<F> {
    /// An index of `docs` (ids ascending), each analyzed by `analyze` into a [`TokenSink`];
    /// the same index as adding them one by one with [`Index::add_with`]. `count` is the number
    /// of documents, which decides whether a second thread is worth starting.
    pub fn build<'a, T: Sync + 'a>(
        docs: impl Iterator<Item = (DocId, &'a T)> + Send,
        count: usize,
        analyze: impl Fn(&T, &mut dyn TokenSink) + Sync,
    ) -> Self {
        let mut index = Index::new();
        index.start_bulk();
        let parallel = count >= PARALLEL_MIN_DOCS
            && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
        if !parallel {
            for (id, doc) in docs {
                index.add_with(id, |d| analyze(doc, d));
            }
            index.shrink_to_fit();
            return index;
        }
        // Two chunks in flight at most: the memory of the hand-over stays a few hundred KB.
        let (send, receive) = sync_channel::<Chunk>(1);
        let (give_back, reuse) = sync_channel::<Chunk>(1);
        let analyze = &analyze;
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut chunk = Chunk::default();
                for (id, doc) in docs {
                    analyze(doc, &mut chunk);
                    chunk.docs.push((id, chunk.tokens.len() as u32));
                    if chunk.docs.len() >= CHUNK_DOCS || chunk.text.len() >= CHUNK_BYTES {
                        let next = reuse.try_recv().unwrap_or_default();
                        if send.send(std::mem::replace(&mut chunk, next)).is_err() {
                            return;
                        }
                    }
                }
                if !chunk.docs.is_empty() {
                    let _ = send.send(chunk);
                }
            });
            for mut chunk in receive {
                let mut token: usize = 0;
                for &(id, end) in &chunk.docs {
                    let mut at = token
                        .checked_sub(1)
                        .map_or(0, |t| chunk.tokens[t].1 as usize);
                    index.add_with(id, |d| {
                        for &(field, stop) in &chunk.tokens[token..end as usize] {
                            d.push(usize::from(field), &chunk.text[at..stop as usize]);
                            at = stop as usize;
                        }
                    });
                    token = end as usize;
                }
                chunk.text.clear();
                chunk.tokens.clear();
                chunk.docs.clear();
                let _ = give_back.try_send(chunk);
            }
        });
        index.shrink_to_fit();
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_parallel_build_equals_adding_one_by_one() {
        let words = [
            "alpha", "beta", "gamma", "delta", "read", "file", "user", "get",
        ];
        let docs: Vec<(DocId, Vec<String>)> = (0..3 * PARALLEL_MIN_DOCS as u32)
            .filter(|d| d % 7 != 3)
            .map(|d| {
                let text = (0..(d % 13))
                    .map(|k| words[((d + k * k) % 8) as usize].to_string() + &(k % 3).to_string())
                    .collect();
                (d, text)
            })
            .collect();
        let analyze = |text: &Vec<String>, sink: &mut dyn TokenSink| {
            for (i, t) in text.iter().enumerate() {
                sink.token(i % 3, t);
            }
        };
        let built = Index::<3>::build(docs.iter().map(|(d, t)| (*d, t)), docs.len(), analyze);
        let mut one_by_one = Index::<3>::new();
        for (d, text) in &docs {
            one_by_one.add_with(*d, |sink| analyze(text, sink));
        }
        assert_eq!(built.canonical(), one_by_one.canonical());
        assert_eq!(built.doc_count(), docs.len());
    }
}
