//! Keeping each tool's vector in step with the registry: attaching an embedder, and the
//! embedding thread, which takes the slots whose text changed, embeds them with no lock held,
//! and installs their vectors, so registering never waits for an embedder and discovers never
//! wait for a catalog to be embedded (a tool without its vector yet is found lexically).

use super::{Registry, Shared};
use crate::embed::attach::{EmbeddingOptions, EmbeddingStatus, load_local};
use crate::embed::cache::VectorCache;
use crate::embed::{Embedder, MAX_DIM, tool_text};
use crate::error::{Error, Result};
use serde_json::Value;
use std::path::Path;
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

impl Registry {
    /// Sets the embedder that finds tools by meaning (the `hybrid` profile), replacing any
    /// other. Every enabled tool is embedded on the registry's embedding thread from now on, with
    /// no lock held; `cache_path` keeps the vectors across restarts. Discovers never wait for it.
    pub fn set_embedder(
        &self,
        embedder: Arc<dyn Embedder>,
        cache_path: Option<&Path>,
    ) -> Result<()> {
        let dim = embedder.dim();
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::invalid(format!(
                "embedder dimension: {dim}; expected 1 to {}",
                MAX_DIM
            )));
        }
        let shared = self.shared();
        let embedding = Embedding::new(embedder, cache_path);
        let mut state = shared.write()?;
        let old = shared.replace_embedding(Some(Arc::clone(&embedding)));
        state.reset_vectors(dim);
        drop(state);
        if let Some(old) = old {
            old.finish();
        }
        if let Err(e) = embedding.spawn(shared) {
            // No thread: undo, so the registry stays as it was (words only).
            shared.replace_embedding(None);
            shared.write()?.clear_vectors();
            return Err(e);
        }
        Ok(())
    }

    /// Sets the embedder the `"embedding"` options describe (the local encoder of `model_dir`).
    pub fn set_embedding_options(&self, options: &EmbeddingOptions) -> Result<()> {
        let Some(dir) = &options.model_dir else {
            return Err(Error::invalid(
                "embedding.model_dir: required (a sentence-transformers model directory)",
            ));
        };
        let encoder = load_local(dir, options.threads)?;
        self.set_embedder(encoder, options.cache_path.as_deref())
    }

    /// The registry's pulled embedder (see [`super::PullEmbedder`]), or INVALID_ARGUMENT.
    fn pulled(&self) -> Result<Arc<dyn Embedder>> {
        match self.shared().embedding() {
            Some(e) if e.embedder().as_pull().is_some() => Ok(Arc::clone(e.embedder())),
            _ => Err(Error::invalid(
                "the registry has no pulled embedder (set one with {\"dim\": N, \"pull\": true})",
            )),
        }
    }

    /// Up to `max` texts waiting for their vectors from the host (the pull model).
    pub fn take_embedding_jobs(&self, max: usize) -> Result<Vec<crate::embed::PullJob>> {
        let embedder = self.pulled()?;
        Ok(embedder.as_pull().expect("pulled").take(max))
    }

    /// [`take_embedding_jobs`](Self::take_embedding_jobs) as JSON: `[{"id": int, "text": str}]`.
    pub fn take_embedding_jobs_json(&self, max: usize) -> Result<String> {
        let jobs: Vec<serde_json::Value> = self
            .take_embedding_jobs(max)?
            .into_iter()
            .map(|j| serde_json::json!({"id": j.id, "text": j.text}))
            .collect();
        Ok(crate::json::json_text(&serde_json::Value::Array(jobs)))
    }

    /// The host's results for jobs of [`take_embedding_jobs`](Self::take_embedding_jobs), from
    /// `[{"id": int, "vector": [number]} | {"id": int, "error": str}]`; all checked before any is
    /// applied. Answers how many were applied (stale ids are ignored).
    pub fn put_embeddings_json(&self, results_json: &str) -> Result<usize> {
        let embedder = self.pulled()?;
        let value = crate::limits::parse_json(results_json, "results")?;
        let items = value.as_array().ok_or_else(|| {
            Error::invalid(format!(
                "results: expected an array, got {}",
                crate::limits::kind_of(&value)
            ))
        })?;
        let mut results = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let here = format!("results[{i}]");
            let id = item.get("id").and_then(Value::as_u64).ok_or_else(|| {
                Error::invalid(format!("{here}.id: expected a job id (an integer)"))
            })?;
            let result = match (item.get("vector"), item.get("error")) {
                (Some(Value::Array(v)), None) => crate::embed::PullResult::Vector(
                    v.iter()
                        .enumerate()
                        .map(|(k, x)| {
                            x.as_f64().map(|x| x as f32).ok_or_else(|| {
                                Error::invalid(format!(
                                    "{here}.vector[{k}]: expected a number, got {}",
                                    crate::limits::kind_of(x)
                                ))
                            })
                        })
                        .collect::<Result<_>>()?,
                ),
                (None, Some(Value::String(m))) => crate::embed::PullResult::Error(m.clone()),
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: expected {{\"id\", \"vector\": [number]}} or {{\"id\", \"error\": str}}"
                    )));
                }
            };
            results.push((id, result));
        }
        embedder.as_pull().expect("pulled").put(results)
    }

    /// Waits until every tool waiting for its vector has one (or failed), at most `timeout`.
    /// True when none waits (also when no embedder is set).
    pub fn wait_embeddings(&self, timeout: Duration) -> Result<bool> {
        match self.shared().embedding() {
            None => Ok(true),
            Some(e) => Ok(e.wait_idle(timeout)),
        }
    }

    /// What the embedder has done, or `None` without one.
    pub fn embedding_status(&self) -> Result<Option<EmbeddingStatus>> {
        let Some(e) = self.shared().embedding() else {
            return Ok(None);
        };
        let state = self.shared().read()?;
        let Some(v) = state.vectors() else {
            return Ok(None);
        };
        // Enabled tools only: a disabled one keeps its vector for when it comes back.
        let (ready, pending, failed) = v.counts(|id| state.is_indexed(id));
        Ok(Some(EmbeddingStatus {
            embedder: e.embedder().identity(),
            dim: v.dim(),
            ready,
            pending,
            failed,
            embedded: e.embedded_count(),
            warnings: e.warnings(),
        }))
    }
}

/// The error for the `hybrid` profile on a registry without an embedder.
pub(crate) fn missing_embedder() -> Error {
    Error::invalid(
        "profile: \"hybrid\" needs an embedder: give the registry options \"embedding\": {\"model_dir\": ...} (a sentence-transformers model; scripts/fetch-model.sh gets one) or set one with tr_registry_set_embedder",
    )
}
