"""What every framework adapter shares, with no framework imported: the registry's tools as plain
specs, the search tool's answers, and one call run through the registry.

A framework module turns a :class:`ToolSpec` into its own tool type and calls :meth:`Engine.run` /
:meth:`Engine.arun` for a call; the answer is the text the model reads (an error result starts
with ``Error:``), as ``Registry.execute`` gives it for an OpenAI chat tool call.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .._registry import Registry

#: The registry's own built-ins: the adapters give the model their search tool instead, and run
#: deferred tools directly by name (what ``call_deferred`` is for in a plain tool loop).
BUILTINS = frozenset({"discover_tools", "call_deferred"})

#: The name of the search tool every adapter but pydantic-ai's (which has its own) gives the model.
SEARCH_TOOL = "search_tools"

SEARCH_DESCRIPTION = (
    "Search the tool catalog for tools that are not loaded yet, by what you want to do "
    "(for example 'convert currency'). The tools found can be called from the next step on."
)

SEARCH_PARAMETERS: Dict[str, Any] = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "description": "What the tool should do, in a few words."},
    },
    "required": ["query"],
}


@dataclass(frozen=True)
class ToolSpec:
    """One registry tool as the model sees it: the registry's own schema, in OpenAI chat form."""

    name: str
    description: str
    #: The JSON Schema of the arguments, as the registry cleans it for providers.
    parameters: Dict[str, Any]
    deferred: bool
    #: The whole OpenAI chat tool (``{"type": "function", "function": {...}}``).
    schema: Dict[str, Any]


class Engine:
    """The registry and one discoverer with the registry's ranking (``hybrid`` when it has an
    embedder; the query's needs searched apart, unless the registry's discovery turned that off)."""

    def __init__(self, registry: Registry, top_k: int = 5) -> None:
        if not isinstance(registry, Registry):
            raise TypeError(f"registry must be a toolregistry_rs.Registry, not {type(registry).__name__}")
        if type(top_k) is not int or top_k < 1:
            raise ValueError(f"top_k must be an int of at least 1, not {top_k!r}")
        self.registry = registry
        self.top_k = top_k
        self._discoverer: Optional[Any] = None
        self._lock = threading.Lock()
        self._ids = itertools.count(1)

    # -- tools --

    def specs(self, names: Optional[Iterable[str]] = None) -> List[ToolSpec]:
        """The enabled tools (``names``: exactly those, in that order), sorted by name, without the
        registry's built-ins."""
        deferred = {s["function"]["name"] for s in self.registry.get_schemas(include_deferred=True)} - {
            s["function"]["name"] for s in self.registry.get_schemas(include_deferred=False)
        }
        if names is None:
            schemas = self.registry.get_schemas(include_deferred=True)
        else:
            wanted = [n for n in names if n not in BUILTINS]
            schemas = self.registry.get_schemas(names=wanted) if wanted else []
        out = []
        for s in schemas:
            f = s["function"]
            if f["name"] in BUILTINS:
                continue
            params = f.get("parameters") or {"type": "object", "properties": {}}
            out.append(ToolSpec(f["name"], f.get("description", ""), params, f["name"] in deferred, s))
        return out

    def is_tool(self, name: str) -> bool:
        """Whether ``name`` is a registered tool (disabled ones too: their call answers why)."""
        if not isinstance(name, str) or name in BUILTINS:
            return False
        try:
            self.registry.get_schemas(names=[name])
        except Exception:
            return False
        return True

    def deferred_names(self) -> List[str]:
        """The enabled deferred tools."""
        return [s.name for s in self.specs() if s.deferred]

    # -- search --

    def _searcher(self) -> Any:
        with self._lock:
            if self._discoverer is None:
                self._discoverer = self.registry.discoverer()
            return self._discoverer

    def search(self, query: str) -> List[Dict[str, Any]]:
        """The registry's best ``top_k`` enabled tools for ``query``: ``[{"name", "description"}]``,
        plus ``intent`` when the query held several needs. The built-ins are never among them."""
        hits = self._searcher().discover(query, top_k=self.top_k + len(BUILTINS))
        out = []
        for h in hits:
            if h["name"] in BUILTINS:
                continue
            hit = {"name": h["name"], "description": h.get("description", "")}
            if h.get("intent"):
                hit["intent"] = h["intent"]
            out.append(hit)
        return out[: self.top_k]

    def search_answer(self, query: Any) -> Tuple[str, List[str]]:
        """What the search tool answers for ``query`` (JSON text the model reads) and the names
        found. A query that is not a non-empty string is an error result, not an exception."""
        if not isinstance(query, str) or not query.strip():
            return "Error: search_tools needs a non-empty query string", []
        try:
            hits = self.search(query)
        except Exception as e:  # a query the library refuses (too large, NUL): the model reads why
            return f"Error: {e}", []
        if not hits:
            return json.dumps({"tools": [], "message": "No matching tools found."}), []
        return json.dumps({"tools": hits}), [h["name"] for h in hits]

    # -- calls --

    def _batch(self, name: str, arguments: Any, call_id: Optional[str]) -> List[Dict[str, Any]]:
        text = arguments if isinstance(arguments, str) else json.dumps({} if arguments is None else arguments)
        cid = call_id or f"call_{next(self._ids)}"
        return [{"id": cid, "type": "function", "function": {"name": name, "arguments": text}}]

    def run(self, name: str, arguments: Any, call_id: Optional[str] = None) -> str:
        """Runs one call through ``Registry.execute``; the text the model reads."""
        if name in BUILTINS:
            return f"Error: tool {name!r} is not offered here"
        try:
            messages = self.registry.execute(self._batch(name, arguments, call_id), api_format="openai-chat")
        except Exception as e:  # arguments that are no JSON: the model reads why
            return f"Error: {e}"
        return str(messages[0]["content"])

    async def arun(self, name: str, arguments: Any, call_id: Optional[str] = None) -> str:
        """:meth:`run` through ``Registry.aexecute`` (``async def`` host functions awaited on this loop)."""
        if name in BUILTINS:
            return f"Error: tool {name!r} is not offered here"
        try:
            messages = await self.registry.aexecute(self._batch(name, arguments, call_id), api_format="openai-chat")
        except Exception as e:
            return f"Error: {e}"
        return str(messages[0]["content"])


def is_error(text: str) -> bool:
    """Whether a call's answer is the registry's error result."""
    return text.startswith("Error:")


def found_names(hits_text: str) -> List[str]:
    """The names in a search tool answer (the JSON of :meth:`Engine.search_answer`)."""
    try:
        doc = json.loads(hits_text)
    except (TypeError, ValueError):
        return []
    tools = doc.get("tools") if isinstance(doc, Mapping) else None
    return [t["name"] for t in tools or [] if isinstance(t, Mapping) and isinstance(t.get("name"), str)]
