//! Embeddings: text to unit vectors, kept per tool beside the lexical index, so discovery can
//! find tools by meaning (the `hybrid` profile).
//!
//! An [`Embedder`] turns a batch of texts into unit vectors of a fixed dimension. Two kinds: the
//! built-in [`LocalEncoder`] (a BERT-family or MPNet sentence-transformers model from a directory,
//! run on the CPU in pure Rust) and a host function ([`HostEmbedder`]: an embedding API, an ONNX
//! model, anything). [`VectorStore`] keeps each tool's vector in step with the registry;
//! [`cache`] keeps vectors on disk across restarts. Nothing above discovery knows which embedder
//! ran.

pub mod attach;
pub mod cache;
pub mod encoder;
pub mod pull;
pub mod store;

pub use attach::{EmbeddingOptions, EmbeddingStatus, MODEL_DIR_ENV};
pub use encoder::LocalEncoder;
pub use pull::{PullEmbedder, PullJob, PullResult};
pub use store::VectorStore;

use crate::error::{Error, Result};
use crate::tool::Tool;
use std::sync::Arc;

/// Text to unit vectors, in batches.
///
/// Implementations are called with no registry lock held, from the library's embedding thread
/// (a catalog's tools) and from the thread of a discover (its query), possibly at the same time.
pub trait Embedder: Send + Sync {
    /// The dimension of every vector this embedder returns.
    fn dim(&self) -> usize;
    /// What makes two embedders' vectors interchangeable (a model's name and size); the on-disk
    /// cache keeps vectors only for the embedder that wrote them.
    fn identity(&self) -> String;
    /// Embeds `texts`: `texts.len() * dim()` numbers, row by row, each row of unit length.
    fn embed(&self, texts: &[&str]) -> Result<Vec<f32>>;
    /// Whether a discover may embed its query with it; a pulled embedder cannot (the host gives
    /// a query's vector with the discover option `query_vector`).
    fn embeds_queries(&self) -> bool {
        true
    }
    /// The registry let it go: work waiting on it stops waiting.
    fn cancel(&self) {}
    /// The pulled embedder, when this is one.
    fn as_pull(&self) -> Option<&PullEmbedder> {
        None
    }
}

/// A host function that embeds a batch: gets the texts, answers one vector per text (row by
/// row), or an error message.
pub type HostEmbedFn = Arc<dyn Fn(&[&str]) -> std::result::Result<Vec<f32>, String> + Send + Sync>;

/// An [`Embedder`] backed by a host function, whose answers are checked: the right number of
/// vectors, finite numbers, not all zero. Rows are normalized to unit length.
pub struct HostEmbedder {
    dim: usize,
    identity: String,
    embed: HostEmbedFn,
}

impl HostEmbedder {
    /// Wraps `embed`, which returns vectors of `dim` numbers; `identity` names the model for the
    /// on-disk cache (empty: `host:<dim>`).
    pub fn new(dim: usize, identity: &str, embed: HostEmbedFn) -> Result<Self> {
        if dim == 0 || dim > MAX_DIM {
            return Err(Error::invalid(format!(
                "embedder dimension: {dim}; expected 1 to {MAX_DIM}"
            )));
        }
        let identity = if identity.is_empty() {
            format!("host:{dim}")
        } else {
            identity.to_string()
        };
        Ok(HostEmbedder {
            dim,
            identity,
            embed,
        })
    }
}

impl std::fmt::Debug for HostEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostEmbedder({}, dim {})", self.identity, self.dim)
    }
}

impl Embedder for HostEmbedder {
    fn dim(&self) -> usize {
        self.dim
    }

    fn identity(&self) -> String {
        self.identity.clone()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<f32>> {
        let mut out = (self.embed)(texts)
            .map_err(|m| Error::invalid(format!("the host embedder failed: {m}")))?;
        if out.len() != texts.len() * self.dim {
            return Err(Error::invalid(format!(
                "the host embedder returned {} numbers for {} texts of dimension {} (expected {})",
                out.len(),
                texts.len(),
                self.dim,
                texts.len() * self.dim
            )));
        }
        for (i, row) in out.chunks_exact_mut(self.dim).enumerate() {
            if !normalize(row) {
                return Err(Error::invalid(format!(
                    "the host embedder returned a vector with a NaN, an infinity or only zeros (text {i})"
                )));
            }
        }
        Ok(out)
    }
}

/// Largest vector dimension accepted from any embedder.
pub const MAX_DIM: usize = 8192;

/// Scales `row` to unit length; false when it has a non-finite number or is all zeros.
pub fn normalize(row: &mut [f32]) -> bool {
    let norm: f32 = row.iter().map(|x| x * x).sum::<f32>().sqrt();
    if !norm.is_finite() || norm == 0.0 {
        return false;
    }
    row.iter_mut().for_each(|x| *x /= norm);
    true
}

/// The text of a tool that is embedded: its name with `_`, `-`, `.`, `/` and `:` read as spaces
/// and camelCase split, its description, its search hint and tags, and its parameter names.
///
/// Sentence encoders read words, not identifiers, so the name is split (`/` and `:` join
/// namespaces and paths, as in `hub/org/model`); the search hint and tags are the author's own
/// words for what the tool is for; parameter names say what it takes. Parameter descriptions are
/// left out: they would double the text of a typical catalog, and so the time to embed it
/// (EVALUATION.md has what they would gain).
pub fn tool_text(tool: &Tool) -> String {
    let mut text = String::with_capacity(tool.name().len() + tool.description().len() + 64);
    let mut prev: Option<char> = None;
    for c in tool.name().trim().chars() {
        if matches!(c, '_' | '-' | '.' | '/' | ':') {
            text.push(' ');
        } else {
            if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
                text.push(' ');
            }
            text.push(c);
        }
        prev = Some(c);
    }
    let mut sentence = |label: &str, body: &str| {
        let body = body.trim();
        if !body.is_empty() {
            text.push_str(label);
            text.push_str(body);
        }
    };
    sentence(". ", tool.description());
    let meta = tool.metadata();
    sentence(" ", &meta.search_hint);
    sentence(" Tags: ", &meta.tags.join(", "));
    sentence(" Parameters: ", &tool.param_names().join(", "));
    text
}

/// A 128-bit hash of an embedded text, the key of the on-disk cache and of a tool's vector.
pub fn text_hash(text: &str) -> u128 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    u128::from_le_bytes(digest[..16].try_into().expect("16 bytes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_text_reads_names_as_words_and_keeps_the_author_s_words() {
        let t = Tool::parse_many(
            r#"[{"name": "hub/getWeather_forecast.v2", "description": " Forecast. ", "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": " The city. "}, "days": {"type": "integer"}, "unit": {"type": "string", "description": "celsius"}}}, "metadata": {"tags": ["weather", "travel"], "search_hint": "rain sun"}}]"#,
        )
        .unwrap();
        assert_eq!(
            tool_text(&t[0]),
            "hub get Weather forecast v2. Forecast. rain sun Tags: weather, travel Parameters: city, days, unit"
        );
        let bare = Tool::parse_many(r#"[{"name": "ping"}]"#).unwrap();
        assert_eq!(tool_text(&bare[0]), "ping");
    }

    #[test]
    fn host_embedder_answers_are_checked_and_normalized() {
        let ok = HostEmbedder::new(2, "", Arc::new(|t: &[&str]| Ok([3.0, 4.0].repeat(t.len()))))
            .unwrap();
        assert_eq!(ok.identity(), "host:2");
        assert_eq!(ok.embed(&["a", "b"]).unwrap(), vec![0.6, 0.8, 0.6, 0.8]);
        for (what, f) in [
            (
                "short",
                Arc::new(|_: &[&str]| Ok(vec![1.0f32])) as HostEmbedFn,
            ),
            ("nan", Arc::new(|_: &[&str]| Ok(vec![f32::NAN, 1.0]))),
            ("zero", Arc::new(|_: &[&str]| Ok(vec![0.0, 0.0]))),
            ("error", Arc::new(|_: &[&str]| Err("quota".to_string()))),
        ] {
            let e = HostEmbedder::new(2, "x", f).unwrap();
            assert!(e.embed(&["a"]).is_err(), "{what}");
        }
        assert!(HostEmbedder::new(0, "", Arc::new(|_: &[&str]| Ok(vec![]))).is_err());
    }
}
