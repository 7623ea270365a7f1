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
            if let Some(tools) = fast::parse_array(text) {
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
mod tests {
    use super::*;

    fn one(json: &str) -> Tool {
        let mut v = Tool::parse_many(json).unwrap();
        assert_eq!(v.len(), 1);
        v.pop().unwrap()
    }

    #[test]
    fn accepts_every_shape() {
        let params = r#"{"type":"object","properties":{"path":{"type":"string"}}}"#;
        let shapes = [
            format!(r#"{{"name":"read","description":"d","parameters":{params}}}"#),
            format!(
                r#"{{"type":"function","function":{{"name":"read","description":"d","parameters":{params}}}}}"#
            ),
            format!(
                r#"{{"type":"function","name":"read","description":"d","parameters":{params}}}"#
            ),
            format!(r#"{{"name":"read","description":"d","input_schema":{params}}}"#),
            format!(r#"{{"name":"read","description":"d","inputSchema":{params}}}"#),
        ];
        for s in &shapes {
            let t = one(s);
            assert_eq!(t.name(), "read", "{s}");
            assert_eq!(t.description(), "d");
            assert_eq!(t.param_names(), ["path"]);
            assert_eq!(t.parameters_json(), params);
        }
    }

    #[test]
    fn defaults_and_namespace() {
        let t = one(
            r#"{"name":"list_issues","namespace":"github","metadata":{"defer":true,"tags":["network","x","network"],"search_hint":"h"}}"#,
        );
        assert_eq!(t.name(), "github-list_issues");
        assert_eq!(t.namespace(), Some("github"));
        assert_eq!(t.description(), "");
        assert_eq!(t.parameters_json(), r#"{"type":"object","properties":{}}"#);
        assert_eq!(t.metadata().tags, ["network", "x"]);
        assert!(t.metadata().defer);
    }

    #[test]
    fn refuses_bad_definitions_with_a_path() {
        let cases = [
            (
                r#"[{"name":"a"},{"description":"x"}]"#,
                "tools[1].name: missing",
            ),
            (r#"{"name":""}"#, "must not be empty"),
            (r#"{"name":"a b"}"#, "whitespace"),
            (r#"{"name":5}"#, "name: expected a string"),
            (
                r#"{"name":"a","parameters":[]}"#,
                "expected a JSON schema object",
            ),
            (
                r#"{"name":"a","metadata":{"defer":"yes"}}"#,
                "metadata.defer: expected a boolean",
            ),
            (r#"{"name":"a","metadata":{"tags":[1]}}"#, "tags[0]"),
            (
                r#"{"name":"a","metadata":{"color":1}}"#,
                "unknown metadata field",
            ),
            (
                r#"{"name":"a","parameters":{"properties":3}}"#,
                "properties: expected an object",
            ),
            ("7", "expected a tool object"),
        ];
        for (json, want) in cases {
            let err = Tool::parse_many(json).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument(_)), "{json}: {err}");
            assert!(err.to_string().contains(want), "{json}: {err}");
        }
        assert!(matches!(Tool::parse_many("{"), Err(Error::InvalidJson(_))));
    }

    #[test]
    fn catalogs_in_every_wrapper() {
        let tool = r#"{"name":"a","description":"d"}"#;
        for text in [
            format!("[{tool}]"),
            tool.to_string(),
            format!(r#"{{"tools":[{tool}]}}"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"result":{{"tools":[{tool}]}}}}"#),
        ] {
            let tools = Tool::parse_catalog(&text).unwrap();
            assert_eq!(tools.len(), 1, "{text}");
            assert_eq!(tools[0].name(), "a");
        }
        assert!(Tool::parse_catalog(r#"{"tools":5}"#).is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(matches!(
            Tool::parse_many(&deep),
            Err(Error::InvalidJson(_))
        ));
    }

    #[test]
    fn fast_path_answers_like_the_value_path() {
        let cases = [
            // (definition, whether the fast path must take it)
            (
                r#"{"name":"a","description":"d","parameters":{"type":"object","properties":{"x":{"type":"integer","minimum":0},"y":{"type":"array","items":{"type":"string"}}},"required":["x"]}}"#,
                true,
            ),
            (
                r#"{"type":"function","function":{"name":"f","description":"q\"uote\n","parameters":{"type":"object","properties":{"p":{"description":"tab\there","default":-12}}}}}"#,
                true,
            ),
            (
                r#"{"name":"m","inputSchema":{"type":"object","properties":{"k":{}}},"namespace":"ns","metadata":{"defer":true,"tags":["x","x","y"]}}"#,
                true,
            ),
            (
                r#"{"name":"n","input_schema":{"type":"object","properties":null},"description":null}"#,
                true,
            ),
            (
                r#"{"name":"u","parameters":{"type":"object","properties":{"caf\u00e9":{}}}}"#,
                true,
            ),
            (
                r#"{"name":"s","parameters":{"type":"object","properties":{"a\/b":{}}}}"#,
                true,
            ),
            (
                r#"{"name":"e","parameters":{"type":"object","properties":{"a\nb":{}}}}"#,
                true,
            ),
            (
                r#"{"name":"f","parameters":{"type":"object","properties":{"x":{"minimum":1.50}}}}"#,
                true,
            ),
            (
                r#"{"name":"g","parameters":{"type":"object","properties":{"x":{"maximum":1e3}}}}"#,
                true,
            ),
            (
                r#"{"name":"h","parameters":{"type":"object","properties":{"x":{"maximum":-0}}}}"#,
                true,
            ),
            (
                r#"{"name":"i","parameters":{"type":"object","properties":{"x":{"maximum":123456789012345678901}}}}"#,
                true,
            ),
            (
                r#"{"name":"j","parameters":{"type":"object", "properties":{}}}"#,
                true,
            ),
            (
                r#"{"name":"k","parameters":{"type":"object","properties":{"x":{},"x":{"type":"string"}}}}"#,
                true,
            ),
            (
                r#"{"name":"l","parameters":{"type":"object","properties":{"x":{}},"properties":{"y":{}}}}"#,
                true,
            ),
            (
                r#"{"name":"o","parameters":{"properties":{"x":{"properties":{"inner":{}}}},"z":{"properties":{"no":{}}}}}"#,
                true,
            ),
            (
                r#"{"name":"p","parameters":{"type":"object","properties":{"é":{"enum":[true,false,null,"😀"]}}}}"#,
                true,
            ),
            (
                r#"{"name":"q","parameters":{"type":"object","properties":[1]}}"#,
                false,
            ),
            (r#"{"name":"r","parameters":[]}"#, false),
            (r#"{"name":"v","parameters":null,"function":null}"#, false),
            (r#"{"name":"w","name":"w2"}"#, false),
            (r#"{"name":"with space"}"#, false),
            (r#"{"name":"t","namespace":"bad ns"}"#, false),
            (r#"{"name":"t","metadata":{"defer":1}}"#, false),
            (r#"{"name":"t","metadata":{"defer":null}}"#, false),
            (
                r#"{"name":"t","metadata":{"tags":null,"search_hint":null,"defer":false}}"#,
                true,
            ),
            (
                r#"{"name":"t","metadata":{"tags":["a","b","a","c","b"],"search_hint":"h\u00e9"}}"#,
                true,
            ),
            (r#"{"name":"t","metadata":{"tags":[1]}}"#, false),
            (r#"{"name":"t","metadata":{"unknown":1}}"#, false),
            (r#"{"name":"t","metadata":["x"]}"#, false),
            (
                r#"{"name":"t","metadata":{"defer":true,"defer":false}}"#,
                false,
            ),
            (r#"{"name":5}"#, false),
            (r#"{"description":"no name"}"#, false),
        ];
        // Kept as written only when serde_json would write it the same way.
        let kept = |schema: &str| fast::canonical_schema(schema).is_some();
        assert!(kept(
            r#"{"type":"object","properties":{"a":{"enum":[1,-2,"x\"y"]}}}"#
        ));
        for rewritten in [
            r#"{"properties":{"a":1.0}}"#,
            r#"{"properties":{"a":1E2}}"#,
            r#"{"properties":{"a":"\u0041"}}"#,
            r#"{"properties":{"a":"\/"}}"#,
            r#"{"properties": {}}"#,
            r#"{"a":1,"a":2}"#,
            r#"{"properties":{"a\tb":{}}}"#,
        ] {
            assert!(!kept(rewritten), "{rewritten}");
        }
        assert_eq!(
            fast::canonical_schema(
                r#"{"x":{"properties":{"no":1}},"properties":{"a":{"properties":{"b":1}},"c":2}}"#
            ),
            Some(vec!["a", "c"])
        );
        for (text, fast_expected) in cases {
            let value: Value = serde_json::from_str(text).unwrap();
            let slow = Tool::from_value(&value, "tool");
            let fast = fast::parse(text);
            assert_eq!(fast.is_some(), fast_expected, "{text}");
            if let Some(fast) = fast {
                let slow = slow.unwrap();
                assert_eq!(fast, slow, "{text}");
                assert_eq!(fast.parameters_json(), slow.parameters_json(), "{text}");
                assert_eq!(fast.param_text(), slow.param_text(), "{text}");
                assert_eq!(fast.param_names(), slow.param_names(), "{text}");
                assert_eq!(fast.searchable_text_bytes(), slow.searchable_text_bytes());
            }
            // Through the array path, fast or not, the answer (or error) is the Value path's.
            let many = Tool::parse_many(&format!("[{text}]"));
            match (many, Tool::from_value(&value, "tools[0]")) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a, vec![b.clone()], "{text}");
                    assert_eq!(a[0].param_text(), b.param_text(), "{text}");
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{text}"),
                (a, b) => panic!("{text}: {a:?} vs {b:?}"),
            }
        }
    }

    #[test]
    fn arrays_in_one_pass_answer_like_element_by_element() {
        let err = Tool::parse_many(r#"[{"name":"a"},["b"]]"#).unwrap_err();
        assert!(
            err.to_string().contains("tools[1]: expected an object"),
            "{err}"
        );
        let err = Tool::parse_many(r#"[{"name":"a"},{"name":"b c"}]"#).unwrap_err();
        assert!(err.to_string().contains("tools[1].name"), "{err}");
        // A repeated key is not an error: the Value path keeps the last one.
        let tools = Tool::parse_many(
            r#"[{"name":"a","parameters":{"type":"object","properties":{"x":{}}}},{"name":"b","name":"c"}]"#,
        )
        .unwrap();
        let names: Vec<&str> = tools.iter().map(Tool::name).collect();
        assert_eq!(names, ["a", "c"]);
        assert_eq!(tools[0].param_text(), "x");
        assert!(fast::parse_array(r#"[{"name":"a"},{"name":"b"}]"#).is_some());
        assert!(fast::parse_array(r#"[{"name":"a"}] x"#).is_none());
        assert!(Tool::parse_many(r#"[{"name":"a"}] x"#).is_err());
    }

    #[test]
    fn fast_path_leaves_deep_schemas_to_the_value_path() {
        let deep = format!(
            r#"{{"name":"d","parameters":{}{}}}"#,
            r#"{"a":"#.repeat(150),
            "}".repeat(151)
        );
        assert!(fast::parse(&deep).is_none());
        let shallow = format!(
            r#"{{"name":"d","parameters":{}1{}}}"#,
            r#"{"a":"#.repeat(50),
            "}".repeat(50)
        );
        assert!(fast::parse(&shallow).is_some());
    }
}

/// The common case of [`Tool::from_value`] without a `Value` tree: the tool's fields are read
/// straight from the text, and a schema that is already exactly what serde_json would write for
/// it is kept as it is. Anything unusual (an error, escapes in the schema, non-integer numbers,
/// duplicate keys, deep nesting) returns `None`, and the caller takes the `Value` path, which
/// stays the single definition of what is accepted and of every error message.
mod fast {
    use super::{MAX_NAME_BYTES, Tool, ToolMetadata, build, normalize_metadata, validate_name};
    use serde::de::value::MapAccessDeserializer;
    use serde::de::{Error as _, MapAccess, SeqAccess, Visitor};
    use serde::{Deserialize, Deserializer};
    use serde_json::Value;
    use serde_json::value::RawValue;
    use std::borrow::Cow;

    /// Deepest nesting the fast path reads; deeper schemas take the `Value` path, which enforces
    /// serde_json's recursion limit.
    const MAX_DEPTH: usize = 100;

    #[derive(Deserialize)]
    struct Def<'a> {
        #[serde(borrow, default)]
        name: Option<Cow<'a, str>>,
        #[serde(borrow, default)]
        description: Option<Cow<'a, str>>,
        #[serde(borrow, default, deserialize_with = "present")]
        parameters: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        input_schema: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present", rename = "inputSchema")]
        input_schema_mcp: Option<&'a RawValue>,
        #[serde(borrow, default)]
        namespace: Option<Cow<'a, str>>,
        #[serde(borrow, default, deserialize_with = "present")]
        metadata: Option<&'a RawValue>,
        #[serde(borrow, default, deserialize_with = "present")]
        function: Option<&'a RawValue>,
    }

    /// The metadata object as [`super::MetadataUpdate::from_value`] accepts it; a `null` or
    /// anything else it refuses fails here too (and the `Value` path reports it).
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Meta {
        #[serde(default, deserialize_with = "some_bool")]
        defer: Option<bool>,
        #[serde(default)]
        tags: Option<Vec<String>>,
        #[serde(default)]
        search_hint: Option<String>,
        #[serde(default, deserialize_with = "some_bool")]
        concurrency_safe: Option<bool>,
    }

    fn some_bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
        bool::deserialize(d).map(Some)
    }

    /// `Some` for a key that is present, even when its value is `null` (unlike `Option`'s own
    /// deserializer), as `Map::get` sees it.
    fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
        <&RawValue>::deserialize(d).map(Some)
    }

    fn object(text: &str) -> Option<Def<'_>> {
        if !text.starts_with('{') {
            return None;
        }
        serde_json::from_str(text).ok()
    }

    /// An array of tools in one pass over the text, or `None` when any element needs the
    /// `Value` path (the caller then parses the array element by element).
    pub(super) fn parse_array(text: &str) -> Option<Vec<Tool>> {
        struct Tools;
        impl<'de> Visitor<'de> for Tools {
            type Value = Vec<Tool>;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of tools")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<Tool>, A::Error> {
                let mut tools = Vec::new();
                while let Some(ObjectDef(def)) = seq.next_element()? {
                    tools.push(tool_of(def).ok_or_else(|| A::Error::custom("slow path"))?);
                }
                // Growth slack here would count toward the peak memory of the whole build.
                tools.shrink_to_fit();
                Ok(tools)
            }
        }
        let mut de = serde_json::Deserializer::from_str(text);
        let tools = de.deserialize_seq(Tools).ok()?;
        de.end().ok()?;
        Some(tools)
    }

    /// A [`Def`] read only from a JSON object (the derived form would also read an array).
    struct ObjectDef<'a>(Def<'a>);

    impl<'de> Deserialize<'de> for ObjectDef<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct Object;
            impl<'de> Visitor<'de> for Object {
                type Value = ObjectDef<'de>;

                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("a tool object")
                }

                fn visit_map<M: MapAccess<'de>>(self, map: M) -> Result<ObjectDef<'de>, M::Error> {
                    Def::deserialize(MapAccessDeserializer::new(map)).map(ObjectDef)
                }
            }
            d.deserialize_map(Object)
        }
    }

    /// One tool, or `None` to take the `Value` path.
    pub(super) fn parse(text: &str) -> Option<Tool> {
        tool_of(object(text)?)
    }

    fn tool_of(outer: Def<'_>) -> Option<Tool> {
        let metadata = match outer.metadata.map(RawValue::get) {
            None | Some("null") => ToolMetadata::default(),
            Some(raw) if raw.starts_with('{') => {
                let meta: Meta = serde_json::from_str(raw).ok()?;
                ToolMetadata {
                    defer: meta.defer.unwrap_or(false),
                    tags: meta.tags.map_or_else(Vec::new, |mut tags| {
                        // serde grows the list as it reads; the tool keeps it for good.
                        tags.shrink_to_fit();
                        tags
                    }),
                    search_hint: meta.search_hint.unwrap_or_default(),
                    concurrency_safe: meta.concurrency_safe.unwrap_or(true),
                }
            }
            Some(_) => return None,
        };
        let inner;
        let def = match outer.function {
            Some(raw) => {
                inner = object(raw.get())?;
                &inner
            }
            None => &outer,
        };
        let name = def.name.as_deref()?;
        let description = def.description.as_deref().unwrap_or("");
        let namespace = outer.namespace.as_deref();
        let params = def
            .parameters
            .or(def.input_schema)
            .or(def.input_schema_mcp)
            .map_or("null", RawValue::get);
        let mut tool = if params == "null" || !params.starts_with('{') {
            let params: Value = serde_json::from_str(params).ok()?;
            build(name, description, &params, namespace, "tool", "parameters").ok()?
        } else if let Some(names) = canonical_schema(params) {
            validate_name(name, "name").ok()?;
            let ns_len = match namespace {
                Some(ns) => {
                    validate_name(ns, "namespace").ok()?;
                    ns.len()
                }
                None => 0,
            };
            let full_name = match namespace {
                Some(ns) => Cow::Owned(format!("{ns}-{name}")),
                None => Cow::Borrowed(name),
            };
            if full_name.len() > MAX_NAME_BYTES {
                return None;
            }
            Tool::from_parts(&full_name, ns_len, description, params, names.into_iter()).ok()?
        } else {
            let params: Value = serde_json::from_str(params).ok()?;
            build(name, description, &params, namespace, "tool", "parameters").ok()?
        };
        tool.metadata = normalize_metadata(metadata);
        Some(tool)
    }

    /// If `text` (valid JSON, an object) is byte for byte what serde_json writes for the `Value`
    /// it parses to, the keys of its top-level `properties` object, in order.
    ///
    /// That holds when there is no whitespace outside strings, every escape is one serde_json
    /// writes the same way (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`; not `\/` or `\u`), every
    /// number is an integer that fits 64 bits (no fraction, exponent or `-0`), and no object
    /// repeats a key (a `Value` keeps one of them).
    pub(super) fn canonical_schema(text: &str) -> Option<Vec<&str>> {
        struct Frame {
            object: bool,
            /// Position in `keys` where this object's keys start.
            keys_from: usize,
            expect_key: bool,
            /// This is the top-level `properties` object: its keys are the parameter names.
            properties: bool,
        }
        let b = text.as_bytes();
        let mut stack: Vec<Frame> = Vec::new();
        let mut keys: Vec<&str> = Vec::new();
        let mut names = Vec::new();
        // The next value is the top-level `properties` value.
        let mut properties_next = false;
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if properties_next && c != b'{' && c != b'n' {
                return None; // not an object or null: the `Value` path reports it
            }
            match c {
                b'{' | b'[' => {
                    if stack.len() >= MAX_DEPTH {
                        return None;
                    }
                    stack.push(Frame {
                        object: c == b'{',
                        keys_from: keys.len(),
                        expect_key: c == b'{',
                        properties: std::mem::take(&mut properties_next),
                    });
                    i += 1;
                }
                b'}' | b']' => {
                    let frame = stack.pop()?;
                    keys.truncate(frame.keys_from);
                    i += 1;
                }
                b',' => {
                    if let Some(top) = stack.last_mut() {
                        top.expect_key = top.object;
                    }
                    i += 1;
                }
                b':' => i += 1,
                b'"' => {
                    let start = i + 1;
                    let mut j = start;
                    let mut escaped = false;
                    loop {
                        // Skip plain bytes in one tight scan; strings are most of a schema.
                        j += b[j..]
                            .iter()
                            .position(|&c| c == b'"' || c == b'\\')
                            .expect("strings are terminated");
                        if b[j] == b'"' {
                            break;
                        }
                        escaped = true;
                        if !matches!(b[j + 1], b'"' | b'\\' | b'b' | b'f' | b'n' | b'r' | b't') {
                            return None;
                        }
                        j += 2;
                    }
                    let string = &text[start..j];
                    i = j + 1;
                    let depth = stack.len();
                    let top = stack.last_mut()?;
                    if top.expect_key {
                        top.expect_key = false;
                        if keys[top.keys_from..].contains(&string) {
                            return None;
                        }
                        keys.push(string);
                        if top.properties {
                            if escaped {
                                return None; // the index reads the unescaped name
                            }
                            names.push(string);
                        }
                        properties_next = depth == 1 && string == "properties";
                        // The key's value follows the colon.
                        if b.get(i) != Some(&b':') {
                            return None;
                        }
                        i += 1;
                    }
                }
                b'-' | b'0'..=b'9' => {
                    let start = i;
                    while i < b.len()
                        && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                    let number = &text[start..i];
                    let digits = number.strip_prefix('-').unwrap_or(number);
                    let fits = if number.starts_with('-') { 18 } else { 19 };
                    if !digits.bytes().all(|d| d.is_ascii_digit())
                        || digits.len() > fits
                        || number == "-0"
                    {
                        return None;
                    }
                }
                b't' | b'f' | b'n' => {
                    let word = if c == b'f' { 5 } else { 4 };
                    properties_next = false; // `"properties": null` means no parameters
                    i += word;
                }
                _ => return None, // whitespace: not compact
            }
        }
        Some(names)
    }
}
