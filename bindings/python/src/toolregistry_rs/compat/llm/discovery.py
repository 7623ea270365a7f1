"""The reference's ``toolregistry.llm.discovery`` module path."""

from ..discovery import (
    DEFAULT_MAX_DF_RATIO,
    DEFAULT_MIN_SCORE_RATIO,
    TOOL_CALL_DEFERRED_NAME,
    TOOL_DISCOVERY_NAME,
    ToolDiscoveryTool,
)

__all__ = [
    "DEFAULT_MAX_DF_RATIO",
    "DEFAULT_MIN_SCORE_RATIO",
    "TOOL_CALL_DEFERRED_NAME",
    "TOOL_DISCOVERY_NAME",
    "ToolDiscoveryTool",
]
