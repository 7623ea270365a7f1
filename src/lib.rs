//! A tool registry and tool-discovery engine for LLM agents.
//!
//! Register tool definitions (OpenAI, Anthropic, MCP or flat JSON), mark the rarely used ones
//! deferred, and let the model find them on demand through the built-in `discover_tools`: by exact
//! name (full schema, score 1.0) or by a natural-language query ranked with BM25F over the name,
//! description, search hint, tags and parameter names. With the reference profile, rankings reproduce
//! the Python reference `toolregistry` 0.19.0 exactly.
//!
//! Data flows one way: JSON ([`tool`]) → validated [`Tool`] values → [`Registry`] (the source of
//! truth) → [`analyzer`] → BM25F [`index`] (kept in step incrementally) → ranked [`Hit`]s → JSON.
//! Beside the index, [`embed`] keeps each tool's vector (an embedder: the built-in sentence encoder
//! or a host function), and discovery fuses the two rankings.
//!
//! ```
//! use toolregistry::{Registry, DiscoveryOptions, DiscoverRequest};
//! let registry = Registry::new();
//! registry.register_json(r#"[
//!   {"name": "read_file", "description": "Read a file from disk."},
//!   {"name": "send_email", "description": "Send an email.", "metadata": {"defer": true}}
//! ]"#).unwrap();
//! let discoverer = registry.discoverer(DiscoveryOptions::default());
//! let hits = discoverer.discover("email someone", &DiscoverRequest::default()).unwrap();
//! assert_eq!(hits[0].name, "send_email");
//! ```
//!
//! Three ranking profiles: [`Profile::Enhanced`] (the default without an embedder) finds the right
//! tool more often on real catalogs (identifier splitting, stemming, parameter descriptions, query
//! function words dropped, per-field BM25F, common English words discounted; see EVALUATION.md);
//! [`Profile::Hybrid`] (the default with an embedder, [`Registry::set_embedder`]) fuses it with the
//! embedder's cosine, finding tools by meaning; [`Profile::Reference`]
//! (`DiscoveryOptions::reference()`) reproduces the reference exactly.
//! [`Discoverer::explain`] says why a tool ranks where it does, and [`eval`] measures a ranking.
//!
//! The C ABI lives in `src/ffi/` (header `include/toolregistry.h`); it is the only code with `unsafe`.

#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod analyzer;
pub mod builtins;
pub mod conversation;
pub mod discovery;
pub mod embed;
pub mod error;
pub mod eval;
pub mod exec;
pub mod explain;
pub mod format;
pub mod index;
mod json;
pub mod limits;
pub mod provider;
pub mod registry;
pub mod schema;
pub mod suggest;
pub mod tool;
pub mod usage;
pub mod validate;

pub mod ffi;

pub use analyzer::EnhancedAnalysis;
pub use conversation::{Conversation, ConversationOptions, Mode, SearchSide};
pub use discovery::{
    DiscoverRequest, Discoverer, DiscoveryOptions, Dropped, FieldWeights, Hit, Profile, QueryToken,
};
pub use embed::{EmbeddingOptions, EmbeddingStatus};
pub use error::{Error, Result};
pub use exec::{
    ExecuteOptions, HostOutcome, Plan, execute_json, finish, finish_json, prepare, prepare_json,
    run_call,
};
pub use explain::{Explanation, IntentExplanation, Outcome};
pub use format::ApiFormat;
pub use provider::{Arguments, CallOutcome, ToolCall};
pub use registry::{HostFn, HostResult, Registry, SchemaOptions, Summary, ToolStatus};
pub use tool::{MetadataUpdate, Tool, ToolMetadata};

/// The library version, as in `Cargo.toml`.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
