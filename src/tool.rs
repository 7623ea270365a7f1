//! Tool definitions: the JSON shapes accepted on input, validated into [`Tool`] values.
//!
//! This is the one place a JSON tool definition is parsed. Accepted shapes, told apart by their keys:
//! flat `{name, description, parameters}`, OpenAI chat `{type: "function", function: {...}}`,
//! OpenAI responses `{type: "function", name, ...}`, Anthropic `{name, description, input_schema}` and
//! MCP `{name, description, inputSchema}`; each may carry a top-level `namespace` and `metadata`.

use crate::error::{Error, Result};
use crate::limits::{MAX_NAME_BYTES, check_input_size, kind_of, parse_json};
use crate::schema::{Cleaned, Form, SameForms, SchemaCache};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The tags every host understands. Any other string is a custom tag; search treats both alike.
pub const PREDEFINED_TAGS: [&str; 6] = [
    "read_only",
    "destructive",
    "network",
    "file_system",
    "slow",
    "privileged",
];

/// Lowercases and reads `/` and `-` as `_`: some MCP clients rewrite names that way, so name
/// matching and "did you mean" compare names in this form.
pub fn normalize_name(name: &str) -> String {
    if name.is_ascii() {
        // One pass and one allocation (the general form below makes two); the same text, as
        // ASCII lower-casing is Unicode lower-casing on ASCII.
        let mut out = String::with_capacity(name.len());
        for c in name.chars() {
            out.push(match c {
                '/' | '-' => '_',
                c => c.to_ascii_lowercase(),
            });
        }
        return out;
    }
    name.chars()
        .map(|c| if c == '/' || c == '-' { '_' } else { c })
        .collect::<String>()
        .to_lowercase()
}

/// Search, presentation and execution metadata of a tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolMetadata {
    /// Deferred tools are left out of the prompt and found through `discover_tools`.
    pub defer: bool,
    /// Tags, without duplicates, in the order first given.
    pub tags: Vec<String>,
    /// Extra words to match, written by the tool's author for search.
    pub search_hint: String,
    /// Whether calls of this tool may run at the same time as other calls of a batch (default
    /// true). `false` makes every call of it run alone, as in the reference.
    pub concurrency_safe: bool,
}

impl Default for ToolMetadata {
    fn default() -> Self {
        ToolMetadata {
            defer: false,
            tags: Vec::new(),
            search_hint: String::new(),
            concurrency_safe: true,
        }
    }
}

/// A partial metadata change: only the fields that are `Some` are replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataUpdate {
    /// New `defer` flag.
    pub defer: Option<bool>,
    /// New tag list (replaces the old one).
    pub tags: Option<Vec<String>>,
    /// New search hint.
    pub search_hint: Option<String>,
    /// New concurrency flag.
    pub concurrency_safe: Option<bool>,
}

impl MetadataUpdate {
    /// Parses `{"defer"?, "tags"?, "search_hint"?, "concurrency_safe"?}`; unknown keys are refused so a typo is not ignored.
    pub fn from_json(text: &str) -> Result<Self> {
        let value = parse_json(text, "metadata")?;
        Self::from_value(&value, "metadata")
    }

    fn from_value(value: &Value, path: &str) -> Result<Self> {
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid(format!(
                "{path}: expected an object, got {}",
                kind_of(value)
            ))
        })?;
        let mut update = MetadataUpdate::default();
        for (key, v) in obj {
            let here = format!("{path}.{key}");
            match key.as_str() {
                "defer" => {
                    update.defer = Some(v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?)
                }
                "tags" => update.tags = Some(parse_tags(v, &here)?),
                "search_hint" => update.search_hint = Some(optional_string(v, &here)?),
                "concurrency_safe" => {
                    update.concurrency_safe = Some(v.as_bool().ok_or_else(|| {
                        Error::invalid(format!("{here}: expected a boolean, got {}", kind_of(v)))
                    })?)
                }
                _ => {
                    return Err(Error::invalid(format!(
                        "{here}: unknown metadata field (expected defer, tags, search_hint or concurrency_safe)"
                    )));
                }
            }
        }
        Ok(update)
    }

    /// Applies the given fields to `meta`.
    pub fn apply_to(&self, meta: &mut ToolMetadata) {
        if let Some(d) = self.defer {
            meta.defer = d;
        }
        if let Some(t) = &self.tags {
            meta.tags = t.clone();
        }
        if let Some(h) = &self.search_hint {
            meta.search_hint = h.clone();
        }
        if let Some(c) = self.concurrency_safe {
            meta.concurrency_safe = c;
        }
    }
}

/// A validated tool definition, as the registry stores it.
///
/// The parameters schema is kept as compact JSON text rather than a parsed tree: it is only ever
/// copied into output, and a `Value` per tool would cost several times the memory. The name,
/// description, schema and parameter names share one allocation (at 100,000 tools, separate
/// strings and a `Vec<String>` of parameter names cost about 25 MB more).
#[derive(Debug, Clone)]
pub struct Tool {
    /// Name, description, parameters JSON and the parameter names joined by spaces, back to back.
    text: Box<str>,
    name_end: u32,
    /// Bytes of the name that are the namespace (0: none; a namespace is never empty).
    ns_len: u32,
    desc_end: u32,
    params_end: u32,
    /// Bytes of the parameter names, without the spaces that join them.
    param_bytes: u32,
    metadata: ToolMetadata,
    /// The schema's cleaned forms per provider, filled on first output (not part of equality).
    schemas: SchemaCache,
    /// Which cleaned forms equal the stored schema (a byte that fits in this struct's padding).
    same_forms: SameForms,
}

impl PartialEq for Tool {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
            && self.namespace() == other.namespace()
            && self.description() == other.description()
            && self.parameters_json() == other.parameters_json()
            && self.metadata == other.metadata
    }
}

impl Tool {
    /// Builds a tool from its parts. `parameters` must be a JSON object (`None`: no parameters);
    /// with a namespace the registered name becomes `namespace-name`.
    pub fn new(
        name: &str,
        description: &str,
        parameters: Option<Value>,
        namespace: Option<&str>,
        metadata: ToolMetadata,
    ) -> Result<Self> {
        let params = parameters.unwrap_or(Value::Null);
        let mut tool = build(name, description, &params, namespace, "tool", "parameters")?;
        tool.metadata = normalize_metadata(metadata);
        Ok(tool)
    }

    /// Parses one tool object or an array of them, in any accepted shape.
    pub fn parse_many(text: &str) -> Result<Vec<Tool>> {
        if text.trim_start().starts_with('[') {
            // One element at a time: a `Value` tree of a whole catalog costs several times its
            // text, and building it dominated both the peak memory and the time of a bulk register.
            check_input_size(text, "tools")?;
            if let Some(tools) = parse_array_fast(text) {
                return Ok(tools);
            }
            let items: Vec<&RawValue> = serde_json::from_str(text)
                .map_err(|e| Error::InvalidJson(format!("tools: {e}")))?;
            let mut tools = Vec::with_capacity(items.len());
            for (i, raw) in items.iter().enumerate() {
                if let Some(tool) = fast::parse(raw.get()) {
                    tools.push(tool);
                    continue;
                }
                let value: Value = serde_json::from_str(raw.get())
                    .map_err(|e| Error::InvalidJson(format!("tools[{i}]: {e}")))?;
                tools.push(Tool::from_value(&value, &format!("tools[{i}]"))?);
            }
            return Ok(tools);
        }
        // One tool object (a host registering tools one by one): read straight from the text
        // like an array's elements, without a `Value` tree, whenever nothing in it is unusual.
        if text.starts_with('{') {
            check_input_size(text, "tools")?;
            // The fast reader skips what it does not read without serde_json's nesting limit:
            // deep text takes the tree's path, which refuses it as the error it is.
            if fast::nested_within(text, 100) {
                if let Some(tool) = fast::parse(text) {
                    return Ok(vec![tool]);
                }
            }
        }
        Tool::parse_value(&parse_json(text, "tools")?)
    }

    /// Parses a whole catalog: a JSON array of tools in any accepted shape (an OpenAI `tools`
    /// array is one), a single tool, an MCP `tools/list` result `{"tools": [...]}`, or the JSON-RPC
    /// response around one `{"result": {"tools": [...]}}`.
    pub fn parse_catalog(text: &str) -> Result<Vec<Tool>> {
        let value = parse_json(text, "catalog")?;
        let list = value
            .get("result")
            .and_then(|r| r.get("tools"))
            .or_else(|| value.get("tools"))
            .filter(|_| value.get("name").is_none());
        match list {
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, v)| Tool::from_value(v, &format!("tools[{i}]")))
                .collect(),
            Some(other) => Err(Error::invalid(format!(
                "tools: expected an array, got {}",
                kind_of(other)
            ))),
            None => Tool::parse_value(&value),
        }
    }

    fn parse_value(value: &Value) -> Result<Vec<Tool>> {
        match value {
            Value::Array(items) => items
                .iter()
                .enumerate()
                .map(|(i, v)| Tool::from_value(v, &format!("tools[{i}]")))
                .collect(),
            Value::Object(_) => Ok(vec![Tool::from_value(value, "tool")?]),
            other => Err(Error::invalid(format!(
                "tools: expected a tool object or an array of them, got {}",
                kind_of(other)
            ))),
        }
    }

    /// Validates one tool definition object; `path` locates it in error messages.
    pub fn from_value(value: &Value, path: &str) -> Result<Self> {
        let obj = value.as_object().ok_or_else(|| {
            Error::invalid(format!(
                "{path}: expected an object, got {}",
                kind_of(value)
            ))
        })?;
        let namespace = match obj.get("namespace") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(v) => {
                return Err(Error::invalid(format!(
                    "{path}.namespace: expected a string, got {}",
                    kind_of(v)
                )));
            }
        };
        let metadata = match obj.get("metadata") {
            None | Some(Value::Null) => ToolMetadata::default(),
            Some(v) => {
                let mut meta = ToolMetadata::default();
                MetadataUpdate::from_value(v, &format!("{path}.metadata"))?.apply_to(&mut meta);
                meta
            }
        };
        // OpenAI chat nests the definition under "function".
        let (def, def_path) = match obj.get("function") {
            Some(Value::Object(inner)) => (inner, format!("{path}.function")),
            Some(v) => {
                return Err(Error::invalid(format!(
                    "{path}.function: expected an object, got {}",
                    kind_of(v)
                )));
            }
            None => (obj, path.to_string()),
        };
        let name = match def.get("name") {
            Some(Value::String(s)) => s.as_str(),
            None | Some(Value::Null) => {
                return Err(Error::invalid(format!(
                    "{def_path}.name: missing; every tool needs a name"
                )));
            }
            Some(v) => {
                return Err(Error::invalid(format!(
                    "{def_path}.name: expected a string, got {}",
                    kind_of(v)
                )));
            }
        };
        let description = optional_string(
            def.get("description").unwrap_or(&Value::Null),
            &format!("{def_path}.description"),
        )?;
        let (params, params_key) = schema_of(def);
        let mut tool = build(
            name,
            &description,
            params.unwrap_or(&Value::Null),
            namespace,
            &def_path,
            params_key,
        )?;
        tool.metadata = normalize_metadata(metadata);
        Ok(tool)
    }

    /// The registered name (namespace-qualified when the tool has a namespace).
    pub fn name(&self) -> &str {
        &self.text[..self.name_end as usize]
    }

    /// The name without the namespace it was registered under (the name as given).
    pub fn own_name(&self) -> &str {
        let name = self.name();
        match self.ns_len {
            0 => name,
            // `namespace-name`: the namespace and its `-`.
            n => name.get(n as usize + 1..).unwrap_or(name),
        }
    }

    /// The namespace the tool was registered under, if any.
    pub fn namespace(&self) -> Option<&str> {
        (self.ns_len > 0).then(|| &self.text[..self.ns_len as usize])
    }

    /// The full description.
    pub fn description(&self) -> &str {
        &self.text[self.name_end as usize..self.desc_end as usize]
    }

    /// The parameters JSON schema, as compact JSON text.
    pub fn parameters_json(&self) -> &str {
        &self.text[self.desc_end as usize..self.params_end as usize]
    }

    /// The parameters schema as emitted in `form` (cleaned; see [`crate::schema`]), computed on
    /// first use and kept with the tool. The registered schema stays [`parameters_json`](Self::parameters_json).
    pub fn cleaned_parameters(&self, form: Form) -> Cleaned<'_> {
        self.schemas
            .clean(&self.same_forms, self.parameters_json(), form)
    }

    /// The top-level property names of the parameters schema, in schema order (read back from
    /// the schema: the search index uses [`param_text`](Self::param_text)).
    pub fn param_names(&self) -> Vec<String> {
        let schema: Value =
            serde_json::from_str(self.parameters_json()).expect("stored schemas are valid JSON");
        match schema.get("properties") {
            Some(Value::Object(props)) => props.keys().cloned().collect(),
            _ => Vec::new(),
        }
    }

    /// The parameter names joined by single spaces, as the search index reads them.
    pub fn param_text(&self) -> &str {
        &self.text[self.params_end as usize..]
    }

    /// Bytes of text the search index tokenizes for this tool: description, search hint, tags
    /// and parameter names (bounded by [`crate::limits::MAX_TOOL_TEXT_BYTES`]).
    pub fn searchable_text_bytes(&self) -> usize {
        let meta = &self.metadata;
        self.description().len()
            + meta.search_hint.len()
            + meta.tags.iter().map(String::len).sum::<usize>()
            + self.param_bytes as usize
    }

    /// Search and presentation metadata.
    pub fn metadata(&self) -> &ToolMetadata {
        &self.metadata
    }

    /// The same tool with other metadata (duplicate tags dropped).
    pub fn with_metadata(mut self, metadata: ToolMetadata) -> Self {
        self.metadata = normalize_metadata(metadata);
        self
    }

    pub(crate) fn metadata_mut(&mut self) -> &mut ToolMetadata {
        &mut self.metadata
    }

    /// Whether the tool has any of `tags`.
    pub fn has_any_tag(&self, tags: &[String]) -> bool {
        self.metadata.tags.iter().any(|t| tags.contains(t))
    }
}

/// Finds the parameters schema under whichever key the shape uses.
fn schema_of(def: &Map<String, Value>) -> (Option<&Value>, &'static str) {
    for key in ["parameters", "input_schema", "inputSchema"] {
        if let Some(v) = def.get(key) {
            return (Some(v), key);
        }
    }
    (None, "parameters")
}

fn build(
    name: &str,
    description: &str,
    params: &Value,
    namespace: Option<&str>,
    path: &str,
    params_key: &str,
) -> Result<Tool> {
    validate_name(name, &format!("{path}.name"))?;
    if let Some(ns) = namespace {
        validate_name(ns, &format!("{path}.namespace"))?;
    }
    let params_path = format!("{path}.{params_key}");
    let (parameters, param_names) = match params {
        Value::Null => (
            RawValue::from_string(r#"{"type":"object","properties":{}}"#.to_string())?,
            Vec::new(),
        ),
        Value::Object(map) => {
            let names = match map.get("properties") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Object(props)) => props.keys().cloned().collect(),
                Some(v) => {
                    return Err(Error::invalid(format!(
                        "{params_path}.properties: expected an object, got {}",
                        kind_of(v)
                    )));
                }
            };
            (serde_json::value::to_raw_value(params)?, names)
        }
        other => {
            return Err(Error::invalid(format!(
                "{params_path}: expected a JSON schema object, got {}",
                kind_of(other)
            )));
        }
    };
    let full_name = match namespace {
        Some(ns) => format!("{ns}-{name}"),
        None => name.to_string(),
    };
    if full_name.len() > MAX_NAME_BYTES {
        return Err(Error::TooLarge(format!(
            "{path}.name: {} bytes with its namespace; the limit is {MAX_NAME_BYTES}",
            full_name.len()
        )));
    }
    Tool::from_parts(
        &full_name,
        namespace.map_or(0, str::len),
        description,
        parameters.get(),
        param_names.iter().map(String::as_str),
    )
}

impl Tool {
    /// Lays the parts out in one string. `ns_len`: bytes of `full_name` that are the namespace.
    fn from_parts<'a>(
        full_name: &str,
        ns_len: usize,
        description: &str,
        parameters: &str,
        param_names: impl Iterator<Item = &'a str> + Clone,
    ) -> Result<Tool> {
        // The exact size: a string grown while the names are appended and then shrunk leaves a
        // hole after every tool, which at 100,000 tools showed in the resident memory.
        let names_len: usize = param_names.clone().map(|p| p.len() + 1).sum();
        let mut text = String::with_capacity(
            full_name.len() + description.len() + parameters.len() + names_len.saturating_sub(1),
        );
        text.push_str(full_name);
        text.push_str(description);
        text.push_str(parameters);
        let params_end = text.len();
        let mut param_bytes = 0;
        for (i, p) in param_names.enumerate() {
            if i > 0 {
                text.push(' ');
            }
            text.push_str(p);
            param_bytes += p.len();
        }
        let offset = |n: usize| {
            u32::try_from(n).map_err(|_| {
                Error::TooLarge(format!(
                    "tool {full_name:?}: {} bytes of text; the limit is 4 GiB",
                    text.len()
                ))
            })
        };
        Ok(Tool {
            name_end: offset(full_name.len())?,
            ns_len: offset(ns_len)?,
            desc_end: offset(full_name.len() + description.len())?,
            params_end: offset(params_end)?,
            param_bytes: offset(param_bytes)?,
            text: text.into_boxed_str(),
            metadata: ToolMetadata::default(),
            schemas: SchemaCache::new(),
            same_forms: SameForms::new(),
        })
    }
}

/// Checks a tool name or namespace: non-empty, no whitespace or control characters, bounded length.
pub fn validate_name(name: &str, what: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::invalid(format!("{what}: must not be empty")));
    }
    if name.len() > MAX_NAME_BYTES {
        return Err(Error::TooLarge(format!(
            "{what}: {} bytes; the limit is {MAX_NAME_BYTES}",
            name.len()
        )));
    }
    if let Some(c) = name.chars().find(|c| c.is_whitespace() || c.is_control()) {
        return Err(Error::invalid(format!(
            "{what}: {name:?} contains {c:?}; whitespace and control characters are not allowed"
        )));
    }
    Ok(())
}

fn optional_string(v: &Value, path: &str) -> Result<String> {
    match v {
        Value::Null => Ok(String::new()),
        Value::String(s) => Ok(s.clone()),
        other => Err(Error::invalid(format!(
            "{path}: expected a string, got {}",
            kind_of(other)
        ))),
    }
}

fn parse_tags(v: &Value, path: &str) -> Result<Vec<String>> {
    let items = match v {
        Value::Null => return Ok(Vec::new()),
        Value::Array(items) => items,
        other => {
            return Err(Error::invalid(format!(
                "{path}: expected an array of strings, got {}",
                kind_of(other)
            )));
        }
    };
    items
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            Value::String(s) => Ok(s.clone()),
            other => Err(Error::invalid(format!(
                "{path}[{i}]: expected a string, got {}",
                kind_of(other)
            ))),
        })
        .collect()
}

/// Drops duplicate tags: the reference keeps tags in a set, so a repeated tag counts once in search.
fn normalize_metadata(mut meta: ToolMetadata) -> ToolMetadata {
    if meta.tags.len() <= 16 {
        // A few tags: comparing with the earlier ones costs less than a set.
        let mut i = 0;
        while i < meta.tags.len() {
            if meta.tags[..i].contains(&meta.tags[i]) {
                meta.tags.remove(i);
            } else {
                i += 1;
            }
        }
        return meta;
    }
    let mut seen = std::collections::HashSet::new();
    meta.tags.retain(|t| seen.insert(t.clone()));
    meta
}

pub(crate) fn dedup_tags(tags: Vec<String>) -> Vec<String> {
    normalize_metadata(ToolMetadata {
        tags,
        ..Default::default()
    })
    .tags
}

#[cfg(test)]
mod tests;

mod fast;
mod halves;
pub(crate) use fast::repeated;

/// An array of tools without a `Value` tree: a large catalog in two halves on two threads, else in
/// one pass; `None` when an element needs the `Value` path. Here, above both, so that the one-pass
/// parser and the two-thread split do not import each other.
fn parse_array_fast(text: &str) -> Option<Vec<Tool>> {
    if text.len() >= halves::MIN_BYTES {
        if let Some(tools) = halves::parse(text) {
            return Some(tools);
        }
    }
    fast::parse_array_on_one_thread(text)
}
