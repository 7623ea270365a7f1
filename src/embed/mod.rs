//! Embeddings: text to unit vectors, kept per tool beside the lexical index, so discovery can
//! find tools by meaning (the `hybrid` profile).
//!
//! An [`Embedder`] turns a batch of texts into unit vectors of a fixed dimension. Two kinds: the
//! built-in [`LocalEncoder`] (a BERT-family sentence-transformers model read from a directory,
//! run on the CPU in pure Rust) and a host function ([`HostEmbedder`]: an embedding API, an ONNX
//! model, anything). [`VectorStore`] keeps each tool's vector in step with the registry;
//! [`cache`] keeps vectors on disk across restarts. Nothing above discovery knows which embedder
//! ran.

pub mod attach;
pub mod cache;
pub mod encoder;
pub mod store;
pub(crate) mod worker;

pub use attach::{EmbeddingOptions, EmbeddingStatus, MODEL_DIR_ENV};
pub use encoder::LocalEncoder;
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

/// The text of a tool that is embedded: its name with `_`, `-` and `.` read as spaces, its
/// description, and its parameter names, one after the other.
///
/// The name is split because sentence encoders read words, not identifiers; parameter names say
/// what the tool takes, and their descriptions are left out because they would outweigh a short
/// tool description in a mean-pooled vector.
pub fn tool_text(tool: &Tool) -> String {
    let mut text = String::with_capacity(tool.name().len() + tool.description().len() + 64);
    let name: String = tool
        .name()
        .chars()
        .map(|c| if matches!(c, '_' | '-' | '.') { ' ' } else { c })
        .collect();
    text.push_str(name.trim());
    let description = tool.description().trim();
    if !description.is_empty() {
        text.push_str(". ");
        text.push_str(description);
    }
    let params = tool.param_names();
    if !params.is_empty() {
        text.push_str(" Parameters: ");
        text.push_str(&params.join(", "));
    }
    text
}

/// A 128-bit hash of an embedded text, the key of the on-disk cache and of a tool's vector.
pub fn text_hash(text: &str) -> u128 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    u128::from_le_bytes(digest[..16].try_into().expect("16 bytes"))
}
