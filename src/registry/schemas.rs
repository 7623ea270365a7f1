//! Listing schemas: `get_schemas` with its options (filters, names, strict mode and its
//! warnings), in the provider's shape.

use super::*;

impl State {
    /// The schemas `names` asks for, in that order (disabled tools and built-ins too).
    pub(super) fn named_entries(&self, names: &[String]) -> Result<Vec<SchemaEntry<'_>>> {
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
    pub(super) fn write_schema_list(
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
}

impl Registry {
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
        let Some(obj) = object_or_null(&value, "options")? else {
            return Ok(o);
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
pub(super) enum SchemaEntry<'a> {
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

/// Writes a built-in's schema (cleaned like any other, cached per built-in); returns the
/// strict-mode warning, if any.
pub(crate) fn write_builtin_schema(
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
