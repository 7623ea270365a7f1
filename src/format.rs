//! Output: tool schemas in each provider's format, their parameters cleaned for it.
//!
//! Outputs are written straight into a byte buffer: the stored parameters schema is already compact
//! JSON, so a discover answer copies it instead of parsing and re-serializing a tree per hit. How
//! each provider wraps a tool is its [`Provider::write_tool`](crate::provider::Provider::write_tool).

pub use crate::json::{into_string, json_text, write_f64, write_opt_str, write_str};
pub use crate::provider::ApiFormat;

use crate::provider::provider;
use crate::schema::{SameForms, SchemaCache};
use crate::tool::Tool;

/// Appends the tool's schema in `format`, its parameters cleaned for that provider (see
/// [`crate::schema`]; computed once per tool and format).
pub fn write_schema(out: &mut Vec<u8>, tool: &Tool, format: ApiFormat) {
    write_schema_strict(out, tool, format, false);
}

/// [`write_schema`], in OpenAI strict mode when `strict` (and `format` is an OpenAI one). Returns
/// why the tool could not be made strict (it is then written non-strict), else `None`.
pub fn write_schema_strict<'a>(
    out: &mut Vec<u8>,
    tool: &'a Tool,
    format: ApiFormat,
    strict: bool,
) -> Option<&'a str> {
    let provider = provider(format);
    let cleaned = tool.cleaned_parameters(provider.schema_form(strict));
    provider.write_tool(out, tool.name(), tool.description(), &cleaned);
    cleaned.warning
}

/// Appends a schema from its parts; `parameters` is compact JSON of the schema as registered,
/// cleaned here for `format` (use [`write_cached_schema_parts`] for a schema written repeatedly).
pub fn write_schema_parts(
    out: &mut Vec<u8>,
    name: &str,
    description: &str,
    parameters: &str,
    format: ApiFormat,
) {
    let cache = (SchemaCache::new(), SameForms::new());
    write_cached_schema_parts(out, name, description, parameters, &cache, format, false);
}

/// [`write_schema_parts`] with the cleaned forms kept in `cache` (which must only ever see this
/// `parameters`), in strict mode when `strict`; returns the strict-mode warning, if any.
pub fn write_cached_schema_parts<'a>(
    out: &mut Vec<u8>,
    name: &str,
    description: &str,
    parameters: &'a str,
    cache: &'a (SchemaCache, SameForms),
    format: ApiFormat,
    strict: bool,
) -> Option<&'a str> {
    let provider = provider(format);
    let cleaned = cache
        .0
        .clean(&cache.1, parameters, provider.schema_form(strict));
    provider.write_tool(out, name, description, &cleaned);
    cleaned.warning
}
