//! Schema cleaning: what a tool's parameters schema looks like in each provider's request.
//!
//! The registry stores a tool's schema as registered; every schema the library emits goes
//! through here. Three forms, each computed once per tool on first use ([`SchemaCache`]):
//!
//! - **flattened** (`openai-chat`, `openai-responses`, `anthropic`): the reference's cleaning
//!   ([`flatten`]): local `$ref`s inlined and the definition maps dropped (a circular reference is
//!   cut), `allOf` merged, `anyOf`/`oneOf` null variants removed (one variant left is merged in),
//!   `$schema`, `title`, `examples`, `const`, … stripped outside property-name maps, `required`
//!   pruned to existing properties;
//! - **Gemini** ([`gemini`]): the flattened schema in Gemini's OpenAPI subset, types in upper case;
//! - **strict** ([`strict`]): the flattened schema in OpenAI's strict-mode subset, or the reason
//!   it cannot be (the tool is then emitted non-strict with a warning, never dropped).

pub mod flatten;
pub mod gemini;
pub mod strict;
mod unchanged;

use once_cell::race::OnceBox;
use serde_json::Value;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

/// Which cleaned form of a schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The reference's flattening (OpenAI chat and responses, Anthropic).
    Flattened = 0,
    /// Gemini's function-declaration subset.
    Gemini = 1,
    /// OpenAI strict mode.
    Strict = 2,
}

impl Form {
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

// Which form each provider takes is its `Provider::schema_form`; the strict-mode checks live
// there too and stay reachable here for existing callers.
pub use crate::provider::{check_strict, has_strict_mode};

/// A schema ready to be written: its parameters JSON, whether it is the strict form, and when
/// strict mode was asked for but is impossible, why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cleaned<'a> {
    /// Compact JSON of the parameters schema.
    pub parameters: &'a str,
    /// The strict form (write `"strict": true`).
    pub strict: bool,
    /// Strict mode was asked for and is impossible for this schema: the reason.
    pub warning: Option<&'a str>,
}

/// The cleaned forms of one stored schema that differ from it, filled on first use; with
/// [`SameForms`], which records the forms equal to the stored text without allocating.
///
/// 8 bytes per tool until a differing form is asked for (then a block holding the forms), plus
/// the byte of [`SameForms`], which fits in a [`crate::Tool`]'s padding. Most tools of a clean
/// catalog keep nothing but that bit for their flattened form.
#[derive(Default)]
pub struct SchemaCache {
    texts: OnceBox<Texts>,
}

/// One bit per [`Form`]: known to equal the stored schema text.
#[derive(Default)]
pub struct SameForms(AtomicU8);

impl SameForms {
    /// None known yet (usable in a `static`).
    pub const fn new() -> Self {
        SameForms(AtomicU8::new(0))
    }
}

impl Clone for SameForms {
    fn clone(&self) -> Self {
        SameForms(AtomicU8::new(self.0.load(Ordering::Relaxed)))
    }
}

impl std::fmt::Debug for SameForms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SameForms({:#05b})", self.0.load(Ordering::Relaxed))
    }
}

/// Per [`Form`], its text when it differs from the stored one, or why there is none (strict).
#[derive(Default)]
struct Texts([OnceLock<Result<Box<str>, Box<str>>>; 3]);

impl SchemaCache {
    /// An empty cache (usable in a `static`).
    pub const fn new() -> Self {
        SchemaCache {
            texts: OnceBox::new(),
        }
    }

    /// The parameters of `stored` (compact JSON of the registered schema) in `form`; `same`
    /// belongs with this cache and `stored` (both only ever see this one schema).
    pub fn clean<'a>(&'a self, same: &SameForms, stored: &'a str, form: Form) -> Cleaned<'a> {
        let slot = form as usize;
        let known = self.texts.get().and_then(|t| t.0[slot].get());
        let cleaned = match known {
            Some(c) => c.as_deref(),
            None if same.0.load(Ordering::Relaxed) & form.bit() != 0 => Ok(stored),
            // The common clean schema, told without building it (a tool's first appearance).
            None if form == Form::Flattened && unchanged::flattened_is_unchanged(stored) => {
                same.0.fetch_or(form.bit(), Ordering::Relaxed);
                Ok(stored)
            }
            None => match compute(stored, form) {
                Ok(text) if *text == *stored => {
                    same.0.fetch_or(form.bit(), Ordering::Relaxed);
                    Ok(stored)
                }
                // Two threads may both compute; the first result is kept (they are equal).
                c => self.texts.get_or_init(Box::default).0[slot]
                    .get_or_init(|| c)
                    .as_deref(),
            },
        };
        match cleaned {
            Ok(parameters) => Cleaned {
                parameters,
                strict: form == Form::Strict,
                warning: None,
            },
            Err(reason) => Cleaned {
                parameters: self.clean(same, stored, Form::Flattened).parameters,
                strict: false,
                warning: Some(reason),
            },
        }
    }
}

/// Computes one form from the stored text.
fn compute(stored: &str, form: Form) -> Result<Box<str>, Box<str>> {
    let flat = flatten::normalize_parameters(&parse(stored));
    match form {
        Form::Flattened => Ok(to_text(&flat)),
        Form::Gemini => Ok(to_text(&gemini::gemini_parameters(&flat))),
        Form::Strict => strict::strict_parameters(&flat)
            .map(|v| to_text(&v))
            .map_err(Box::from),
    }
}

impl Clone for SchemaCache {
    /// A fresh, empty cache: the forms are recomputed on first use.
    fn clone(&self) -> Self {
        SchemaCache::new()
    }
}

impl std::fmt::Debug for SchemaCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SchemaCache")
            .field("filled", &self.texts.get().is_some())
            .finish()
    }
}

/// Cleans a schema without caching (for one-off schemas and tests): the parameters JSON, and
/// the strict-mode warning if any.
pub fn clean_uncached(stored: &str, form: Form) -> (String, Option<String>) {
    let cache = SchemaCache::new();
    let c = cache.clean(&SameForms::new(), stored, form);
    (c.parameters.to_string(), c.warning.map(str::to_string))
}

fn parse(stored: &str) -> Value {
    // Stored schemas were validated as JSON objects at registration.
    serde_json::from_str(stored).unwrap_or(Value::Null)
}

fn to_text(v: &Value) -> Box<str> {
    v.to_string().into_boxed_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clean_schema_is_not_copied() {
        let stored = r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#;
        let (cache, same) = (SchemaCache::new(), SameForms::new());
        let c = cache.clean(&same, stored, Form::Flattened);
        assert!(std::ptr::eq(c.parameters, stored));
        assert!(
            cache.texts.get().is_none(),
            "nothing allocated for an unchanged schema"
        );
        // Gemini differs (upper-case types): kept, and the same text on the next call.
        let g = cache.clean(&same, stored, Form::Gemini).parameters;
        assert!(g.contains("\"OBJECT\""));
        assert!(std::ptr::eq(
            cache.clean(&same, stored, Form::Gemini).parameters,
            g
        ));
    }

    #[test]
    fn strict_falls_back_to_the_flattened_schema_with_a_reason() {
        let stored =
            r#"{"type":"object","title":"T","properties":{"m":{"type":"object"}},"required":[]}"#;
        let (cache, same) = (SchemaCache::new(), SameForms::new());
        let c = cache.clean(&same, stored, Form::Strict);
        assert!(!c.strict);
        assert_eq!(
            c.parameters,
            r#"{"type":"object","properties":{"m":{"type":"object"}}}"#
        );
        assert_eq!(
            c.warning,
            Some("m: an object without \"properties\" takes arbitrary keys")
        );
        let ok = r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}"#;
        let (cache, same) = (SchemaCache::new(), SameForms::new());
        let c = cache.clean(&same, ok, Form::Strict);
        assert!(c.strict && c.warning.is_none());
        assert_eq!(
            c.parameters,
            r#"{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}"#
        );
    }
}
