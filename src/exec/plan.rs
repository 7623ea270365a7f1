//! The plan: what [`prepare`](super::prepare) answers and [`finish`](super::finish) takes back.
//!
//! A plan is plain data, written as JSON for hosts that run the calls themselves (async runtimes,
//! other processes): the library keeps nothing between the two steps, so the plan carries all
//! that finish needs (the provider, the calls' ids and names, the outcomes the library already
//! knows, the rebuilt assistant turn, what a conversation loads). Hosts read only each call's
//! `run`, `id`, `name`, `arguments` and `concurrency_safe`; the rest is the library's.

use crate::error::{Error, Result};
use crate::format::ApiFormat;
use crate::json::json_text;
use crate::limits::{kind_of, parse_json};
use crate::provider::CallOutcome;
use serde_json::{Map, Value};

/// The marker and version of the plan's JSON: a plan from another version is refused.
const PLAN_VERSION: u64 = 1;

/// A prepared batch of tool calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The provider whose shapes were read and are written.
    pub format: ApiFormat,
    /// Whether finish writes the rebuilt assistant turn first.
    pub include_assistant: bool,
    /// The rebuilt assistant turn (kept only when `include_assistant`).
    pub assistant: Vec<Value>,
    /// The calls, in the order the model made them.
    pub calls: Vec<PlannedCall>,
    /// A conversation's answered provider searches (Responses `tool_search_call`), in order.
    pub searches: Vec<PlannedSearch>,
    /// The messages answering those searches, written after the call results.
    pub search_messages: Vec<Value>,
}

/// One call of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCall {
    /// The provider's call id, echoed in the result message (Gemini's is optional).
    pub call_id: Option<String>,
    /// The tool name as the model wrote it, echoed where the provider wants it (Gemini).
    pub call_name: String,
    /// Run by the host, or already answered.
    pub step: Step,
    /// What a conversation loads at finish: for an answered call always, for a host call when it
    /// succeeds.
    pub loads: Vec<String>,
}

/// Who answers a call.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The host runs it.
    Host(HostCall),
    /// The library answered it at prepare (a search, or an error the model should see).
    Done(CallOutcome),
}

/// A call for the host to run.
#[derive(Debug, Clone, PartialEq)]
pub struct HostCall {
    /// Unique within the plan: the provider's call id when it has a unique one.
    pub id: String,
    /// The registered tool name (a `call_deferred` target already resolved).
    pub name: String,
    /// The arguments, checked against the tool's schema.
    pub arguments: Map<String, Value>,
    /// False: the call runs alone, after the earlier calls finished and before later ones start.
    pub concurrency_safe: bool,
}

/// A conversation's provider search, answered at prepare.
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedSearch {
    /// How many of the plan's calls come before it, so loads keep the model's order.
    pub calls_before: usize,
    /// The deferred tools it found.
    pub loads: Vec<String>,
}

/// What the host made of one host call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostOutcome {
    /// The text the model sees.
    Content(String),
    /// An error result for the model.
    Error(String),
    /// The host has no function for the tool.
    Unhandled,
}

impl Plan {
    /// The host calls, in call order.
    pub fn host_calls(&self) -> impl Iterator<Item = &HostCall> {
        self.calls.iter().filter_map(|c| match &c.step {
            Step::Host(h) => Some(h),
            Step::Done(_) => None,
        })
    }

    /// The plan as JSON (see the module documentation).
    pub fn to_json(&self) -> String {
        let calls = self
            .calls
            .iter()
            .map(|c| {
                let mut o = Map::new();
                match &c.step {
                    Step::Host(h) => {
                        o.insert("run".into(), "host".into());
                        o.insert("id".into(), h.id.clone().into());
                        o.insert("name".into(), h.name.clone().into());
                        o.insert("arguments".into(), Value::Object(h.arguments.clone()));
                        o.insert("concurrency_safe".into(), h.concurrency_safe.into());
                    }
                    Step::Done(outcome) => {
                        o.insert("run".into(), "done".into());
                        o.insert("name".into(), c.call_name.clone().into());
                        o.insert("outcome".into(), outcome_json(outcome));
                    }
                }
                o.insert("call_id".into(), c.call_id.clone().into());
                o.insert("call_name".into(), c.call_name.clone().into());
                if !c.loads.is_empty() {
                    o.insert("loads".into(), c.loads.clone().into());
                }
                Value::Object(o)
            })
            .collect();
        let mut o = Map::new();
        o.insert("toolregistry_plan".into(), PLAN_VERSION.into());
        o.insert("api_format".into(), self.format.as_str().into());
        o.insert("include_assistant".into(), self.include_assistant.into());
        o.insert("calls".into(), Value::Array(calls));
        if !self.assistant.is_empty() {
            o.insert("assistant".into(), Value::Array(self.assistant.clone()));
        }
        if !self.searches.is_empty() {
            let searches = self
                .searches
                .iter()
                .map(|s| {
                    let mut o = Map::new();
                    o.insert("calls_before".into(), s.calls_before.into());
                    o.insert("loads".into(), s.loads.clone().into());
                    Value::Object(o)
                })
                .collect();
            o.insert("searches".into(), Value::Array(searches));
            o.insert(
                "search_messages".into(),
                Value::Array(self.search_messages.clone()),
            );
        }
        json_text(&Value::Object(o))
    }

    /// Reads a plan written by [`to_json`](Self::to_json); anything else is INVALID_ARGUMENT
    /// naming the path of what is wrong.
    pub fn from_json(text: &str) -> Result<Plan> {
        let value = parse_json(text, "plan")?;
        let o = value.as_object().ok_or_else(|| {
            Error::invalid(format!("plan: expected an object, got {}", kind_of(&value)))
        })?;
        if o.get("toolregistry_plan").and_then(Value::as_u64) != Some(PLAN_VERSION) {
            return Err(Error::invalid(
                "plan: not a plan from prepare_calls (\"toolregistry_plan\": 1 is missing)",
            ));
        }
        let format = ApiFormat::parse(string(o, "api_format", "plan")?)
            .map_err(|e| Error::invalid(format!("plan.{}", strip(e))))?;
        let include_assistant = match o.get("include_assistant") {
            Some(Value::Bool(b)) => *b,
            other => return Err(expected("plan.include_assistant", "a boolean", other)),
        };
        let assistant = optional_array(o, "assistant", "plan")?.to_vec();
        let search_messages = optional_array(o, "search_messages", "plan")?.to_vec();
        let calls = array(o, "calls", "plan")?
            .iter()
            .enumerate()
            .map(|(i, v)| read_call(v, &format!("plan.calls[{i}]")))
            .collect::<Result<Vec<_>>>()?;
        let searches = optional_array(o, "searches", "plan")?
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let path = format!("plan.searches[{i}]");
                let o = object(v, &path)?;
                let calls_before = o
                    .get("calls_before")
                    .and_then(Value::as_u64)
                    .filter(|&n| n as usize <= calls.len())
                    .ok_or_else(|| {
                        Error::invalid(format!(
                            "{path}.calls_before: expected an integer from 0 to {}",
                            calls.len()
                        ))
                    })? as usize;
                Ok(PlannedSearch {
                    calls_before,
                    loads: strings(o, "loads", &path)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let mut seen = std::collections::HashSet::new();
        for (i, c) in calls.iter().enumerate() {
            if let Step::Host(h) = &c.step {
                if !seen.insert(h.id.as_str()) {
                    return Err(Error::invalid(format!(
                        "plan.calls[{i}].id: {:?} is the id of an earlier call",
                        h.id
                    )));
                }
            }
        }
        Ok(Plan {
            format,
            include_assistant,
            assistant,
            calls,
            searches,
            search_messages,
        })
    }
}

/// Reads the host's results: `[{"id", "content": str} | {"id", "error": str} | {"id",
/// "unhandled": true}]`, one per host call of `plan`, in any order; answered in the plan's order.
pub fn read_results(plan: &Plan, text: &str) -> Result<Vec<HostOutcome>> {
    let value = parse_json(text, "results")?;
    let items = value.as_array().ok_or_else(|| {
        Error::invalid(format!(
            "results: expected an array, got {}",
            kind_of(&value)
        ))
    })?;
    let ids: Vec<&str> = plan.host_calls().map(|h| h.id.as_str()).collect();
    let mut slots: Vec<Option<HostOutcome>> = vec![None; ids.len()];
    for (i, item) in items.iter().enumerate() {
        let path = format!("results[{i}]");
        let o = object(item, &path)?;
        let id = string(o, "id", &path)?;
        let Some(at) = ids.iter().position(|&x| x == id) else {
            return Err(Error::invalid(format!(
                "{path}.id: the plan has no host call {id:?}"
            )));
        };
        if slots[at].is_some() {
            return Err(Error::invalid(format!(
                "{path}.id: a second result for call {id:?}"
            )));
        }
        slots[at] = Some(read_outcome(o, &path)?);
    }
    slots
        .into_iter()
        .zip(ids)
        .map(|(slot, id)| {
            slot.ok_or_else(|| Error::invalid(format!("results: no result for host call {id:?}")))
        })
        .collect()
}

fn read_outcome(o: &Map<String, Value>, path: &str) -> Result<HostOutcome> {
    let mut found = Vec::new();
    for key in ["content", "error", "unhandled"] {
        if o.contains_key(key) {
            found.push(key);
        }
    }
    if let Some(extra) = o
        .keys()
        .find(|k| !matches!(k.as_str(), "id" | "content" | "error" | "unhandled"))
    {
        return Err(Error::invalid(format!(
            "{path}.{extra}: unknown key (expected id and one of content, error, unhandled)"
        )));
    }
    match found.as_slice() {
        ["content"] => Ok(HostOutcome::Content(
            string(o, "content", path)?.to_string(),
        )),
        ["error"] => Ok(HostOutcome::Error(string(o, "error", path)?.to_string())),
        ["unhandled"] => match o.get("unhandled") {
            Some(Value::Bool(true)) => Ok(HostOutcome::Unhandled),
            other => Err(expected(&format!("{path}.unhandled"), "true", other)),
        },
        [] => Err(Error::invalid(format!(
            "{path}: expected one of content, error or unhandled"
        ))),
        _ => Err(Error::invalid(format!(
            "{path}: give only one of content, error or unhandled (got {})",
            found.join(" and ")
        ))),
    }
}

fn read_call(v: &Value, path: &str) -> Result<PlannedCall> {
    let o = object(v, path)?;
    let call_id = match o.get("call_id") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        other => {
            return Err(expected(
                &format!("{path}.call_id"),
                "a string or null",
                other,
            ));
        }
    };
    let call_name = string(o, "call_name", path)?.to_string();
    let loads = strings(o, "loads", path)?;
    let step = match string(o, "run", path)? {
        "host" => Step::Host(HostCall {
            id: string(o, "id", path)?.to_string(),
            name: string(o, "name", path)?.to_string(),
            arguments: match o.get("arguments") {
                Some(Value::Object(m)) => m.clone(),
                other => return Err(expected(&format!("{path}.arguments"), "an object", other)),
            },
            concurrency_safe: match o.get("concurrency_safe") {
                Some(Value::Bool(b)) => *b,
                other => {
                    return Err(expected(
                        &format!("{path}.concurrency_safe"),
                        "a boolean",
                        other,
                    ));
                }
            },
        }),
        "done" => {
            let path = format!("{path}.outcome");
            let outcome = object(
                o.get("outcome")
                    .ok_or_else(|| Error::invalid(format!("{path}: missing")))?,
                &path,
            )?;
            Step::Done(match outcome.iter().next() {
                Some((k, Value::String(s))) if outcome.len() == 1 && k == "content" => {
                    CallOutcome::Success(s.clone())
                }
                Some((k, Value::String(s))) if outcome.len() == 1 && k == "error" => {
                    CallOutcome::Failure(s.clone())
                }
                Some((k, _)) if outcome.len() == 1 && k == "references" => {
                    CallOutcome::References(strings(outcome, "references", &path)?)
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{path}: expected {{\"content\": str}}, {{\"error\": str}} or {{\"references\": [str]}}"
                    )));
                }
            })
        }
        other => {
            return Err(Error::invalid(format!(
                "{path}.run: expected \"host\" or \"done\", got {other:?}"
            )));
        }
    };
    Ok(PlannedCall {
        call_id,
        call_name,
        step,
        loads,
    })
}

fn outcome_json(outcome: &CallOutcome) -> Value {
    let mut o = Map::new();
    match outcome {
        CallOutcome::Success(t) => o.insert("content".into(), t.clone().into()),
        CallOutcome::Failure(m) => o.insert("error".into(), m.clone().into()),
        CallOutcome::References(n) => o.insert("references".into(), n.clone().into()),
    };
    Value::Object(o)
}

fn object<'a>(v: &'a Value, path: &str) -> Result<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| Error::invalid(format!("{path}: expected an object, got {}", kind_of(v))))
}

fn string<'a>(o: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a str> {
    match o.get(key) {
        Some(Value::String(s)) => Ok(s),
        other => Err(expected(&format!("{path}.{key}"), "a string", other)),
    }
}

fn array<'a>(o: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a [Value]> {
    match o.get(key) {
        Some(Value::Array(a)) => Ok(a),
        other => Err(expected(&format!("{path}.{key}"), "an array", other)),
    }
}

fn optional_array<'a>(o: &'a Map<String, Value>, key: &str, path: &str) -> Result<&'a [Value]> {
    match o.get(key) {
        None => Ok(&[]),
        Some(_) => array(o, key, path),
    }
}

fn strings(o: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<String>> {
    optional_array(o, key, path)?
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| expected(&format!("{path}.{key}[{i}]"), "a string", Some(v)))
        })
        .collect()
}

fn expected(path: &str, what: &str, got: Option<&Value>) -> Error {
    match got {
        None => Error::invalid(format!("{path}: missing ({what} expected)")),
        Some(v) => Error::invalid(format!("{path}: expected {what}, got {}", kind_of(v))),
    }
}

/// The message of an INVALID_ARGUMENT without its "invalid argument: " prefix.
fn strip(e: Error) -> String {
    match e {
        Error::InvalidArgument(m) => m,
        other => other.to_string(),
    }
}
