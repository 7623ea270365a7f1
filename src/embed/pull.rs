//! The pull model: a host embedder with no callback. The embedding thread's batches wait here
//! until the host takes their texts ([`PullEmbedder::take`]) and gives their vectors back
//! ([`PullEmbedder::put`]), whenever and from wherever it has them (an HTTP embedding API awaited
//! on an event loop, another process). Async hosts use it: a synchronous callback cannot await.

use super::{Embedder, MAX_DIM, normalize};
use crate::error::{Error, Result};
use std::collections::{HashMap, VecDeque};
use std::sync::{Condvar, Mutex};

/// One text handed to the host: its job id and the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullJob {
    /// Echoed with its vector in [`PullEmbedder::put`].
    pub id: u64,
    /// The text to embed.
    pub text: String,
}

/// What the host gives back for one job.
#[derive(Debug, Clone, PartialEq)]
pub enum PullResult {
    /// The job's vector (normalized here).
    Vector(Vec<f32>),
    /// The host could not embed it; the batch it was in fails (its tools are found by words).
    Error(String),
}

/// An [`Embedder`] whose vectors the host pulls work for and pushes back.
pub struct PullEmbedder {
    dim: usize,
    identity: String,
    state: Mutex<PullState>,
    cond: Condvar,
}

#[derive(Default)]
struct PullState {
    next_id: u64,
    /// Texts not yet taken by the host.
    waiting: VecDeque<PullJob>,
    /// Jobs of running batches (waiting or taken) without a result yet.
    open: HashMap<u64, ()>,
    /// Results not yet collected by their batch.
    done: HashMap<u64, PullResult>,
    /// The registry let this embedder go: batches stop waiting.
    cancelled: bool,
}

impl PullEmbedder {
    /// A pulled embedder of vectors of `dim` numbers; `identity` names the model for the
    /// on-disk cache (empty: `host:<dim>`).
    pub fn new(dim: usize, identity: &str) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::invalid(format!(
                "embedder dimension: {dim}; expected 1 to {MAX_DIM}"
            )));
        }
        Ok(PullEmbedder {
            dim,
            identity: if identity.is_empty() {
                format!("host:{dim}")
            } else {
                identity.to_string()
            },
            state: Mutex::new(PullState::default()),
            cond: Condvar::new(),
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, PullState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Up to `max` texts waiting for their vectors, oldest first (none: nothing waits now).
    pub fn take(&self, max: usize) -> Vec<PullJob> {
        let mut s = self.lock();
        let n = max.min(s.waiting.len());
        s.waiting.drain(..n).collect()
    }

    /// Gives results back. All are checked first (a vector of the wrong length, with a NaN or an
    /// infinity, or all zeros is INVALID_ARGUMENT naming its index, and nothing is applied); ids
    /// of no running batch (already answered, or their batch gave up) are ignored.
    pub fn put(&self, results: Vec<(u64, PullResult)>) -> Result<usize> {
        let mut checked = Vec::with_capacity(results.len());
        for (i, (id, result)) in results.into_iter().enumerate() {
            checked.push((
                id,
                match result {
                    PullResult::Vector(mut v) => {
                        if v.len() != self.dim {
                            return Err(Error::invalid(format!(
                                "results[{i}].vector: {} numbers, expected {} (the embedder's dim)",
                                v.len(),
                                self.dim
                            )));
                        }
                        if !normalize(&mut v) {
                            return Err(Error::invalid(format!(
                                "results[{i}].vector: a NaN, an infinity or only zeros"
                            )));
                        }
                        PullResult::Vector(v)
                    }
                    other => other,
                },
            ));
        }
        let mut s = self.lock();
        let mut applied = 0;
        for (id, result) in checked {
            if s.open.remove(&id).is_some() {
                s.waiting.retain(|j| j.id != id);
                s.done.insert(id, result);
                applied += 1;
            }
        }
        drop(s);
        self.cond.notify_all();
        Ok(applied)
    }
}

impl std::fmt::Debug for PullEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PullEmbedder({}, dim {})", self.identity, self.dim)
    }
}

impl Embedder for PullEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    /// Queues the texts for the host and waits for all their results (on the embedding thread).
    fn embed(&self, texts: &[&str]) -> Result<Vec<f32>> {
        let mut s = self.lock();
        if s.cancelled {
            return Err(Error::invalid("the pulled embedder was let go"));
        }
        let first = s.next_id;
        s.next_id += texts.len() as u64;
        for (k, t) in texts.iter().enumerate() {
            let id = first + k as u64;
            s.open.insert(id, ());
            s.waiting.push_back(PullJob {
                id,
                text: (*t).to_string(),
            });
        }
        let ids = first..first + texts.len() as u64;
        while !s.cancelled && ids.clone().any(|id| s.open.contains_key(&id)) {
            s = self.cond.wait(s).unwrap_or_else(|e| e.into_inner());
        }
        let results: Vec<Option<PullResult>> = ids.clone().map(|id| s.done.remove(&id)).collect();
        for id in ids {
            s.open.remove(&id);
        }
        s.waiting
            .retain(|j| j.id < first || j.id >= first + texts.len() as u64);
        if s.cancelled {
            return Err(Error::invalid("the pulled embedder was let go"));
        }
        drop(s);
        let mut out = Vec::with_capacity(texts.len() * self.dim);
        for r in results {
            match r {
                Some(PullResult::Vector(v)) => out.extend_from_slice(&v),
                Some(PullResult::Error(m)) => {
                    return Err(Error::invalid(format!("the host embedder failed: {m}")));
                }
                None => return Err(Error::invalid("the host gave no vector")),
            }
        }
        Ok(out)
    }

    fn embeds_queries(&self) -> bool {
        false
    }

    fn cancel(&self) {
        self.lock().cancelled = true;
        self.cond.notify_all();
    }

    fn as_pull(&self) -> Option<&PullEmbedder> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn a_batch_waits_for_the_host_and_gets_its_vectors_in_order() {
        let e = Arc::new(PullEmbedder::new(2, "").unwrap());
        let worker = {
            let e = Arc::clone(&e);
            std::thread::spawn(move || e.embed(&["a", "b"]))
        };
        let mut jobs = Vec::new();
        while jobs.len() < 2 {
            jobs.extend(e.take(1));
            std::thread::yield_now();
        }
        assert_eq!(jobs[0].text, "a");
        assert!(
            e.put(vec![(jobs[0].id, PullResult::Vector(vec![3.0]))])
                .is_err(),
            "a short vector is refused"
        );
        assert!(
            e.put(vec![(jobs[0].id, PullResult::Vector(vec![0.0, 0.0]))])
                .is_err()
        );
        // Given in reverse; a stale id is ignored.
        let n = e
            .put(vec![
                (jobs[1].id, PullResult::Vector(vec![0.0, 2.0])),
                (999, PullResult::Vector(vec![1.0, 0.0])),
                (jobs[0].id, PullResult::Vector(vec![3.0, 4.0])),
            ])
            .unwrap();
        assert_eq!(n, 2);
        let v = worker.join().unwrap().unwrap();
        assert_eq!(v, vec![0.6, 0.8, 0.0, 1.0]);
    }

    #[test]
    fn an_error_fails_the_batch_and_cancel_releases_a_waiting_one() {
        let e = Arc::new(PullEmbedder::new(2, "m").unwrap());
        let worker = {
            let e = Arc::clone(&e);
            std::thread::spawn(move || e.embed(&["a"]))
        };
        let job = loop {
            if let Some(j) = e.take(8).pop() {
                break j;
            }
            std::thread::yield_now();
        };
        e.put(vec![(job.id, PullResult::Error("quota".into()))])
            .unwrap();
        let err = worker.join().unwrap().unwrap_err().to_string();
        assert!(err.contains("quota"), "{err}");
        let worker = {
            let e = Arc::clone(&e);
            std::thread::spawn(move || e.embed(&["b"]))
        };
        while e.lock().open.is_empty() {
            std::thread::yield_now();
        }
        e.cancel();
        assert!(worker.join().unwrap().is_err());
        assert!(
            e.take(8).is_empty(),
            "a cancelled batch's texts are withdrawn"
        );
    }
}
