//! Attaching an embedder to a registry: the `"embedding"` options, the process-wide cache of
//! loaded local models, and the registry's embedding status.

use super::worker::Embedding;
use super::{Embedder, LocalEncoder};
use crate::error::{Error, Result};
use crate::limits::{kind_of, object_or_null};
use crate::registry::Registry;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

/// The environment variable naming a model directory for registries whose options do not say
/// `"embedding"`.
pub const MODEL_DIR_ENV: &str = "TOOLREGISTRY_MODEL_DIR";

/// How a registry embeds: `{"model_dir"?: str, "cache_path"?: str, "threads"?: int}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EmbeddingOptions {
    /// A sentence-transformers model directory for the built-in encoder.
    pub model_dir: Option<PathBuf>,
    /// A file that keeps text-hash → vector across restarts.
    pub cache_path: Option<PathBuf>,
    /// Most threads the local encoder uses to embed a catalog (default: all cores).
    pub threads: Option<usize>,
}

impl EmbeddingOptions {
    /// Parses the `"embedding"` options; `path` prefixes error messages.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let mut o = EmbeddingOptions::default();
        let Some(obj) = object_or_null(value, path)? else {
            return Ok(o);
        };
        for (key, v) in obj {
            let here = format!("{path}.{key}");
            let text = || -> Result<Option<PathBuf>> {
                match v {
                    Value::Null => Ok(None),
                    Value::String(s) if !s.is_empty() => Ok(Some(PathBuf::from(s))),
                    _ => Err(Error::invalid(format!(
                        "{here}: expected a non-empty path string, got {}",
                        kind_of(v)
                    ))),
                }
            };
            match key.as_str() {
                "model_dir" => o.model_dir = text()?,
                "cache_path" => o.cache_path = text()?,
                "threads" => {
                    o.threads = match v {
                        Value::Null => None,
                        _ => Some(v.as_u64().filter(|&n| (1..=256).contains(&n)).ok_or_else(
                            || {
                                Error::invalid(format!(
                                    "{here}: expected an integer from 1 to 256, got {v}"
                                ))
                            },
                        )? as usize),
                    }
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected model_dir, cache_path or threads)"
                    )));
                }
            }
        }
        Ok(o)
    }
}

/// Loaded local models by directory, shared by every registry of the process that names the
/// same one (a model is 90 MB of weights and half a second to load).
static MODELS: Mutex<Vec<LoadedModel>> = Mutex::new(Vec::new());

/// A loaded model: its directory, its thread cap, and the encoder while anyone uses it.
type LoadedModel = (PathBuf, Option<usize>, Weak<LocalEncoder>);

/// The local encoder of `dir` (with `threads`), loaded once per process while in use.
pub fn load_local(dir: &Path, threads: Option<usize>) -> Result<Arc<LocalEncoder>> {
    let key = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let mut models = MODELS.lock().unwrap_or_else(|e| e.into_inner());
    models.retain(|(_, _, w)| w.strong_count() > 0);
    if let Some(m) = models
        .iter()
        .find(|(p, t, _)| *p == key && *t == threads)
        .and_then(|(_, _, w)| w.upgrade())
    {
        return Ok(m);
    }
    let mut enc = LocalEncoder::load(dir)?;
    if let Some(t) = threads {
        enc.set_threads(t);
    }
    let enc = Arc::new(enc);
    models.push((key, threads, Arc::downgrade(&enc)));
    Ok(enc)
}

/// What a registry's embedder has done: `tools_status` and the CLI report it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddingStatus {
    /// The embedder's identity (see [`Embedder::identity`]).
    pub embedder: String,
    /// Its vectors' dimension.
    pub dim: usize,
    /// Enabled tools with their vector.
    pub ready: usize,
    /// Tools waiting for their vector (found by words only until then).
    pub pending: usize,
    /// Tools the embedder failed on (found by words only until their text changes).
    pub failed: usize,
    /// Vectors computed by the embedder since it was set (the rest came from the cache).
    pub embedded: u64,
    /// The last warnings (a cache file ignored, a batch that failed).
    pub warnings: Vec<String>,
}

impl EmbeddingStatus {
    /// The status as JSON: `{"embedder", "dim", "ready", "pending", "failed", "embedded",
    /// "warnings"}` (what `tr_registry_embedding_status` answers).
    pub fn to_json(&self) -> String {
        serde_json::json!({
            "embedder": self.embedder,
            "dim": self.dim,
            "ready": self.ready,
            "pending": self.pending,
            "failed": self.failed,
            "embedded": self.embedded,
            "warnings": self.warnings,
        })
        .to_string()
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
        if dim == 0 || dim > super::MAX_DIM {
            return Err(Error::invalid(format!(
                "embedder dimension: {dim}; expected 1 to {}",
                super::MAX_DIM
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
    pub fn take_embedding_jobs(&self, max: usize) -> Result<Vec<super::PullJob>> {
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
                (Some(Value::Array(v)), None) => super::PullResult::Vector(
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
                (None, Some(Value::String(m))) => super::PullResult::Error(m.clone()),
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

/// Whether the registry options ask for the environment's model: no `"embedding"` key at all.
pub(crate) fn env_model_dir() -> Option<PathBuf> {
    std::env::var_os(MODEL_DIR_ENV)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// `options.embedding` of a registry, with the environment's model as the default when the
/// options do not name one.
pub(crate) fn options_from_registry(value: Option<&Value>) -> Result<Option<EmbeddingOptions>> {
    match value {
        None => Ok(env_model_dir().map(|d| EmbeddingOptions {
            model_dir: Some(d),
            ..Default::default()
        })),
        Some(Value::Null) | Some(Value::Bool(false)) => Ok(None),
        Some(v) => {
            let mut o = EmbeddingOptions::from_value(v, "options.embedding")?;
            if o.model_dir.is_none() {
                o.model_dir = env_model_dir();
            }
            if o.model_dir.is_none() {
                return Err(Error::invalid(format!(
                    "options.embedding.model_dir: required (or set {MODEL_DIR_ENV}); get a model with scripts/fetch-model.sh"
                )));
            }
            Ok(Some(o))
        }
    }
}
