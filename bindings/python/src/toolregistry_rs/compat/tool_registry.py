"""The reference's ``ToolRegistry`` (``toolregistry.tool_registry``) on the native engine.

Every tool lives in the engine (``native``): schemas, enabled state and reasons, tags, summaries,
search and the execution of tool calls come from it. The Python side keeps what the engine has
no place for: the ``Tool`` objects with their callables and the reference's extra fields, and the
reference's record of ``disable`` calls (the reference accepts names it does not know yet and
applies them when a tool of that name or namespace arrives; the engine answers NOT_FOUND for
them, so compat keeps the record and tells the engine once there is a tool).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
import json
import random
import string
import uuid
import warnings
from enum import Enum
from typing import Any, Callable, Dict, Iterable, List, Literal, Mapping, Optional, Union

from .._async import is_async
from .._errors import ToolRegistryError
from .._registry import Registry as NativeRegistry
from .discovery import TOOL_CALL_DEFERRED_NAME, TOOL_DISCOVERY_NAME, ToolDiscoveryTool
from .llm.tool_calls import (
    ErrorResult,
    ResultList,
    ToolCall,
    ToolCallResult,
    build_assistant_messages,
    build_tool_result_messages,
    convert_tool_calls,
    provider_call,
)
from .tool import Tool, ToolMetadata, ToolTag, normalize_api_format

__all__ = ["ToolRegistry"]

_BUILTINS = (TOOL_DISCOVERY_NAME, TOOL_CALL_DEFERRED_NAME)
_MUTABLE_METADATA_FIELDS = frozenset(
    {
        "think_augment",
        "defer",
        "search_hint",
        "tags",
        "custom_tags",
        "title",
        "read_only_hint",
        "destructive_hint",
        "idempotent_hint",
        "open_world_hint",
    }
)
TOOLCALL_REASON_PROPERTY = {"type": "string", "description": "Why you chose this tool and what you expect from it."}


def _plain_tags(tags: Optional[Iterable[Union[str, ToolTag]]]) -> Optional[List[str]]:
    return None if tags is None else [t.value if isinstance(t, Enum) else str(t) for t in tags]


def _schema_name(schema: Mapping[str, Any]) -> Optional[str]:
    """The tool name of a schema in any of the formats."""
    function = schema.get("function")
    if isinstance(function, Mapping):
        return function.get("name")
    return schema.get("name")


def _schema_params(schema: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """The parameters object of a schema in any of the formats."""
    function = schema.get("function")
    holder = function if isinstance(function, dict) else schema
    for key in ("parameters", "input_schema"):
        params = holder.get(key)
        if isinstance(params, dict):
            return params
    return None


def _as_tool(target: Any) -> Optional[Tool]:
    """Our Tool from our Tool or anything shaped like the reference's Tool; None for others."""
    if isinstance(target, Tool):
        return target
    if inspect.isroutine(target) or not all(
        hasattr(target, a) for a in ("name", "description", "parameters", "metadata")
    ):
        return None
    meta = target.metadata
    fields = {f.name for f in dataclasses.fields(ToolMetadata)}
    values = {k: getattr(meta, k) for k in fields if hasattr(meta, k)}
    fn = getattr(target, "fn", None) or getattr(target, "callable", None)
    return Tool(
        name=target.name,
        description=target.description or "",
        parameters=dict(target.parameters or {}),
        callable=fn,
        metadata=ToolMetadata(**values),
        namespace=getattr(target, "namespace", None),
        method_name=getattr(target, "method_name", None),
    )


def _detect_source(target: Any) -> str:
    """The reference's detection: a Tool or callable is native, a class or another object a class."""
    if isinstance(target, type):
        return "class"
    if callable(target) or _as_tool(target) is not None:
        return "native"
    if not isinstance(target, (str, bytes, dict, int, float, bool, type(None))) and not hasattr(target, "__fspath__"):
        return "class"
    raise TypeError(
        f"Cannot auto-detect registration source for {type(target).__name__!r}. "
        "Pass source='mcp' or source='openapi' explicitly."
    )


def _host_function(fn: Callable[..., Any]) -> Callable[..., Any]:
    """What the engine calls for a tool: the function without the think-augment
    ``toolcall_reason`` argument (as the reference drops it).

    An async function stays async, so ``aexecute_tool_calls`` awaits it on the caller's loop; the
    sync ``execute_tool_calls`` runs it to completion (see :meth:`ToolRegistry.execute_tool_calls`).
    """
    if is_async(fn):

        async def arun(**kwargs: Any) -> Any:
            kwargs.pop("toolcall_reason", None)
            return await fn(**kwargs)

        return arun

    def run(**kwargs: Any) -> Any:
        kwargs.pop("toolcall_reason", None)
        return fn(**kwargs)

    return run


class ToolRegistry:
    """The reference's ``ToolRegistry``: registration, namespaces, enabled state, schemas,
    discovery and tool-call execution, on the native engine.

    ``close()`` (or ``with``) frees the engine; :attr:`native` is the underlying
    :class:`toolregistry_rs.Registry`. ``name_sep`` must be ``"-"`` (the engine's separator);
    ``default_max_result_size`` is kept but results are not truncated.
    """

    def __init__(
        self,
        name: Optional[str] = None,
        *,
        default_max_result_size: Optional[int] = None,
        think_augment: bool = False,
        tool_discovery: bool = False,
        name_sep: Literal["-", "."] = "-",
    ) -> None:
        if name_sep != "-":
            raise ValueError("name_sep must be '-': the engine joins namespace and method name with '-'")
        if name is None:
            name = f"reg_{''.join(random.sample(string.hexdigits.lower(), 4))}"
        self.name = name
        self.native = NativeRegistry()
        self._tools: Dict[str, Tool] = {}
        # Registration order of every name, the built-ins included (where the reference has them).
        self._order: Dict[str, None] = {}
        self._disabled: Dict[str, str] = {}
        self._default_max_result_size = default_max_result_size
        self._think_augment = think_augment
        self._tool_discovery: Optional[ToolDiscoveryTool] = None
        if tool_discovery:
            self.enable_tool_discovery()

    @property
    def name_sep(self) -> Literal["-", "."]:
        """The separator of namespace and method name: always ``"-"``, the engine's."""
        return "-"

    @name_sep.setter
    def name_sep(self, value: str) -> None:
        if value != "-":
            raise ValueError("name_sep must be '-': the engine joins namespace and method name with '-'")

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
        return isinstance(name, str) and name in self._names()

    def __len__(self) -> int:
        return len(self._names())

    def __getitem__(self, name: str) -> Optional[Callable[..., Any]]:
        return self.get_callable(name)

    def _names(self) -> List[str]:
        """Registered names in registration order, the built-ins where discovery was enabled."""
        return list(self._order)

    # -- registration --

    def register(
        self,
        target: Any,
        description: Optional[str] = None,
        name: Optional[str] = None,
        *,
        source: Optional[str] = None,
        namespace: Union[bool, str, None] = None,
        method_name: Optional[str] = None,
        allow_replace: bool = False,
        metadata: Optional[ToolMetadata] = None,
        **kwargs: Any,
    ) -> Any:
        """Registers a function, a ``Tool``, or the methods of a class or instance.

        ``source`` is detected as the reference does (``"native"`` for a function or ``Tool``,
        ``"class"`` for a class or a non-callable instance); ``"mcp"``, ``"openapi"`` and
        ``"langchain"`` raise NotImplementedError. A function becomes a tool as with
        ``Tool.from_function`` (``name``, ``description``, ``method_name`` override);
        ``namespace`` (a string) registers it as ``namespace-name``; ``metadata`` (an extension)
        replaces its metadata. Replacing a registered name with a different tool warns unless
        ``allow_replace``. Returns the function, or the ``Tool`` as registered.
        """
        resolved = source or _detect_source(target)
        if resolved == "class":
            self._register_class(
                target,
                namespace if namespace is not None else False,
                kwargs.pop("traverse_mro", True),
                kwargs.pop("constructor_kwargs", None),
                allow_replace,
            )
            return None
        if resolved != "native":
            if resolved in ("mcp", "openapi", "langchain"):
                raise NotImplementedError(f"source={resolved!r} is not part of toolregistry_rs.compat")
            raise ValueError(f"Unknown source: {resolved!r}. Supported values: 'native', 'class'.")
        if kwargs:
            raise TypeError(f"unexpected keyword arguments for a native tool: {sorted(kwargs)}")
        if namespace is True:
            raise ValueError(
                "namespace=True is not supported for native function registration; pass a string namespace instead."
            )
        ns = namespace if isinstance(namespace, str) and namespace else None
        given = _as_tool(target)
        if given is not None:
            tool = given.update_namespace(ns, force=True) if ns else given
            returned: Any = tool if isinstance(target, Tool) else target
        elif callable(target):
            tool = Tool.from_function(target, description=description, name=name, namespace=ns, method_name=method_name)
            returned = target
        else:
            raise TypeError(f"cannot register {type(target).__name__}: pass a function, a Tool or a class")
        if metadata is not None:
            tool = dataclasses.replace(tool, metadata=metadata)
        self._add(tool, allow_replace)
        return returned

    def _add(self, tool: Tool, allow_replace: bool) -> None:
        existing = self._tools.get(tool.name)
        if tool.callable is not None:
            # The engine runs it for tool calls, as fn(**arguments).
            self.native.register_function(tool.engine_doc(), _host_function(tool.callable))
        else:
            self.native.register(tool.engine_doc())
        self._tools[tool.name] = tool
        self._order[tool.name] = None
        if self._wanted_reason(tool) is not None:
            # A disable recorded before the tool existed (by name or namespace) applies now.
            self._sync(tool)
        if existing is not None and existing != tool and not allow_replace:
            warnings.warn(
                f"Tool {tool.name!r} was already registered; the previous definition was discarded. "
                "Pass allow_replace=True to acknowledge replacement.",
                UserWarning,
                stacklevel=3,
            )

    def register_from_class(
        self,
        cls: Any,
        namespace: Union[bool, str] = False,
        traverse_mro: bool = True,
        constructor_kwargs: Optional[Dict[str, Any]] = None,
        **kwargs: Any,
    ) -> None:
        """Deprecated in the reference (``register(cls, source="class")``): the public methods of a
        class or instance as tools. ``namespace=True`` uses the class name."""
        warnings.warn(
            "register_from_class() is deprecated, use register(cls, source='class', ...) instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        self._register_class(cls, namespace, traverse_mro, constructor_kwargs, bool(kwargs.get("allow_replace")))

    def _register_class(
        self,
        target: Any,
        namespace: Union[bool, str],
        traverse_mro: bool,
        constructor_kwargs: Optional[Dict[str, Any]],
        allow_replace: bool,
    ) -> None:
        """The reference's rules: a class of static methods registers them; another class is
        instantiated (without arguments unless ``constructor_kwargs``) and, like an instance,
        registers its public bound methods; classmethods and ``_private`` names are skipped."""
        cls = target if isinstance(target, type) else type(target)
        ns: Optional[str] = namespace if isinstance(namespace, str) else (cls.__name__ if namespace else None)
        klasses = [k for k in reversed(inspect.getmro(cls)) if k is not object] if traverse_mro else [cls]
        if isinstance(target, type) and all(
            isinstance(m, staticmethod) for n, m in target.__dict__.items() if not n.startswith("_")
        ):
            methods: Dict[str, Callable[..., Any]] = {}
            for klass in klasses:
                for n, m in klass.__dict__.items():
                    if not n.startswith("_") and isinstance(m, staticmethod):
                        methods[n] = m.__func__
        else:
            instance = target
            if isinstance(target, type):
                try:
                    instance = target(**(constructor_kwargs or {}))
                except TypeError as e:
                    raise TypeError(
                        f"Failed to instantiate class '{target.__name__}': {e}. "
                        f"Please pass a pre-constructed instance instead: register({target.__name__}(...), source='class')"
                    ) from e
            methods = {}
            for klass in klasses:
                for n, m in klass.__dict__.items():
                    if n.startswith("_") or isinstance(m, classmethod):
                        continue
                    attr = getattr(instance, n, None)
                    if attr is not None and callable(attr):
                        methods[n] = attr
        for n, fn in methods.items():
            tool = Tool.from_function(fn, namespace=ns, method_name=n)
            self._add(tool, allow_replace)

    def unregister(self, name: str) -> bool:
        """Removes a tool by registered name; False if there was none. Removing ``discover_tools``
        or ``call_deferred`` turns discovery off."""
        if name in _BUILTINS and self._tool_discovery is not None:
            self.disable_tool_discovery()
            return True
        if name not in self._tools:
            return False
        self.native.unregister(name)
        del self._tools[name]
        self._order.pop(name, None)
        self._disabled.pop(name, None)
        return True

    _unregister = unregister

    def get_tool(self, tool_name: str) -> Optional[Tool]:
        """The registered tool of that name (``discover_tools`` and ``call_deferred`` too), or None."""
        tool = self._tools.get(tool_name)
        if tool is None and tool_name in _BUILTINS and self._tool_discovery is not None:
            tool = self._builtin_tool(tool_name, self._tool_discovery)
        return tool

    def _builtin_tool(self, tool_name: str, discovery: ToolDiscoveryTool) -> Tool:
        """A built-in as a Tool: the engine's definition; calls run in the engine."""
        schema = self.native.get_schemas(names=[tool_name], api_format="openai-responses")[0]
        if tool_name == TOOL_DISCOVERY_NAME:
            fn: Callable[..., Any] = discovery.discover
            # A lookup over the local index: the reference's hints for it.
            meta = ToolMetadata(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
        else:
            fn, meta = discovery.call_deferred, ToolMetadata()
        return Tool(
            name=tool_name,
            description=schema.get("description", ""),
            parameters=schema.get("parameters", {}),
            callable=fn,
            metadata=meta,
            method_name=tool_name,
        )

    def get_callable(self, tool_name: str) -> Optional[Callable[..., Any]]:
        """The function of a registered tool, or None."""
        tool = self.get_tool(tool_name)
        return tool.callable if tool else None

    def list_tools(self, include_disabled: bool = False) -> List[str]:
        """Registered tool names in registration order (enabled ones only by default)."""
        names = self._names()
        if include_disabled:
            return names
        status = self._status()
        return [n for n in names if status.get(n, {}).get("enabled", True)]

    def get_available_tools(self) -> List[str]:
        """Deprecated in the reference: :meth:`list_tools`."""
        warnings.warn("get_available_tools() is deprecated, use list_tools() instead.", DeprecationWarning, stacklevel=2)
        return self.list_tools()

    def list_all_tools(self) -> List[str]:
        """Deprecated in the reference: ``list_tools(include_disabled=True)``."""
        warnings.warn(
            "list_all_tools() is deprecated, use list_tools(include_disabled=True) instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.list_tools(include_disabled=True)

    # -- enabled state --

    def _status(self) -> Dict[str, Dict[str, Any]]:
        """The engine's state of every tool, by name."""
        return {s["name"]: s for s in self.native.tools_status()}

    def disable(self, name: str, reason: str = "") -> None:
        """Disables a tool or a namespace; a name not registered yet applies once it is (as the
        reference; the engine itself rejects unknown names).

        Raises ValueError for ``discover_tools`` and ``call_deferred``, which the engine keeps
        while discovery is on (the reference disables them): use :meth:`disable_tool_discovery`.
        """
        if name in _BUILTINS:
            raise ValueError(f"{name} stays enabled while discovery is on: call disable_tool_discovery() instead")
        self._disabled[name] = reason
        self._sync_name(name)

    def enable(self, name: str) -> None:
        """Re-enables a tool or a namespace (a tool disabled by its own name stays disabled when
        its namespace comes back). Unknown names are a no-op."""
        self._disabled.pop(name, None)
        self._sync_name(name)

    def _wanted_reason(self, tool: Tool) -> Optional[str]:
        """The reference's rule: the tool's own reason first, then its namespace's; None if enabled."""
        if tool.name in self._disabled:
            return self._disabled[tool.name]
        if tool.namespace and tool.namespace in self._disabled:
            return self._disabled[tool.namespace]
        return None

    def _sync(self, tool: Tool) -> None:
        """Tells the engine the enabled state and reason of one tool."""
        reason = self._wanted_reason(tool)
        if reason is None:
            self.native.set_enabled(tool.name, True)
        else:
            self.native.disable(tool.name, reason)

    def _sync_name(self, name: str) -> None:
        for tool in self._tools.values():
            if tool.name == name or tool.namespace == name:
                self._sync(tool)

    def is_enabled(self, tool_name: str) -> bool:
        """Whether a tool is enabled (the engine's answer); for a name that is no tool, whether it
        was not disabled."""
        state = self._status().get(tool_name)
        if state is None:
            return tool_name not in self._disabled
        return bool(state["enabled"])

    def get_disable_reason(self, tool_name: str) -> Optional[str]:
        """Why a tool is disabled (``""`` when no reason was given), None when it is enabled."""
        state = self._status().get(tool_name)
        if state is None:
            return self._disabled.get(tool_name)
        if state["enabled"]:
            return None
        return str(state.get("reason") or "")

    def disable_by_tags(
        self,
        tags: Iterable[Union[ToolTag, str]],
        *,
        match: Literal["any", "all"] = "any",
        reason: str = "Disabled by tag filter",
    ) -> List[str]:
        """Disables the enabled tools with any (``match="any"``) or all (``"all"``) of ``tags``,
        with ``reason``; returns their names in registration order. Tags are the engine's."""
        wanted = set(_plain_tags(tags) or [])
        if not wanted:
            return []
        status = self._status()
        disabled: List[str] = []
        for name in list(self._tools):
            state = status.get(name)
            if state is None or not state["enabled"]:
                continue
            have = set(state.get("tags") or [])
            if (have & wanted) if match == "any" else wanted <= have:
                self.disable(name, reason=reason)
                disabled.append(name)
        return disabled

    def get_tools_status(self) -> List[Dict[str, Any]]:
        """One dict per registered tool in registration order, the reference's keys: ``name``,
        ``enabled``, ``reason``, ``namespace``, ``tags``, ``defer`` (from the engine),
        ``locality``, ``is_async``, ``source``, ``source_detail``, ``think_augment``, ``title``,
        ``execution_hints`` (from the tool's metadata)."""
        status = self._status()
        out: List[Dict[str, Any]] = []
        for name in self._names():
            state = status.get(name)
            if state is None and name in _BUILTINS:
                # The engine's built-ins are always on while discovery is (never deferred).
                state = {"enabled": True, "namespace": None, "tags": [], "deferred": False}
            if state is None:
                continue
            tool = self.get_tool(name)
            meta = tool.metadata if tool is not None else ToolMetadata()
            out.append(
                {
                    "name": name,
                    "enabled": bool(state["enabled"]),
                    "reason": None if state["enabled"] else str(state.get("reason") or ""),
                    "namespace": state.get("namespace"),
                    "tags": sorted(state.get("tags") or []),
                    "locality": meta.locality,
                    "is_async": meta.is_async,
                    "source": meta.source,
                    "source_detail": meta.source_detail,
                    "think_augment": meta.think_augment,
                    "defer": bool(state.get("deferred", meta.defer)),
                    "title": meta.title,
                    "execution_hints": meta.execution_hints,
                }
            )
        return out

    # -- metadata --

    def update_tool_metadata(self, tool_name: str, **kwargs: Any) -> None:
        """Replaces metadata fields of a tool: the reference's mutable ones (``defer``,
        ``search_hint``, ``tags``, ``think_augment``, ``title``, the ``*_hint`` booleans) and
        ``custom_tags`` (an extension). KeyError for an unknown tool, ValueError for another field."""
        tool = self._tools.get(tool_name)
        if tool is None:
            raise KeyError(f"Tool not found: {tool_name}")
        unknown = set(kwargs) - _MUTABLE_METADATA_FIELDS
        if unknown:
            raise ValueError(
                f"Field '{sorted(unknown)[0]}' is not allowed. Allowed fields: {sorted(_MUTABLE_METADATA_FIELDS)}"
            )
        meta = dataclasses.replace(tool.metadata, **kwargs)
        update: Dict[str, Any] = {}
        if "defer" in kwargs:
            update["defer"] = bool(meta.defer)
        if "tags" in kwargs or "custom_tags" in kwargs:
            update["tags"] = sorted(meta.all_tags)
        if "search_hint" in kwargs:
            update["search_hint"] = meta.search_hint or ""
        if update:
            self.native.set_metadata(tool_name, **update)
        self._tools[tool_name] = dataclasses.replace(tool, metadata=meta)

    def update_namespace_metadata(self, namespace: str, **kwargs: Any) -> None:
        """:meth:`update_tool_metadata` for every tool of a namespace; KeyError if it has none."""
        names = [t.name for t in self._tools.values() if t.namespace == namespace]
        if not names:
            raise KeyError(f"Namespace not found: {namespace}")
        for name in names:
            self.update_tool_metadata(name, **kwargs)

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
        """The engine's tool definitions in ``api_format``: the enabled tools sorted by name, or
        with ``tool_name`` that one tool, disabled or not (``[]`` if unknown), as the reference.

        ``sort=False`` keeps registration order (the built-ins last).
        """
        fmt = normalize_api_format(api_format)
        if tool_name:
            try:
                schemas = self.native.get_schemas(names=[tool_name], api_format=fmt)  # type: ignore[arg-type]
            except ToolRegistryError:
                return []
        else:
            schemas = self.native.get_schemas(
                include_deferred=include_deferred,
                api_format=fmt,  # type: ignore[arg-type]
                tags=_plain_tags(tags),
                exclude_tags=_plain_tags(exclude_tags),
            )
            if not sort:
                order = {name: i for i, name in enumerate(self._names())}
                schemas.sort(key=lambda s: order.get(_schema_name(s) or "", len(order)))
        for schema in schemas:
            self._think_augment_schema(schema)
        return schemas

    def _think_augment_schema(self, schema: Dict[str, Any]) -> None:
        """The reference's think-augment: a ``toolcall_reason`` property, per tool or registry-wide."""
        tool = self._tools.get(_schema_name(schema) or "")
        effective = tool.metadata.think_augment if tool is not None else None
        if effective is None:
            effective = self._think_augment
        params = _schema_params(schema)
        if effective and params is not None:
            params["properties"] = {**params.get("properties", {}), "toolcall_reason": dict(TOOLCALL_REASON_PROPERTY)}

    def get_tools_json(self, tool_name: Optional[str] = None, **kwargs: Any) -> List[Dict[str, Any]]:
        """Deprecated in the reference: :meth:`get_schemas`."""
        warnings.warn("get_tools_json() is deprecated, use get_schemas() instead.", DeprecationWarning, stacklevel=2)
        return self.get_schemas(tool_name, **kwargs)

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

    # -- tool calls --

    def execute_tool_calls(self, tool_calls: List[Any], execution_mode: Optional[str] = None) -> ResultList:
        """Runs the model's tool calls in the engine and returns their results in call order.

        ``tool_calls`` in any provider's shape (or :class:`ToolCall`). Each result is a
        :class:`ToolCallResult` (``result``: the text the model sees) or an :class:`ErrorResult`
        (an unknown or disabled tool, with its reason; bad arguments; an exception), indexable
        by call id. ``execution_mode`` is accepted and ignored (the engine runs the calls).

        Async tools are run to completion, inside a running event loop too: there the batch runs
        on a helper thread with a loop of its own, as the reference's thread backend runs them
        (the caller's loop waits, as for any sync call). Async code awaits
        :meth:`aexecute_tool_calls` instead.
        """
        calls = convert_tool_calls(tool_calls)
        if not calls:
            return ResultList()
        # The Anthropic shape marks failed results (is_error), so it carries the outcome back.
        blocks = [provider_call(tc, "anthropic") for tc in calls]
        if _loop_running():
            with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="toolregistry-batch") as pool:
                answer = pool.submit(self.native.execute, blocks, api_format="anthropic").result()
        else:
            answer = self.native.execute(blocks, api_format="anthropic")
        return _results(calls, answer)

    async def aexecute_tool_calls(self, tool_calls: List[Any], execution_mode: Optional[str] = None) -> ResultList:
        """:meth:`execute_tool_calls` for async code (the reference's): async tools are awaited on
        the caller's loop and run concurrently, sync ones run in its thread pool (the engine's
        ``aexecute``); a tool that is not concurrency-safe runs alone. ``execution_mode`` is
        accepted and ignored."""
        calls = convert_tool_calls(tool_calls)
        if not calls:
            return ResultList()
        blocks = [provider_call(tc, "anthropic") for tc in calls]
        return _results(calls, await self.native.aexecute(blocks, api_format="anthropic"))

    def invoke(
        self,
        tool_name: str,
        kwargs: Dict[str, Any],
        *,
        invocation_id: Optional[str] = None,
        execution_mode: Optional[str] = None,
    ) -> Union[ToolCallResult, ErrorResult]:
        """Runs one tool in the engine, as one call of :meth:`execute_tool_calls`; never raises
        for an unknown or disabled tool or a failing function (an :class:`ErrorResult` says why).
        The result's ``id`` is ``invocation_id``, else a fresh ``tr_sig_...`` id."""
        call_id = invocation_id or f"tr_sig_{uuid.uuid4().hex[:12]}"
        call = ToolCall(id=call_id, name=tool_name, arguments=json.dumps(dict(kwargs)))
        return self.execute_tool_calls([call], execution_mode)[0]  # type: ignore[no-any-return]

    async def ainvoke(
        self,
        tool_name: str,
        kwargs: Dict[str, Any],
        *,
        invocation_id: Optional[str] = None,
        execution_mode: Optional[str] = None,
    ) -> Union[ToolCallResult, ErrorResult]:
        """:meth:`invoke` for async code, as one call of :meth:`aexecute_tool_calls`."""
        call_id = invocation_id or f"tr_sig_{uuid.uuid4().hex[:12]}"
        call = ToolCall(id=call_id, name=tool_name, arguments=json.dumps(dict(kwargs)))
        return (await self.aexecute_tool_calls([call], execution_mode))[0]  # type: ignore[no-any-return]

    def build_tool_call_messages(
        self, tool_calls: List[Any], results: List[Any], api_format: str = "openai-chat"
    ) -> List[Dict[str, Any]]:
        """The assistant turn and the result messages of a round, ready to append to the history."""
        fmt = normalize_api_format(api_format)
        calls = convert_tool_calls(tool_calls)
        for tc, r in zip(calls, results):
            tc.id = r.id
        responses = {r.id: (str(r) if isinstance(r, ErrorResult) else r.result) for r in results}
        return build_assistant_messages(calls, api_format=fmt) + build_tool_result_messages(
            responses, api_format=fmt, tool_calls=calls
        )

    def recover_tool_call_assistant_message(
        self, tool_calls: List[Any], results: List[Any], api_format: str = "openai-chat"
    ) -> List[Dict[str, Any]]:
        """Deprecated in the reference: :meth:`build_tool_call_messages`."""
        warnings.warn(
            "recover_tool_call_assistant_message() is deprecated, use build_tool_call_messages() instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.build_tool_call_messages(tool_calls, results, api_format)

    # -- discovery --

    def enable_tool_discovery(
        self,
        field_weights: Optional[Dict[str, float]] = None,
        min_score_ratio: Optional[float] = None,
        max_df_ratio: Optional[float] = None,
    ) -> ToolDiscoveryTool:
        """Registers ``discover_tools`` (and ``call_deferred``) and returns the
        :class:`ToolDiscoveryTool`.

        Enabled once per registry: a repeated call returns the existing tool (and warns when
        the options differ). Call :meth:`disable_tool_discovery` first to reconfigure.
        """
        if self._tool_discovery is not None:
            current = self._tool_discovery
            ignored: List[str] = []
            if field_weights is not None and dict(field_weights) != current.field_weights:
                ignored.append("field_weights")
            if min_score_ratio is not None and min_score_ratio != current.min_score_ratio:
                ignored.append(f"min_score_ratio={min_score_ratio!r}")
            if max_df_ratio is not None and max_df_ratio != current.max_df_ratio:
                ignored.append(f"max_df_ratio={max_df_ratio!r}")
            if ignored:
                warnings.warn(
                    "enable_tool_discovery() is already enabled and keeps its current configuration; "
                    f"ignored: {', '.join(ignored)}. Call disable_tool_discovery() first to change it.",
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
        for name in _BUILTINS:
            self._order[name] = None
        return discovery

    def disable_tool_discovery(self) -> None:
        """Unregisters ``discover_tools`` (and the engine's ``call_deferred``)."""
        if self._tool_discovery is None:
            return
        self.native.unregister(TOOL_DISCOVERY_NAME)
        for name in _BUILTINS:
            self._order.pop(name, None)
        self._tool_discovery.close()
        self._tool_discovery = None


def _results(calls: List[ToolCall], answer: List[Dict[str, Any]]) -> ResultList:
    """The engine's Anthropic answer to ``calls`` as the reference's results, in call order."""
    results = answer[0]["content"] if answer else []
    by_id = {r.get("tool_use_id"): r for r in results}
    out: List[Union[ToolCallResult, ErrorResult]] = []
    for tc in calls:
        r = by_id.get(tc.id, {})
        text = _result_text(r.get("content", ""))
        if r.get("is_error"):
            out.append(ErrorResult(id=tc.id, name=tc.name, message=text))
        else:
            out.append(ToolCallResult(id=tc.id, name=tc.name, result=text))
    return ResultList(out)


def _loop_running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _result_text(content: Any) -> str:
    """The text of a tool_result's content (a string, or text blocks)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) if isinstance(b, Mapping) else str(b) for b in content)
    return str(content)


def _first_sentence(text: str) -> str:
    """The reference's summary rule: the first line, cut after the first ``". "``."""
    line = text.split("\n")[0].strip()
    dot = line.find(". ")
    return line[: dot + 1] if dot != -1 else line

