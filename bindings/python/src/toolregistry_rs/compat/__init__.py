"""The Python reference ``toolregistry`` (0.19.0)'s core API, on the toolregistry-rs engine.

For code written against ``toolregistry``, the switch is the imports::

    # from toolregistry import Tool, ToolMetadata, ToolRegistry, ToolTag, ToolDiscoveryTool
    # from toolregistry.llm.tool_calls import ToolCall, build_assistant_messages
    from toolregistry_rs.compat import Tool, ToolMetadata, ToolRegistry, ToolTag, ToolDiscoveryTool
    from toolregistry_rs.compat.llm.tool_calls import ToolCall, build_assistant_messages

The reference's module paths exist here too (``compat.tool``, ``compat.tool_registry``,
``compat.llm.tool_calls``, ``compat.llm.discovery``). Same calls, same answers:
``ToolDiscoveryTool.discover`` returns the reference's list of dicts with its ranking reproduced
to 1e-9 (the engine runs with ``profile="reference"`` pinned); registration from functions,
``Tool`` objects and classes, namespaces, enable/disable with reasons and by tags, status,
schemas in the four provider formats, ``execute_tool_calls`` and the tool-call round trip.

State and ranking come from the library: every tool is registered in the engine
(:attr:`ToolRegistry.native`), which answers schemas, enabled state, reasons, tags, summaries,
searches and runs the tool calls. What stays out (MCP, OpenAPI and LangChain integrations, the
admin server, executors' process pools, ...) and every deliberate difference is listed in
bindings/python/README.md ("Coming from toolregistry").
"""

from .discovery import (
    DEFAULT_MAX_DF_RATIO,
    DEFAULT_MIN_SCORE_RATIO,
    TOOL_CALL_DEFERRED_NAME,
    TOOL_DISCOVERY_NAME,
    ToolDiscoveryTool,
)
from .llm.tool_calls import ErrorResult, ResultList, ToolCallResult
from .tool import Tool, ToolMetadata, ToolTag, normalize_tool_name
from .tool_registry import ToolRegistry

#: ``toolregistry_rs.compat.Registry`` is ``ToolRegistry``.
Registry = ToolRegistry

__all__ = [
    "DEFAULT_MAX_DF_RATIO",
    "DEFAULT_MIN_SCORE_RATIO",
    "ErrorResult",
    "Registry",
    "ResultList",
    "TOOL_CALL_DEFERRED_NAME",
    "TOOL_DISCOVERY_NAME",
    "Tool",
    "ToolCallResult",
    "ToolDiscoveryTool",
    "ToolMetadata",
    "ToolRegistry",
    "ToolTag",
    "normalize_tool_name",
]
