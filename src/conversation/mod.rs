//! Conversations: the tool list of every request of one conversation with a model, kept right
//! and prompt-cache-stable, and the model's tool calls run with the tools it finds staying found.
//!
//! A conversation holds its options and the names of the deferred tools loaded so far (append
//! only). Everything else comes from the registry when asked: the part of the tool list that does
//! not depend on the conversation (core tools, search tool, deferred summaries) is rendered once
//! per registry change and shared by every conversation with the same options.

mod options;
mod render;

pub use options::{ConversationOptions, Mode, SearchSide};

use crate::discovery::{DiscoverRequest, Discoverer, parse_discover_tools_args};
use crate::error::{Error, Result};
use crate::exec::{
    ExecuteOptions, HostIds, HostOutcome, Plan, PlannedCall, PlannedSearch, Step, plan_call,
};
use crate::limits::{kind_of, parse_json};
use crate::provider::{self, Arguments, CallOutcome, SearchTool, ToolCall};
use crate::registry::{DISCOVER_TOOLS, Registry};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Mutex;

impl Drop for Conversation {
    /// The conversation ended: its task is recorded (when usage is on).
    fn drop(&mut self) {
        let task = match self.loaded.get_mut() {
            Ok(l) => std::mem::take(&mut l.task),
            Err(e) => std::mem::take(&mut e.into_inner().task),
        };
        if !task.is_empty() {
            self.record_task(&task);
        }
    }
}

/// One conversation over a registry. `Send + Sync`: calls from several threads are serialized
/// per conversation; many conversations share one registry.
pub struct Conversation {
    registry: Registry,
    options: ConversationOptions,
    discoverer: Discoverer,
    loaded: Mutex<Loaded>,
}

/// The conversation's own state.
#[derive(Default)]
struct Loaded {
    /// Deferred tools found or called, in load order, each once.
    names: Vec<String>,
    /// The fingerprint of the last answer, with the registry generation and load count it was
    /// computed at: when neither changed, the same bytes come out and need no hashing again.
    fingerprint: Option<(u64, usize, String)>,
    /// The distinct tools whose calls ran since the last task was recorded, oldest first: the
    /// conversation's task (see [`CONVERSATION_TASK_TOOLS`]).
    task: Vec<String>,
}

/// Most distinct tools of one conversation's task: when a call of one more tool runs, the task
/// so far is recorded and a new one begins (a long conversation is several tasks, not one that
/// pairs its first tool with its thousandth).
pub const CONVERSATION_TASK_TOOLS: usize = 16;

impl Conversation {
    /// A conversation over `registry` (the state is shared, not copied).
    /// Fails with INVALID_ARGUMENT on options no provider takes ([`ConversationOptions::check`]).
    pub fn new(registry: &Registry, mut options: ConversationOptions) -> Result<Conversation> {
        options.check()?;
        // Searches answer in the conversation's own shape, whatever the request said.
        options.request.api_format = options.api_format;
        options.request.strict = options.strict;
        let ranking = match options.discovery {
            Some(o) => o,
            None => registry.discovery_options()?.unwrap_or_default(),
        };
        // The loaded names live in the conversation's state only, not a second time in its options.
        let names = dedup(std::mem::take(&mut options.loaded));
        Ok(Conversation {
            discoverer: registry.discoverer(ranking),
            registry: registry.share(),
            options,
            loaded: Mutex::new(Loaded {
                names,
                fingerprint: None,
                task: Vec::new(),
            }),
        })
    }

    /// [`new`](Self::new) from options JSON (see [`ConversationOptions::from_json`]).
    pub fn from_json(registry: &Registry, options_json: Option<&str>) -> Result<Conversation> {
        Self::new(registry, ConversationOptions::from_json(options_json)?)
    }

    /// The conversation's options.
    pub fn options(&self) -> &ConversationOptions {
        &self.options
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, Loaded>> {
        self.loaded
            .lock()
            .map_err(|_| Error::Internal("a conversation lock was poisoned by a panic".into()))
    }

    /// The next request's tools: `{"tools": [...], "system_text": "...", "fingerprint": "..."}`.
    /// `fingerprint` is the SHA-256 (hex) of `{"tools":...,"system_text":...}` exactly as written
    /// here, so it changes exactly when those bytes do.
    pub fn tools_json(&self) -> Result<String> {
        let mut loaded = self.lock()?;
        let generation = self.registry.generation();
        let shared = render::shared_parts(&self.registry, &self.options)?;
        // The shared parts are already text: only the loaded tools are rendered (and checked
        // as UTF-8) per request, so the cost is copying the answer.
        let mut tail = Vec::with_capacity(4096);
        if shared.appends_loaded {
            render::write_loaded(
                &self.registry,
                &self.options,
                &loaded.names,
                &mut tail,
                shared.prefix.is_empty(),
            )?;
        }
        let tail = crate::format::into_string(tail);
        let mut body = String::with_capacity(
            shared.prefix.len() + tail.len() + shared.system_text_json.len() + 128,
        );
        // The request's `tools` array, around the tool objects as the provider takes them
        // (Gemini: one `Tool` with `functionDeclarations`; none when there is nothing to send).
        let (open, close) = provider::provider(self.options.api_format).request_tools_wrapper();
        let wrap = !(shared.prefix.is_empty() && tail.is_empty());
        body.push_str("{\"tools\":[");
        if wrap {
            body.push_str(open);
        }
        body.push_str(&shared.prefix);
        body.push_str(&tail);
        if wrap {
            body.push_str(close);
        }
        body.push_str("],\"system_text\":");
        body.push_str(&shared.system_text_json);
        body.push('}');
        let count = loaded.names.len();
        let fingerprint = match &loaded.fingerprint {
            Some((g, n, f)) if *g == generation && *n == count => f.clone(),
            _ => {
                let f = hex(&Sha256::digest(body.as_bytes()));
                loaded.fingerprint = Some((generation, count, f.clone()));
                f
            }
        };
        body.pop();
        body.push_str(",\"fingerprint\":\"");
        body.push_str(&fingerprint);
        body.push_str("\"}");
        Ok(body)
    }

    /// The deferred tools loaded so far, in load order (to save and restore a conversation with
    /// the `loaded` option). A loaded tool that is now unregistered or disabled stays listed here
    /// (it is only left out of the tool list until it comes back).
    pub fn loaded(&self) -> Result<Vec<String>> {
        Ok(self.lock()?.names.clone())
    }

    /// [`loaded`](Self::loaded) as a JSON array.
    pub fn loaded_json(&self) -> Result<String> {
        Ok(Value::from(self.loaded()?).to_string())
    }

    /// Loads these deferred tools as if the model had found them (all or none: an unknown name
    /// is NOT_FOUND and loads nothing).
    pub fn reveal(&self, names: &[String]) -> Result<()> {
        for (i, n) in names.iter().enumerate() {
            if self.registry.tool(n)?.is_none() {
                return Err(Error::not_found(format!(
                    "names[{i}]: no tool named {n:?} is registered"
                )));
            }
        }
        let mut loaded = self.lock()?;
        for n in names {
            push_unique(&mut loaded.names, n);
        }
        Ok(())
    }

    /// [`reveal`](Self::reveal) from a JSON array of names.
    pub fn reveal_json(&self, names_json: &str) -> Result<()> {
        let value = parse_json(names_json, "names")?;
        let items = value.as_array().ok_or_else(|| {
            Error::invalid(format!("names: expected an array, got {}", kind_of(&value)))
        })?;
        let names = items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid(format!("names[{i}]: expected a string, got {}", kind_of(v)))
                })
            })
            .collect::<Result<Vec<_>>>()?;
        self.reveal(&names)
    }

    /// Runs the model's tool calls like [`crate::exec::execute_json`], in the conversation's
    /// format, and keeps what the model found: tools returned by `discover_tools` (or a
    /// Responses `tool_search_call`), and deferred tools it called directly or through
    /// `call_deferred`, become loaded. Searches answer in the mode's shape (native Anthropic:
    /// `tool_reference` blocks; native Responses: a `tool_search_output` item). It is
    /// [`prepare`](Self::prepare), the registry's host functions, then [`finish`](Self::finish).
    pub fn execute_json(&self, calls_json: &str, options: &ExecuteOptions) -> Result<String> {
        let plan = self.prepare(calls_json, options)?;
        let outcomes = crate::exec::run_host_calls(&self.registry, &plan, options.parallel);
        self.finish_with(&plan, outcomes, false)
    }

    /// Records `task` (the tools whose calls ran) as one task of usage.
    fn record_task(&self, task: &[String]) {
        let names: Vec<&str> = task.iter().map(String::as_str).collect();
        self.registry.record_ran(&names);
    }

    /// Step one of [`execute_json`](Self::execute_json): the calls planned, searches answered
    /// with the conversation's options. Nothing is loaded yet: [`finish`](Self::finish) loads
    /// what the calls revealed, in the order the model made them.
    pub fn prepare(&self, calls_json: &str, options: &ExecuteOptions) -> Result<Plan> {
        let format = self.options.api_format;
        if options.api_format.is_some_and(|f| f != format) {
            return Err(Error::invalid(format!(
                "options.api_format: this conversation speaks {}",
                format.as_str()
            )));
        }
        let value = parse_json(calls_json, "calls")?;
        let provider = provider::provider(format);
        let empty = value.as_array().is_some_and(Vec::is_empty);
        if !empty && !provider.detect(&value) {
            return Err(Error::invalid(format!(
                "calls: not a {} tool-call list (this conversation's format)",
                format.as_str()
            )));
        }
        let calls = provider.parse_calls(&value)?;
        let searches = provider.parse_search_calls(&value)?;
        let mut ids = HostIds::new(&calls);
        let planned = calls
            .iter()
            .enumerate()
            .map(|(i, call)| self.plan(call, || ids.take(i)))
            .collect::<Result<Vec<_>>>()?;
        let (found, searched): (Vec<_>, Vec<_>) = searches
            .iter()
            .map(|s| {
                let (definitions, loads) = self.search_tools(&s.arguments);
                (
                    definitions,
                    PlannedSearch {
                        calls_before: s.calls_before,
                        loads,
                    },
                )
            })
            .unzip();
        let assistant = if options.include_assistant {
            provider.assistant_messages(&value, &calls)
        } else {
            Vec::new()
        };
        Ok(Plan {
            format,
            include_assistant: options.include_assistant,
            assistant,
            calls: planned,
            searches: searched,
            search_messages: provider.search_replies(&searches, found),
        })
    }

    /// Step two: the next turn's messages for `plan` with the host's outcomes (one per host call,
    /// in plan order), and the tools the calls revealed loaded, in the model's order: a search's
    /// finds, a deferred tool whose call succeeded.
    pub fn finish(&self, plan: &Plan, outcomes: Vec<HostOutcome>) -> Result<String> {
        self.finish_with(plan, outcomes, true)
    }

    /// [`finish`](Self::finish); `recheck` as in `crate::exec::outcomes_in_order`.
    fn finish_with(
        &self,
        plan: &Plan,
        outcomes: Vec<HostOutcome>,
        recheck: bool,
    ) -> Result<String> {
        if plan.format != self.options.api_format {
            return Err(Error::invalid(format!(
                "plan.api_format: this conversation speaks {}",
                self.options.api_format.as_str()
            )));
        }
        let results = crate::exec::outcomes_in_order(&self.registry, plan, outcomes, recheck);
        let mut loaded = self.lock()?;
        let mut searches = plan.searches.iter().peekable();
        for (i, (call, result)) in plan.calls.iter().zip(&results).enumerate() {
            while let Some(s) = searches.next_if(|s| s.calls_before <= i) {
                s.loads
                    .iter()
                    .for_each(|n| push_unique(&mut loaded.names, n));
            }
            let revealed = match call.step {
                Step::Done(_) => true,
                Step::Host(_) => !result.is_error(),
            };
            if revealed {
                call.loads
                    .iter()
                    .for_each(|n| push_unique(&mut loaded.names, n));
            }
        }
        for s in searches {
            s.loads
                .iter()
                .for_each(|n| push_unique(&mut loaded.names, n));
        }
        // The conversation is the task (bounded): recorded when it ends or its window is full.
        let mut full = None;
        if self.registry.usage_recording() {
            for name in crate::exec::ran(plan, &results) {
                if loaded.task.iter().any(|n| n == name) {
                    continue;
                }
                if loaded.task.len() == CONVERSATION_TASK_TOOLS {
                    full = Some(std::mem::take(&mut loaded.task));
                }
                loaded.task.push(name.to_string());
            }
        }
        drop(loaded);
        if let Some(task) = full {
            self.record_task(&task);
        }
        Ok(crate::exec::messages_json(plan, &results))
    }

    /// [`prepare`](Self::prepare) answering the plan as JSON.
    pub fn prepare_json(&self, calls_json: &str, options: &ExecuteOptions) -> Result<String> {
        Ok(self.prepare(calls_json, options)?.to_json())
    }

    /// [`finish`](Self::finish) from JSON (see [`crate::exec::finish_json`]); bad input is
    /// INVALID_ARGUMENT and loads nothing.
    pub fn finish_json(&self, plan_json: &str, results_json: &str) -> Result<String> {
        let plan = Plan::from_json(plan_json)?;
        let outcomes = crate::exec::read_results(&plan, results_json)?;
        self.finish(&plan, outcomes)
    }

    /// Plans one call; a `discover_tools` call is searched here, with the conversation's options.
    fn plan(&self, call: &ToolCall, id: impl FnOnce() -> String) -> Result<PlannedCall> {
        let (step, loads) = if call.name == DISCOVER_TOOLS {
            let (outcome, loads) = self.search_call(&call.arguments);
            (Step::Done(outcome), loads)
        } else {
            let (step, target) = plan_call(&self.registry, call, id);
            let succeeds = match &step {
                Step::Host(_) => true,
                Step::Done(outcome) => !outcome.is_error(),
            };
            let mut loads = Vec::new();
            if let (true, Some(name)) = (succeeds, target) {
                if self
                    .registry
                    .tool(&name)?
                    .is_some_and(|t| t.metadata().defer)
                {
                    loads.push(name);
                }
            }
            (step, loads)
        };
        Ok(PlannedCall {
            call_id: call.id.clone(),
            call_name: call.name.clone(),
            step,
            loads,
        })
    }

    /// A `discover_tools` call: searched with the conversation's options; the found deferred
    /// tools are what it loads.
    fn search_call(&self, arguments: &Arguments) -> (CallOutcome, Vec<String>) {
        let args = match arguments.to_object() {
            Ok(a) => crate::format::json_text(&Value::Object(a)),
            Err(m) => {
                return (
                    CallOutcome::Failure(format!("invalid arguments for discover_tools: {m}")),
                    Vec::new(),
                );
            }
        };
        let (query, asked) = match parse_discover_tools_args(&args) {
            Ok(x) => x,
            Err(e) => {
                return (
                    CallOutcome::Failure(format!("discover_tools: {e}")),
                    Vec::new(),
                );
            }
        };
        let request = self.search_request(&asked);
        if self.answers_with_references() {
            let hits = match self.discoverer.discover(&query, &request) {
                Ok(hits) => hits,
                Err(e) => {
                    return (
                        CallOutcome::Failure(format!("discover_tools: {e}")),
                        Vec::new(),
                    );
                }
            };
            let loads = deferred_names(hits.iter().map(|h| (h.name.as_str(), h.deferred)));
            return (
                CallOutcome::References(hits.into_iter().map(|h| h.name).collect()),
                loads,
            );
        }
        let json = match self.discoverer.discover_json(&query, &request) {
            Ok(json) => json,
            Err(e) => {
                return (
                    CallOutcome::Failure(format!("discover_tools: {e}")),
                    Vec::new(),
                );
            }
        };
        // Load what the model was shown: the answer may stop early under `max_tokens`.
        #[derive(serde::Deserialize)]
        struct Shown<'a> {
            #[serde(borrow)]
            name: std::borrow::Cow<'a, str>,
            deferred: bool,
        }
        let shown: Vec<Shown> = serde_json::from_str(&json).expect("discover answers are JSON");
        let loads = deferred_names(shown.iter().map(|h| (h.name.as_ref(), h.deferred)));
        (CallOutcome::Success(json), loads)
    }

    /// The conversation's search options, with what the model asked for (`top_k`, filters).
    fn search_request(&self, asked: &DiscoverRequest) -> DiscoverRequest {
        let mut r = self.options.request.clone();
        if asked.top_k != DiscoverRequest::default().top_k {
            r.top_k = asked.top_k;
        }
        if !asked.namespaces.is_empty() {
            r.namespaces = asked.namespaces.clone();
        }
        if !asked.tags.is_empty() {
            r.tags = asked.tags.clone();
        }
        r
    }

    /// Whether `discover_tools` answers with references the provider expands: in native mode,
    /// when it is the provider's own client-side search tool (Anthropic's custom tool search).
    fn answers_with_references(&self) -> bool {
        self.options.mode == Mode::Native
            && render::search_tool(self.options.api_format, SearchSide::Client)
                == Some(SearchTool::DiscoverTools)
    }

    /// The definitions of the tools a provider's own search call finds, `defer_loading` kept (none
    /// on a bad query: the model sees an empty result and may search again), and the deferred
    /// ones it loads.
    fn search_tools(&self, arguments: &Arguments) -> (Vec<Value>, Vec<String>) {
        let Ok(args) = arguments.to_object() else {
            return (Vec::new(), Vec::new());
        };
        let Some(query) = args.get("query").and_then(Value::as_str) else {
            return (Vec::new(), Vec::new());
        };
        let mut request = self.options.request.clone();
        if let Some(k) = args
            .get("limit")
            .or(args.get("top_k"))
            .and_then(Value::as_u64)
        {
            request.top_k = (k as usize).max(1);
        }
        let Ok(hits) = self.discoverer.discover(query, &request) else {
            return (Vec::new(), Vec::new());
        };
        let names: Vec<String> = hits.iter().map(|h| h.name.clone()).collect();
        let loads = deferred_names(hits.iter().map(|h| (h.name.as_str(), h.deferred)));
        let definitions =
            render::definitions(&self.registry, &self.options, &names).unwrap_or_default();
        (definitions, loads)
    }
}

/// The names of the deferred ones among `(name, deferred)` hits.
fn deferred_names<'a>(hits: impl Iterator<Item = (&'a str, bool)>) -> Vec<String> {
    hits.filter(|(_, d)| *d)
        .map(|(n, _)| n.to_string())
        .collect()
}

fn push_unique(names: &mut Vec<String>, name: &str) {
    if !names.iter().any(|n| n == name) {
        names.push(name.to_string());
    }
}

fn dedup(names: Vec<String>) -> Vec<String> {
    let mut out = Vec::with_capacity(names.len());
    for n in names {
        push_unique(&mut out, &n);
    }
    out
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
