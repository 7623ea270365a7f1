"""The reference's ``toolregistry.llm``: tool-call types, the round-trip helpers and discovery."""

from ..discovery import ToolDiscoveryTool
from .tool_calls import (
    API_FORMATS,
    BaseResult,
    ErrorResult,
    ResultList,
    ToolCall,
    ToolCallResult,
    build_assistant_messages,
    build_tool_result_messages,
    convert_tool_calls,
)

__all__ = [
    "API_FORMATS",
    "BaseResult",
    "ErrorResult",
    "ResultList",
    "ToolCall",
    "ToolCallResult",
    "ToolDiscoveryTool",
    "build_assistant_messages",
    "build_tool_result_messages",
    "convert_tool_calls",
]
