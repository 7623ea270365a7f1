//! Running a model's tool calls: read the provider's call list, check each call, run it, and
//! write the results as the provider's next-turn messages.
//!
//! One bad call never fails the batch: malformed or schema-breaking arguments, an unknown or
//! disabled tool, a host failure or panic each become an error result the model can act on. Only
//! a `calls` value that is no provider's tool-call list fails the whole call. No registry lock is
//! held while a host function runs, so it may call back into the registry.

mod options;
mod schedule;

pub use options::ExecuteOptions;

use crate::error::Result;
use crate::format::json_text;
use crate::limits::parse_json;
use crate::provider::{self, Arguments, CallOutcome, Provider, ToolCall};
use crate::registry::{CallTarget, Registry, ToolTarget};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// How many "did you mean" names an unknown-tool error lists.
const SUGGESTIONS: usize = 3;

/// A batch that ran: the provider it was read as, the calls in order, and one outcome per call.
pub struct Executed {
    /// The provider whose shapes were read and are written.
    pub provider: &'static dyn Provider,
    /// The calls, in the order the model made them.
    pub calls: Vec<ToolCall>,
    /// One outcome per call, same order.
    pub results: Vec<CallOutcome>,
    /// The assistant turn rebuilt from the input (the calls and what the provider needs back
    /// with them: reasoning, thinking, thought signatures).
    pub assistant: Vec<serde_json::Value>,
}

impl Executed {
    /// The messages to append after the assistant turn (with the rebuilt assistant turn first
    /// when asked), as a JSON array.
    pub fn messages_json(&self, include_assistant: bool) -> String {
        let mut messages = Vec::new();
        if include_assistant && !self.calls.is_empty() {
            messages.extend(self.assistant.iter().cloned());
        }
        messages.extend(self.provider.result_messages(&self.calls, &self.results));
        json_text(&serde_json::Value::Array(messages))
    }
}

/// Runs the tool calls in `calls_json` (any provider's shape; `options.api_format` forces one)
/// and answers with the messages of the next turn, as JSON (see [`Executed::messages_json`]).
pub fn execute_json(
    registry: &Registry,
    calls_json: &str,
    options: &ExecuteOptions,
) -> Result<String> {
    Ok(execute(registry, calls_json, options)?.messages_json(options.include_assistant))
}

/// Reads and runs the calls in `calls_json`.
pub fn execute(
    registry: &Registry,
    calls_json: &str,
    options: &ExecuteOptions,
) -> Result<Executed> {
    let value = parse_json(calls_json, "calls")?;
    let empty = value.as_array().is_some_and(Vec::is_empty);
    let provider = match options.api_format {
        // A forced format must still recognize the list: another provider's calls would
        // otherwise be skipped as "other content" and the model would get no answer at all.
        Some(format) => {
            let p = provider::provider(format);
            if !empty && !p.detect(&value) {
                return Err(crate::Error::InvalidArgument(format!(
                    "calls: not a {} tool-call list (options.api_format)",
                    format.as_str()
                )));
            }
            p
        }
        None if empty => provider::provider(Default::default()),
        None => provider::detect(&value)?,
    };
    let calls = provider.parse_calls(&value)?;
    let results = schedule::run_all(registry, &calls, options.parallel);
    let assistant = provider.assistant_messages(&value, &calls);
    Ok(Executed {
        provider,
        calls,
        results,
        assistant,
    })
}

/// Runs one call of `name` with `arguments`: built-ins here, registered tools through their host
/// function (or the fallback), after checking the arguments against the tool's schema.
pub fn run_call(registry: &Registry, name: &str, arguments: &Arguments) -> CallOutcome {
    match registry.call_target(name) {
        Ok(target) => run_target(registry, name, target, arguments),
        Err(e) => failure(e.to_string()),
    }
}

/// Runs a resolved call.
pub(crate) fn run_target(
    registry: &Registry,
    name: &str,
    target: CallTarget,
    arguments: &Arguments,
) -> CallOutcome {
    match target {
        CallTarget::Builtin(builtin) => {
            let args = match arguments.to_object() {
                Ok(args) => json_text(&serde_json::Value::Object(args)),
                Err(message) => return failure(format!("invalid arguments for {name}: {message}")),
            };
            match catch_unwind(AssertUnwindSafe(|| builtin.call(registry, &args))) {
                Ok(Ok(Ok(text))) => CallOutcome::Success(text),
                Ok(Ok(Err(message))) => failure(message),
                Ok(Err(e)) => failure(format!("{name}: {e}")),
                Err(payload) => failure(format!("{name} panicked: {}", panic_message(&payload))),
            }
        }
        CallTarget::Unknown => failure(unknown_tool_message(registry, name)),
        CallTarget::Disabled { reason } => failure(match reason {
            Some(reason) => format!("tool {name:?} is disabled: {reason}"),
            None => format!("tool {name:?} is disabled"),
        }),
        CallTarget::Tool(tool) => run_tool(&tool, arguments),
    }
}

/// "tool "x" is not registered. Did you mean: a, b?"
pub(crate) fn unknown_tool_message(registry: &Registry, name: &str) -> String {
    let mut message = format!("tool {name:?} is not registered");
    if let Ok(suggestions) = registry.suggest_names(name, SUGGESTIONS) {
        if !suggestions.is_empty() {
            message.push_str(&format!(". Did you mean: {}?", suggestions.join(", ")));
        }
    }
    message
}

fn run_tool(tool: &ToolTarget, arguments: &Arguments) -> CallOutcome {
    let args = match arguments.to_object() {
        Ok(args) => serde_json::Value::Object(args),
        Err(message) => {
            return failure(format!(
                "invalid arguments for tool {:?}: {message}",
                tool.name
            ));
        }
    };
    if let Err(message) = tool.validator.check(&args) {
        return failure(format!(
            "invalid arguments for tool {:?}: {message}",
            tool.name
        ));
    }
    let Some(host) = &tool.host else {
        return failure(format!(
            "tool {:?} has no host function to run it (register it with one, or set a fallback)",
            tool.name
        ));
    };
    let args = json_text(&args);
    match catch_unwind(AssertUnwindSafe(|| host(&tool.name, &args))) {
        Ok(Ok(text)) => CallOutcome::Success(text),
        Ok(Err(message)) => failure(message),
        Err(payload) => failure(format!(
            "the host function of {:?} panicked: {}",
            tool.name,
            panic_message(&payload)
        )),
    }
}

fn failure(message: impl Into<String>) -> CallOutcome {
    CallOutcome::Failure(message.into())
}

use crate::error::panic_message;
