//! The one error type of the core. Every variant maps to one C status code (see `src/ffi/status.rs`).

use thiserror::Error;

/// Why an operation on a registry or discoverer failed. A failed operation changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Error {
    /// The input is not well-formed JSON (or nests deeper than the parser allows).
    #[error("invalid JSON: {0}")]
    InvalidJson(String),
    /// Well-formed input whose content is wrong: a missing field, a wrong type, a value out of range.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// A tool, namespace or built-in that is not registered.
    #[error("not found: {0}")]
    NotFound(String),
    /// An input over one of the documented size limits.
    #[error("too large: {0}")]
    TooLarge(String),
    /// A broken internal invariant, such as a lock poisoned by an earlier panic.
    #[error("internal error: {0}")]
    Internal(String),
}

/// Shorthand for results of this crate.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    pub(crate) fn invalid(msg: impl Into<String>) -> Self {
        Error::InvalidArgument(msg.into())
    }

    pub(crate) fn not_found(msg: impl Into<String>) -> Self {
        Error::NotFound(msg.into())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Error::InvalidJson(e.to_string())
    }
}

/// The message of a caught panic (its `&str` or `String` payload).
pub(crate) fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string())
}
