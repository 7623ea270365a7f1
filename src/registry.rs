//! The registry: the source of truth for tools, their enabled state and metadata, with the search
//! index kept in step under the same lock.
//!
//! Every mutation validates its whole input first and then commits under the write lock, so a
//! failed call changes nothing. Discovers share the read lock and run in parallel.

use crate::analyzer::{
    EnhancedAnalysis, enhanced_document, enhanced_each, reference_document, reference_each,
};
use crate::discovery::options::{DiscoveryOptions, Profile};
use crate::error::{Error, Result};
use crate::format::{
    ApiFormat, into_string, write_cached_schema_parts, write_opt_str, write_schema_strict,
    write_str,
};
use crate::index::{DocId, Index, with_room};
use crate::limits::{check_tool_text, kind_of, object_or_null, parse_json, string_list};
use crate::schema::{SameForms, SchemaCache};
use crate::suggest::suggest_names;
use crate::tool::{MetadataUpdate, Tool, dedup_tags};
use crate::validate::ArgsValidator;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

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

mod calls;
mod embedding;
mod handle;
mod names;
mod schemas;
mod shared;
mod slots;
mod summaries;
#[cfg(test)]
mod tests;
mod upkeep;
mod usage;
pub use calls::{CallTarget, ToolStatus, ToolTarget};
pub(crate) use embedding::missing_embedder;
pub(crate) use handle::Handle;
use names::Names;
pub use schemas::SchemaOptions;
pub(crate) use schemas::write_builtin_schema;
pub(crate) use shared::Shared;
use shared::poisoned;
use slots::{DisabledBits, Extras};
pub use summaries::{Summary, first_sentence};
pub(crate) use usage::UsageCell;
pub use usage::UsageStatus;

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
    /// Each tool's vector, when an embedder is set (see [`crate::embed`]).
    vectors: Option<crate::embed::VectorStore>,
    /// A change left tools waiting for their vectors: the embedding thread is told when the
    /// write lock is released.
    embed_kick: bool,
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

pub use crate::tool::normalize_name;

impl State {
    /// The ranking options `discover_tools` runs with, when discovery is enabled.
    pub(crate) fn discovery(&self) -> Option<DiscoveryOptions> {
        self.discovery
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
        if let Some(v) = self.vectors.as_mut() {
            v.clear(id);
        }
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

    fn builtin(&self, name: &str) -> Option<&Arc<dyn Builtin>> {
        self.builtins.iter().find(|b| b.name() == name)
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
        if let Some(v) = self.vectors.as_mut() {
            v.renumber(&map);
        }
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
}

fn decrement(counts: &mut HashMap<String, usize>, key: &str) {
    if let Some(n) = counts.get_mut(key) {
        *n -= 1;
        if *n == 0 {
            counts.remove(key);
        }
    }
}

/// A tool registry with discovery. Cheap to share: `Send + Sync`, all methods take `&self`;
/// discovers run in parallel, mutations are exclusive.
#[derive(Debug, Default)]
pub struct Registry {
    shared: Handle,
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
            return Self::with_env_embedder(registry);
        };
        let value = parse_json(text, "registry options")?;
        let Some(obj) = object_or_null(&value, "options")? else {
            return Self::with_env_embedder(registry);
        };
        if let Some(key) = obj
            .keys()
            .find(|k| !matches!(k.as_str(), "discovery" | "embedding" | "usage"))
        {
            return Err(Error::invalid(format!(
                "options.{key}: unknown option (expected discovery, embedding or usage)"
            )));
        }
        let usage = usage::options_from_value(obj.get("usage"))?;
        // The embedder first: discovery options that ask for `hybrid` need it.
        if let Some(e) = crate::embed::attach::options_from_registry(obj.get("embedding"))? {
            registry.set_embedding_options(&e)?;
        }
        if let Some(v) = obj.get("discovery") {
            registry.enable_discovery_json(Some(&v.to_string()))?;
        }
        if let Some(path) = usage {
            // A file that cannot be read is an empty start; its warning is in usage_status.
            registry.enable_usage(path.as_deref())?;
        }
        Ok(registry)
    }

    /// `registry` with the local encoder of `TOOLREGISTRY_MODEL_DIR`, when that is set.
    fn with_env_embedder(registry: Self) -> Result<Self> {
        if let Some(e) = crate::embed::attach::options_from_registry(None)? {
            registry.set_embedding_options(&e)?;
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
        // Room for a sixteenth more (10 MB of slots would be copied at 100,000 tools otherwise).
        st.slots.reserve(with_room(tools.len()));
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
        // Under the write lock: no task naming it can be recorded in between.
        self.shared.usage().forget(name);
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

    /// Turns discovery on with these ranking options and installs the built-ins that go with it
    /// (see `crate::builtins`, which calls this); again: replaces both.
    pub(crate) fn install_discovery(
        &self,
        options: DiscoveryOptions,
        builtins: Vec<Arc<dyn Builtin>>,
    ) -> Result<()> {
        if options.profile == Profile::Hybrid && self.shared.embedding().is_none() {
            return Err(missing_embedder());
        }
        let mut state = self.shared.write()?;
        state.ensure_index(options.profile.lexical());
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
            shared: self.shared.clone(),
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

    /// Test hook: panics while holding the write lock, which poisons it. Only in this crate's own
    /// test build; see `src/ffi/poison_tests.rs`.
    #[cfg(test)]
    pub(crate) fn test_panic_while_locked(&self) -> Result<()> {
        let _guard = self.shared.write()?;
        panic!("test hook: panic while holding the registry write lock");
    }
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
