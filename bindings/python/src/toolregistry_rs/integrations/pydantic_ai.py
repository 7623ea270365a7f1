"""pydantic-ai (``pydantic-ai-slim`` 2.x): the registry's tools as a toolset, its deferred tools
found by pydantic-ai's tool search with this engine as the strategy.

::

    from pydantic_ai import Agent
    from toolregistry_rs.integrations.pydantic_ai import RegistryToolset

    tools = RegistryToolset(registry, top_k=5)
    agent = Agent(model, toolsets=[tools], capabilities=[tools.tool_search()])

``RegistryToolset`` lists every enabled registry tool with the registry's schema; the deferred
ones carry ``defer_loading=True``, so pydantic-ai keeps them from the model until revealed.
``tool_search()`` is pydantic-ai's ``ToolSearch`` capability with :meth:`RegistryToolset.search`
(the registry's discover) as its strategy: the model's ``search_tools`` call is answered by this
engine (also on the providers' client-executed native search), and what it finds joins the next
model call. pydantic-ai refuses a call of a deferred tool the model was never shown; the
capability reveals a deferred registry tool the model calls by name (recorded in the run's
history as a ``ToolAvailabilityDeltaPart``, pydantic-ai's record of a reveal), so the call runs,
as ``call_deferred`` lets it in a plain tool loop. Every call goes through
``Registry.aexecute``; a bad call is the registry's error result, returned to the model as the
tool's answer (never a ``ModelRetry`` that could end the run).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

try:
    from pydantic_ai import RunContext
    from pydantic_ai.capabilities import ToolSearch
    from pydantic_ai.messages import ModelRequest, ModelResponse, ToolAvailabilityDeltaPart, ToolCallPart
    from pydantic_ai.tools import ToolDefinition
    from pydantic_ai.toolsets import AbstractToolset
    from pydantic_ai.toolsets.abstract import ToolsetTool
    from pydantic_core import SchemaValidator, core_schema
except ImportError as e:  # the framework is the wheel's extra of the same name
    raise ImportError(f"{__name__} needs pydantic-ai: pip install 'toolregistry_rs[pydantic-ai]' ({e})") from e

from .._registry import Registry
from ._core import Engine

__all__ = ["RegistryToolSearch", "RegistryToolset"]

#: Arguments pass as they are: the registry checks them against the schema and answers a bad one
#: as an error result the model reads.
_ANY_ARGS = SchemaValidator(schema=core_schema.any_schema())


class RegistryToolset(AbstractToolset[Any]):
    """The registry's enabled tools (without its ``discover_tools`` / ``call_deferred``
    built-ins), deferred ones with ``defer_loading=True``; calls run through ``Registry.aexecute``.

    ``top_k`` caps the hits of a search. The toolset follows every change to the registry (tools
    are read at each run step).
    """

    def __init__(self, registry: Registry, top_k: int = 5, *, id: Optional[str] = None, max_retries: int = 1) -> None:
        self.engine = Engine(registry, top_k)
        self._id = id
        self._max_retries = max_retries

    @property
    def id(self) -> Optional[str]:
        return self._id

    @property
    def label(self) -> str:
        return "RegistryToolset"

    async def get_tools(self, ctx: RunContext[Any]) -> Dict[str, ToolsetTool[Any]]:
        tools: Dict[str, ToolsetTool[Any]] = {}
        for spec in self.engine.specs():
            tool_def = ToolDefinition(
                name=spec.name,
                description=spec.description,
                parameters_json_schema=spec.parameters,
                defer_loading=spec.deferred,
            )
            tools[spec.name] = ToolsetTool(
                toolset=self, tool_def=tool_def, max_retries=self._max_retries, args_validator=_ANY_ARGS
            )
        return tools

    async def call_tool(self, name: str, tool_args: Dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]) -> Any:
        return await self.engine.arun(name, tool_args, ctx.tool_call_id)

    async def search(self, ctx: RunContext[Any], queries: Sequence[str], tools: Sequence[ToolDefinition]) -> List[str]:
        """The tool-search strategy: the registry's discover for each query, best first, kept to
        the tools pydantic-ai searches (``tools``: the deferred ones) and to ``top_k``."""
        corpus = {t.name for t in tools}
        names: List[str] = []
        for query in queries:
            if not query.strip():
                continue
            for hit in self.engine.search(query):
                if hit["name"] in corpus and hit["name"] not in names:
                    names.append(hit["name"])
        return names[: self.engine.top_k]

    def tool_search(self, **options: Any) -> "RegistryToolSearch":
        """pydantic-ai's ``ToolSearch`` capability with :meth:`search` as its strategy (``options``:
        its other fields, e.g. ``tool_description``)."""
        options.setdefault("max_results", self.engine.top_k)
        return RegistryToolSearch(strategy=self.search, toolset=self, **options)


@dataclass
class RegistryToolSearch(ToolSearch[Any]):
    """``ToolSearch`` that also lets the model call a deferred registry tool by name unsearched."""

    toolset: Optional[RegistryToolset] = field(default=None, kw_only=True)

    async def after_model_request(
        self, ctx: RunContext[Any], *, request_context: Any, response: ModelResponse
    ) -> ModelResponse:
        response = await super().after_model_request(ctx, request_context=request_context, response=response)
        if self.toolset is None:
            return response
        called = [p for p in response.parts if isinstance(p, ToolCallPart)]
        if not called:
            return response
        deferred = set(self.toolset.engine.deferred_names())
        shown = set(ctx.discovered_tool_names)
        reveal = [p for p in called if p.tool_name in deferred and p.tool_name not in shown]
        # The request this response answers is the last one in the run's history: the reveal goes
        # there, where pydantic-ai reads reveals from before it runs the calls.
        last = next((m for m in reversed(ctx.messages) if isinstance(m, ModelRequest)), None)
        if reveal and last is not None:
            for p in reveal:
                last.parts = [*last.parts, ToolAvailabilityDeltaPart(tools_added=[p.tool_name], tool_call_id=p.tool_call_id)]
        return response
