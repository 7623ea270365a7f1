//! Options of an execute call.

use crate::error::{Error, Result};
use crate::format::ApiFormat;
use crate::limits::{kind_of, object_or_null, parse_json};
use serde_json::Value;

/// Most calls of one batch that may run at once (threads the library starts).
pub const MAX_PARALLEL: usize = 64;

/// How a batch of tool calls runs and is answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecuteOptions {
    /// Read and write this provider's shapes instead of detecting them.
    pub api_format: Option<ApiFormat>,
    /// Also return the assistant turn, rebuilt, before the results.
    pub include_assistant: bool,
    /// Up to this many calls at once on threads the library starts (1: one after another on the
    /// caller's thread).
    pub parallel: usize,
}

impl Default for ExecuteOptions {
    fn default() -> Self {
        ExecuteOptions {
            api_format: None,
            include_assistant: false,
            parallel: 1,
        }
    }
}

impl ExecuteOptions {
    /// Parses `{"api_format"?, "include_assistant"?, "parallel"?}`; `None`/`null` give defaults.
    pub fn from_json(text: Option<&str>) -> Result<Self> {
        let Some(text) = text else {
            return Ok(Self::default());
        };
        Self::from_value(&parse_json(text, "execute options")?, "options")
    }

    /// Parses the options object; `path` locates it in messages.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let mut o = Self::default();
        let Some(obj) = object_or_null(value, path)? else {
            return Ok(o);
        };
        for (key, v) in obj {
            let here = format!("{path}.{key}");
            match key.as_str() {
                "api_format" => match v {
                    Value::Null => o.api_format = None,
                    Value::String(s) => o.api_format = Some(ApiFormat::parse(s)?),
                    other => {
                        return Err(Error::invalid(format!(
                            "{here}: expected a string, got {}",
                            kind_of(other)
                        )));
                    }
                },
                "include_assistant" => {
                    o.include_assistant = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                "parallel" => {
                    o.parallel = v
                        .as_u64()
                        .filter(|&n| (1..=MAX_PARALLEL as u64).contains(&n))
                        .ok_or_else(|| {
                            Error::invalid(format!(
                                "{here}: expected an integer from 1 to {MAX_PARALLEL}, got {v}"
                            ))
                        })? as usize
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected api_format, include_assistant or parallel)"
                    )));
                }
            }
        }
        Ok(o)
    }
}
