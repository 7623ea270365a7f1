"""The Python reference ``toolregistry``'s discovery API, on the toolregistry-rs engine.

For code written against ``toolregistry`` 0.19.0, the switch is three lines::

    # from toolregistry import ToolRegistry, ToolMetadata
    # from toolregistry.llm.discovery import ToolDiscoveryTool
    from toolregistry_rs.compat import ToolRegistry, ToolMetadata, ToolDiscoveryTool

Same calls, same answers: ``ToolDiscoveryTool.discover`` returns the reference's list of dicts
(``name``, ``description``, ``score``, ``namespace``, ``deferred``, and ``schema`` for an exact-name
match and for deferred tools), with the reference's ranking reproduced to 1e-9 (the golden vectors
are replayed through this module). The engine runs with ``profile="reference"`` pinned, whatever
the library's default profile is.

Covered: ``ToolRegistry`` (alias ``Registry``) with ``register`` (a Python function, whose name,
docstring and type hints become the tool's name, description and JSON Schema as in
``Tool.from_function``; or a ``Tool``, ours or the reference's), ``unregister``, ``enable``,
``disable``, ``is_enabled``, ``update_tool_metadata`` (``defer``, ``tags``, ``custom_tags``,
``search_hint``), ``get_tool``, ``list_tools``, ``enable_tool_discovery``,
``disable_tool_discovery``, ``get_schemas(tool_name=None, *, api_format, tags, exclude_tags, sort,
include_deferred)``, ``get_deferred_summaries``; ``Tool`` (with ``from_function``),
``ToolMetadata`` (``defer``, ``tags``, ``custom_tags``, ``search_hint``), ``ToolTag``;
``ToolDiscoveryTool(registry, field_weights, min_score_ratio, max_df_ratio)`` with ``discover`` and
``rebuild_index``.

Tools registered with a callable get it as their host function in the engine, so
``registry.native.execute(assistant_message)`` runs the model's tool calls through them
(``call_deferred`` included); the reference's own execution API is not reproduced.

Not covered (see bindings/python/README.md): the reference's execution API (``invoke``,
``execute_tool_calls``, async tools, execution backends), MCP / OpenAPI / LangChain / class
registration, ``merge``/``spinoff`` and other namespace surgery, permissions, change callbacks,
logging, the admin server, think-augment, output schemas, and ``ToolMetadata``'s execution hints
(accepted nowhere; ``extra`` is kept but not used). The schemas of ``discover_tools`` and
``call_deferred`` in ``get_schemas`` are the engine's (its description lists the deferred tools).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import warnings
from enum import Enum
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Union

from ._errors import Status, ToolRegistryError
from ._registry import Discoverer, Registry as NativeRegistry
from ._schema import parameters_schema

__all__ = [
    "Registry",
    "Tool",
    "ToolDiscoveryTool",
    "ToolMetadata",
    "ToolRegistry",
    "ToolTag",
    "DEFAULT_MAX_DF_RATIO",
    "DEFAULT_MIN_SCORE_RATIO",
    "TOOL_DISCOVERY_NAME",
]

DEFAULT_MIN_SCORE_RATIO = 0.3
DEFAULT_MAX_DF_RATIO = 0.5
TOOL_DISCOVERY_NAME = "discover_tools"
_FIELDS = ("name", "description", "tags", "params", "search_hint")


class ToolTag(str, Enum):
    """The reference's predefined tags; equal to their string values."""

    READ_ONLY = "read_only"
    DESTRUCTIVE = "destructive"
    NETWORK = "network"
    FILE_SYSTEM = "file_system"
    SLOW = "slow"
    PRIVILEGED = "privileged"


@dataclasses.dataclass(frozen=True)
class ToolMetadata:
    """The discovery part of the reference's ``ToolMetadata``.

    ``defer`` keeps the tool out of the initial schemas (the model finds it through
    ``discover_tools``); ``tags`` (predefined :class:`ToolTag` values) and ``custom_tags`` (any
    strings) are searched as one bag of words; ``search_hint`` is extra search text, also the
    tool's line in :meth:`ToolRegistry.get_deferred_summaries`.
    """

    defer: bool = False
    tags: Set[Union[ToolTag, str]] = dataclasses.field(default_factory=set)
    custom_tags: Set[str] = dataclasses.field(default_factory=set)
    search_hint: str = ""
    extra: Dict[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def all_tags(self) -> Set[str]:
        """Predefined and custom tags together, as strings."""
        return {t.value if isinstance(t, Enum) else str(t) for t in self.tags} | set(self.custom_tags)


@dataclasses.dataclass(frozen=True)
class Tool:
    """A tool: name, description, JSON Schema parameters, the callable, metadata and namespace.

    ``name`` is the registered name (``namespace-method_name`` with a namespace).
    """

    name: str
    description: str
    parameters: Dict[str, Any]
    callable: Optional[Callable[..., Any]] = None
    metadata: ToolMetadata = dataclasses.field(default_factory=ToolMetadata)
    namespace: Optional[str] = None
    method_name: Optional[str] = None

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        name: Optional[str] = None,
        description: Optional[str] = None,
        namespace: Optional[str] = None,
        method_name: Optional[str] = None,
        metadata: Optional[ToolMetadata] = None,
    ) -> "Tool":
        """A tool from a Python function, as the reference's ``Tool.from_function`` builds it.

        The name is the function's (or ``name``) in snake_case, the description its docstring
        as written (or ``description``), the parameters the JSON Schema of its signature and
        type hints (see ``toolregistry_rs._schema``). A lambda needs a ``name``.
        """
        func_name = name or getattr(func, "__name__", "<unknown>")
        if func_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        func_name = normalize_tool_name(str(func_name))
        tool = cls(
            name=func_name,
            description=description or func.__doc__ or "",
            parameters=parameters_schema(func),
            callable=func,
            metadata=metadata or ToolMetadata(),
            method_name=method_name or func_name,
        )
        return tool.with_namespace(namespace) if namespace else tool

    def with_namespace(self, namespace: Optional[str]) -> "Tool":
        """A copy registered under ``namespace`` (``namespace-method_name``); None drops it."""
        method = self.method_name or self.name
        if not namespace:
            return dataclasses.replace(self, name=method, namespace=None, method_name=method)
        ns = normalize_tool_name(namespace)
        return dataclasses.replace(self, name=f"{ns}-{method}", namespace=ns, method_name=method)


def normalize_tool_name(name: str) -> str:
    """The reference's name normalization: snake_case, no dots, dashes, ``@`` or spaces."""
    match = re.match(r"^([a-zA-Z0-9]+)_\1_([a-zA-Z0-9]+)$", name)
    if match:
        return f"{match.group(1)}_{match.group(2)}"
    name = re.sub(r"[.\-@]+", "_", name)
    name = re.sub(r"\s+", " ", name).strip().replace(" ", "_")
    name = re.sub(r"(?<!^)(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return re.sub(r"_+", "_", name)


def _as_tool(target: Any, description: Optional[str], name: Optional[str]) -> Tool:
    """Our Tool from a function, our Tool, or anything shaped like the reference's Tool."""
    if isinstance(target, Tool):
        return target
    if all(
        hasattr(target, a) for a in ("name", "description", "parameters", "metadata")
    ) and not inspect.isroutine(target):
        meta = target.metadata
        return Tool(
            name=target.name,
            description=target.description or "",
            parameters=dict(target.parameters or {}),
            callable=getattr(target, "callable", None),
            metadata=ToolMetadata(
                defer=bool(getattr(meta, "defer", False)),
                tags=set(getattr(meta, "tags", set()) or set()),
                custom_tags=set(getattr(meta, "custom_tags", set()) or set()),
                search_hint=getattr(meta, "search_hint", "") or "",
            ),
            namespace=getattr(target, "namespace", None),
            method_name=getattr(target, "method_name", None),
        )
    if callable(target):
        return Tool.from_function(target, name=name, description=description)
    raise TypeError(f"cannot register {type(target).__name__}: pass a function or a Tool")


def _engine_tool(tool: Tool) -> Dict[str, Any]:
    """The registration JSON of a tool: the registered name, without namespace splitting.

    The namespace is sent as the tool's namespace and the name as its method name, so the engine
    registers ``namespace-method`` like the reference.
    """
    params = tool.parameters if isinstance(tool.parameters, dict) else {}
    if params.get("type") != "object":
        params = {"type": "object", "properties": {}}
    doc: Dict[str, Any] = {"description": tool.description or "", "parameters": params}
    if tool.namespace:
        prefix = f"{tool.namespace}-"
        doc["name"] = tool.name[len(prefix) :] if tool.name.startswith(prefix) else tool.name
        doc["namespace"] = tool.namespace
    else:
        doc["name"] = tool.name
    meta = tool.metadata
    doc["metadata"] = {
        "defer": bool(meta.defer),
        "tags": sorted(meta.all_tags),
        "search_hint": meta.search_hint or "",
    }
    return doc


def _first_sentence(text: str) -> str:
    """The reference's summary rule: the first line, cut after the first ``". "``."""
    line = text.split("\n")[0].strip()
    dot = line.find(". ")
    return line[: dot + 1] if dot != -1 else line


class ToolRegistry:
    """The reference's ``ToolRegistry``, for registration and discovery, on the native engine.

    Tools are kept both here (the Python objects, for ``get_tool`` and the callables) and in the
    engine (the source of truth for schemas, summaries and search). ``close()`` (or ``with``)
    frees the engine; :attr:`native` is the underlying :class:`toolregistry_rs.Registry`.
    """

    def __init__(self) -> None:
        self.native = NativeRegistry()
        self._tools: Dict[str, Tool] = {}
        self._disabled: Dict[str, str] = {}
        self._tool_discovery: Optional[ToolDiscoveryTool] = None

    def close(self) -> None:
        """Frees the engine (and the discovery tool's discoverer)."""
        if self._tool_discovery is not None:
            self._tool_discovery.close()
        self.native.close()

    def __enter__(self) -> "ToolRegistry":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    # -- registration --

    def register(
        self,
        target: Any,
        description: Optional[str] = None,
        name: Optional[str] = None,
        *,
        namespace: Optional[str] = None,
        metadata: Optional[ToolMetadata] = None,
        allow_replace: bool = False,
    ) -> Any:
        """Registers a Python function or a ``Tool`` and returns ``target``.

        A function becomes a tool as with ``Tool.from_function`` (``name`` and ``description``
        override). ``namespace`` registers it as ``namespace-name``. ``metadata`` (an extension:
        the reference takes it through ``Tool.from_function``) sets ``defer``, tags and
        ``search_hint``. Replacing a registered name warns unless ``allow_replace``.
        """
        if namespace is True:  # type: ignore[comparison-overlap]  # the reference's namespace=True
            raise ValueError(
                "namespace=True is not supported for native function registration; pass a string namespace instead."
            )
        tool = _as_tool(target, description, name)
        if metadata is not None:
            tool = dataclasses.replace(tool, metadata=metadata)
        if namespace:
            tool = tool.with_namespace(namespace)
        existing = self._tools.get(tool.name)
        if tool.callable is not None:
            # The engine runs it for tool calls (``native.execute``), as fn(**arguments).
            self.native.register_function(_engine_tool(tool), tool.callable)
        else:
            self.native.register(_engine_tool(tool))
        self._tools[tool.name] = tool
        if not self.is_enabled(tool.name):
            self._sync_enabled(tool.name)
        if existing is not None and existing != tool and not allow_replace:
            warnings.warn(
                f"Tool {tool.name!r} was already registered; the previous definition was discarded. "
                "Pass allow_replace=True to acknowledge replacement.",
                UserWarning,
                stacklevel=2,
            )
        return target

    def unregister(self, name: str) -> bool:
        """Removes a tool by registered name; False if there was none."""
        if name not in self._tools:
            return False
        self.native.unregister(name)
        del self._tools[name]
        self._disabled.pop(name, None)
        return True

    _unregister = unregister

    def get_tool(self, name: str) -> Optional[Tool]:
        """The registered tool of that name, or None."""
        return self._tools.get(name)

    def list_tools(self, include_disabled: bool = False) -> List[str]:
        """Registered tool names in registration order (enabled ones only by default)."""
        return [n for n in self._tools if include_disabled or self.is_enabled(n)]

    # -- enabled state --

    def disable(self, name: str, reason: str = "") -> None:
        """Disables a tool or a namespace (a name not registered yet applies when it is)."""
        self._disabled[name] = reason
        self._sync_enabled(name)

    def enable(self, name: str) -> None:
        """Re-enables a tool or a namespace."""
        self._disabled.pop(name, None)
        self._sync_enabled(name)

    def is_enabled(self, tool_name: str) -> bool:
        """Whether a tool is enabled: neither it nor its namespace is disabled."""
        if tool_name in self._disabled:
            return False
        tool = self._tools.get(tool_name)
        return not (tool is not None and tool.namespace and tool.namespace in self._disabled)

    def _sync_enabled(self, name: str) -> None:
        """Tells the engine the enabled state of every tool ``name`` names or groups."""
        for tool in self._tools.values():
            if tool.name == name or tool.namespace == name:
                if self.is_enabled(tool.name):
                    self.native.set_enabled(tool.name, True)
                else:
                    reason = self._disabled.get(tool.name, self._disabled.get(tool.namespace or "", ""))
                    self.native.disable(tool.name, reason or None)

    # -- metadata --

    def update_tool_metadata(self, tool_name: str, **kwargs: Any) -> None:
        """Replaces metadata fields of a tool: ``defer``, ``tags``, ``custom_tags``, ``search_hint``.

        Raises KeyError for an unknown tool and ValueError for another field.
        """
        tool = self._tools.get(tool_name)
        if tool is None:
            raise KeyError(f"Tool not found: {tool_name}")
        unknown = set(kwargs) - {"defer", "tags", "custom_tags", "search_hint"}
        if unknown:
            raise ValueError(
                f"Cannot update metadata field(s) {sorted(unknown)} here: only defer, tags, custom_tags and search_hint"
            )
        meta = dataclasses.replace(tool.metadata, **kwargs)
        update: Dict[str, Any] = {}
        if "defer" in kwargs:
            update["defer"] = bool(meta.defer)
        if "tags" in kwargs or "custom_tags" in kwargs:
            update["tags"] = sorted(meta.all_tags)
        if "search_hint" in kwargs:
            update["search_hint"] = meta.search_hint or ""
        self.native.set_metadata(tool_name, **update)
        self._tools[tool_name] = dataclasses.replace(tool, metadata=meta)

    # -- schemas and summaries --

    def get_schemas(
        self,
        tool_name: Optional[str] = None,
        *,
        api_format: str = "openai-chat",
        tags: Optional[Iterable[Union[str, ToolTag]]] = None,
        exclude_tags: Optional[Iterable[Union[str, ToolTag]]] = None,
        sort: bool = True,
        include_deferred: bool = True,
    ) -> List[Dict[str, Any]]:
        """Tool definitions of the enabled tools in ``api_format``, sorted by name by default.

        ``tool_name`` selects one enabled tool; ``sort=False`` keeps registration order
        (``discover_tools`` and ``call_deferred`` last).
        """

        def plain(ts: Optional[Iterable[Union[str, ToolTag]]]) -> Optional[List[str]]:
            return None if ts is None else [t.value if isinstance(t, Enum) else t for t in ts]

        schemas = self.native.get_schemas(
            include_deferred=include_deferred and tool_name is None,
            api_format=api_format,  # type: ignore[arg-type]
            tags=None if tool_name else plain(tags),
            exclude_tags=None if tool_name else plain(exclude_tags),
        )
        if tool_name:
            return [s for s in schemas if _schema_name(s) == tool_name] or self._one_deferred(
                tool_name, api_format
            )
        if not sort:
            order = {name: i for i, name in enumerate(self._tools)}
            # The built-ins last, in the order the reference registers them.
            order.update({TOOL_DISCOVERY_NAME: len(order), "call_deferred": len(order) + 1})
            schemas.sort(key=lambda s: order.get(_schema_name(s) or "", len(order)))
        return schemas

    def _one_deferred(self, tool_name: str, api_format: str) -> List[Dict[str, Any]]:
        if tool_name not in self._tools or not self.is_enabled(tool_name):
            return []
        schemas = self.native.get_schemas(include_deferred=True, api_format=api_format)  # type: ignore[arg-type]
        return [s for s in schemas if _schema_name(s) == tool_name]

    def get_deferred_summaries(self) -> List[Dict[str, Optional[str]]]:
        """Name and one line for each enabled deferred tool, in registration order.

        The line is the tool's ``search_hint`` when set, else the first sentence of its
        description (the reference's rule).
        """
        out = []
        for s in self.native.deferred_summaries():
            tool = self._tools.get(s["name"])
            if tool is not None:
                line = tool.metadata.search_hint or _first_sentence(tool.description or "")
            else:
                line = s["description"]
            out.append({"name": s["name"], "description": line, "namespace": s["namespace"]})
        return out

    # -- discovery --

    def enable_tool_discovery(
        self,
        field_weights: Optional[Dict[str, float]] = None,
        min_score_ratio: Optional[float] = None,
        max_df_ratio: Optional[float] = None,
    ) -> "ToolDiscoveryTool":
        """Registers ``discover_tools`` and returns its :class:`ToolDiscoveryTool`.

        Enabled once per registry: a repeated call returns the existing tool (and warns when
        the options differ). Call :meth:`disable_tool_discovery` first to reconfigure.
        """
        if self._tool_discovery is not None:
            current = self._tool_discovery
            if (
                (field_weights is not None and dict(field_weights) != current.field_weights)
                or (min_score_ratio is not None and min_score_ratio != current.min_score_ratio)
                or (max_df_ratio is not None and max_df_ratio != current.max_df_ratio)
            ):
                warnings.warn(
                    "Tool discovery is already enabled; the new options are ignored. "
                    "Call disable_tool_discovery() first to reconfigure.",
                    UserWarning,
                    stacklevel=2,
                )
            return current
        options: Dict[str, float] = {}
        if min_score_ratio is not None:
            options["min_score_ratio"] = min_score_ratio
        if max_df_ratio is not None:
            options["max_df_ratio"] = max_df_ratio
        discovery = ToolDiscoveryTool(self, field_weights=field_weights, **options)
        self.native.enable_discovery(**discovery._engine_options())
        self._tool_discovery = discovery
        return discovery

    def disable_tool_discovery(self) -> None:
        """Unregisters ``discover_tools`` (and the engine's ``call_deferred``)."""
        if self._tool_discovery is None:
            return
        self.native.unregister(TOOL_DISCOVERY_NAME)
        self._tool_discovery.close()
        self._tool_discovery = None


#: ``toolregistry_rs.compat.Registry`` is ``ToolRegistry``.
Registry = ToolRegistry


def _schema_name(schema: Mapping[str, Any]) -> Optional[str]:
    """The tool name of a schema in any of the formats."""
    function = schema.get("function")
    if isinstance(function, Mapping):
        return function.get("name")
    return schema.get("name")


def _validate_ratio(name: str, value: Any) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{name} must be a number between 0.0 and 1.0, got {value!r}")
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0.0 and 1.0, got {value}")


class ToolDiscoveryTool:
    """The reference's ``ToolDiscoveryTool``: exact-name or BM25F search over a registry's tools.

    ``registry`` is a :class:`ToolRegistry` of this module or a :class:`toolregistry_rs.Registry`.
    The index follows every change to the registry by itself (the engine updates it
    incrementally), so :meth:`rebuild_index` is never needed; it is kept for compatibility.

    ``field_weights`` should name all five fields (``name``, ``description``, ``tags``,
    ``params``, ``search_hint``), as the reference's documentation does; a partial dict keeps
    the engine's defaults for the missing ones (the reference weights them 1.0 in term frequency
    and leaves them out of the average document length, which the engine does not reproduce).

    Raises ValueError if a ratio is outside ``[0, 1]`` or is a ``bool``.
    """

    def __init__(
        self,
        registry: Union[ToolRegistry, NativeRegistry],
        field_weights: Optional[Dict[str, float]] = None,
        min_score_ratio: float = DEFAULT_MIN_SCORE_RATIO,
        max_df_ratio: float = DEFAULT_MAX_DF_RATIO,
    ) -> None:
        _validate_ratio("min_score_ratio", min_score_ratio)
        _validate_ratio("max_df_ratio", max_df_ratio)
        native = registry.native if isinstance(registry, ToolRegistry) else registry
        if not isinstance(native, NativeRegistry):
            raise TypeError(
                f"registry must be a ToolRegistry or toolregistry_rs.Registry, not {type(registry).__name__}"
            )
        self._registry = registry
        self.field_weights: Dict[str, float] = dict(field_weights) if field_weights else {}
        self.min_score_ratio = min_score_ratio
        self.max_df_ratio = max_df_ratio
        self._discoverer = Discoverer(native, **self._engine_options())

    def _engine_options(self) -> Dict[str, Any]:
        """The engine's discovery options, with the reference profile pinned."""
        options: Dict[str, Any] = {
            "profile": "reference",
            "min_score_ratio": float(self.min_score_ratio),
            "max_df_ratio": float(self.max_df_ratio),
        }
        if self.field_weights:
            options["field_weights"] = self.field_weights
        return options

    def close(self) -> None:
        """Frees the engine's discoverer."""
        self._discoverer.close()

    def __enter__(self) -> "ToolDiscoveryTool":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def rebuild_index(self) -> None:
        """Rebuilds the index from the registry. Never needed; changes no answer."""
        self._discoverer.rebuild_index()

    def discover(self, query: str, top_k: int = 10, api_format: str = "openai-chat") -> List[Dict[str, Any]]:
        """Tools for ``query``: an exact name gives that tool with its schema, else the BM25F ranking.

        Returns dicts with ``name``, ``description``, ``score`` (1.0 for an exact match),
        ``namespace``, ``deferred`` and, for an exact match or a deferred tool, ``schema``.

        Raises ValueError for an empty or whitespace-only query or a ``top_k`` below 1 (as the
        reference); ToolRegistryError for a query over the engine's limit (64 KiB); a query of more
        than 1,024 tokens is answered from its first 1,024.
        """
        if not query or not query.strip():
            raise ValueError(
                "empty query — pass a capability keyword, e.g. 'web search'. "
                "Queries are matched against English tool descriptions."
            )
        if top_k < 1:
            raise ValueError(f"top_k must be >= 1, got {top_k}")
        try:
            return self._discoverer.discover(query, top_k, api_format=api_format)  # type: ignore[arg-type,return-value]
        except ToolRegistryError as e:
            if e.status == Status.INVALID_ARGUMENT:
                raise ValueError(e.message) from e
            raise
