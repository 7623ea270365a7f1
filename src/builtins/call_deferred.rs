//! `call_deferred`: runs a deferred tool by name, for clients that cannot add the tools the model
//! discovers to their tool list (as the reference's `call_deferred`).

use super::deferred_list;
use crate::error::{Error, Result};
use crate::exec::{run_target, unknown_tool_message};
use crate::limits::{kind_of, parse_json};
use crate::provider::{Arguments, CallOutcome};
use crate::registry::{Builtin, CALL_DEFERRED, CallTarget, HostResult, Registry, Summary};
use crate::schema::{SameForms, SchemaCache};
use serde_json::{Map, Value};

/// The reference's `BASE_CALL_DEFERRED_DESCRIPTION`, word for word.
const DESCRIPTION: &str = "Call a deferred tool by name. Use this after discover_tools returns \
a deferred tool's schema \u{2014} pass the tool name as _target_tool and its parameters as keyword \
arguments. Example: call_deferred(_target_tool='search', query='hello')";

const PARAMETERS: &str = r#"{"type":"object","properties":{"_target_tool":{"type":"string","description":"The deferred tool's name, as discover_tools returned it."}},"required":["_target_tool"],"additionalProperties":true}"#;

/// Runs a deferred tool by (tolerantly matched) name with the other arguments.
#[derive(Debug)]
pub struct CallDeferred;

impl Builtin for CallDeferred {
    fn name(&self) -> &'static str {
        CALL_DEFERRED
    }

    fn description(&self, deferred: &[Summary], max_tokens: Option<usize>) -> String {
        if deferred.is_empty() {
            return format!("{DESCRIPTION} No deferred tools currently available.");
        }
        format!(
            "{DESCRIPTION}\n\nCurrently deferred:\n{}",
            deferred_list(deferred, max_tokens)
        )
    }

    fn base_description(&self) -> &'static str {
        DESCRIPTION
    }

    fn parameters_json(&self) -> &'static str {
        PARAMETERS
    }

    fn schema_cache(&self) -> &'static (SchemaCache, SameForms) {
        static CACHE: (SchemaCache, SameForms) = (SchemaCache::new(), SameForms::new());
        &CACHE
    }

    fn call(&self, registry: &Registry, args_json: &str) -> Result<HostResult> {
        let args = match parse_json(args_json, "arguments")? {
            Value::Object(m) => m,
            other => {
                return Err(Error::invalid(format!(
                    "arguments: expected an object, got {}",
                    kind_of(&other)
                )));
            }
        };
        Ok(match Self::resolve(registry, args)? {
            Ok((name, target, args)) => {
                match run_target(
                    registry,
                    &name,
                    target,
                    Arguments::Value(Value::Object(args)),
                ) {
                    CallOutcome::Failure(message) => Err(message),
                    other => Ok(other.text().into_owned()),
                }
            }
            Err(message) => Err(message),
        })
    }
}

impl CallDeferred {
    /// The tool a `call_deferred` call runs, with the arguments it passes on (`_target_tool`
    /// taken out); `Ok(Err(message))` for the model when there is no such deferred tool.
    #[allow(clippy::type_complexity)]
    pub fn resolve(
        registry: &Registry,
        mut args: Map<String, Value>,
    ) -> Result<std::result::Result<(String, CallTarget, Map<String, Value>), String>> {
        let requested = match args.shift_remove("_target_tool") {
            Some(Value::String(s)) => s,
            Some(v) => {
                return Err(Error::invalid(format!(
                    "arguments._target_tool: expected a string, got {}",
                    kind_of(&v)
                )));
            }
            None => return Err(Error::invalid("arguments._target_tool: missing")),
        };
        let Some(name) = registry.resolve_name(&requested)? else {
            return Ok(Err(unknown_tool_message(registry, &requested)));
        };
        let target = registry.call_target(&name)?;
        if let CallTarget::Tool(t) = &target {
            if !t.deferred {
                return Ok(Err(format!(
                    "{name:?} is not a deferred tool: call it directly instead of using call_deferred"
                )));
            }
        }
        Ok(Ok((name, target, args)))
    }
}
