"""Google ADK (``google-adk`` 2.x): the registry as a ``BaseToolset`` that ADK asks for its tools
on every model request.

::

    from google.adk.agents import LlmAgent
    from toolregistry_rs.integrations.google_adk import RegistryToolset

    agent = LlmAgent(name="assistant", model="gemini-2.5-flash", tools=[RegistryToolset(registry, top_k=5)])

Each request gets the registry's non-deferred tools, ``search_tools`` and the deferred tools
found so far, declared with the registry's Gemini schemas (``api_format="gemini"``). The names a
search finds are kept in the session state (``toolregistry_found``), so they join the next
request and outlast the invocation. A deferred tool not found yet is still callable by name (ADK
resolves a call against the request's ``tools_dict``, where it is registered without being
declared), as ``call_deferred`` allows. Calls run through ``Registry.aexecute``; a bad call
answers ``{"error": MESSAGE}`` with the registry's message, never an exception.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

try:
    from google.adk.agents.readonly_context import ReadonlyContext
    from google.adk.models.llm_request import LlmRequest
    from google.adk.tools.base_tool import BaseTool
    from google.adk.tools.base_toolset import BaseToolset
    from google.adk.tools.tool_context import ToolContext
    from google.genai import types
except ImportError as e:  # the framework is the wheel's extra of the same name
    raise ImportError(f"{__name__} needs google-adk: pip install 'toolregistry_rs[google-adk]' ({e})") from e

from .._registry import Registry
from ._core import SEARCH_DESCRIPTION, SEARCH_PARAMETERS, SEARCH_TOOL, Engine, ToolSpec, is_error

__all__ = ["FOUND_STATE_KEY", "RegistryToolset"]

#: The session state key of the deferred tools the searches found (a list of names, in order).
FOUND_STATE_KEY = "toolregistry_found"


def _found(state: Any) -> List[str]:
    value = state.get(FOUND_STATE_KEY) if state is not None else None
    return list(value) if isinstance(value, list) else []


class _RegistryTool(BaseTool):
    """One registry tool; a deferred one not found yet is callable but not declared."""

    def __init__(self, engine: Engine, spec: ToolSpec, gemini: Dict[str, Any]) -> None:
        super().__init__(name=spec.name, description=spec.description)
        self._engine = engine
        self._spec = spec
        self._gemini = gemini

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters=self._gemini.get("parameters")
        )

    async def process_llm_request(self, *, tool_context: ToolContext, llm_request: LlmRequest) -> None:
        if self._spec.deferred and self.name not in _found(tool_context.state):
            llm_request.tools_dict[self.name] = self
            return
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)

    async def run_async(self, *, args: Dict[str, Any], tool_context: ToolContext) -> Any:
        text = await self._engine.arun(self.name, args, tool_context.function_call_id)
        return {"error": text} if is_error(text) else {"result": text}


class _SearchTool(BaseTool):
    def __init__(self, engine: Engine) -> None:
        super().__init__(name=SEARCH_TOOL, description=SEARCH_DESCRIPTION)
        self._engine = engine

    def _get_declaration(self) -> Optional[types.FunctionDeclaration]:
        return types.FunctionDeclaration(
            name=self.name, description=self.description, parameters_json_schema=SEARCH_PARAMETERS
        )

    async def run_async(self, *, args: Dict[str, Any], tool_context: ToolContext) -> Any:
        text, names = self._engine.search_answer((args or {}).get("query"))
        if is_error(text):
            return {"error": text}
        deferred = set(self._engine.deferred_names())
        found = _found(tool_context.state)
        found += [n for n in names if n in deferred and n not in found]
        tool_context.state[FOUND_STATE_KEY] = found
        return {"result": text}


class RegistryToolset(BaseToolset):
    """``search_tools`` and every enabled registry tool, read from the registry at each request."""

    def __init__(self, registry: Registry, top_k: int = 5, **options: Any) -> None:
        super().__init__(**options)
        self.engine = Engine(registry, top_k)

    async def get_tools(self, readonly_context: Optional[ReadonlyContext] = None) -> List[BaseTool]:
        specs = self.engine.specs()
        gemini = {s["name"]: s for s in self.engine.registry.get_schemas(api_format="gemini", names=[x.name for x in specs])} if specs else {}
        tools: List[BaseTool] = [_SearchTool(self.engine)]
        tools += [_RegistryTool(self.engine, s, gemini[s.name]) for s in specs]
        return [t for t in tools if self._is_tool_selected(t, readonly_context)]
