"""The reference's ``toolregistry.llm.tool_calls``: one tool-call type for every provider shape.

``ToolCall.from_tool_call`` reads a call in the OpenAI chat, OpenAI Responses, Anthropic or Gemini
shape; ``build_assistant_messages`` and ``build_tool_result_messages`` write the assistant turn
and the results back in one of them, as the reference does. Results of
``ToolRegistry.execute_tool_calls`` are :class:`ToolCallResult` / :class:`ErrorResult` in a
:class:`ResultList`.
"""

from __future__ import annotations

import dataclasses
import json
import uuid
from typing import Any, Dict, List, Literal, Mapping, Optional, Union

from ..tool import normalize_api_format

__all__ = [
    "API_FORMATS",
    "ErrorResult",
    "ResultList",
    "ToolCall",
    "ToolCallResult",
    "build_assistant_messages",
    "build_tool_result_messages",
    "convert_tool_calls",
]

API_FORMATS = Literal[
    "openai",
    "openai-chat",
    "openai-chatcompletion",
    "openai-response",
    "openai-responses",
    "open-responses",
    "anthropic",
    "gemini",
]
@dataclasses.dataclass
class ToolCall:
    """A tool call in no provider's shape: id, tool name, arguments as JSON text."""

    id: str
    name: str
    arguments: str
    type: Literal["function", "custom"] = "function"

    def model_dump(self) -> Dict[str, Any]:
        """The fields as a dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_tool_call(cls, tool_call: Any) -> "ToolCall":
        """A call in any provider's shape (a dict, or an object with ``model_dump``).

        Anthropic ``tool_use`` / ``server_tool_use`` blocks, Gemini ``functionCall`` /
        ``function_call`` parts (an id is made up when the part has none, as Gemini's calls often
        do), OpenAI chat ``tool_calls`` items and OpenAI Responses ``function_call`` items.
        Raises TypeError for anything else.
        """
        d = _to_dict(tool_call)
        if isinstance(d, Mapping):
            if d.get("type") in ("tool_use", "server_tool_use") and d.get("name") and d.get("id"):
                return cls(id=str(d["id"]), name=str(d["name"]), arguments=_args_text(d.get("input", {})))
            part = d.get("functionCall", d.get("function_call"))
            if isinstance(part, Mapping) and part.get("name"):
                call_id = part.get("id") or f"call_{uuid.uuid4().hex[:24]}"
                return cls(id=str(call_id), name=str(part["name"]), arguments=_args_text(part.get("args", {})))
            fn = d.get("function")
            if isinstance(fn, Mapping) and fn.get("name") and d.get("id"):
                kind: Literal["function", "custom"] = "custom" if d.get("type") == "custom" else "function"
                return cls(id=str(d["id"]), name=str(fn["name"]), arguments=_args_text(fn.get("arguments", "{}")), type=kind)
            if d.get("type") in ("function_call", None) and d.get("name") and (d.get("call_id") or d.get("id")):
                return cls(
                    id=str(d.get("call_id") or d.get("id")),
                    name=str(d["name"]),
                    arguments=_args_text(d.get("arguments", "{}")),
                )
        raise TypeError(
            f"Unsupported tool call format: {type(tool_call)}. "
            "Expected OpenAI, Anthropic or Gemini tool call format."
        )


def _to_dict(obj: Any) -> Any:
    if hasattr(obj, "model_dump"):
        return obj.model_dump()
    if hasattr(obj, "dict") and not isinstance(obj, Mapping):
        return obj.dict()
    return obj


def _args_text(args: Any) -> str:
    if isinstance(args, str):
        return args
    return json.dumps(args if args is not None else {})


def _args_object(text: str) -> Any:
    try:
        return json.loads(text) if text else {}
    except ValueError:
        return text


@dataclasses.dataclass(frozen=True)
class BaseResult:
    """The call id and tool name of a result."""

    id: str
    name: str


@dataclasses.dataclass(frozen=True)
class ToolCallResult(BaseResult):
    """A call that ran: ``result`` is what the model sees (text)."""

    result: Union[str, List[Any]] = ""

    def __str__(self) -> str:
        return str(self.result)


@dataclasses.dataclass(frozen=True)
class ErrorResult(BaseResult):
    """A call that failed: ``message`` says why (an unknown or disabled tool, bad arguments, an
    exception of the function)."""

    message: str = ""

    def __str__(self) -> str:
        return self.message


class ResultList(List[Union[ToolCallResult, ErrorResult]]):
    """The results in call order, also indexable by call id (``results["call_1"]``)."""

    def __init__(self, items: Optional[List[Union[ToolCallResult, ErrorResult]]] = None) -> None:
        super().__init__(items or [])
        self._index: Dict[str, int] = {r.id: i for i, r in enumerate(self)}

    def by_id(self, call_id: str) -> Union[ToolCallResult, ErrorResult]:
        """The result of that call; KeyError if there is none."""
        i = self._index.get(call_id)
        if i is None:
            raise KeyError(f"No result for tool call ID: {call_id!r}")
        return list.__getitem__(self, i)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self.by_id(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            return key in self._index
        return super().__contains__(key)


def convert_tool_calls(tool_calls: List[Any]) -> List[ToolCall]:
    """Each call as a :class:`ToolCall` (those already one are kept)."""
    return [tc if isinstance(tc, ToolCall) else ToolCall.from_tool_call(tc) for tc in tool_calls]


def _format(api_format: str) -> str:
    return normalize_api_format(api_format)


def provider_call(tc: ToolCall, fmt: str) -> Dict[str, Any]:
    """One call in a provider's shape."""
    if fmt == "openai-chat":
        return {"id": tc.id, "type": "function", "function": {"name": tc.name, "arguments": tc.arguments}}
    if fmt == "openai-responses":
        return {"type": "function_call", "id": f"fc_{tc.id}", "call_id": tc.id, "name": tc.name, "arguments": tc.arguments}
    if fmt == "anthropic":
        return {"type": "tool_use", "id": tc.id, "name": tc.name, "input": _args_object(tc.arguments)}
    return {"functionCall": {"name": tc.name, "args": _args_object(tc.arguments), "id": tc.id}}


def build_assistant_messages(tool_calls: List[ToolCall], *, api_format: str = "openai-chat") -> List[Dict[str, Any]]:
    """The assistant turn that made these calls, in ``api_format`` (calls without a name or
    arguments are left out). ValueError for an unknown format."""
    fmt = _format(api_format)
    calls = [provider_call(tc, fmt) for tc in tool_calls if tc.name and tc.arguments]
    if fmt == "openai-chat":
        return [{"role": "assistant", "tool_calls": calls}]
    if fmt == "anthropic":
        return [{"role": "assistant", "content": calls}]
    if fmt == "gemini":
        return [{"role": "model", "parts": calls}]
    return calls


def build_tool_result_messages(
    tool_responses: Mapping[str, Any],
    *,
    api_format: str = "openai-chat",
    tool_calls: Optional[List[ToolCall]] = None,
) -> List[Dict[str, Any]]:
    """The results (call id to text) as the messages that follow the assistant turn.

    Gemini answers by function name: ``tool_calls`` gives the names; without them the call id
    stands in, as in the reference. ValueError for an unknown format.
    """
    fmt = _format(api_format)
    names = {tc.id: tc.name for tc in tool_calls or []}
    out: List[Dict[str, Any]] = []
    for call_id, result in tool_responses.items():
        text = result if isinstance(result, str) else str(result)
        if fmt == "openai-chat":
            out.append({"role": "tool", "tool_call_id": call_id, "content": text})
        elif fmt == "openai-responses":
            out.append({"type": "function_call_output", "call_id": call_id, "output": text})
        elif fmt == "anthropic":
            out.append({"type": "tool_result", "tool_use_id": call_id, "content": text})
        else:
            name = names.get(call_id, call_id)
            out.append({"functionResponse": {"name": name, "response": {"output": text}, "id": call_id}})
    if fmt == "anthropic":
        return [{"role": "user", "content": out}]
    if fmt == "gemini":
        return [{"role": "user", "parts": out}]
    return out
