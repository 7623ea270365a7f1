//! The registry: the source of truth for tools, their enabled state and metadata, with the search
//! index kept in step under the same lock.
//!
//! Every mutation validates its whole input first and then commits under the write lock, so a
//! failed call changes nothing. Discovers share the read lock and run in parallel.

use crate::analyzer::{EnhancedAnalysis, enhanced_document, reference_document, reference_tokens};
use crate::discovery::options::{DiscoveryOptions, Profile};
use crate::error::{Error, Result};
use crate::format::{
    ApiFormat, into_string, write_cached_schema_parts, write_opt_str, write_schema_strict,
    write_str,
};
use crate::index::{DocId, Index};
use crate::limits::{check_tool_text, kind_of, parse_json, string_list};
use crate::schema::{SameForms, SchemaCache};
use crate::suggest::suggest_names;
use crate::tool::{MetadataUpdate, Tool, dedup_tags};
use crate::validate::ArgsValidator;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Name of the built-in discovery tool.
pub const DISCOVER_TOOLS: &str = "discover_tools";

/// Name of the built-in that runs a deferred tool by name.
pub const CALL_DEFERRED: &str = "call_deferred";

/// Names no registered tool may take: the built-ins use them.
pub const RESERVED_NAMES: [&str; 2] = [DISCOVER_TOOLS, CALL_DEFERRED];

/// What a host function gives back: the text the model sees, or an error message for the model.
pub type HostResult = std::result::Result<String, String>;

/// A host function: called with the tool's registered name and its arguments as compact JSON
/// text. It runs with no registry lock held, so it may call back into the registry.
pub type HostFn = Arc<dyn Fn(&str, &str) -> HostResult + Send + Sync>;

/// A tool the library runs itself (`discover_tools`, `call_deferred`; see `crate::builtins`).
///
/// The registry lists built-ins in schemas and runs them, but never indexes them nor lists them
/// among the deferred tools: they are how the model reaches the other tools.
pub trait Builtin: Send + Sync + std::fmt::Debug {
    /// The tool's name, one of [`RESERVED_NAMES`].
    fn name(&self) -> &'static str;
    /// The description the model sees, given the current deferred tools, their list cut to about
    /// `max_tokens` when given (a conversation's `summary_max_tokens`).
    fn description(&self, deferred: &[Summary], max_tokens: Option<usize>) -> String;
    /// The description without the deferred tools listed, where they are listed elsewhere (a
    /// `stable` conversation's system text).
    fn base_description(&self) -> &'static str;
    /// The parameters schema, compact JSON.
    fn parameters_json(&self) -> &'static str;
    /// Where its cleaned schema forms are kept (a `static` of the built-in: computed once).
    fn schema_cache(&self) -> &'static (SchemaCache, SameForms);
    /// Runs one call. `Err` is a bad call of the built-in itself (a status for the C ABI);
    /// `Ok(Err(message))` is a tool the built-in ran that failed.
    fn call(&self, registry: &Registry, args_json: &str) -> Result<HostResult>;
}

/// Compact slots once this many are dead and they outnumber the live ones.
const COMPACT_MIN_DEAD: usize = 1024;

mod names;
mod slots;
use names::Names;
use slots::{DisabledBits, Extras};

/// A registered tool's slot: only the tool. Whether it is disabled, its host function and its
/// disable reason are kept beside the slots (see [`slots`]), which keeps a slot at 104 bytes.
#[derive(Debug)]
struct Slot {
    tool: Tool,
}

/// Registry state behind the lock.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Tools in registration order; `None` where a tool was unregistered.
    slots: Vec<Option<Slot>>,
    /// Slots by tool name, and by normalized name for the tolerant exact-name match.
    names: Names,
    /// Slots whose tool itself is disabled.
    disabled: DisabledBits,
    /// Host functions and disable reasons of the slots that have one.
    extras: Extras,
    /// Live tools per namespace.
    namespaces: HashMap<String, usize>,
    disabled_namespaces: HashSet<String>,
    /// Why a namespace was disabled, when the operator said.
    namespace_reasons: HashMap<String, String>,
    /// The reference profile's index. Like the enhanced one, built the first time something ranks
    /// with that profile (a discoverer or `discover_tools`), kept in step from then on, and never
    /// paid for by a registry whose discoverers all use the other profile.
    index: Option<Index<5>>,
    /// The enhanced profile's index: built the first time something ranks with that profile, kept
    /// in step from then on, never paid for by a registry that does not use it.
    enhanced: Option<EnhancedIndex>,
    /// Options of the `discover_tools` built-in, when discovery is enabled.
    discovery: Option<DiscoveryOptions>,
    /// The built-ins in schema order (`discover_tools` first), installed by `crate::builtins`.
    builtins: Vec<Arc<dyn Builtin>>,
    /// Runs registered tools that have no host function of their own.
    fallback: Fallback,
    live: usize,
    /// Compiled parameters schemas of the tools called so far, by name.
    validators: std::sync::Mutex<HashMap<String, Arc<ArgsValidator>>>,
}

/// The enhanced profile's index and the analysis its documents were built with.
#[derive(Debug, Default)]
struct EnhancedIndex {
    analysis: EnhancedAnalysis,
    index: Index<6>,
}

/// The fallback host function (a newtype only so that the state can derive `Debug`).
#[derive(Default, Clone)]
struct Fallback(Option<HostFn>);

impl std::fmt::Debug for Fallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Fallback({})",
            if self.0.is_some() { "set" } else { "none" }
        )
    }
}

/// The lock around the state, shared by a registry and its discoverers.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    state: RwLock<State>,
    /// Bumped by every write: a conversation whose registry is at the generation it last saw
    /// answers from its cache, without looking at the catalog.
    generation: std::sync::atomic::AtomicU64,
    /// Renderings derived from the state that many readers share (a conversation's tool list
    /// prefix), each with the generation it was made at: (key, generation, value).
    derived: std::sync::Mutex<Vec<Derived>>,
}

/// One shared rendering: (key, generation it was made at, value).
type Derived = ([u64; 3], u64, Arc<dyn std::any::Any + Send + Sync>);

impl Shared {
    pub(crate) fn read(&self) -> Result<RwLockReadGuard<'_, State>> {
        self.state.read().map_err(|_| poisoned())
    }

    pub(crate) fn write(&self) -> Result<RwLockWriteGuard<'_, State>> {
        let guard = self.state.write().map_err(|_| poisoned())?;
        // Bumped under the lock, so a reader that saw the new state also sees the new number.
        self.generation
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(guard)
    }

    pub(crate) fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::Acquire)
    }
}

fn poisoned() -> Error {
    Error::Internal(
        "the registry lock was poisoned by a panic in an earlier call; recreate the registry"
            .into(),
    )
}

pub use crate::tool::normalize_name;

impl State {
    /// The ranking options `discover_tools` runs with, when discovery is enabled.
    pub(crate) fn discovery(&self) -> Option<DiscoveryOptions> {
        self.discovery
    }

    /// The reference index, if built.
    pub(crate) fn index(&self) -> Option<&Index<5>> {
        self.index.as_ref()
    }

    /// Number of indexed (enabled) tools, from whichever index is built (0 when none is).
    pub(crate) fn indexed_count(&self) -> usize {
        match (&self.index, &self.enhanced) {
            (Some(index), _) => index.doc_count(),
            (None, Some(e)) => e.index.doc_count(),
            (None, None) => 0,
        }
    }

    /// Builds the index `profile` ranks with if it does not exist yet (once; from then on every
    /// change keeps it in step).
    pub(crate) fn ensure_index(&mut self, profile: Profile) {
        match profile {
            Profile::Reference => self.ensure_reference(),
            Profile::Enhanced => self.ensure_enhanced(),
        }
    }

    /// Builds the reference index if it does not exist yet.
    pub(crate) fn ensure_reference(&mut self) {
        if self.index.is_none() {
            let mut index = Index::new();
            index.start_bulk();
            for (id, slot) in self.live_slots() {
                if self.is_enabled(id, slot) {
                    index.add(id, &reference_tokens(&slot.tool));
                }
            }
            index.shrink_to_fit();
            self.index = Some(index);
        }
    }

    /// The enhanced index and its analysis, if built.
    pub(crate) fn enhanced(&self) -> Option<(&EnhancedAnalysis, &Index<6>)> {
        self.enhanced.as_ref().map(|e| (&e.analysis, &e.index))
    }

    /// Builds the enhanced index if it does not exist yet.
    pub(crate) fn ensure_enhanced(&mut self) {
        if self.enhanced.is_none() {
            self.build_enhanced(EnhancedAnalysis::default());
        }
    }

    fn build_enhanced(&mut self, analysis: EnhancedAnalysis) {
        let mut index = Index::new();
        index.start_bulk();
        for (id, slot) in self.live_slots() {
            if self.is_enabled(id, slot) {
                index.add(id, &enhanced_document(&slot.tool, &analysis));
            }
        }
        index.shrink_to_fit();
        self.enhanced = Some(EnhancedIndex { analysis, index });
    }

    /// Whether `slot` is live and currently indexed (it is, exactly when it is enabled).
    pub(crate) fn is_indexed(&self, slot: DocId) -> bool {
        self.enabled_at(slot)
    }

    /// The slot of a registered tool (enabled or not).
    pub(crate) fn slot_of(&self, name: &str) -> Option<DocId> {
        self.names.get(&self.slots, name)
    }

    pub(crate) fn tool_at(&self, slot: DocId) -> &Tool {
        &self.slots[slot as usize].as_ref().expect("live slot").tool
    }

    fn is_enabled(&self, id: DocId, slot: &Slot) -> bool {
        !self.disabled.get(id)
            && slot
                .tool
                .namespace()
                .is_none_or(|ns| !self.disabled_namespaces.contains(ns))
    }

    fn enabled_at(&self, id: DocId) -> bool {
        self.slots[id as usize]
            .as_ref()
            .is_some_and(|s| self.is_enabled(id, s))
    }

    fn live_slots(&self) -> impl Iterator<Item = (DocId, &Slot)> {
        self.slots
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.as_ref().map(|s| (i as DocId, s)))
    }

    /// The enabled tool a query names exactly, or after normalizing both sides (first in
    /// registration order).
    pub(crate) fn exact_match(&self, query: &str) -> Option<DocId> {
        if let Some(id) = self.slot_of(query) {
            if self.enabled_at(id) {
                return Some(id);
            }
        }
        // Slots are numbered in registration order, so the first is the smallest id.
        let normalized = normalize_name(query);
        // The tool named exactly `normalized` belongs with them when its name normalizes to itself.
        let already = self
            .slot_of(&normalized)
            .filter(|_| normalized.is_ascii() || normalize_name(&normalized) == normalized);
        self.names
            .normalized(&self.slots, &normalized)
            .chain(already)
            .filter(|&id| self.enabled_at(id))
            .min()
    }

    /// Brings the index in line with the slot's current enabled state and fields.
    fn index_slot(&mut self, id: DocId) {
        let Some(slot) = self.slots[id as usize].as_ref() else {
            return;
        };
        if self.is_enabled(id, slot) {
            if let Some(index) = self.index.as_mut() {
                index.add(id, &reference_tokens(&slot.tool));
            }
            let enhanced = self
                .enhanced
                .as_ref()
                .map(|e| enhanced_document(&slot.tool, &e.analysis));
            if let (Some(e), Some(doc)) = (self.enhanced.as_mut(), enhanced) {
                e.index.add(id, &doc);
            }
        }
    }

    fn unindex_slot(&mut self, id: DocId) {
        let Some(slot) = self.slots[id as usize].as_ref() else {
            return;
        };
        if let Some(index) = self.index.as_mut() {
            if index.contains(id) {
                index.remove(id, &reference_tokens(&slot.tool));
            }
        }
        let enhanced = self
            .enhanced
            .as_ref()
            .filter(|e| e.index.contains(id))
            .map(|e| enhanced_document(&slot.tool, &e.analysis));
        if let (Some(e), Some(doc)) = (self.enhanced.as_mut(), enhanced) {
            e.index.remove(id, &doc);
        }
    }

    /// Registers or replaces `tool` with its host function; returns its slot and the host
    /// function it replaced (to be dropped once the lock is released).
    fn insert(&mut self, tool: Tool, host: Option<HostFn>) -> (DocId, Option<HostFn>) {
        if let Some(id) = self.slot_of(tool.name()) {
            // Same name: replace in place, keeping the position and the enabled flag.
            self.unindex_slot(id);
            let slot = self.slots[id as usize]
                .as_mut()
                .expect("named slot is live");
            if let Some(ns) = slot.tool.namespace() {
                decrement(&mut self.namespaces, ns);
            }
            if let Some(ns) = tool.namespace() {
                *self.namespaces.entry(ns.to_string()).or_default() += 1;
            }
            let stale = std::mem::replace(&mut slot.tool, tool);
            let old = self.extras.set_host(id, host);
            self.forget_validator(stale.name());
            self.index_slot(id);
            return (id, old);
        }
        let id = DocId::try_from(self.slots.len())
            .expect("fewer than 2^32 registrations between compactions");
        if let Some(ns) = tool.namespace() {
            *self.namespaces.entry(ns.to_string()).or_default() += 1;
        }
        self.slots.push(Some(Slot { tool }));
        // A new id has no side entries yet (removal and compaction clear them), so this gives
        // nothing back.
        let none = self.extras.set_host(id, host);
        debug_assert!(none.is_none());
        self.names.insert(&self.slots, id);
        self.live += 1;
        self.index_slot(id);
        (id, None)
    }

    /// Drops the compiled schema of a tool whose definition is replaced or removed.
    fn forget_validator(&mut self, name: &str) {
        let cache = self.validators.get_mut().unwrap_or_else(|e| e.into_inner());
        // Most registries never run a call: no hashing on their register/unregister path.
        if !cache.is_empty() {
            cache.remove(name);
        }
    }

    /// The compiled parameters schema of an enabled tool, compiled on its first call (only called
    /// tools pay for one: nothing per registered tool).
    fn validator(&self, tool: &Tool) -> Arc<ArgsValidator> {
        let mut cache = self.validators.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = cache.get(tool.name()) {
            return Arc::clone(v);
        }
        let v = Arc::new(ArgsValidator::compile(tool.parameters_json()));
        cache.insert(tool.name().to_string(), Arc::clone(&v));
        v
    }

    /// Removes slot `id`, giving back its host function to drop once the lock is released.
    fn remove(&mut self, id: DocId) -> Option<HostFn> {
        self.unindex_slot(id);
        self.names.remove(&self.slots, id);
        let slot = self.slots[id as usize].take().expect("named slot is live");
        self.forget_validator(slot.tool.name());
        if let Some(ns) = slot.tool.namespace() {
            decrement(&mut self.namespaces, ns);
        }
        self.live -= 1;
        self.disabled.set(id, false);
        let host = self.extras.remove(id);
        self.maybe_compact();
        host
    }

    /// Why a tool is disabled: its own reason, else its namespace's.
    fn disabled_reason<'a>(&'a self, id: DocId, slot: &'a Slot) -> Option<&'a str> {
        self.extras.reason(id).or_else(|| {
            slot.tool
                .namespace()
                .and_then(|ns| self.namespace_reasons.get(ns))
                .map(String::as_str)
        })
    }

    /// The enabled tools in registration order.
    pub(crate) fn enabled_tools(&self) -> impl Iterator<Item = &Tool> {
        self.live_slots()
            .filter(|&(id, s)| self.is_enabled(id, s))
            .map(|(_, s)| &s.tool)
    }

    /// An enabled tool by registered name.
    pub(crate) fn enabled_tool(&self, name: &str) -> Option<&Tool> {
        self.slot_of(name)
            .filter(|&id| self.enabled_at(id))
            .map(|id| self.tool_at(id))
    }

    /// The installed built-ins, `discover_tools` first.
    pub(crate) fn builtins(&self) -> &[Arc<dyn Builtin>] {
        &self.builtins
    }

    /// Writes a built-in's schema; see [`write_builtin_schema`].
    pub(crate) fn write_builtin(
        &self,
        out: &mut Vec<u8>,
        builtin: &dyn Builtin,
        description: &str,
        format: ApiFormat,
        strict: bool,
    ) -> Option<&'static str> {
        write_builtin_schema(out, builtin, description, format, strict)
    }

    fn builtin(&self, name: &str) -> Option<&Arc<dyn Builtin>> {
        self.builtins.iter().find(|b| b.name() == name)
    }

    /// The schemas of exactly these tools (disabled ones and built-ins too), in this order.
    /// The schemas `names` asks for, in that order (disabled tools too).
    fn named_entries(&self, names: &[String]) -> Result<Vec<SchemaEntry<'_>>> {
        names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                if let Some(b) = self.builtin(name) {
                    return Ok(SchemaEntry::Builtin(b.as_ref()));
                }
                let id = self.slot_of(name).ok_or_else(|| {
                    Error::not_found(format!(
                        "options.names[{i}]: no tool named {name:?} is registered"
                    ))
                })?;
                Ok(SchemaEntry::Tool(self.tool_at(id)))
            })
            .collect()
    }

    /// Writes schemas as a JSON array, or with `strict` as `{"tools": [...], "warnings":
    /// [{"name", "reason"}]}` naming the tools that could not be made strict.
    fn write_schema_list(
        &self,
        entries: &[SchemaEntry<'_>],
        format: ApiFormat,
        strict: bool,
    ) -> String {
        let any_builtin = entries.iter().any(|e| matches!(e, SchemaEntry::Builtin(_)));
        let summaries = if any_builtin {
            self.summaries()
        } else {
            Vec::new()
        };
        let mut warnings: Vec<(&str, &str)> = Vec::new();
        let mut out = Vec::new();
        out.extend_from_slice(if strict { b"{\"tools\":[" } else { b"[" });
        for (i, entry) in entries.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            let warning = match *entry {
                SchemaEntry::Builtin(builtin) => {
                    let description = builtin.description(&summaries, None);
                    write_builtin_schema(&mut out, builtin, &description, format, strict)
                        .map(|w| (builtin.name(), w))
                }
                SchemaEntry::Tool(tool) => {
                    write_schema_strict(&mut out, tool, format, strict).map(|w| (tool.name(), w))
                }
            };
            warnings.extend(warning);
        }
        out.push(b']');
        if strict {
            out.extend_from_slice(b",\"warnings\":[");
            for (i, (name, reason)) in warnings.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"name\":");
                write_str(&mut out, name);
                out.extend_from_slice(b",\"reason\":");
                write_str(&mut out, reason);
                out.push(b'}');
            }
            out.extend_from_slice(b"]}");
        }
        into_string(out)
    }

    /// Drops dead slots once they dominate, renumbering in order so ties still break by registration.
    fn maybe_compact(&mut self) {
        let dead = self.slots.len() - self.live;
        if dead < COMPACT_MIN_DEAD || dead < self.live {
            return;
        }
        let mut map = vec![None; self.slots.len()];
        let mut next: DocId = 0;
        for (old, slot) in self.slots.iter().enumerate() {
            if slot.is_some() {
                map[old] = Some(next);
                next += 1;
            }
        }
        self.slots.retain(Option::is_some);
        self.names.renumber(&map);
        self.disabled.renumber(&map);
        self.extras.renumber(&map);
        if let Some(index) = self.index.as_mut() {
            index.renumber(&map);
        }
        if let Some(e) = self.enhanced.as_mut() {
            e.index.renumber(&map);
        }
    }

    fn slot_id(&self, name: &str) -> Result<DocId> {
        self.slot_of(name)
            .ok_or_else(|| Error::not_found(format!("no tool named {name:?} is registered")))
    }

    pub(crate) fn rebuild_index(&mut self) {
        let enhanced = self.enhanced.take().map(|e| e.analysis);
        if self.index.take().is_some() {
            self.ensure_reference();
        }
        if let Some(analysis) = enhanced {
            self.build_enhanced(analysis);
        }
    }

    pub(crate) fn summaries(&self) -> Vec<Summary> {
        self.live_slots()
            .filter(|&(id, s)| s.tool.metadata().defer && self.is_enabled(id, s))
            .map(|(_, s)| Summary {
                name: s.tool.name().to_string(),
                description: first_sentence(s.tool.description()).to_string(),
                namespace: s.tool.namespace().map(str::to_string),
            })
            .collect()
    }
}

fn decrement(counts: &mut HashMap<String, usize>, key: &str) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

/// The first sentence of the first line of a tool description, for one-line summaries.
///
/// Cuts after the first `.`, `!` or `?` followed by whitespace or the end of the line, or after
/// the first `。`, `！` or `？`; keeps the terminator. Without one, the whole first line.
pub fn first_sentence(description: &str) -> &str {
    let line = description.split('\n').next().unwrap_or("").trim();
    let mut chars = line.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        match c {
            '。' | '！' | '？' => return &line[..end],
            '.' | '!' | '?' if chars.peek().is_none_or(|(_, next)| next.is_whitespace()) => {
                return &line[..end];
            }
            _ => {}
        }
    }
    line
}

/// One line of the deferred-tools list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// Registered name.
    pub name: String,
    /// First sentence of the description.
    pub description: String,
    /// Namespace, if any.
    pub namespace: Option<String>,
}

/// Which schemas [`Registry::schemas_json`] returns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaOptions {
    /// Include deferred tools (default true).
    pub include_deferred: bool,
    /// Output format (default `openai-chat`).
    pub api_format: ApiFormat,
    /// Keep only tools with any of these tags.
    pub tags: Option<Vec<String>>,
    /// Drop tools with any of these tags.
    pub exclude_tags: Option<Vec<String>>,
    /// Exactly these tools, in this order, disabled ones included (the other filters are ignored).
    pub names: Option<Vec<String>>,
    /// OpenAI strict mode (OpenAI formats only; see [`crate::schema`]). The answer is then
    /// `{"tools": [...], "warnings": [{"name", "reason"}]}`: a tool whose schema cannot be made
    /// strict is in `tools` non-strict and named in `warnings`.
    pub strict: bool,
}

impl Default for SchemaOptions {
    fn default() -> Self {
        SchemaOptions {
            include_deferred: true,
            api_format: ApiFormat::OpenAiChat,
            tags: None,
            exclude_tags: None,
            names: None,
            strict: false,
        }
    }
}

impl SchemaOptions {
    /// Parses `{"include_deferred"?, "api_format"?, "tags"?, "exclude_tags"?, "names"?,
    /// "strict"?}`; `None`/`null` give the defaults.
    pub fn from_json(text: Option<&str>) -> Result<Self> {
        let mut o = Self::default();
        let Some(text) = text else { return Ok(o) };
        let value = parse_json(text, "schema options")?;
        let obj = match &value {
            Value::Null => return Ok(o),
            Value::Object(m) => m,
            other => {
                return Err(Error::invalid(format!(
                    "options: expected an object, got {}",
                    kind_of(other)
                )));
            }
        };
        for (key, v) in obj {
            let here = format!("options.{key}");
            match key.as_str() {
                "include_deferred" => {
                    o.include_deferred = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                "api_format" => {
                    let s = v.as_str().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a string, got {}", kind_of(v)))
                    })?;
                    o.api_format = ApiFormat::parse(s)?;
                }
                "tags" => o.tags = string_list(v, &here)?,
                "exclude_tags" => o.exclude_tags = string_list(v, &here)?,
                "names" => o.names = string_list(v, &here)?,
                "strict" => {
                    o.strict = v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected include_deferred, api_format, tags, exclude_tags, names or strict)"
                    )));
                }
            }
        }
        crate::schema::check_strict(o.strict, o.api_format, "options")?;
        Ok(o)
    }
}

/// One schema to list: a registered tool or a built-in.
#[derive(Clone, Copy)]
enum SchemaEntry<'a> {
    Tool(&'a Tool),
    Builtin(&'a dyn Builtin),
}

impl SchemaEntry<'_> {
    fn name(&self) -> &str {
        match self {
            SchemaEntry::Tool(t) => t.name(),
            SchemaEntry::Builtin(b) => b.name(),
        }
    }
}

/// A tool registry with discovery. Cheap to share: `Send + Sync`, all methods take `&self`;
/// discovers run in parallel, mutations are exclusive.
#[derive(Debug, Default)]
pub struct Registry {
    shared: Arc<Shared>,
}

impl Registry {
    /// An empty registry with discovery off.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry from options JSON: `{"discovery": {...discovery options...}}` turns discovery on
    /// at once; `None`, `null` or `{}` give an empty registry with discovery off.
    pub fn from_options_json(text: Option<&str>) -> Result<Self> {
        let registry = Self::new();
        let Some(text) = text else {
            return Ok(registry);
        };
        let value = parse_json(text, "registry options")?;
        let obj = match &value {
            Value::Null => return Ok(registry),
            Value::Object(m) => m,
            other => {
                return Err(Error::invalid(format!(
                    "options: expected an object, got {}",
                    kind_of(other)
                )));
            }
        };
        for (key, v) in obj {
            match key.as_str() {
                "discovery" => registry.enable_discovery_json(Some(&v.to_string()))?,
                _ => {
                    return Err(Error::invalid(format!(
                        "options.{key}: unknown option (expected discovery)"
                    )));
                }
            }
        }
        Ok(registry)
    }

    /// Registers tools (all or none) and returns their registered names. A name already
    /// registered is replaced in place (a host function it had is dropped). The built-ins' names
    /// ([`RESERVED_NAMES`]) are reserved.
    pub fn register(&self, tools: Vec<Tool>) -> Result<Vec<String>> {
        check_registrable(&tools)?;
        let mut replaced = Vec::new();
        let may_differ = tools
            .iter()
            .filter(|t| names::may_differ_normalized(t.name()))
            .count();
        let mut state = self.shared.write()?;
        let st = &mut *state;
        st.slots.reserve(tools.len());
        st.names.reserve(&st.slots, tools.len(), may_differ);
        // Taken from the back of the reversed list, which is shrunk as it empties: the parsed list
        // and the filled registry never count in full at once toward a bulk registration's peak.
        let mut tools = tools;
        tools.reverse();
        let mut ids = Vec::with_capacity(tools.len());
        while let Some(tool) = tools.pop() {
            let (id, old) = state.insert(tool, None);
            ids.push(id);
            replaced.extend(old);
            if tools.capacity() > 1024 && tools.len() < tools.capacity() / 2 {
                tools.shrink_to_fit();
            }
        }
        drop(tools);
        // The names are copied once the tools' list is freed, so both never count at once toward
        // the peak memory of a bulk registration.
        let names = ids
            .iter()
            .map(|&id| state.tool_at(id).name().to_string())
            .collect();
        // Replaced host functions are dropped without the lock: dropping one may run the host's
        // clean-up, which may call back into the registry.
        drop(state);
        drop(replaced);
        Ok(names)
    }

    /// Registers one tool with the host function that runs its calls: `f` gets the arguments as
    /// compact JSON text and returns the text the model sees, or an error message for it.
    /// Returns the registered name.
    pub fn register_callable<F>(&self, tool: Tool, f: F) -> Result<String>
    where
        F: Fn(&str) -> HostResult + Send + Sync + 'static,
    {
        self.register_host(tool, Arc::new(move |_name: &str, args: &str| f(args)))
    }

    /// Registers one tool with a host function that also gets the tool's name (as the C ABI's
    /// callbacks do). Replaces a tool of the same name and its host function.
    pub fn register_host(&self, tool: Tool, host: HostFn) -> Result<String> {
        check_registrable(std::slice::from_ref(&tool))?;
        let mut state = self.shared.write()?;
        let (id, old) = state.insert(tool, Some(host));
        let name = state.tool_at(id).name().to_string();
        drop(state);
        drop(old);
        Ok(name)
    }

    /// Sets the host function that runs registered tools without one of their own (a gateway
    /// that routes calls by name); `None` removes it. `f` gets the tool's name and arguments.
    pub fn set_fallback(&self, fallback: Option<HostFn>) -> Result<()> {
        let old = std::mem::replace(&mut self.shared.write()?.fallback, Fallback(fallback));
        drop(old);
        Ok(())
    }

    /// Parses and registers one tool object or an array of them (see [`Tool::parse_many`]).
    pub fn register_json(&self, json: &str) -> Result<Vec<String>> {
        self.register(Tool::parse_many(json)?)
    }

    /// Removes a tool (and drops its host function). Unregistering `discover_tools` turns
    /// discovery off, `call_deferred` with it; unregistering `call_deferred` removes only it.
    pub fn unregister(&self, name: &str) -> Result<()> {
        let mut state = self.shared.write()?;
        if state.builtin(name).is_some() {
            if name == DISCOVER_TOOLS {
                state.discovery = None;
                state.builtins.clear();
            } else {
                state.builtins.retain(|b| b.name() != name);
            }
            return Ok(());
        }
        let id = state.slot_id(name)?;
        let host = state.remove(id);
        drop(state);
        drop(host);
        Ok(())
    }

    /// Replaces the given metadata fields of a tool.
    pub fn set_metadata(&self, name: &str, update: &MetadataUpdate) -> Result<()> {
        let mut state = self.shared.write()?;
        let id = state.slot_id(name)?;
        let mut update = update.clone();
        update.tags = update.tags.map(dedup_tags);
        let (tool, meta) = (state.tool_at(id), state.tool_at(id).metadata());
        let tag_bytes = |tags: &[String]| tags.iter().map(String::len).sum::<usize>();
        let mut bytes = tool.searchable_text_bytes();
        if let Some(tags) = &update.tags {
            bytes = bytes - tag_bytes(&meta.tags) + tag_bytes(tags);
        }
        if let Some(hint) = &update.search_hint {
            bytes = bytes - meta.search_hint.len() + hint.len();
        }
        check_tool_text(name, bytes)?;
        let reindex = update.tags.is_some() || update.search_hint.is_some();
        if reindex {
            state.unindex_slot(id);
        }
        let slot = state.slots[id as usize]
            .as_mut()
            .expect("named slot is live");
        update.apply_to(slot.tool.metadata_mut());
        if reindex {
            state.index_slot(id);
        }
        Ok(())
    }

    /// [`set_metadata`](Self::set_metadata) from `{"defer"?, "tags"?, "search_hint"?}`.
    pub fn set_metadata_json(&self, name: &str, json: &str) -> Result<()> {
        self.set_metadata(name, &MetadataUpdate::from_json(json)?)
    }

    /// Enables or disables a tool, or every tool of a namespace. A tool name wins over a namespace
    /// of the same spelling. Enabling clears the disable reason.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        self.set_enabled_with_reason(name, enabled, None)
    }

    /// Disables a tool or a namespace like [`set_enabled`](Self::set_enabled), recording why
    /// (shown to the model when it calls the tool, and in [`tools_status`](Self::tools_status)).
    pub fn disable(&self, name: &str, reason: Option<&str>) -> Result<()> {
        self.set_enabled_with_reason(name, false, reason)
    }

    fn set_enabled_with_reason(
        &self,
        name: &str,
        enabled: bool,
        reason: Option<&str>,
    ) -> Result<()> {
        let reason = reason
            .filter(|r| !enabled && !r.is_empty())
            .map(str::to_string);
        let mut state = self.shared.write()?;
        if let Some(id) = state.slot_of(name) {
            state.unindex_slot(id);
            state.disabled.set(id, !enabled);
            state.extras.set_reason(id, reason);
            state.index_slot(id);
            return Ok(());
        }
        if !state.namespaces.contains_key(name) && !state.disabled_namespaces.contains(name) {
            return Err(Error::not_found(format!(
                "no tool or namespace named {name:?} is registered"
            )));
        }
        let members: Vec<DocId> = state
            .live_slots()
            .filter(|(_, s)| s.tool.namespace() == Some(name))
            .map(|(id, _)| id)
            .collect();
        for &id in &members {
            state.unindex_slot(id);
        }
        if enabled {
            state.disabled_namespaces.remove(name);
            state.namespace_reasons.remove(name);
        } else {
            state.disabled_namespaces.insert(name.to_string());
            match reason {
                Some(r) => state.namespace_reasons.insert(name.to_string(), r),
                None => state.namespace_reasons.remove(name),
            };
        }
        for &id in &members {
            state.index_slot(id);
        }
        Ok(())
    }

    /// Schemas of the enabled tools and the built-ins, sorted by name, as a JSON array; with
    /// `names`, exactly those tools (disabled ones too) in that order; with `strict`,
    /// `{"tools": [...], "warnings": [...]}` (see [`SchemaOptions`]).
    pub fn schemas_json(&self, options: &SchemaOptions) -> Result<String> {
        let state = self.shared.read()?;
        let (format, strict) = (options.api_format, options.strict);
        if let Some(names) = &options.names {
            let entries = state.named_entries(names)?;
            return Ok(state.write_schema_list(&entries, format, strict));
        }
        let mut entries: Vec<SchemaEntry<'_>> = state
            .live_slots()
            .filter(|&(id, s)| state.is_enabled(id, s))
            .map(|(_, s)| &s.tool)
            .filter(|t| options.include_deferred || !t.metadata().defer)
            .filter(|t| options.tags.as_ref().is_none_or(|tags| t.has_any_tag(tags)))
            .filter(|t| {
                options
                    .exclude_tags
                    .as_ref()
                    .is_none_or(|tags| !t.has_any_tag(tags))
            })
            .map(SchemaEntry::Tool)
            .collect();
        // Built-ins have no tags, so a tag filter leaves them out.
        if options.tags.is_none() {
            entries.extend(
                state
                    .builtins
                    .iter()
                    .map(|b| SchemaEntry::Builtin(b.as_ref())),
            );
        }
        // Names are unique across tools and built-ins, so the order is total.
        entries.sort_by(|a, b| a.name().cmp(b.name()));
        Ok(state.write_schema_list(&entries, format, strict))
    }

    /// One-line summaries of the enabled deferred tools, in registration order.
    pub fn deferred_summaries(&self) -> Result<Vec<Summary>> {
        Ok(self.shared.read()?.summaries())
    }

    /// [`deferred_summaries`](Self::deferred_summaries) as JSON: `[{"name", "description", "namespace"}]`.
    pub fn deferred_summaries_json(&self) -> Result<String> {
        let summaries = self.deferred_summaries()?;
        let mut out = vec![b'['];
        for (i, s) in summaries.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            write_str(&mut out, &s.name);
            out.extend_from_slice(b",\"description\":");
            write_str(&mut out, &s.description);
            out.extend_from_slice(b",\"namespace\":");
            write_opt_str(&mut out, s.namespace.as_deref());
            out.push(b'}');
        }
        out.push(b']');
        Ok(into_string(out))
    }

    /// Turns discovery on with these ranking options and installs the built-ins that go with it
    /// (see `crate::builtins`, which calls this); again: replaces both.
    pub(crate) fn install_discovery(
        &self,
        options: DiscoveryOptions,
        builtins: Vec<Arc<dyn Builtin>>,
    ) -> Result<()> {
        let mut state = self.shared.write()?;
        state.ensure_index(options.profile);
        state.discovery = Some(options);
        state.builtins = builtins;
        Ok(())
    }

    /// Rebuilds the enhanced index with other analysis switches. Only for measuring what each
    /// enhanced change contributes (`toolregistry eval --ablate`); not part of the stable API.
    #[doc(hidden)]
    pub fn set_enhanced_analysis(&self, analysis: EnhancedAnalysis) -> Result<()> {
        self.shared.write()?.build_enhanced(analysis);
        Ok(())
    }

    /// Runs a built-in tool: `discover_tools` takes `{"query", "top_k"?, "api_format"?,
    /// "namespace"?, "tags"?}` and answers like [`Discoverer::discover_json`](crate::Discoverer::discover_json); `call_deferred` runs
    /// a deferred tool. Calls of registered tools go through `crate::exec` (`tr_registry_execute`).
    pub fn call_json(&self, name: &str, args_json: &str) -> Result<String> {
        let builtin = {
            let state = self.shared.read()?;
            match state.builtin(name) {
                Some(b) => Arc::clone(b),
                None if name == DISCOVER_TOOLS => {
                    return Err(Error::not_found(
                        "discover_tools: discovery is not enabled on this registry",
                    ));
                }
                None if state.slot_of(name).is_some() => {
                    return Err(Error::invalid(format!(
                        "{name:?} is a registered tool, not a built-in: run it with execute (tr_registry_execute)"
                    )));
                }
                None => return Err(Error::not_found(format!("no built-in tool named {name:?}"))),
            }
        };
        // The lock is released: call_deferred runs a host function.
        builtin
            .call(self, args_json)?
            .map_err(|message| Error::invalid(format!("{name}: {message}")))
    }

    /// What running a call of `name` needs, read under the lock and used after it is released.
    pub fn call_target(&self, name: &str) -> Result<CallTarget> {
        let state = self.shared.read()?;
        if let Some(b) = state.builtin(name) {
            return Ok(CallTarget::Builtin(Arc::clone(b)));
        }
        let Some(id) = state.slot_of(name) else {
            return Ok(CallTarget::Unknown);
        };
        let slot = state.slots[id as usize]
            .as_ref()
            .expect("named slot is live");
        if !state.is_enabled(id, slot) {
            return Ok(CallTarget::Disabled {
                reason: state.disabled_reason(id, slot).map(str::to_string),
            });
        }
        let validator = state.validator(&slot.tool);
        Ok(CallTarget::Tool(ToolTarget {
            name: slot.tool.name().to_string(),
            deferred: slot.tool.metadata().defer,
            concurrency_safe: slot.tool.metadata().concurrency_safe,
            validator,
            host: state.extras.host(id).or(state.fallback.0.as_ref()).cloned(),
        }))
    }

    /// The registered spelling of `name`: itself, else the first registered tool (enabled or not)
    /// whose name equals it after lower-casing and reading `/` and `-` as `_` (MCP clients rewrite
    /// names that way).
    pub fn resolve_name(&self, name: &str) -> Result<Option<String>> {
        let state = self.shared.read()?;
        if state.slot_of(name).is_some() {
            return Ok(Some(name.to_string()));
        }
        let normalized = normalize_name(name);
        let itself = state
            .slot_of(&normalized)
            .filter(|&id| normalize_name(state.tool_at(id).name()) == normalized);
        Ok(state
            .names
            .normalized(&state.slots, &normalized)
            .chain(itself)
            .min()
            .map(|id| state.tool_at(id).name().to_string()))
    }

    /// Up to `limit` registered names close to `name`, closest first, for "did you mean": those
    /// equal to it after normalizing (see [`resolve_name`](Self::resolve_name)), then the most
    /// similar by Python's `difflib.get_close_matches` (ratio at least 0.5), as the reference.
    pub fn suggest_names(&self, name: &str, limit: usize) -> Result<Vec<String>> {
        let state = self.shared.read()?;
        let names: Vec<&str> = state.live_slots().map(|(_, s)| s.tool.name()).collect();
        Ok(suggest_names(name, &names, limit))
    }

    /// Every registered tool's status, disabled ones included, sorted by name.
    pub fn tools_status(&self) -> Result<Vec<ToolStatus>> {
        let state = self.shared.read()?;
        let mut all: Vec<ToolStatus> = state
            .live_slots()
            .map(|(id, s)| ToolStatus {
                name: s.tool.name().to_string(),
                namespace: s.tool.namespace().map(str::to_string),
                enabled: state.is_enabled(id, s),
                reason: if state.is_enabled(id, s) {
                    None
                } else {
                    state.disabled_reason(id, s).map(str::to_string)
                },
                deferred: s.tool.metadata().defer,
                tags: s.tool.metadata().tags.clone(),
                callable: state.extras.host(id).is_some() || state.fallback.0.is_some(),
            })
            .collect();
        all.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(all)
    }

    /// [`tools_status`](Self::tools_status) as JSON:
    /// `[{"name","namespace","enabled","reason","deferred","tags","callable"}]`.
    pub fn tools_status_json(&self) -> Result<String> {
        let mut out = vec![b'['];
        for (i, t) in self.tools_status()?.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            out.extend_from_slice(b"{\"name\":");
            write_str(&mut out, &t.name);
            out.extend_from_slice(b",\"namespace\":");
            write_opt_str(&mut out, t.namespace.as_deref());
            out.extend_from_slice(format!(",\"enabled\":{},\"reason\":", t.enabled).as_bytes());
            write_opt_str(&mut out, t.reason.as_deref());
            out.extend_from_slice(format!(",\"deferred\":{},\"tags\":[", t.deferred).as_bytes());
            for (j, tag) in t.tags.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                write_str(&mut out, tag);
            }
            out.extend_from_slice(format!("],\"callable\":{}}}", t.callable).as_bytes());
        }
        out.push(b']');
        Ok(into_string(out))
    }

    /// A value derived from the state, shared by every caller with the same `key` until the
    /// registry changes; `build` runs under the read lock only when the cached one is stale.
    pub(crate) fn derived<T: std::any::Any + Send + Sync>(
        &self,
        key: [u64; 3],
        build: impl FnOnce(&State) -> T,
    ) -> Result<Arc<T>> {
        let generation = self.generation();
        {
            let cache = self.shared.derived.lock().map_err(|_| poisoned())?;
            if let Some((_, _, v)) = cache.iter().find(|(k, g, _)| *k == key && *g == generation) {
                if let Ok(v) = Arc::clone(v).downcast::<T>() {
                    return Ok(v);
                }
            }
        }
        let state = self.shared.read()?;
        // Read under the lock: no write can land between this number and the state built from.
        let generation = self.generation();
        let value = Arc::new(build(&state));
        drop(state);
        let mut cache = self.shared.derived.lock().map_err(|_| poisoned())?;
        cache.retain(|(k, g, _)| *k != key && *g == generation);
        cache.push((
            key,
            generation,
            Arc::clone(&value) as Arc<dyn std::any::Any + Send + Sync>,
        ));
        Ok(value)
    }

    /// The ranking options `discover_tools` runs with, when discovery is enabled.
    pub fn discovery_options(&self) -> Result<Option<DiscoveryOptions>> {
        Ok(self.shared.read()?.discovery)
    }

    /// The state shared by every handle on this registry (for the discoverers that follow it).
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Reads the registry state under the read lock (for modules that render from it).
    pub(crate) fn with_state<R>(&self, f: impl FnOnce(&State) -> R) -> Result<R> {
        Ok(f(&*self.shared.read()?))
    }

    /// A number that changes whenever the registry changes (any mutation, even one that is
    /// refused after taking the lock).
    pub fn generation(&self) -> u64 {
        self.shared.generation()
    }

    /// Another handle on the same registry (the state is shared, not copied).
    pub fn share(&self) -> Registry {
        Registry {
            shared: Arc::clone(&self.shared),
        }
    }

    /// A registered tool by name (disabled ones too).
    pub fn tool(&self, name: &str) -> Result<Option<Tool>> {
        let state = self.shared.read()?;
        Ok(state.slot_of(name).map(|id| state.tool_at(id).clone()))
    }

    /// Names of all registered tools, in registration order.
    pub fn names(&self) -> Result<Vec<String>> {
        Ok(self
            .shared
            .read()?
            .live_slots()
            .map(|(_, s)| s.tool.name().to_string())
            .collect())
    }

    /// Number of registered tools.
    pub fn len(&self) -> Result<usize> {
        Ok(self.shared.read()?.live)
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Test hook: panics while holding the write lock, which poisons it. Only with the
    /// `test-hooks` feature; see `tests/poison.rs`.
    #[cfg(feature = "test-hooks")]
    #[doc(hidden)]
    pub fn test_panic_while_locked(&self) -> Result<()> {
        let _guard = self.shared.write()?;
        panic!("test hook: panic while holding the registry write lock");
    }

    /// Whether the incrementally kept indexes (the reference one, and the enhanced one once
    /// built) equal ones rebuilt from scratch. For tests and diagnostics; costs a full rebuild.
    pub fn verify_index(&self) -> Result<bool> {
        let state = self.shared.read()?;
        let mut fresh = Index::<5>::new();
        let mut fresh_enhanced = Index::<6>::new();
        for (id, slot) in state.live_slots() {
            if state.is_enabled(id, slot) {
                if state.index.is_some() {
                    fresh.add(id, &reference_document(&slot.tool));
                }
                if let Some(e) = &state.enhanced {
                    fresh_enhanced.add(id, &enhanced_document(&slot.tool, &e.analysis));
                }
            }
        }
        let enhanced_ok = state
            .enhanced
            .as_ref()
            .is_none_or(|e| fresh_enhanced.canonical() == e.index.canonical());
        let reference_ok = state
            .index
            .as_ref()
            .is_none_or(|index| fresh.canonical() == index.canonical());
        Ok(enhanced_ok && reference_ok)
    }

    /// Sizes of the built indexes, as JSON, for the memory benchmark (`bench_mem`): per profile,
    /// terms, postings, blocks, encoded posting bytes and bytes allocated for postings.
    #[doc(hidden)]
    pub fn index_stats_json(&self) -> Result<String> {
        let state = self.shared.read()?;
        let one = |(t, p, b, u, h): (usize, usize, usize, usize, usize)| {
            format!(
                r#"{{"terms":{t},"postings":{p},"blocks":{b},"posting_bytes":{u},"posting_bytes_held":{h}}}"#
            )
        };
        let reference = state
            .index
            .as_ref()
            .map_or("null".into(), |i| one(i.stats()));
        let enhanced = state
            .enhanced
            .as_ref()
            .map_or("null".into(), |e| one(e.index.stats()));
        Ok(format!(
            r#"{{"reference":{reference},"enhanced":{enhanced}}}"#
        ))
    }

    /// Whether the reference index has been built (by a reference discoverer or `discover_tools`).
    pub fn has_reference_index(&self) -> Result<bool> {
        Ok(self.shared.read()?.index.is_some())
    }

    /// Whether the enhanced index has been built (by an enhanced discoverer or `discover_tools`).
    pub fn has_enhanced_index(&self) -> Result<bool> {
        Ok(self.shared.read()?.enhanced.is_some())
    }
}

/// Writes a built-in's schema (cleaned like any other, cached per built-in); returns the
/// strict-mode warning, if any.
fn write_builtin_schema(
    out: &mut Vec<u8>,
    builtin: &dyn Builtin,
    description: &str,
    format: ApiFormat,
    strict: bool,
) -> Option<&'static str> {
    write_cached_schema_parts(
        out,
        builtin.name(),
        description,
        builtin.parameters_json(),
        builtin.schema_cache(),
        format,
        strict,
    )
}

/// Refuses reserved names and tools over the searchable-text limit, before anything changes.
fn check_registrable(tools: &[Tool]) -> Result<()> {
    if let Some(t) = tools.iter().find(|t| RESERVED_NAMES.contains(&t.name())) {
        return Err(Error::invalid(format!(
            "{:?} is reserved for a built-in tool",
            t.name()
        )));
    }
    for tool in tools {
        check_tool_text(tool.name(), tool.searchable_text_bytes())?;
    }
    Ok(())
}

/// How a call of a name will run, as [`Registry::call_target`] found it.
#[derive(Clone)]
pub enum CallTarget {
    /// A built-in the library runs.
    Builtin(Arc<dyn Builtin>),
    /// An enabled registered tool.
    Tool(ToolTarget),
    /// A registered tool that is disabled, and why if the operator said.
    Disabled {
        /// The disable reason.
        reason: Option<String>,
    },
    /// No tool of that name is registered.
    Unknown,
}

/// An enabled registered tool, ready to run without the registry lock.
#[derive(Clone)]
pub struct ToolTarget {
    /// Registered name.
    pub name: String,
    /// Whether the tool is deferred.
    pub deferred: bool,
    /// Whether it may run beside other calls.
    pub concurrency_safe: bool,
    /// Its parameters schema, compiled.
    pub validator: Arc<ArgsValidator>,
    /// Its host function, or the fallback; `None` when neither exists.
    pub host: Option<HostFn>,
}

/// One row of [`Registry::tools_status`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolStatus {
    /// Registered name.
    pub name: String,
    /// Namespace, if any.
    pub namespace: Option<String>,
    /// Whether the tool is enabled (its namespace included).
    pub enabled: bool,
    /// Why it is disabled, when the operator said.
    pub reason: Option<String>,
    /// Whether it is deferred.
    pub deferred: bool,
    /// Its tags.
    pub tags: Vec<String>,
    /// Whether a call would reach a host function (its own or the fallback).
    pub callable: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::{DiscoverRequest, hits_to_json};

    #[test]
    fn first_sentence_rules() {
        assert_eq!(
            first_sentence("Compress a file into a zip archive. Uses deflate."),
            "Compress a file into a zip archive."
        );
        assert_eq!(first_sentence("Upgrade to v1.2 now"), "Upgrade to v1.2 now");
        assert_eq!(first_sentence("Done!\nmore"), "Done!");
        assert_eq!(first_sentence("Really? yes"), "Really?");
        assert_eq!(first_sentence("查询天气。然后"), "查询天气。");
        assert_eq!(first_sentence("  first line  \nsecond. line"), "first line");
        assert_eq!(first_sentence(""), "");
    }

    #[test]
    fn json_answers_are_written_like_the_hits() {
        let registry = Registry::new();
        registry
            .register_json(
                r#"[{"name":"read_file","description":"Read a \"file\"\n from disk","parameters":{"type":"object","properties":{"path":{"type":"string"}}},"metadata":{"defer":true}},
                    {"name":"write_file","description":"Write a file","namespace":"fs"},
                    {"name":"查询天气","description":"天气 weather lookup","metadata":{"defer":true,"tags":["net"]}},
                    {"name":"send_email","description":"Send an email message"}]"#,
            )
            .unwrap();
        registry
            .enable_discovery(DiscoveryOptions::default())
            .unwrap();
        let discoverer = registry.discoverer(DiscoveryOptions::default());
        for query in [
            "file",
            "read_file",
            "FS-write_file",
            "weather 天气",
            "email file disk",
            "nothing",
        ] {
            for format in ["openai-chat", "openai-responses", "anthropic", "gemini"] {
                let request = DiscoverRequest::from_json(Some(&format!(
                    r#"{{"top_k":3,"api_format":"{format}"}}"#
                )))
                .unwrap();
                let hits = registry.discover(query, &request).unwrap();
                let json = discoverer.discover_json(query, &request).unwrap();
                assert_eq!(json, hits_to_json(&hits), "{query} {format}");
                let args = format!(r#"{{"query":{query:?},"top_k":3,"api_format":"{format}"}}"#);
                assert_eq!(registry.call_json(DISCOVER_TOOLS, &args).unwrap(), json);
            }
        }
        assert!(
            registry
                .discover("file", &DiscoverRequest::default())
                .unwrap()
                .len()
                >= 2
        );
    }

    #[test]
    fn flags_hosts_and_reasons_follow_their_tools_through_compaction() {
        let registry = Registry::new();
        let _discoverer = registry.discoverer(DiscoveryOptions::default());
        let tool = |name: &str| Tool::new(name, "", None, None, Default::default()).unwrap();
        // Dead slots first, so the survivors move down when the slots are compacted.
        let filler: Vec<Tool> = (0..1100).map(|i| tool(&format!("t{i}"))).collect();
        registry.register(filler).unwrap();
        registry
            .register_callable(tool("hosted"), |_| Ok("ran".into()))
            .unwrap();
        registry.register(vec![tool("plain"), tool("off")]).unwrap();
        registry.disable("off", Some("maintenance")).unwrap();
        registry
            .register_callable(tool("hosted_off"), |_| Ok("x".into()))
            .unwrap();
        registry.disable("hosted_off", None).unwrap();
        let before = registry.tools_status().unwrap();
        for i in 0..1100 {
            registry.unregister(&format!("t{i}")).unwrap();
        }
        // Compacted once 1,024 slots were dead: the four tools moved down by 1,024 slots, with
        // what they had.
        assert_eq!(registry.shared.read().unwrap().slots.len(), 80);
        let after = registry.tools_status().unwrap();
        let kept: Vec<_> = before
            .into_iter()
            .filter(|t| !t.name.starts_with('t'))
            .collect();
        assert_eq!(after, kept);
        let status = |name: &str| after.iter().find(|t| t.name == name).unwrap().clone();
        assert!(status("hosted").enabled && status("hosted").callable);
        assert!(!status("plain").callable && status("plain").enabled);
        assert_eq!(status("off").reason.as_deref(), Some("maintenance"));
        assert!(!status("hosted_off").enabled && status("hosted_off").callable);
        match registry.call_target("hosted").unwrap() {
            CallTarget::Tool(t) => {
                assert_eq!(t.host.expect("host kept")("hosted", "{}"), Ok("ran".into()))
            }
            _ => panic!("hosted is callable"),
        }
        // A new tool takes a fresh slot without the old slots' flags or hosts.
        registry.register(vec![tool("fresh")]).unwrap();
        let fresh = registry.tools_status().unwrap();
        let fresh = fresh.iter().find(|t| t.name == "fresh").unwrap();
        assert!(fresh.enabled && !fresh.callable && fresh.reason.is_none());
        registry.set_enabled("off", true).unwrap();
        let off = registry.tools_status().unwrap();
        let off = off.iter().find(|t| t.name == "off").unwrap();
        assert!(off.enabled && off.reason.is_none());
        assert!(registry.verify_index().unwrap());
    }

    #[test]
    fn exact_names_survive_replacement_removal_and_compaction() {
        let registry = Registry::new();
        // A discoverer, so the index exists and `verify_index` below checks its upkeep.
        let _discoverer = registry.discoverer(DiscoveryOptions::default());
        let tool = |name: &str| Tool::new(name, "", None, None, Default::default()).unwrap();
        let names = ["Get-Weather", "get_weather", "get/Weather", "other"];
        registry
            .register(names.iter().map(|n| tool(n)).collect())
            .unwrap();
        let exact = |q: &str| {
            let state = registry.shared.read().unwrap();
            state
                .exact_match(q)
                .map(|id| state.tool_at(id).name().to_string())
        };
        assert_eq!(exact("get_weather").as_deref(), Some("get_weather"));
        // Tolerant match: the first registered among the names that normalize alike.
        assert_eq!(exact("GET-WEATHER").as_deref(), Some("Get-Weather"));
        registry.set_enabled("Get-Weather", false).unwrap();
        assert_eq!(exact("GET-WEATHER").as_deref(), Some("get_weather"));
        registry.unregister("get_weather").unwrap();
        assert_eq!(exact("GET-WEATHER").as_deref(), Some("get/Weather"));
        registry.register(vec![tool("get/Weather")]).unwrap();
        assert_eq!(exact("get-weather").as_deref(), Some("get/Weather"));
        // Enough dead slots to compact: ids are renumbered, names still resolve.
        let filler: Vec<Tool> = (0..1100).map(|i| tool(&format!("t{i}"))).collect();
        registry.register(filler).unwrap();
        for i in 0..1100 {
            registry.unregister(&format!("t{i}")).unwrap();
        }
        assert_eq!(registry.len().unwrap(), 3);
        assert_eq!(exact("get-weather").as_deref(), Some("get/Weather"));
        assert_eq!(exact("other").as_deref(), Some("other"));
        assert!(registry.tool("Get-Weather").unwrap().is_some());
        assert!(registry.tool("t5").unwrap().is_none());
        registry.set_enabled("Get-Weather", true).unwrap();
        assert_eq!(exact("get_weather").as_deref(), Some("Get-Weather"));
        assert!(registry.verify_index().unwrap());
    }
}
