//! How a registry asks for an embedder: the `"embedding"` options, the process-wide cache of
//! loaded local models, and the embedding status a registry reports. Attaching one to a
//! registry is the registry's business (`crate::registry`'s embedding module).

use super::LocalEncoder;
use crate::error::{Error, Result};
use crate::limits::{kind_of, object_or_null};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

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
    /// The embedder's identity (see [`Embedder::identity`](super::Embedder::identity)).
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
