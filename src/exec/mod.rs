//! Running a model's tool calls, in two steps with plain data between them: [`prepare`] reads the
//! provider's call list and checks each call (answering those the library can: searches,
//! unknown or disabled tools, arguments that break the schema); the host runs the rest however
//! it likes (threads, an event loop, another process); [`finish`] writes the outcomes as the
//! provider's next-turn messages. [`execute`] is those two steps with the registry's own host
//! functions in between, so the synchronous and the async loop cannot drift apart.
//!
//! One bad call never fails the batch: malformed or schema-breaking arguments, an unknown or
//! disabled tool, a host failure or panic each become an error result the model can act on. Only
//! a `calls` value that is no provider's tool-call list fails the whole call. No registry lock is
//! held while a host function runs, so it may call back into the registry.

mod options;
mod plan;
mod schedule;
mod task;

pub(crate) use schedule::run_host_calls;
pub(crate) use task::ran;

pub use options::ExecuteOptions;
pub use plan::{HostCall, HostOutcome, Plan, PlannedCall, PlannedSearch, Step, read_results};

use crate::error::Result;
use crate::format::json_text;
use crate::limits::parse_json;
use crate::provider::{self, Arguments, CallOutcome, Provider, ToolCall};
use crate::registry::{CallTarget, Registry, ToolTarget};
use serde_json::{Map, Value};
use std::collections::HashSet;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// How many "did you mean" names an unknown-tool error lists.
const SUGGESTIONS: usize = 3;

/// Runs the tool calls in `calls_json` (any provider's shape; `options.api_format` forces one)
/// with the registry's host functions, and answers with the messages of the next turn as JSON:
/// [`prepare`], the host functions, then [`finish`].
pub fn execute_json(
    registry: &Registry,
    calls_json: &str,
    options: &ExecuteOptions,
) -> Result<String> {
    let plan = prepare(registry, calls_json, options)?;
    let outcomes = schedule::run_host_calls(registry, &plan, options.parallel);
    // The host functions ran here, on the registry's own targets: their results stand even if
    // one unregistered its own tool while it ran.
    let results = outcomes_in_order(registry, &plan, outcomes, false);
    // One model reply is one task.
    registry.record_ran(&task::ran(&plan, &results));
    Ok(messages_json(&plan, &results))
}

/// [`prepare`] answering the plan as JSON (see [`Plan::to_json`]).
pub fn prepare_json(
    registry: &Registry,
    calls_json: &str,
    options: &ExecuteOptions,
) -> Result<String> {
    Ok(prepare(registry, calls_json, options)?.to_json())
}

/// [`finish`] from JSON: the plan as [`prepare_json`] wrote it and the host's results (see
/// [`read_results`]). Bad input is INVALID_ARGUMENT and changes nothing.
pub fn finish_json(registry: &Registry, plan_json: &str, results_json: &str) -> Result<String> {
    let plan = Plan::from_json(plan_json)?;
    let outcomes = read_results(&plan, results_json)?;
    finish(registry, &plan, outcomes)
}

/// The provider's calls read from `calls_json`: the parsed value, the provider, the calls.
pub(crate) fn read_calls(
    calls_json: &str,
    options: &ExecuteOptions,
) -> Result<(Value, &'static dyn Provider, Vec<ToolCall>)> {
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
    Ok((value, provider, calls))
}

/// Step one: reads the calls in `calls_json` and plans each: a call for the host to run (tool
/// resolved, arguments checked), or one the library has answered.
pub fn prepare(registry: &Registry, calls_json: &str, options: &ExecuteOptions) -> Result<Plan> {
    let (value, provider, calls) = read_calls(calls_json, options)?;
    let assistant = if options.include_assistant {
        provider.assistant_messages(&value, &calls)
    } else {
        Vec::new()
    };
    let mut ids = HostIds::new(&calls);
    let planned = calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let (step, _) = plan_call(registry, call, || ids.take(i));
            PlannedCall {
                call_id: call.id.clone(),
                call_name: call.name.clone(),
                step,
                loads: Vec::new(),
            }
        })
        .collect();
    Ok(Plan {
        format: provider.format(),
        include_assistant: options.include_assistant,
        assistant,
        calls: planned,
        searches: Vec::new(),
        search_messages: Vec::new(),
    })
}

/// Step two: the next turn's messages for `plan` with the host's `outcomes` (one per host call,
/// in plan order), byte for byte what [`execute_json`] writes for the same outcomes.
pub fn finish(registry: &Registry, plan: &Plan, outcomes: Vec<HostOutcome>) -> Result<String> {
    let results = outcomes_in_order(registry, plan, outcomes, true);
    registry.record_ran(&task::ran(plan, &results));
    Ok(messages_json(plan, &results))
}

/// Every call's outcome, in call order: the library's answers and the host's, each host one
/// made final (an unhandled call has no host function; with `recheck`, a tool unregistered since
/// prepare is an unknown tool: a host that ran the call elsewhere ran it for a tool now gone).
pub(crate) fn outcomes_in_order(
    registry: &Registry,
    plan: &Plan,
    outcomes: Vec<HostOutcome>,
    recheck: bool,
) -> Vec<CallOutcome> {
    let mut outcomes = outcomes.into_iter();
    plan.calls
        .iter()
        .map(|c| match &c.step {
            Step::Done(outcome) => outcome.clone(),
            Step::Host(h) => {
                let outcome = outcomes.next().unwrap_or(HostOutcome::Unhandled);
                match recheck.then(|| registry.call_target(&h.name)) {
                    Some(Ok(CallTarget::Unknown)) => {
                        failure(unknown_tool_message(registry, &h.name))
                    }
                    _ => host_outcome(&h.name, outcome),
                }
            }
        })
        .collect()
}

/// The messages of the next turn for these outcomes (call order), as JSON.
pub(crate) fn messages_json(plan: &Plan, results: &[CallOutcome]) -> String {
    let provider = provider::provider(plan.format);
    // Result messages echo only each call's id and name; the arguments went with the assistant
    // turn, which the plan carries already written.
    let calls: Vec<ToolCall> = plan
        .calls
        .iter()
        .map(|c| ToolCall {
            id: c.call_id.clone(),
            item_id: None,
            name: c.call_name.clone(),
            arguments: Arguments::Value(Value::Null),
        })
        .collect();
    let mut messages = Vec::new();
    if plan.include_assistant && !(calls.is_empty() && plan.searches.is_empty()) {
        messages.extend(plan.assistant.iter().cloned());
    }
    messages.extend(provider.result_messages(&calls, results));
    messages.extend(plan.search_messages.iter().cloned());
    json_text(&Value::Array(messages))
}

fn host_outcome(name: &str, outcome: HostOutcome) -> CallOutcome {
    match outcome {
        HostOutcome::Content(text) => CallOutcome::Success(text),
        HostOutcome::Error(message) => CallOutcome::Failure(message),
        HostOutcome::Unhandled => failure(no_host_message(name)),
    }
}

fn no_host_message(name: &str) -> String {
    format!(
        "tool {name:?} has no host function to run it (register it with one, or set a fallback)"
    )
}

/// Plans one call: the step, and the registered name of the tool it runs (for a conversation's
/// loads). `id` gives the host call's id when the call goes to the host.
pub(crate) fn plan_call(
    registry: &Registry,
    call: &ToolCall,
    id: impl FnOnce() -> String,
) -> (Step, Option<String>) {
    match registry.call_target(&call.name) {
        Ok(CallTarget::Builtin(builtin)) if builtin.name() == crate::registry::CALL_DEFERRED => {
            let args = match call.arguments.to_object() {
                Ok(args) => args,
                Err(m) => {
                    let m = format!("invalid arguments for {}: {m}", call.name);
                    return (Step::Done(failure(m)), None);
                }
            };
            match crate::builtins::CallDeferred::resolve(registry, args) {
                Ok(Ok((name, target, args))) => {
                    let step =
                        plan_target(registry, &name, target, Arguments::Value(args.into()), id);
                    (step, Some(name))
                }
                Ok(Err(message)) => (Step::Done(failure(message)), None),
                Err(e) => (Step::Done(failure(format!("{}: {e}", call.name))), None),
            }
        }
        Ok(target) => {
            let step = plan_target(registry, &call.name, target, call.arguments.clone(), id);
            (step, Some(call.name.clone()))
        }
        Err(e) => (Step::Done(failure(e.to_string())), None),
    }
}

/// Plans a resolved call: built-ins run here, registered tools go to the host once their
/// arguments pass the tool's schema.
pub(crate) fn plan_target(
    registry: &Registry,
    name: &str,
    target: CallTarget,
    arguments: Arguments,
    id: impl FnOnce() -> String,
) -> Step {
    match target {
        CallTarget::Builtin(builtin) => {
            let args = match arguments.to_object() {
                Ok(args) => json_text(&Value::Object(args)),
                Err(message) => {
                    return Step::Done(failure(format!("invalid arguments for {name}: {message}")));
                }
            };
            Step::Done(
                match catch_unwind(AssertUnwindSafe(|| builtin.call(registry, &args))) {
                    Ok(Ok(Ok(text))) => CallOutcome::Success(text),
                    Ok(Ok(Err(message))) => failure(message),
                    Ok(Err(e)) => failure(format!("{name}: {e}")),
                    Err(payload) => {
                        failure(format!("{name} panicked: {}", panic_message(&payload)))
                    }
                },
            )
        }
        CallTarget::Unknown => Step::Done(failure(unknown_tool_message(registry, name))),
        CallTarget::Disabled { reason } => Step::Done(failure(disabled_message(name, reason))),
        CallTarget::Tool(tool) => match checked_arguments(&tool, &arguments) {
            Ok(arguments) => Step::Host(HostCall {
                id: id(),
                name: tool.name,
                arguments,
                concurrency_safe: tool.concurrency_safe,
            }),
            Err(message) => Step::Done(failure(message)),
        },
    }
}

fn disabled_message(name: &str, reason: Option<String>) -> String {
    match reason {
        Some(reason) => format!("tool {name:?} is disabled: {reason}"),
        None => format!("tool {name:?} is disabled"),
    }
}

/// The arguments as an object that passes the tool's schema, or the model's error message.
fn checked_arguments(
    tool: &ToolTarget,
    arguments: &Arguments,
) -> std::result::Result<Map<String, Value>, String> {
    let args = arguments
        .to_object()
        .map_err(|m| format!("invalid arguments for tool {:?}: {m}", tool.name))?;
    let args = Value::Object(args);
    tool.validator
        .check(&args)
        .map_err(|m| format!("invalid arguments for tool {:?}: {m}", tool.name))?;
    match args {
        Value::Object(m) => Ok(m),
        _ => unreachable!("built from an object"),
    }
}

/// Runs one host call with the registry's host function for its tool (its own, or the
/// fallback), catching a panic.
pub(crate) fn run_host_call(registry: &Registry, call: &HostCall) -> HostOutcome {
    let host = match registry.call_target(&call.name) {
        Ok(CallTarget::Tool(t)) => t.host,
        Ok(CallTarget::Disabled { reason }) => {
            return HostOutcome::Error(disabled_message(&call.name, reason));
        }
        // Unregistered since the batch was prepared (another thread churns the registry).
        Ok(CallTarget::Unknown) => {
            return HostOutcome::Error(unknown_tool_message(registry, &call.name));
        }
        Ok(_) => None,
        Err(e) => return HostOutcome::Error(e.to_string()),
    };
    let Some(host) = host else {
        return HostOutcome::Unhandled;
    };
    let args = json_text(&Value::Object(call.arguments.clone()));
    match catch_unwind(AssertUnwindSafe(|| host(&call.name, &args))) {
        Ok(Ok(text)) => HostOutcome::Content(text),
        Ok(Err(message)) => HostOutcome::Error(message),
        Err(payload) => HostOutcome::Error(format!(
            "the host function of {:?} panicked: {}",
            call.name,
            panic_message(&payload)
        )),
    }
}

/// Runs one call of `name` with `arguments` now, on this thread: planned, then run with the
/// registry's host function. `call_deferred` (`tr_registry_call`) runs its target this way.
pub fn run_call(registry: &Registry, name: &str, arguments: &Arguments) -> CallOutcome {
    match registry.call_target(name) {
        Ok(target) => run_target(registry, name, target, arguments.clone()),
        Err(e) => failure(e.to_string()),
    }
}

/// Runs a resolved call now (see [`run_call`]).
pub(crate) fn run_target(
    registry: &Registry,
    name: &str,
    target: CallTarget,
    arguments: Arguments,
) -> CallOutcome {
    match plan_target(registry, name, target, arguments, String::new) {
        Step::Done(outcome) => outcome,
        Step::Host(call) => host_outcome(&call.name, run_host_call(registry, &call)),
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

/// Host call ids: the provider's id when the batch has it once, else `#<call index>` (made
/// unique against the provider's ids), so the host can key its results by id.
pub(crate) struct HostIds {
    used: HashSet<String>,
    given: Vec<Option<String>>,
}

impl HostIds {
    pub(crate) fn new(calls: &[ToolCall]) -> Self {
        let mut seen = HashSet::new();
        let mut twice = HashSet::new();
        for id in calls.iter().filter_map(|c| c.id.as_deref()) {
            if !seen.insert(id) {
                twice.insert(id);
            }
        }
        let given = calls
            .iter()
            .map(|c| c.id.clone().filter(|id| !twice.contains(id.as_str())))
            .collect();
        let used = seen.into_iter().map(str::to_string).collect();
        HostIds { used, given }
    }

    /// The id of call `i`.
    pub(crate) fn take(&mut self, i: usize) -> String {
        if let Some(id) = self.given.get_mut(i).and_then(Option::take) {
            return id;
        }
        let mut id = format!("#{i}");
        while !self.used.insert(id.clone()) {
            id.push('#');
        }
        id
    }
}

fn failure(message: impl Into<String>) -> CallOutcome {
    CallOutcome::Failure(message.into())
}

use crate::error::panic_message;
