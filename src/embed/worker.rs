//! The embedding thread: takes the slots whose text changed, embeds them with no lock held,
//! and installs their vectors, so registering never waits for an embedder and discovers never
//! wait for a catalog to be embedded (a tool without its vector yet is found lexically).

use super::cache::VectorCache;
use super::{Embedder, tool_text};
use crate::error::Result;
use crate::registry::Shared;
use std::sync::{Arc, Condvar, Mutex, Weak};
use std::time::{Duration, Instant};

/// Texts per call of the embedder: large enough for an embedding API's batch or the local
/// encoder's packed batches, small enough that a change is installed soon after it is made.
const BATCH: usize = 64;

/// An embedder at work for one registry: the embedder, the cache, and the thread's signals.
pub(crate) struct Embedding {
    embedder: Arc<dyn Embedder>,
    cache: Mutex<Option<VectorCache>>,
    signal: Mutex<Signal>,
    cond: Condvar,
    /// Warnings for the status report (a cache file ignored, a batch that failed).
    warnings: Mutex<Vec<String>>,
    /// The thread, joined when the registry state goes (see [`Embedding::finish`]).
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

#[derive(Debug, Default)]
struct Signal {
    /// Work may be waiting.
    wake: bool,
    /// The thread is embedding.
    busy: bool,
    /// The registry is gone or has another embedder: the thread ends.
    stop: bool,
    /// Number of vectors embedded (not found in the cache) since the start.
    embedded: u64,
}

impl std::fmt::Debug for Embedding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Embedding({})", self.embedder.identity())
    }
}

impl Embedding {
    /// An embedder at work with an optional cache file; its thread starts with
    /// [`spawn`](Self::spawn), once it is the registry's embedder.
    pub(crate) fn new(
        embedder: Arc<dyn Embedder>,
        cache_path: Option<&std::path::Path>,
    ) -> Arc<Self> {
        let mut warnings = Vec::new();
        let cache = cache_path.map(|p| {
            let (c, w) = VectorCache::open(p, &embedder.identity(), embedder.dim());
            if let Some(w) = w {
                eprintln!("toolregistry: {w}");
                warnings.push(w);
            }
            c
        });
        Arc::new(Embedding {
            embedder,
            cache: Mutex::new(cache),
            signal: Mutex::new(Signal {
                wake: true,
                ..Default::default()
            }),
            cond: Condvar::new(),
            warnings: Mutex::new(warnings),
            thread: Mutex::new(None),
        })
    }

    /// Starts the embedding thread for `shared`, whose embedder this must already be (a thread
    /// that finds another embedder in place ends at once).
    pub(crate) fn spawn(self: &Arc<Self>, shared: &Arc<Shared>) -> Result<()> {
        let weak = Arc::downgrade(shared);
        let me = Arc::clone(self);
        let handle = std::thread::Builder::new()
            .name("toolregistry-embed".into())
            .spawn(move || me.run(weak))
            .map_err(|err| {
                crate::error::Error::Internal(format!("cannot start the embedding thread: {err}"))
            })?;
        *self.thread.lock().unwrap_or_else(|e| e.into_inner()) = Some(handle);
        Ok(())
    }

    /// Stops the thread and waits for it (for its current batch, at most), so the embedder is let
    /// go on the caller's thread before the registry's free returns; on the thread itself, only
    /// stops it.
    pub(crate) fn finish(&self) {
        self.stop();
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(h) = handle {
            if h.thread().id() != std::thread::current().id() {
                let _ = h.join();
            }
        }
    }

    /// The embedder.
    pub(crate) fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }

    fn signal(&self) -> std::sync::MutexGuard<'_, Signal> {
        self.signal.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Tells the thread there may be new work.
    pub(crate) fn kick(&self) {
        self.signal().wake = true;
        self.cond.notify_all();
    }

    /// Ends the thread after its current batch.
    pub(crate) fn stop(&self) {
        self.signal().stop = true;
        self.cond.notify_all();
        // A pulled embedder's batch would wait for its host forever.
        self.embedder.cancel();
    }

    /// Waits until every pending slot is embedded (or failed), at most `timeout`; true when
    /// done.
    pub(crate) fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut s = self.signal();
        while (s.wake || s.busy) && !s.stop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            s = self
                .cond
                .wait_timeout(s, left)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Vectors computed by the embedder (not found in the cache) since the start.
    pub(crate) fn embedded_count(&self) -> u64 {
        self.signal().embedded
    }

    /// Warnings so far.
    pub(crate) fn warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn warn(&self, w: String) {
        let mut ws = self.warnings.lock().unwrap_or_else(|e| e.into_inner());
        if ws.len() >= 16 {
            ws.remove(0);
        }
        ws.push(w);
    }

    fn run(self: Arc<Self>, shared: Weak<Shared>) {
        loop {
            {
                let mut s = self.signal();
                while !s.wake && !s.stop {
                    s = self.cond.wait(s).unwrap_or_else(|e| e.into_inner());
                }
                if s.stop {
                    s.busy = false;
                    drop(s);
                    self.cond.notify_all();
                    return;
                }
                s.wake = false;
                s.busy = true;
            }
            let more = self.drain(&shared);
            if let Some(cache) = self
                .cache
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .as_mut()
            {
                if let Err(w) = cache.save() {
                    eprintln!("toolregistry: {w}");
                    self.warn(w);
                }
            }
            let mut s = self.signal();
            s.busy = false;
            if !more {
                s.stop = true;
            }
            drop(s);
            self.cond.notify_all();
            if !more {
                return;
            }
        }
    }

    /// Embeds batches until none is pending; false when the registry is gone (or the thread
    /// was stopped).
    fn drain(&self, shared: &Weak<Shared>) -> bool {
        loop {
            if self.signal().stop {
                return false;
            }
            // The state is held only to take and to install, never while the embedder runs: a
            // registry freed meanwhile goes at once, and its free waits for this batch alone.
            let Some(jobs) = shared
                .upgrade()
                .and_then(|s| s.take_embedding_jobs(self, BATCH))
            else {
                return false;
            };
            if jobs.is_empty() {
                return true;
            }
            let dim = self.embedder.dim();
            let mut vectors: Vec<Option<Vec<f32>>> = vec![None; jobs.len()];
            let mut missing = Vec::new();
            {
                let cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
                for (i, job) in jobs.iter().enumerate() {
                    match cache.as_ref().and_then(|c| c.get(job.hash)) {
                        Some(v) => vectors[i] = Some(v.to_vec()),
                        None => missing.push(i),
                    }
                }
            }
            let mut failure = None;
            if !missing.is_empty() {
                let texts: Vec<&str> = missing.iter().map(|&i| jobs[i].text.as_str()).collect();
                // A host embedder may panic (a binding turns exceptions into errors, but a Rust
                // closure can still panic): that fails the batch, not the thread.
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.embedder.embed(&texts)
                }))
                .unwrap_or_else(|p| {
                    Err(crate::error::Error::Internal(format!(
                        "the embedder panicked: {}",
                        crate::error::panic_message(&p)
                    )))
                });
                match result {
                    Ok(flat) if flat.len() == missing.len() * dim => {
                        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
                        for (k, &i) in missing.iter().enumerate() {
                            let v = flat[k * dim..(k + 1) * dim].to_vec();
                            if let Some(c) = cache.as_mut() {
                                c.put(jobs[i].hash, &v);
                            }
                            vectors[i] = Some(v);
                        }
                        self.signal().embedded += missing.len() as u64;
                    }
                    Ok(flat) => {
                        failure = Some(format!(
                            "the embedder returned {} numbers for {} texts of dimension {dim}",
                            flat.len(),
                            missing.len()
                        ))
                    }
                    Err(e) => failure = Some(e.to_string()),
                }
            }
            if let Some(f) = &failure {
                let w = format!(
                    "{} tools not embedded (found by words only until their text changes): {f}",
                    missing.len()
                );
                self.warn(w);
            }
            let Some(state) = shared.upgrade() else {
                return false;
            };
            state.install_vectors(self, &jobs, &vectors);
        }
    }
}

/// One slot to embed: its id, the hash of its text, the text.
pub(crate) struct Job {
    pub id: crate::index::DocId,
    pub hash: u128,
    pub text: String,
}

impl Shared {
    /// Takes up to `n` pending slots with their texts, if `embedding` is still this registry's
    /// embedder (`None`: it is not, and its thread should end).
    fn take_embedding_jobs(&self, embedding: &Embedding, n: usize) -> Option<Vec<Job>> {
        let mut state = self.write_quiet().ok()?;
        if !self.is_current_embedding(embedding) {
            return None;
        }
        let taken = state.vectors_mut()?.take_pending(n);
        Some(
            taken
                .into_iter()
                .map(|(id, hash)| Job {
                    id,
                    hash,
                    text: tool_text(state.tool_at(id)),
                })
                .collect(),
        )
    }

    /// Installs the vectors of `jobs`; a job without one is marked failed.
    fn install_vectors(&self, embedding: &Embedding, jobs: &[Job], vectors: &[Option<Vec<f32>>]) {
        let Ok(mut state) = self.write_quiet() else {
            return;
        };
        if !self.is_current_embedding(embedding) {
            return;
        }
        let Some(store) = state.vectors_mut() else {
            return;
        };
        for (job, v) in jobs.iter().zip(vectors) {
            match v {
                Some(v) => {
                    store.install(job.id, job.hash, v);
                }
                None => store.fail(job.id, job.hash),
            }
        }
    }
}
