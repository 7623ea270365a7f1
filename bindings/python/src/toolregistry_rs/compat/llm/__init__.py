"""The reference's ``toolregistry.llm``: tool-call types and discovery."""

from ..discovery import ToolDiscoveryTool
from .tool_calls import ErrorResult, ResultList, ToolCall, ToolCallResult

__all__ = ["ErrorResult", "ResultList", "ToolCall", "ToolCallResult", "ToolDiscoveryTool"]
