//! The registry: the source of truth for tools, their enabled state and metadata, with the search
//! index kept in step under the same lock.
//!
//! Every mutation validates its whole input first and then commits under the write lock, so a
//! failed call changes nothing. Discovers share the read lock and run in parallel.

use crate::analyzer::{EnhancedAnalysis, enhanced_document, reference_document, reference_tokens};
use crate::discovery::{
    self, DiscoverRequest, Discoverer, DiscoveryOptions, Hit, parse_discover_tools_args,
};
use crate::error::{Error, Result};
use crate::format::{
    ApiFormat, into_string, write_opt_str, write_schema, write_schema_parts, write_str,
};
use crate::index::{DocId, Index};
use crate::limits::{check_tool_text, kind_of, parse_json};
use crate::tool::{MetadataUpdate, Tool, dedup_tags};
use hashbrown::HashTable;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// Name of the built-in discovery tool.
pub const DISCOVER_TOOLS: &str = "discover_tools";

/// Compact slots once this many are dead and they outnumber the live ones.
const COMPACT_MIN_DEAD: usize = 1024;

#[derive(Debug)]
struct Slot {
    tool: Tool,
    enabled: bool,
}

/// Registry state behind the lock.
#[derive(Debug, Default)]
pub(crate) struct State {
    /// Tools in registration order; `None` where a tool was unregistered.
    slots: Vec<Option<Slot>>,
    /// Slots by tool name, and by normalized name for the tolerant exact-name match.
    names: Names,
    /// Live tools per namespace.
    namespaces: HashMap<String, usize>,
    disabled_namespaces: HashSet<String>,
    /// The reference profile's index. Like the enhanced one, built the first time something ranks
    /// with that profile (a discoverer or `discover_tools`), kept in step from then on, and never
    /// paid for by a registry whose discoverers all use the other profile.
    index: Option<Index<5>>,
    /// The enhanced profile's index: built the first time something ranks with that profile, kept
    /// in step from then on, never paid for by a registry that does not use it.
    enhanced: Option<EnhancedIndex>,
    /// Options of the `discover_tools` built-in, when discovery is enabled.
    discovery: Option<DiscoveryOptions>,
    live: usize,
}

/// The enhanced profile's index and the analysis its documents were built with.
#[derive(Debug, Default)]
struct EnhancedIndex {
    analysis: EnhancedAnalysis,
    index: Index<6>,
}

/// The lock around the state, shared by a registry and its discoverers.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    state: RwLock<State>,
}

impl Shared {
    pub(crate) fn read(&self) -> Result<RwLockReadGuard<'_, State>> {
        self.state.read().map_err(|_| poisoned())
    }

    pub(crate) fn write(&self) -> Result<RwLockWriteGuard<'_, State>> {
        self.state.write().map_err(|_| poisoned())
    }
}

fn poisoned() -> Error {
    Error::Internal(
        "the registry lock was poisoned by a panic in an earlier call; recreate the registry"
            .into(),
    )
}

/// Lowercases and reads `/` and `-` as `_`: some MCP clients rewrite names that way.
pub fn normalize_name(name: &str) -> String {
    name.chars()
        .map(|c| if c == '/' || c == '-' { '_' } else { c })
        .collect::<String>()
        .to_lowercase()
}

/// Slot ids keyed by their tool's name. The tables hold only slot ids: the name itself lives once,
/// in the tool, and is compared through the slots (three copies of every name cost about 0.2 KB
/// per tool).
#[derive(Debug, Default)]
struct Names {
    exact: HashTable<DocId>,
    /// Slots whose [`normalize_name`] differs from the name itself, keyed by the normalized name
    /// (one entry per slot; several slots may share a key). The others are found in `exact`.
    normalized: HashTable<DocId>,
    hasher: foldhash::fast::RandomState,
}

impl Names {
    fn hash(&self, name: &str) -> u64 {
        self.hasher.hash_one(name)
    }

    fn get(&self, slots: &[Option<Slot>], name: &str) -> Option<DocId> {
        self.exact
            .find(self.hash(name), |&id| name_at(slots, id) == name)
            .copied()
    }

    /// Slots whose normalized name is `normalized` and differs from their name, in no set order.
    fn normalized<'a>(
        &'a self,
        slots: &'a [Option<Slot>],
        normalized: &'a str,
    ) -> impl Iterator<Item = DocId> + 'a {
        self.normalized
            .iter_hash(self.hash(normalized))
            .copied()
            .filter(move |&id| normalize_name(name_at(slots, id)) == normalized)
    }

    fn insert(&mut self, slots: &[Option<Slot>], id: DocId) {
        let name = name_at(slots, id);
        let hasher = &self.hasher;
        self.exact.insert_unique(hasher.hash_one(name), id, |&i| {
            hasher.hash_one(name_at(slots, i))
        });
        let Some(normalized) = normalized_if_different(name) else {
            return;
        };
        self.normalized
            .insert_unique(hasher.hash_one(&*normalized), id, |&i| {
                hasher.hash_one(&*normalize_name(name_at(slots, i)))
            });
    }

    /// Forgets slot `id`, whose tool is still in `slots`.
    fn remove(&mut self, slots: &[Option<Slot>], id: DocId) {
        let name = name_at(slots, id);
        if let Ok(entry) = self.exact.find_entry(self.hash(name), |&i| i == id) {
            entry.remove();
        }
        if let Some(normalized) = normalized_if_different(name) {
            if let Ok(entry) = self
                .normalized
                .find_entry(self.hash(&normalized), |&i| i == id)
            {
                entry.remove();
            }
        }
    }

    /// Renumbers slots through `map`; hashes do not change, only the ids.
    fn renumber(&mut self, map: &[Option<DocId>]) {
        for table in [&mut self.exact, &mut self.normalized] {
            for id in table.iter_mut() {
                *id = map[*id as usize].expect("named slots are live");
            }
        }
    }
}

/// [`normalize_name`] of `name` when it is not `name` itself.
fn normalized_if_different(name: &str) -> Option<String> {
    if name.is_ascii()
        && !name
            .bytes()
            .any(|b| b.is_ascii_uppercase() || b == b'/' || b == b'-')
    {
        return None;
    }
    Some(normalize_name(name)).filter(|n| n != name)
}

fn name_at(slots: &[Option<Slot>], id: DocId) -> &str {
    slots[id as usize]
        .as_ref()
        .expect("named slot is live")
        .tool
        .name()
}

impl State {
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
    pub(crate) fn ensure_index(&mut self, profile: crate::discovery::Profile) {
        match profile {
            crate::discovery::Profile::Reference => self.ensure_reference(),
            crate::discovery::Profile::Enhanced => self.ensure_enhanced(),
        }
    }

    /// Builds the reference index if it does not exist yet.
    pub(crate) fn ensure_reference(&mut self) {
        if self.index.is_none() {
            let mut index = Index::new();
            for (id, slot) in self.live_slots() {
                if self.is_enabled(slot) {
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
        for (id, slot) in self.live_slots() {
            if self.is_enabled(slot) {
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

    fn is_enabled(&self, slot: &Slot) -> bool {
        slot.enabled
            && slot
                .tool
                .namespace()
                .is_none_or(|ns| !self.disabled_namespaces.contains(ns))
    }

    fn enabled_at(&self, id: DocId) -> bool {
        self.slots[id as usize]
            .as_ref()
            .is_some_and(|s| self.is_enabled(s))
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
        if self.is_enabled(slot) {
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

    /// Registers or replaces `tool`; returns its slot.
    fn insert(&mut self, tool: Tool) -> DocId {
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
            slot.tool = tool;
            self.index_slot(id);
            return id;
        }
        let id = DocId::try_from(self.slots.len())
            .expect("fewer than 2^32 registrations between compactions");
        if let Some(ns) = tool.namespace() {
            *self.namespaces.entry(ns.to_string()).or_default() += 1;
        }
        self.slots.push(Some(Slot {
            tool,
            enabled: true,
        }));
        self.names.insert(&self.slots, id);
        self.live += 1;
        self.index_slot(id);
        id
    }

    fn remove(&mut self, id: DocId) {
        self.unindex_slot(id);
        self.names.remove(&self.slots, id);
        let slot = self.slots[id as usize].take().expect("named slot is live");
        if let Some(ns) = slot.tool.namespace() {
            decrement(&mut self.namespaces, ns);
        }
        self.live -= 1;
        self.maybe_compact();
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

    fn summaries(&self) -> Vec<Summary> {
        self.live_slots()
            .filter(|(_, s)| s.tool.metadata().defer && self.is_enabled(s))
            .map(|(_, s)| Summary {
                name: s.tool.name().to_string(),
                description: first_sentence(s.tool.description()).to_string(),
                namespace: s.tool.namespace().map(str::to_string),
            })
            .collect()
    }

    fn discover_tools_description(&self) -> String {
        let summaries = self.summaries();
        let mut text = String::from(DISCOVER_TOOLS_DESCRIPTION);
        if !summaries.is_empty() {
            text.push_str(
                "\n\nTools available on demand (call discover_tools for the full schema):",
            );
            for s in &summaries {
                text.push_str("\n- ");
                text.push_str(&s.name);
                if !s.description.is_empty() {
                    text.push_str(": ");
                    text.push_str(&s.description);
                }
            }
        }
        text
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

const DISCOVER_TOOLS_DESCRIPTION: &str = "Look up tools that are not in your tool list. Pass a tool's exact \
name to get its full schema, or describe the capability you need in a few keywords (for example \
\"convert currency\") to get the best matching tools, best first. Results for tools listed below include \
their schema, so you can call them next.";

const DISCOVER_TOOLS_PARAMETERS: &str = r#"{"type":"object","properties":{"query":{"type":"string","description":"A tool's exact name, or a few keywords describing the capability you need.","minLength":1,"pattern":"[\\s\\S]*\\S[\\s\\S]*"},"top_k":{"type":"integer","description":"Most results to return.","minimum":1,"default":10},"api_format":{"type":"string","description":"Format of the returned schemas.","enum":["openai-chat","openai-responses","anthropic","gemini"],"default":"openai-chat"}},"required":["query"]}"#;

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
}

impl Default for SchemaOptions {
    fn default() -> Self {
        SchemaOptions {
            include_deferred: true,
            api_format: ApiFormat::OpenAiChat,
            tags: None,
            exclude_tags: None,
        }
    }
}

impl SchemaOptions {
    /// Parses `{"include_deferred"?, "api_format"?, "tags"?, "exclude_tags"?}`; `None`/`null` give the defaults.
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
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown option (expected include_deferred, api_format, tags or exclude_tags)"
                    )));
                }
            }
        }
        Ok(o)
    }
}

fn string_list(v: &Value, path: &str) -> Result<Option<Vec<String>>> {
    match v {
        Value::Null => Ok(None),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, t)| {
                t.as_str().map(str::to_string).ok_or_else(|| {
                    Error::invalid(format!(
                        "{path}[{i}]: expected a string, got {}",
                        kind_of(t)
                    ))
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        other => Err(Error::invalid(format!(
            "{path}: expected an array of strings, got {}",
            kind_of(other)
        ))),
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
                "discovery" => registry
                    .enable_discovery(DiscoveryOptions::from_value(v, "options.discovery")?)?,
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
    /// registered is replaced in place. `discover_tools` is reserved.
    pub fn register(&self, tools: Vec<Tool>) -> Result<Vec<String>> {
        if let Some(t) = tools.iter().find(|t| t.name() == DISCOVER_TOOLS) {
            return Err(Error::invalid(format!(
                "{:?} is reserved for the built-in discovery tool",
                t.name()
            )));
        }
        for tool in &tools {
            check_tool_text(tool.name(), tool.searchable_text_bytes())?;
        }
        let mut state = self.shared.write()?;
        state.slots.reserve(tools.len());
        // Taken from the back of the reversed list, which is shrunk as it empties: the parsed list
        // and the filled registry never count in full at once toward a bulk registration's peak.
        let mut tools = tools;
        tools.reverse();
        let mut ids = Vec::with_capacity(tools.len());
        while let Some(tool) = tools.pop() {
            ids.push(state.insert(tool));
            if tools.capacity() > 1024 && tools.len() < tools.capacity() / 2 {
                tools.shrink_to_fit();
            }
        }
        drop(tools);
        // The names are copied once the tools' list is freed, so both never count at once toward
        // the peak memory of a bulk registration.
        Ok(ids
            .iter()
            .map(|&id| state.tool_at(id).name().to_string())
            .collect())
    }

    /// Parses and registers one tool object or an array of them (see [`Tool::parse_many`]).
    pub fn register_json(&self, json: &str) -> Result<Vec<String>> {
        self.register(Tool::parse_many(json)?)
    }

    /// Removes a tool. Unregistering `discover_tools` turns discovery off.
    pub fn unregister(&self, name: &str) -> Result<()> {
        let mut state = self.shared.write()?;
        if name == DISCOVER_TOOLS && state.discovery.is_some() {
            state.discovery = None;
            return Ok(());
        }
        let id = state.slot_id(name)?;
        state.remove(id);
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
    /// of the same spelling.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        let mut state = self.shared.write()?;
        if let Some(id) = state.slot_of(name) {
            state.unindex_slot(id);
            state.slots[id as usize]
                .as_mut()
                .expect("named slot is live")
                .enabled = enabled;
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
        } else {
            state.disabled_namespaces.insert(name.to_string());
        }
        for &id in &members {
            state.index_slot(id);
        }
        Ok(())
    }

    /// Schemas of the enabled tools (and `discover_tools` when discovery is on), sorted by name,
    /// as a JSON array.
    pub fn schemas_json(&self, options: &SchemaOptions) -> Result<String> {
        let state = self.shared.read()?;
        let mut tools: Vec<&Tool> = state
            .live_slots()
            .filter(|(_, s)| state.is_enabled(s))
            .map(|(_, s)| &s.tool)
            .filter(|t| options.include_deferred || !t.metadata().defer)
            .filter(|t| options.tags.as_ref().is_none_or(|tags| t.has_any_tag(tags)))
            .filter(|t| {
                options
                    .exclude_tags
                    .as_ref()
                    .is_none_or(|tags| !t.has_any_tag(tags))
            })
            .collect();
        tools.sort_by(|a, b| a.name().cmp(b.name()));
        // The built-in has no tags, so a tag filter leaves it out.
        let builtin = state.discovery.is_some() && options.tags.is_none();
        let builtin_at = tools.partition_point(|t| t.name() < DISCOVER_TOOLS);
        let mut out = Vec::new();
        out.push(b'[');
        for (i, tool) in tools.iter().enumerate() {
            if builtin && i == builtin_at {
                write_discover_tools_schema(&mut out, &state, options.api_format);
                out.push(b',');
            }
            write_schema(&mut out, tool, options.api_format);
            if i + 1 < tools.len() {
                out.push(b',');
            }
        }
        if builtin && builtin_at == tools.len() {
            if !tools.is_empty() {
                out.push(b',');
            }
            write_discover_tools_schema(&mut out, &state, options.api_format);
        }
        out.push(b']');
        Ok(into_string(out))
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

    /// Registers the built-in `discover_tools` with these ranking options (again: replaces them).
    pub fn enable_discovery(&self, options: DiscoveryOptions) -> Result<()> {
        let mut state = self.shared.write()?;
        state.ensure_index(options.profile);
        state.discovery = Some(options);
        Ok(())
    }

    /// Rebuilds the enhanced index with other analysis switches. Only for measuring what each
    /// enhanced change contributes (`toolregistry eval --ablate`); not part of the stable API.
    #[doc(hidden)]
    pub fn set_enhanced_analysis(&self, analysis: EnhancedAnalysis) -> Result<()> {
        self.shared.write()?.build_enhanced(analysis);
        Ok(())
    }

    /// Runs a built-in tool. `discover_tools` takes `{"query", "top_k"?, "api_format"?}` and
    /// answers like [`Discoverer::discover_json`]. Registered tools are executed by the host, not here.
    pub fn call_json(&self, name: &str, args_json: &str) -> Result<String> {
        let state = self.shared.read()?;
        if name == DISCOVER_TOOLS {
            let Some(options) = state.discovery else {
                return Err(Error::not_found(
                    "discover_tools: discovery is not enabled on this registry",
                ));
            };
            let (query, request) = parse_discover_tools_args(args_json)?;
            return discovery::discover_json(&state, &options, &query, &request);
        }
        if state.slot_of(name).is_some() {
            return Err(Error::invalid(format!(
                "{name:?} is a registered tool, not a built-in: the host runs it (only discover_tools runs here)"
            )));
        }
        Err(Error::not_found(format!("no built-in tool named {name:?}")))
    }

    /// Discovers with the options given to [`enable_discovery`](Self::enable_discovery).
    pub fn discover(&self, query: &str, request: &DiscoverRequest) -> Result<Vec<Hit>> {
        let state = self.shared.read()?;
        let options = state.discovery.ok_or_else(|| {
            Error::not_found("discover_tools: discovery is not enabled on this registry")
        })?;
        discovery::discover(&state, &options, query, request)
    }

    /// A standalone discoverer with its own options that follows this registry's changes.
    pub fn discoverer(&self, options: DiscoveryOptions) -> Discoverer {
        Discoverer::new(Arc::clone(&self.shared), options)
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
            if state.is_enabled(slot) {
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

fn write_discover_tools_schema(out: &mut Vec<u8>, state: &State, format: ApiFormat) {
    write_schema_parts(
        out,
        DISCOVER_TOOLS,
        &state.discover_tools_description(),
        DISCOVER_TOOLS_PARAMETERS,
        format,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::discovery::hits_to_json;

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
