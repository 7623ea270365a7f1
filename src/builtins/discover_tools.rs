//! `discover_tools`: the model's way to find a tool by exact name or by a query.

use super::deferred_list;
use crate::discovery::parse_discover_tools_args;
use crate::error::Result;
use crate::registry::{Builtin, DISCOVER_TOOLS, HostResult, Registry, Summary};
use crate::schema::{SameForms, SchemaCache};

const DESCRIPTION: &str = "Look up tools that are not in your tool list. Pass a tool's exact \
name to get its full schema, or describe the capability you need in a few keywords (for example \
\"convert currency\") to get the best matching tools, best first. Results for tools listed below include \
their schema, so you can call them next.";

const PARAMETERS: &str = r#"{"type":"object","properties":{"query":{"type":"string","description":"A tool's exact name, a few keywords describing the capability you need, or select:name1,name2 to get several tools' schemas by exact name.","minLength":1,"pattern":"[\\s\\S]*\\S[\\s\\S]*"},"namespace":{"type":"string","description":"Only search the tools of this namespace (the MCP server or tool group the name starts with, e.g. \"github\" for github-create_issue). Omit to search all tools."},"tags":{"type":"array","items":{"type":"string"},"description":"Only search tools that carry at least one of these tags. Omit to search all tools."},"top_k":{"type":"integer","description":"Most results to return.","minimum":1,"default":10},"api_format":{"type":"string","description":"Format of the returned schemas.","enum":["openai-chat","openai-responses","anthropic","gemini"],"default":"openai-chat"}},"required":["query"]}"#;

/// Searches the registry with the options discovery was enabled with.
#[derive(Debug)]
pub struct DiscoverTools;

impl Builtin for DiscoverTools {
    fn name(&self) -> &'static str {
        DISCOVER_TOOLS
    }

    fn description(&self, deferred: &[Summary], max_tokens: Option<usize>) -> String {
        if deferred.is_empty() {
            return DESCRIPTION.to_string();
        }
        format!(
            "{DESCRIPTION}\n\nTools available on demand (call discover_tools for the full schema):\n{}",
            deferred_list(deferred, max_tokens)
        )
    }

    fn base_description(&self) -> &'static str {
        DESCRIPTION
    }

    fn parameters_json(&self) -> &'static str {
        PARAMETERS
    }

    fn schema_cache(&self) -> &'static (SchemaCache, SameForms) {
        static CACHE: (SchemaCache, SameForms) = (SchemaCache::new(), SameForms::new());
        &CACHE
    }

    fn call(&self, registry: &Registry, args_json: &str) -> Result<HostResult> {
        let (query, request) = parse_discover_tools_args(args_json)?;
        Ok(Ok(registry.discover_json(&query, &request)?))
    }
}
