"""LangChain 1.x (``langchain`` 1.x, ``langchain-core``, ``langgraph``): a middleware for
``create_agent`` that gives each model call the registry's tools and a search tool.

::

    from langchain.agents import create_agent
    from toolregistry_rs.integrations.langchain import ToolSearchMiddleware

    agent = create_agent(model, middleware=[ToolSearchMiddleware(registry, top_k=5)])
    agent.invoke({"messages": [{"role": "user", "content": "How much is 100 USD in EUR?"}]})

Each model call (``wrap_model_call``) is sent the agent's own tools, the registry's non-deferred
tools, ``search_tools`` and the deferred tools found so far. ``search_tools`` is answered by the
registry's discover; the names it finds are kept in the agent state (``found_tools``, a list that
only grows), so they join the next model call and survive a checkpointer. Calls of registry tools
(``wrap_tool_call``) run through ``Registry.execute`` / ``aexecute``, a deferred tool called by
name without a search included (as ``call_deferred`` allows); a bad call is a ``ToolMessage``
with ``status="error"`` and the registry's message, never an exception.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Union

try:
    from langchain.agents.middleware import AgentMiddleware, AgentState, ModelRequest, ModelResponse
    from langchain_core.messages import ToolMessage
    from langchain_core.tools import BaseTool, StructuredTool
    from langgraph.types import Command
    from typing_extensions import Annotated, NotRequired
except ImportError as e:  # the framework is the wheel's extra of the same name
    raise ImportError(f"{__name__} needs langchain: pip install 'toolregistry_rs[langchain]' ({e})") from e

from .._registry import Registry
from ._core import SEARCH_DESCRIPTION, SEARCH_PARAMETERS, SEARCH_TOOL, Engine, ToolSpec, is_error

__all__ = ["ToolSearchMiddleware", "ToolSearchState"]


def _grow(old: Optional[List[str]], new: Optional[List[str]]) -> List[str]:
    """``found_tools``' reducer: the old names, then the new ones not among them."""
    out = list(old or [])
    out.extend(n for n in new or [] if n not in out)
    return out


class ToolSearchState(AgentState[Any]):
    """The agent state with the deferred tools the searches found, in the order found."""

    found_tools: Annotated[NotRequired[List[str]], _grow]


def _unused(**_: Any) -> str:  # the middleware runs the calls; a tool object only describes one
    raise RuntimeError("toolregistry_rs: this tool runs through ToolSearchMiddleware.wrap_tool_call")


class ToolSearchMiddleware(AgentMiddleware[ToolSearchState, Any, Any]):
    """The registry's tools for ``create_agent``, deferred ones found by ``search_tools``."""

    state_schema = ToolSearchState

    def __init__(self, registry: Registry, top_k: int = 5) -> None:
        super().__init__()
        self.engine = Engine(registry, top_k)
        self.tools: Sequence[BaseTool] = []  # built per model call, from the registry as it is then
        self._search = StructuredTool(
            name=SEARCH_TOOL, description=SEARCH_DESCRIPTION, args_schema=SEARCH_PARAMETERS, func=_unused
        )

    @staticmethod
    def _tool(spec: ToolSpec) -> BaseTool:
        # The registry's cleaned JSON Schema as the args schema: bind_tools sends it as it is.
        return StructuredTool(name=spec.name, description=spec.description, args_schema=spec.parameters, func=_unused)

    def tools_for(self, found: Sequence[str]) -> List[BaseTool]:
        """The tools a model call is sent besides the agent's own: the non-deferred ones,
        ``search_tools``, then the ``found`` deferred ones (in the order found)."""
        specs = self.engine.specs()
        core = [self._tool(s) for s in specs if not s.deferred]
        deferred = {s.name: s for s in specs if s.deferred}
        return core + [self._search] + [self._tool(deferred[n]) for n in found if n in deferred]

    def _request(self, request: ModelRequest) -> ModelRequest:
        found = (request.state or {}).get("found_tools") or []
        ours = self.tools_for(found)
        names = {t.name for t in ours}
        kept = [t for t in request.tools if (t.get("name") if isinstance(t, dict) else t.name) not in names]
        return request.override(tools=kept + ours)

    def wrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse:
        return handler(self._request(request))

    async def awrap_model_call(
        self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
    ) -> ModelResponse:
        return await handler(self._request(request))

    def _search_result(self, call: Dict[str, Any]) -> Command[Any]:
        text, names = self.engine.search_answer((call.get("args") or {}).get("query"))
        deferred = set(self.engine.deferred_names())
        message = ToolMessage(
            content=text, tool_call_id=call["id"], name=SEARCH_TOOL, status="error" if is_error(text) else "success"
        )
        return Command(update={"found_tools": [n for n in names if n in deferred], "messages": [message]})

    @staticmethod
    def _message(call: Dict[str, Any], text: str) -> ToolMessage:
        return ToolMessage(
            content=text, tool_call_id=call["id"], name=call["name"], status="error" if is_error(text) else "success"
        )

    def wrap_tool_call(
        self, request: Any, handler: Callable[[Any], Union[ToolMessage, Command[Any]]]
    ) -> Union[ToolMessage, Command[Any]]:
        call = request.tool_call
        if call["name"] == SEARCH_TOOL:
            return self._search_result(call)
        if not self.engine.is_tool(call["name"]) or (request.tool is not None and request.tool.func is not _unused):
            return handler(request)
        return self._message(call, self.engine.run(call["name"], call.get("args") or {}, call["id"]))

    async def awrap_tool_call(
        self, request: Any, handler: Callable[[Any], Awaitable[Union[ToolMessage, Command[Any]]]]
    ) -> Union[ToolMessage, Command[Any]]:
        call = request.tool_call
        if call["name"] == SEARCH_TOOL:
            return self._search_result(call)
        if not self.engine.is_tool(call["name"]) or (request.tool is not None and request.tool.func is not _unused):
            return await handler(request)
        return self._message(call, await self.engine.arun(call["name"], call.get("args") or {}, call["id"]))
