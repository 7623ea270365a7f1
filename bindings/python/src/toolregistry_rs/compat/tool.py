"""The reference's ``toolregistry.tool``: ``ToolTag``, ``ToolMetadata`` and ``Tool``.

The models carry the reference's fields, defaults and validation; a tool's provider schema
(:meth:`Tool.get_schema`) is the library's, made by a one-tool registry of the engine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import inspect
import json
import re
import warnings
from enum import Enum
from typing import Any, Callable, Dict, Literal, Optional, Set, TypeVar, Union

from .._registry import Registry as NativeRegistry
from .._schema import parameters_schema

__all__ = ["NameSeparator", "Tool", "ToolMetadata", "ToolTag", "normalize_tool_name"]

NameSeparator = Literal["-", "."]
_ToolT = TypeVar("_ToolT", bound="Tool")

#: The reference's hint fields: each ``None`` (unset) or a ``bool``; ``title`` a ``str``.
_HINT_FIELDS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")


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
    """The reference's ``ToolMetadata``, field for field.

    The engine uses ``defer``, ``tags`` with ``custom_tags`` (one bag of words) and
    ``search_hint``; the other fields are kept for code that reads them (``execute_tool_calls``
    honours none of the execution fields: ``timeout``, ``locality``, ``max_result_size``,
    ``natural_backend`` are data here). ``ValueError`` for a ``locality`` or ``natural_backend``
    outside the reference's values and for a hint that is not a ``bool`` (``title``: not a
    ``str``), as the reference.
    """

    is_async: bool = False
    is_concurrency_safe: bool = True
    timeout: Optional[float] = None
    locality: Literal["local", "remote", "any"] = "any"
    max_result_size: Optional[int] = None
    tags: Set[Union[ToolTag, str]] = dataclasses.field(default_factory=set)
    custom_tags: Set[str] = dataclasses.field(default_factory=set)
    source: str = "native"
    source_detail: str = ""
    schema_hash: str = ""
    last_refreshed_at: str = ""
    extra: Dict[str, Any] = dataclasses.field(default_factory=dict)
    defer: bool = False
    search_hint: str = ""
    think_augment: Optional[bool] = None
    natural_backend: Optional[Literal["inline", "thread", "process"]] = None
    title: Optional[str] = None
    read_only_hint: Optional[bool] = None
    destructive_hint: Optional[bool] = None
    idempotent_hint: Optional[bool] = None
    open_world_hint: Optional[bool] = None

    def __post_init__(self) -> None:
        if self.locality not in ("local", "remote", "any"):
            raise ValueError(f"Invalid locality {self.locality!r}, must be one of {{'local', 'remote', 'any'}}")
        if self.natural_backend not in ("inline", "thread", "process", None):
            raise ValueError(
                f"Invalid natural_backend {self.natural_backend!r}, must be one of inline, thread, process, None"
            )
        if self.title is not None and not isinstance(self.title, str):
            raise ValueError(f"title must be a str or None, got {type(self.title).__name__}")
        for name in _HINT_FIELDS:
            value = getattr(self, name)
            if value is not None and not isinstance(value, bool):
                raise ValueError(f"{name} must be a bool or None, got {type(value).__name__}")
        hints = self.execution_hints
        if hints.get("read_only_hint") and hints.get("destructive_hint"):
            warnings.warn(
                "ToolMetadata resolves both read_only_hint=True and destructive_hint=True. "
                "These MCP hints are independent and neither overrides the other.",
                UserWarning,
                stacklevel=3,
            )

    # Unhashable like the reference's (its sets and dict are mutable).
    __hash__ = None  # type: ignore[assignment]

    @property
    def all_tags(self) -> Set[str]:
        """Predefined and custom tags together, as strings."""
        return {t.value if isinstance(t, Enum) else str(t) for t in self.tags} | set(self.custom_tags)

    @property
    def execution_hints(self) -> Dict[str, bool]:
        """The resolved hints, with the reference's tag-derived defaults; unset ones left out.

        ``read_only_hint`` defaults to True with ``ToolTag.READ_ONLY``; ``destructive_hint`` to True
        with ``ToolTag.DESTRUCTIVE``, else to False for a read-only tool. An explicit value wins.
        """
        tags = self.all_tags
        hints: Dict[str, bool] = {}
        read_only = self.read_only_hint
        if read_only is None and ToolTag.READ_ONLY.value in tags:
            read_only = True
        if read_only is not None:
            hints["read_only_hint"] = read_only
        destructive = self.destructive_hint
        if destructive is None and ToolTag.DESTRUCTIVE.value in tags:
            destructive = True
        if destructive is None and read_only:
            destructive = False
        if destructive is not None:
            hints["destructive_hint"] = destructive
        if self.idempotent_hint is not None:
            hints["idempotent_hint"] = self.idempotent_hint
        if self.open_world_hint is not None:
            hints["open_world_hint"] = self.open_world_hint
        return hints

    def model_dump(self) -> Dict[str, Any]:
        """The fields as a dict (the reference's alias of ``dataclasses.asdict``)."""
        return dataclasses.asdict(self)

    def model_copy(self, *, update: Optional[Dict[str, Any]] = None) -> "ToolMetadata":
        """A copy with ``update`` applied."""
        return dataclasses.replace(self, **(update or {}))


def normalize_tool_name(name: str) -> str:
    """The reference's name normalization: snake_case, no dots, dashes, ``@`` or spaces."""
    match = re.match(r"^([a-zA-Z0-9]+)_\1_([a-zA-Z0-9]+)$", name)
    if match:
        return f"{match.group(1)}_{match.group(2)}"
    name = re.sub(r"[.\-@]+", "_", name)
    name = re.sub(r"\s+", " ", name).strip().replace(" ", "_")
    name = re.sub(r"(?<!^)(?=[A-Z][a-z])|(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
    return re.sub(r"_+", "_", name)


def _normalize_parameters(parameters: Any) -> Dict[str, Any]:
    """The reference's rule: anything but an object schema becomes the empty object schema."""
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        return {"type": "object", "properties": {}}
    if not isinstance(parameters.get("properties"), dict):
        return {**parameters, "properties": {}}
    return parameters


@dataclasses.dataclass(frozen=True, init=False)
class Tool:
    """The reference's ``Tool``: name, description, JSON Schema parameters, callable, metadata.

    ``name`` is the registered name (``namespace-method_name`` with a namespace). ``callable`` is
    the Python function itself (the reference wraps it); :attr:`fn` returns it either way.
    """

    name: str
    description: str
    parameters: Dict[str, Any]
    callable: Optional[Callable[..., Any]]
    metadata: ToolMetadata
    parameters_model: Any
    namespace: Optional[str]
    method_name: Optional[str]

    def __init__(
        self,
        *,
        name: str,
        description: str,
        parameters: Dict[str, Any],
        callable: Optional[Callable[..., Any]] = None,
        metadata: Optional[ToolMetadata] = None,
        parameters_model: Any = None,
        namespace: Optional[str] = None,
        method_name: Optional[str] = None,
        is_async: Optional[bool] = None,
    ) -> None:
        if metadata is None:
            metadata = ToolMetadata(is_async=is_async) if is_async is not None else ToolMetadata()
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "parameters", _normalize_parameters(parameters))
        object.__setattr__(self, "callable", callable)
        object.__setattr__(self, "metadata", metadata)
        object.__setattr__(self, "parameters_model", parameters_model)
        object.__setattr__(self, "namespace", namespace)
        object.__setattr__(self, "method_name", method_name)

    __hash__ = None  # type: ignore[assignment]

    @property
    def is_async(self) -> bool:
        """``metadata.is_async``."""
        return self.metadata.is_async

    @property
    def execution_hints(self) -> Dict[str, bool]:
        """``metadata.execution_hints``."""
        return self.metadata.execution_hints

    @property
    def fn(self) -> Optional[Callable[..., Any]]:
        """The underlying Python function."""
        return self.callable

    @property
    def qualified_name(self) -> str:
        """The registered name (``name``)."""
        return self.name

    def to_dict(self) -> Dict[str, Any]:
        """The serializable fields (no callable), as the reference's ``to_dict``."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
            "metadata": dataclasses.asdict(self.metadata),
            "namespace": self.namespace,
            "method_name": self.method_name,
        }

    model_dump = to_dict

    @classmethod
    def from_function(
        cls,
        func: Callable[..., Any],
        name: Optional[str] = None,
        description: Optional[str] = None,
        namespace: Optional[str] = None,
        method_name: Optional[str] = None,
        metadata: Optional[ToolMetadata] = None,
        sep: NameSeparator = "-",
    ) -> "Tool":
        """A tool from a Python function, as the reference's ``Tool.from_function`` builds it.

        The name is the function's (or ``name``) in snake_case, the description its docstring
        (or ``description``), the parameters the JSON Schema of its signature and type hints (see
        ``toolregistry_rs._schema``); ``is_async`` is detected whatever ``metadata`` says. With a
        ``namespace`` the name is ``namespace-name`` (``sep``) and ``method_name`` (default: the
        name) is kept apart, as in the reference. A lambda needs a ``name``.
        """
        func_name = name or getattr(func, "__name__", "<unknown>")
        if func_name == "<lambda>":
            raise ValueError("You must provide a name for lambda functions")
        func_name = normalize_tool_name(str(func_name))
        is_async = inspect.iscoroutinefunction(func)
        meta = ToolMetadata(is_async=is_async) if metadata is None else dataclasses.replace(metadata, is_async=is_async)
        tool = cls(
            name=func_name,
            description=description or func.__doc__ or "",
            parameters=parameters_schema(func),
            callable=func,
            metadata=meta,
            method_name=method_name or func_name,
        )
        return tool.update_namespace(namespace, sep=sep) if namespace else tool

    def update_namespace(self: _ToolT, namespace: Optional[str], force: bool = False, sep: NameSeparator = "-") -> _ToolT:
        """A copy under ``namespace``, with the reference's rules.

        Without ``force`` a tool that already has a namespace (or a name with ``-`` or ``.``)
        comes back unchanged; with it the namespace prefix is replaced. The method name is kept,
        or taken from the name.
        """
        if not namespace:
            return self
        if not force and (self.namespace or any(s in self.name for s in ("-", "."))):
            return self
        ns = normalize_tool_name(namespace)
        method = self.method_name or (self.name.split(sep, 1)[1] if sep in self.name else self.name)
        base = self.name.split(sep, 1)[1] if sep in self.name else self.name
        return dataclasses.replace(self, name=f"{ns}{sep}{base}", namespace=ns, method_name=method)

    def requalify(self: _ToolT, namespace: Optional[str], sep: NameSeparator = "-") -> _ToolT:
        """A copy named from ``namespace`` and the method name (``None`` drops the namespace)."""
        method = self.method_name or self._method_name_from_name(sep)
        if namespace:
            ns = normalize_tool_name(namespace)
            return dataclasses.replace(self, name=f"{ns}{sep}{method}", namespace=ns, method_name=method)
        return dataclasses.replace(self, name=method, namespace=None, method_name=method)

    def with_namespace(self, namespace: Optional[str]) -> "Tool":
        """A copy registered as ``namespace-method_name`` (None drops the namespace)."""
        return self.requalify(namespace)

    def _method_name_from_name(self, sep: str) -> str:
        if self.namespace:
            for boundary in (f"{self.namespace}{sep}", f"{self.namespace}-", f"{self.namespace}."):
                if self.name.startswith(boundary):
                    return self.name[len(boundary) :]
        for s in ("-", "."):
            if s in self.name:
                return self.name.split(s, 1)[1]
        return self.name

    def engine_doc(self) -> Dict[str, Any]:
        """The tool as the library registers it: the registered name is kept whole."""
        prefix = f"{self.namespace}-" if self.namespace else None
        doc: Dict[str, Any] = {"description": self.description or "", "parameters": self.parameters}
        if prefix and self.name.startswith(prefix):
            doc["name"] = self.name[len(prefix) :]
            doc["namespace"] = self.namespace
        else:
            doc["name"] = self.name
        meta = self.metadata
        doc["metadata"] = {
            "defer": bool(meta.defer),
            "tags": sorted(meta.all_tags),
            "search_hint": meta.search_hint or "",
        }
        if not meta.is_concurrency_safe:
            # aexecute_tool_calls runs such a tool alone, as the reference does.
            doc["metadata"]["concurrency_safe"] = False
        return doc

    def get_schema(self, api_format: str = "openai-chat") -> Dict[str, Any]:
        """The tool's definition in ``api_format``, as the library writes it.

        ``"openai-chat"`` (default; ``"openai"`` and ``"openai-chatcompletion"`` are the
        reference's deprecated spellings), ``"openai-responses"`` (also ``"openai-response"``,
        ``"open-responses"``), ``"anthropic"`` or ``"gemini"`` (one function declaration, not
        wrapped, as the reference returns it).
        """
        fmt = normalize_api_format(api_format)
        with NativeRegistry() as scratch:
            names = scratch.register(self.engine_doc())
            return scratch.get_schemas(names=names, api_format=fmt)[0]  # type: ignore[arg-type]

    def validate_parameters(self, parameters: Dict[str, Any]) -> Dict[str, Any]:
        """``parameters`` checked by the engine against the tool's schema, as a tool call's are.

        Returns them without ``toolcall_reason`` and, unless the schema allows other keys, without
        keys it does not declare (as the reference). Raises ValueError with the engine's message
        when they do not match (the reference raises its own ``ValidationError`` and also coerces
        values, e.g. ``"3"`` to ``3``; the engine does not).
        """
        args = {k: v for k, v in parameters.items() if k != "toolcall_reason"}
        with NativeRegistry() as scratch:
            scratch.register_function(
                {"name": "validate", "description": "", "parameters": self.parameters}, _echo, raw=True
            )
            call = {"type": "tool_use", "id": "validate", "name": "validate", "input": args}
            block = scratch.execute([call], api_format="anthropic")[0]["content"][0]
        content = block.get("content", "")
        text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
        if block.get("is_error"):
            raise ValueError(text)
        checked: Dict[str, Any] = json.loads(text)
        if self.parameters.get("additionalProperties") is True:
            return checked
        declared = self.parameters.get("properties", {})
        return {k: v for k, v in checked.items() if k in declared}

    _validate_parameters = validate_parameters

    def run(self, parameters: Dict[str, Any]) -> Any:
        """Calls the function with ``parameters`` checked by :meth:`validate_parameters` and returns
        its value. Exceptions propagate. An async function is run to completion (see
        :func:`run_to_completion`: inside a running event loop too); async code awaits :meth:`arun`.
        """
        fn = self.callable
        if fn is None:
            raise TypeError(f"tool {self.name!r} has no callable")
        return run_to_completion(fn(**self.validate_parameters(parameters)))

    async def arun(self, parameters: Dict[str, Any]) -> Any:
        """:meth:`run` for async code."""
        fn = self.callable
        if fn is None:
            raise TypeError(f"tool {self.name!r} has no callable")
        result = fn(**self.validate_parameters(parameters))
        return await result if inspect.isawaitable(result) else result


def _echo(arguments_json: str) -> str:
    """A host function that answers its arguments: what the engine let through."""
    return arguments_json


async def _awaited(value: Any) -> Any:
    return await value


def run_to_completion(result: Any) -> Any:
    """A sync caller's value of ``result``: itself, or an awaitable run to completion.

    ``asyncio.run`` on a fresh loop when no event loop runs in this thread; inside a running loop
    (where ``asyncio.run`` refuses), on a fresh loop in a helper thread, as the reference's thread
    backend does. The caller's loop is blocked meanwhile, as by any sync call; a coroutine that
    needs that loop (a client made on it) must be awaited instead (``arun``,
    ``aexecute_tool_calls``).
    """
    if not inspect.isawaitable(result):
        return result
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(_awaited(result))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="toolregistry-async") as pool:
        return pool.submit(asyncio.run, _awaited(result)).result()


_DEPRECATED_FORMATS = {"openai": "openai-chat", "openai-chatcompletion": "openai-chat", "openai-response": "openai-responses"}


_FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini")


def normalize_api_format(api_format: str) -> str:
    """The reference's format names: aliases map silently, old spellings with a DeprecationWarning.

    ValueError for any other format, as the reference (its ``google-interactions`` and
    ``rosetta-ir`` are not provided here).
    """
    if api_format == "open-responses":
        return "openai-responses"
    canonical = _DEPRECATED_FORMATS.get(api_format)
    if canonical is not None:
        warnings.warn(
            f'api_format="{api_format}" is deprecated, use "{canonical}" instead.',
            DeprecationWarning,
            stacklevel=3,
        )
        return canonical
    if api_format not in _FORMATS:
        raise ValueError(f"Unsupported API format: {api_format} (expected one of {', '.join(_FORMATS)})")
    return api_format
