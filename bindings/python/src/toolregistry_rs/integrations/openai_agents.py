"""The OpenAI Agents SDK (``openai-agents`` 0.x): the registry's tools as ``FunctionTool`` s and a
model wrapper that chooses each turn's tools.

::

    from agents import Agent, Runner
    from toolregistry_rs.integrations.openai_agents import RegistryTools

    tools = RegistryTools(registry, top_k=5)          # one per conversation: it keeps what was found
    agent = Agent(name="assistant", model=tools.model(model), tools=tools.tools())
    result = await Runner.run(agent, "How much is 100 USD in EUR?")

``tools()`` is ``search_tools`` plus every enabled registry tool, so the SDK can run any call
(a deferred tool called by name without a search included, as ``call_deferred`` allows).
``model(inner)`` wraps the agent's model: each turn it sends the inner model the agent's other
tools, the registry's non-deferred ones, ``search_tools`` and the deferred tools found so far, in
the SDK's order. The SDK's own per-turn switch, ``is_enabled``, cannot do this: a tool it leaves
out of a turn is also one the SDK cannot run that turn (``Tool ... not found in agent``). Calls
run through ``Registry.aexecute``; a bad call answers the registry's error text, which the model
reads as the tool's output, never an exception out of ``Runner.run``.
"""

from __future__ import annotations

from typing import Any, AsyncIterator, Iterable, List, Optional

try:
    from agents import FunctionTool
    from agents.models.interface import Model
    from agents.tool_context import ToolContext
except ImportError as e:  # the framework is the wheel's extra of the same name
    raise ImportError(f"{__name__} needs openai-agents: pip install 'toolregistry_rs[openai-agents]' ({e})") from e

from .._registry import Registry
from ._core import SEARCH_DESCRIPTION, SEARCH_PARAMETERS, SEARCH_TOOL, Engine, ToolSpec

__all__ = ["RegistryModel", "RegistryTools"]


class RegistryTools:
    """The registry's tools for one conversation; ``found`` lists the deferred tools its searches
    found, in order (``found=`` restores a saved list)."""

    def __init__(self, registry: Registry, top_k: int = 5, *, found: Optional[Iterable[str]] = None) -> None:
        self.engine = Engine(registry, top_k)
        self.found: List[str] = list(found or [])

    def _tool(self, spec: ToolSpec) -> FunctionTool:
        async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
            return await self.engine.arun(spec.name, arguments, getattr(ctx, "tool_call_id", None))

        # strict_json_schema=False: the schema goes out as the registry renders it.
        return FunctionTool(
            name=spec.name,
            description=spec.description,
            params_json_schema=spec.parameters,
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    def _search_tool(self) -> FunctionTool:
        async def invoke(ctx: ToolContext[Any], arguments: str) -> str:
            import json

            try:
                query = json.loads(arguments or "{}").get("query")
            except (ValueError, AttributeError):
                query = None
            text, names = self.engine.search_answer(query)
            deferred = set(self.engine.deferred_names())
            self.found.extend(n for n in names if n in deferred and n not in self.found)
            return text

        return FunctionTool(
            name=SEARCH_TOOL,
            description=SEARCH_DESCRIPTION,
            params_json_schema=SEARCH_PARAMETERS,
            on_invoke_tool=invoke,
            strict_json_schema=False,
        )

    def tools(self) -> List[FunctionTool]:
        """``search_tools`` and every enabled registry tool, for ``Agent(tools=...)``."""
        return [self._search_tool()] + [self._tool(s) for s in self.engine.specs()]

    def visible(self) -> List[str]:
        """The registry tools the next turn shows: the non-deferred ones, then the found ones."""
        specs = self.engine.specs()
        deferred = {s.name for s in specs if s.deferred}
        return [s.name for s in specs if not s.deferred] + [n for n in self.found if n in deferred]

    def model(self, model: Model) -> "RegistryModel":
        """``model`` sent only the tools :meth:`visible` names (plus the agent's other tools)."""
        return RegistryModel(model, self)


class RegistryModel(Model):
    """A model that hides the deferred registry tools not found yet, then calls ``inner``."""

    def __init__(self, inner: Model, tools: RegistryTools) -> None:
        self.inner = inner
        self.registry_tools = tools

    def _tools(self, tools: List[Any]) -> List[Any]:
        ours = {s.name for s in self.registry_tools.engine.specs()}
        shown = set(self.registry_tools.visible())
        return [t for t in tools if getattr(t, "name", None) not in ours or t.name in shown]

    async def get_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: List[Any],
                           output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any) -> Any:
        return await self.inner.get_response(
            system_instructions, input, model_settings, self._tools(tools), output_schema, handoffs, tracing, **kwargs
        )

    def stream_response(self, system_instructions: Any, input: Any, model_settings: Any, tools: List[Any],
                        output_schema: Any, handoffs: Any, tracing: Any, **kwargs: Any) -> AsyncIterator[Any]:
        return self.inner.stream_response(
            system_instructions, input, model_settings, self._tools(tools), output_schema, handoffs, tracing, **kwargs
        )

    def __getattr__(self, name: str) -> Any:  # the inner model's other methods (close, retry advice, ...)
        return getattr(self.inner, name)
