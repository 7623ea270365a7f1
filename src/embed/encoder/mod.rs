//! The built-in local encoder: a BERT-family sentence-transformers model (all-MiniLM-L6-v2 and
//! its kin) read from a directory in the layout those models ship in, run on the CPU.
//!
//! The directory holds `config.json` (the BERT shape), `model.safetensors` (the weights),
//! `tokenizer.json` (WordPiece), and optionally `sentence_bert_config.json` (`max_seq_length`),
//! `1_Pooling/config.json` (mean or CLS pooling) and `modules.json` (whether a `Normalize` module
//! follows). Texts past the model's length are truncated, never refused. Nothing is downloaded.

mod bert;
mod gemm;
mod weights;

use super::Embedder;
use crate::error::{Error, Result};
use bert::{Bert, BertConfig};
use std::path::Path;
use tokenizers::Tokenizer;

/// How token vectors become one text vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pooling {
    Mean,
    Cls,
}

/// A sentence encoder loaded from a model directory. `Send + Sync`: one encoder embeds from
/// many threads at once.
pub struct LocalEncoder {
    bert: Bert,
    tokenizer: Tokenizer,
    pooling: Pooling,
    normalize: bool,
    max_len: usize,
    identity: String,
    threads: usize,
}

impl std::fmt::Debug for LocalEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LocalEncoder({})", self.identity)
    }
}

/// Tokens per packed batch: large enough for the dense layers to run at full speed, small
/// enough that a batch's activations stay in a few MB.
const BATCH_TOKENS: usize = 4096;

/// Fewest sequences a thread is given. The registry's embedding thread hands over batches of 64
/// texts (a host embedder's promised batch size), far below one packed batch of tokens, so a call
/// is split by sequences, not by packed batches: a thread's share of a few sequences is still
/// hundreds of rows for the dense layers, and a query (one text) stays on the caller's thread.
const MIN_SEQS_PER_THREAD: usize = 4;

/// Threads for one call of `seqs` sequences, with at most `max` threads. Each sequence's vector
/// is the same whatever the split: every row of the dense layers and every sequence's attention
/// is computed on its own.
fn threads_for(max: usize, seqs: usize) -> usize {
    max.min(seqs / MIN_SEQS_PER_THREAD).max(1)
}

fn read(dir: &Path, name: &str) -> Result<String> {
    let path = dir.join(name);
    std::fs::read_to_string(&path).map_err(|e| {
        Error::invalid(format!(
            "embedding.model_dir: cannot read {}: {e}",
            path.display()
        ))
    })
}

impl LocalEncoder {
    /// Loads the model in `dir`. A missing or malformed file is an error naming it.
    pub fn load(dir: &Path) -> Result<Self> {
        if !dir.is_dir() {
            return Err(Error::invalid(format!(
                "embedding.model_dir: {} is not a directory (get a model with scripts/fetch-model.sh)",
                dir.display()
            )));
        }
        let config = BertConfig::from_json(&read(dir, "config.json")?, "config.json")?;
        let max_len = optional_json(dir, "sentence_bert_config.json")?
            .and_then(|v| v.get("max_seq_length").and_then(|n| n.as_u64()))
            .map_or(config.max_positions, |n| n as usize)
            .clamp(2, config.max_positions);
        let pooling = match optional_json(dir, "1_Pooling/config.json")? {
            None => Pooling::Mean,
            Some(v) => {
                let on = |k: &str| v.get(k).and_then(|b| b.as_bool()).unwrap_or(false);
                match (on("pooling_mode_mean_tokens"), on("pooling_mode_cls_token")) {
                    (true, false) => Pooling::Mean,
                    (false, true) => Pooling::Cls,
                    _ => {
                        return Err(Error::invalid(
                            "1_Pooling/config.json: only mean or CLS pooling alone is supported",
                        ));
                    }
                }
            }
        };
        let normalize = match optional_json(dir, "modules.json")? {
            // Without modules.json the vectors are normalized all the same: cosine needs it.
            None => true,
            Some(v) => v.as_array().is_some_and(|mods| {
                mods.iter().any(|m| {
                    m.get("type")
                        .and_then(|t| t.as_str())
                        .is_some_and(|t| t.ends_with("Normalize"))
                })
            }),
        };
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| Error::invalid(format!("embedding.model_dir: tokenizer.json: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: max_len,
                ..Default::default()
            }))
            .map_err(|e| Error::invalid(format!("tokenizer.json: {e}")))?;
        if tokenizer.get_vocab_size(true) > config.vocab {
            return Err(Error::invalid(format!(
                "tokenizer.json: {} tokens, more than the model's vocab_size {}",
                tokenizer.get_vocab_size(true),
                config.vocab
            )));
        }
        let path = dir.join("model.safetensors");
        let bytes = std::fs::read(&path).map_err(|e| {
            Error::invalid(format!(
                "embedding.model_dir: cannot read {}: {e}",
                path.display()
            ))
        })?;
        let mut tensors = weights::Tensors::parse(&bytes, "model.safetensors")?;
        drop(bytes);
        let name = dir
            .file_name()
            .map_or("model".into(), |n| n.to_string_lossy().into_owned());
        let identity = format!(
            "local:{name}:{}x{}x{}:{max_len}",
            config.layers, config.hidden, config.vocab
        );
        let bert = Bert::load(config, &mut tensors)?;
        Ok(LocalEncoder {
            bert,
            tokenizer,
            pooling,
            normalize,
            max_len,
            identity,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        })
    }

    /// Most threads one `embed` call of more than a few texts uses (default: the machine's
    /// parallelism).
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
    }

    /// The longest input in tokens (longer ones are truncated).
    pub fn max_len(&self) -> usize {
        self.max_len
    }

    /// The token ids of `text` as the model reads it (with its special tokens, truncated).
    pub fn token_ids(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self
            .tokenizer
            .encode(text, true)
            .map_err(|e| Error::invalid(format!("tokenizer: {e}")))?;
        let vocab = self.bert.config.vocab as u32;
        Ok(enc.get_ids().iter().map(|&id| id.min(vocab - 1)).collect())
    }

    /// Embeds sequences of token ids, packed into batches; one row per sequence.
    fn embed_ids(&self, seqs: &[Vec<u32>], out: &mut [f32]) {
        let h = self.bert.config.hidden;
        let mut start = 0;
        while start < seqs.len() {
            let mut end = start;
            let mut tokens = 0;
            while end < seqs.len() && (end == start || tokens + seqs[end].len() <= BATCH_TOKENS) {
                tokens += seqs[end].len();
                end += 1;
            }
            let states = self.bert.forward(&seqs[start..end]);
            let mut row = 0;
            for (i, seq) in seqs[start..end].iter().enumerate() {
                let dst = &mut out[(start + i) * h..(start + i + 1) * h];
                match self.pooling {
                    Pooling::Cls => dst.copy_from_slice(states.row(row).as_slice().expect("row")),
                    Pooling::Mean => {
                        dst.fill(0.0);
                        for r in row..row + seq.len() {
                            for (d, s) in dst.iter_mut().zip(states.row(r)) {
                                *d += s;
                            }
                        }
                        let n = seq.len() as f32;
                        dst.iter_mut().for_each(|d| *d /= n);
                    }
                }
                if self.normalize {
                    super::normalize(dst);
                }
                row += seq.len();
            }
            start = end;
        }
    }
}

fn optional_json(dir: &Path, name: &str) -> Result<Option<serde_json::Value>> {
    let path = dir.join(name);
    if !path.exists() {
        return Ok(None);
    }
    let text = read(dir, name)?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| Error::invalid(format!("{name}: not JSON ({e})")))
}

impl Embedder for LocalEncoder {
    fn dim(&self) -> usize {
        self.bert.config.hidden
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<f32>> {
        let h = self.dim();
        let seqs: Vec<Vec<u32>> = texts
            .iter()
            .map(|t| self.token_ids(t))
            .collect::<Result<_>>()?;
        // Sorted by length, so a batch's sequences are alike and each thread's share is even.
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        order.sort_by_key(|&i| seqs[i].len());
        let sorted: Vec<Vec<u32>> = order.iter().map(|&i| seqs[i].clone()).collect();
        let mut pooled = vec![0f32; sorted.len() * h];
        let threads = threads_for(self.threads, sorted.len());
        if threads <= 1 {
            self.embed_ids(&sorted, &mut pooled);
        } else {
            // Interleaved by length: thread t takes every threads-th sequence.
            let shares: Vec<Vec<usize>> = (0..threads)
                .map(|t| (t..sorted.len()).step_by(threads).collect())
                .collect();
            let results: Vec<Vec<f32>> = std::thread::scope(|scope| {
                let handles: Vec<_> = shares
                    .iter()
                    .map(|share| {
                        let seqs: Vec<Vec<u32>> =
                            share.iter().map(|&i| sorted[i].clone()).collect();
                        scope.spawn(move || {
                            let mut part = vec![0f32; seqs.len() * h];
                            self.embed_ids(&seqs, &mut part);
                            part
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|j| j.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
            for (share, part) in shares.iter().zip(results) {
                for (k, &i) in share.iter().enumerate() {
                    pooled[i * h..(i + 1) * h].copy_from_slice(&part[k * h..(k + 1) * h]);
                }
            }
        }
        let mut out = vec![0f32; texts.len() * h];
        for (k, &i) in order.iter().enumerate() {
            out[i * h..(i + 1) * h].copy_from_slice(&pooled[k * h..(k + 1) * h]);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_of_more_than_a_few_texts_uses_every_thread_and_a_query_one() {
        // The registry's batches: 64 texts, or the last few of a catalog.
        assert_eq!(threads_for(2, 64), 2);
        assert_eq!(threads_for(8, 64), 8);
        assert_eq!(threads_for(32, 64), 16);
        assert_eq!(threads_for(2, 8), 2);
        assert_eq!(threads_for(4, 9), 2);
        // A query, and a handful of texts: the caller's thread.
        assert_eq!(threads_for(8, 1), 1);
        assert_eq!(threads_for(8, 7), 1);
        assert_eq!(threads_for(8, 0), 1);
        // The `threads` option caps it.
        assert_eq!(threads_for(1, 64), 1);
    }
}
