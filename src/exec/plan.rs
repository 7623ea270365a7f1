//! The plan: what [`prepare`](super::prepare) answers and [`finish`](super::finish) takes back.
//!
//! A plan is plain data, written as JSON for hosts that run the calls themselves (async runtimes,
//! other processes): the library keeps nothing between the two steps, so the plan carries all
//! that finish needs (the provider, the calls' ids and names, the outcomes the library already
//! knows, the rebuilt assistant turn, what a conversation loads). Hosts read only each call's
//! `run`, `id`, `name`, `arguments` and `concurrency_safe`; the rest is the library's.

use crate::error::{Error, Result};
use crate::format::ApiFormat;
use crate::json::{into_string, write_opt_str, write_str};
use crate::limits::{check_input_size, kind_of, parse_json};
use crate::provider::CallOutcome;
use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Map, Value};
use std::borrow::Cow;

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

    /// The plan as JSON (see the module documentation), written straight from the plan (no
    /// value tree: the arguments are the bulk of it).
    pub fn to_json(&self) -> String {
        let mut out = Vec::with_capacity(256 + 128 * self.calls.len());
        out.extend_from_slice(b"{\"toolregistry_plan\":1,\"api_format\":");
        write_str(&mut out, self.format.as_str());
        out.extend_from_slice(b",\"include_assistant\":");
        out.extend_from_slice(if self.include_assistant {
            b"true"
        } else {
            b"false"
        });
        out.extend_from_slice(b",\"calls\":[");
        for (i, c) in self.calls.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            match &c.step {
                Step::Host(h) => {
                    out.extend_from_slice(b"{\"run\":\"host\",\"id\":");
                    write_str(&mut out, &h.id);
                    out.extend_from_slice(b",\"name\":");
                    write_str(&mut out, &h.name);
                    out.extend_from_slice(b",\"arguments\":");
                    write_value(&mut out, &h.arguments);
                    out.extend_from_slice(b",\"concurrency_safe\":");
                    out.extend_from_slice(if h.concurrency_safe {
                        b"true"
                    } else {
                        b"false"
                    });
                }
                Step::Done(outcome) => {
                    out.extend_from_slice(b"{\"run\":\"done\",\"name\":");
                    write_str(&mut out, &c.call_name);
                    out.extend_from_slice(b",\"outcome\":");
                    let (key, value) = match outcome {
                        CallOutcome::Success(t) => ("content", Value::from(t.as_str())),
                        CallOutcome::Failure(m) => ("error", Value::from(m.as_str())),
                        CallOutcome::References(n) => ("references", Value::from(n.clone())),
                    };
                    out.extend_from_slice(b"{");
                    write_str(&mut out, key);
                    out.push(b':');
                    write_value(&mut out, &value);
                    out.push(b'}');
                }
            }
            out.extend_from_slice(b",\"call_id\":");
            write_opt_str(&mut out, c.call_id.as_deref());
            out.extend_from_slice(b",\"call_name\":");
            write_str(&mut out, &c.call_name);
            if !c.loads.is_empty() {
                out.extend_from_slice(b",\"loads\":");
                write_value(&mut out, &c.loads);
            }
            out.push(b'}');
        }
        out.push(b']');
        if !self.assistant.is_empty() {
            out.extend_from_slice(b",\"assistant\":");
            write_value(&mut out, &self.assistant);
        }
        if !self.searches.is_empty() {
            out.extend_from_slice(b",\"searches\":[");
            for (i, s) in self.searches.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(
                    format!("{{\"calls_before\":{},\"loads\":", s.calls_before).as_bytes(),
                );
                write_value(&mut out, &s.loads);
                out.push(b'}');
            }
            out.extend_from_slice(b"],\"search_messages\":");
            write_value(&mut out, &self.search_messages);
        }
        out.push(b'}');
        into_string(out)
    }

    /// Reads a plan written by [`to_json`](Self::to_json); anything else is INVALID_ARGUMENT
    /// saying what is wrong. The host calls' arguments are skipped, not read: finish needs none
    /// (a plan read back has empty `arguments`).
    pub fn from_json(text: &str) -> Result<Plan> {
        check_input_size(text, "plan")?;
        let plan: PlanText = serde_json::from_str(text).map_err(|e| {
            if e.is_syntax() || e.is_eof() {
                Error::InvalidJson(format!("plan: {e}"))
            } else {
                Error::invalid(format!("plan: not a plan from prepare_calls ({e})"))
            }
        })?;
        if plan.toolregistry_plan != Some(PLAN_VERSION) {
            return Err(Error::invalid(
                "plan: not a plan from prepare_calls (\"toolregistry_plan\": 1 is missing)",
            ));
        }
        let format = ApiFormat::parse(&plan.api_format)
            .map_err(|e| Error::invalid(format!("plan.{}", strip(e))))?;
        let calls = plan
            .calls
            .into_iter()
            .enumerate()
            .map(|(i, c)| c.into_call(&format!("plan.calls[{i}]")))
            .collect::<Result<Vec<_>>>()?;
        let mut searches = Vec::with_capacity(plan.searches.len());
        for (i, s) in plan.searches.into_iter().enumerate() {
            if s.calls_before > calls.len() {
                return Err(Error::invalid(format!(
                    "plan.searches[{i}].calls_before: expected an integer from 0 to {}",
                    calls.len()
                )));
            }
            searches.push(PlannedSearch {
                calls_before: s.calls_before,
                loads: s.loads,
            });
        }
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
            include_assistant: plan.include_assistant,
            assistant: plan.assistant,
            calls,
            searches,
            search_messages: plan.search_messages,
        })
    }
}

/// A plan as its JSON is read back (see [`Plan::from_json`]).
#[derive(Deserialize)]
struct PlanText<'a> {
    #[serde(default)]
    toolregistry_plan: Option<u64>,
    #[serde(borrow)]
    api_format: Cow<'a, str>,
    include_assistant: bool,
    #[serde(borrow)]
    calls: Vec<CallText<'a>>,
    #[serde(default)]
    assistant: Vec<Value>,
    #[serde(default)]
    searches: Vec<SearchText>,
    #[serde(default)]
    search_messages: Vec<Value>,
}

#[derive(Deserialize)]
struct CallText<'a> {
    #[serde(borrow)]
    run: Cow<'a, str>,
    #[serde(default, borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    /// Skipped: finish needs no arguments.
    #[serde(default)]
    #[allow(dead_code)]
    arguments: Option<IgnoredAny>,
    #[serde(default)]
    concurrency_safe: Option<bool>,
    #[serde(default)]
    outcome: Option<OutcomeText>,
    #[serde(default, borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    call_name: Cow<'a, str>,
    #[serde(default)]
    loads: Vec<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "lowercase")]
enum OutcomeText {
    Content(String),
    Error(String),
    References(Vec<String>),
}

#[derive(Deserialize)]
struct SearchText {
    calls_before: usize,
    #[serde(default)]
    loads: Vec<String>,
}

impl CallText<'_> {
    fn into_call(self, path: &str) -> Result<PlannedCall> {
        let missing = |key: &str| Error::invalid(format!("{path}.{key}: missing"));
        let step = match &*self.run {
            "host" => Step::Host(HostCall {
                id: self.id.ok_or_else(|| missing("id"))?.into_owned(),
                name: self.name.ok_or_else(|| missing("name"))?.into_owned(),
                arguments: Map::new(),
                concurrency_safe: self
                    .concurrency_safe
                    .ok_or_else(|| missing("concurrency_safe"))?,
            }),
            "done" => Step::Done(match self.outcome.ok_or_else(|| missing("outcome"))? {
                OutcomeText::Content(t) => CallOutcome::Success(t),
                OutcomeText::Error(m) => CallOutcome::Failure(m),
                OutcomeText::References(n) => CallOutcome::References(n),
            }),
            other => {
                return Err(Error::invalid(format!(
                    "{path}.run: expected \"host\" or \"done\", got {other:?}"
                )));
            }
        };
        Ok(PlannedCall {
            call_id: self.call_id.map(Cow::into_owned),
            call_name: self.call_name.into_owned(),
            step,
            loads: self.loads,
        })
    }
}

fn write_value<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    serde_json::to_writer(&mut *out, value).expect("writing to a Vec cannot fail");
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
