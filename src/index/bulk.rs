//! Building a whole index on two threads: both analyze chunks of documents (tokens copied into one
//! buffer per chunk), taken in turn, while this thread also turns the analyzed chunks into
//! postings in document order, analyzing a chunk itself whenever the next one is not ready. The
//! analysis is the larger part of an enhanced build, so the two threads share it rather than
//! one doing all of it. Small catalogs are built on one thread.

use super::{DocId, DocTokens, Index};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::mpsc::{TryRecvError, sync_channel};

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

impl Chunk {
    fn clear(&mut self) {
        self.text.clear();
        self.tokens.clear();
        self.docs.clear();
    }
}

/// Adds an analyzed chunk's documents to `index`.
fn add_chunk<const F: usize>(index: &mut Index<F>, chunk: &Chunk) {
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
/// Documents per chunk.
const CHUNK_DOCS: usize = 64;

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
        // Both threads analyze chunks of documents taken in turn from `docs`; this one also turns
        // them into postings, in document order, and analyzes a chunk itself whenever the next one
        // is not ready (analysis is the larger half of an enhanced build).
        let docs = Mutex::new((0usize, docs));
        // A chunk's documents are taken under the lock and analyzed outside it.
        let take = |chunk: &mut Chunk, batch: &mut Vec<(DocId, &'a T)>| -> Option<usize> {
            batch.clear();
            let seq = {
                let mut docs = docs.lock().unwrap_or_else(|e| e.into_inner());
                let (seq, iter) = &mut *docs;
                batch.extend(iter.by_ref().take(CHUNK_DOCS));
                if batch.is_empty() {
                    return None;
                }
                *seq += 1;
                *seq - 1
            };
            for &(id, doc) in batch.iter() {
                analyze(doc, chunk);
                chunk.docs.push((id, chunk.tokens.len() as u32));
            }
            Some(seq)
        };
        std::thread::scope(|scope| {
            // At most two analyzed chunks wait in the channel: the hand-over stays a few hundred
            // KB. Both ends live inside the scope, so a panic on either thread drops its end and
            // the other stops instead of waiting forever before the scope re-raises the panic.
            let (send, receive) = sync_channel::<(usize, Chunk)>(2);
            let take = &take;
            scope.spawn(move || {
                let mut batch = Vec::with_capacity(CHUNK_DOCS);
                loop {
                    let mut chunk = Chunk::default();
                    let Some(seq) = take(&mut chunk, &mut batch) else {
                        return;
                    };
                    if send.send((seq, chunk)).is_err() {
                        return;
                    }
                }
            });
            // Analyzed chunks not yet indexed, by sequence number; `next` is the one to index.
            let mut ready: BTreeMap<usize, Chunk> = BTreeMap::new();
            let (mut next, mut taking) = (0, true);
            let mut spare = Chunk::default();
            let mut batch = Vec::with_capacity(CHUNK_DOCS);
            loop {
                if let Some(chunk) = ready.remove(&next) {
                    add_chunk(&mut index, &chunk);
                    next += 1;
                    spare = chunk;
                    continue;
                }
                match receive.try_recv() {
                    Ok((seq, chunk)) => {
                        ready.insert(seq, chunk);
                        continue;
                    }
                    Err(TryRecvError::Disconnected) if !taking => break,
                    Err(_) => {}
                }
                if taking && ready.len() < 4 {
                    spare.clear();
                    let mut chunk = std::mem::take(&mut spare);
                    match take(&mut chunk, &mut batch) {
                        Some(seq) => {
                            ready.insert(seq, chunk);
                        }
                        None => taking = false,
                    }
                    continue;
                }
                // The next chunk is the other thread's: wait for it.
                match receive.recv() {
                    Ok((seq, chunk)) => {
                        ready.insert(seq, chunk);
                    }
                    Err(_) => break,
                }
            }
            debug_assert!(ready.is_empty());
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

    /// A panic in the analysis, on whichever thread it happens, reaches the caller (the C ABI
    /// turns it into an error) instead of leaving the other thread waiting on the hand-over.
    #[test]
    fn a_panicking_analysis_is_raised_not_hung() {
        let (done, finished) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let docs: Vec<(DocId, u32)> =
                (0..4 * PARALLEL_MIN_DOCS as u32).map(|d| (d, d)).collect();
            // Only the calling thread fails: the other one keeps analyzing and handing over.
            let caller = std::thread::current().id();
            let built = std::panic::catch_unwind(|| {
                Index::<1>::build(docs.iter().map(|(d, t)| (*d, t)), docs.len(), |d, sink| {
                    let fails = std::thread::current().id() == caller && *d >= 64;
                    assert!(!fails, "analysis failed");
                    sink.token(0, "word");
                })
            });
            let _ = done.send(built.is_err());
        });
        let raised = finished
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the build returned (no thread left waiting)");
        assert!(raised, "the panic reached the caller");
    }
}
