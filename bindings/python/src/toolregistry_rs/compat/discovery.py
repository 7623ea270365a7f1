"""The reference's ``ToolDiscoveryTool`` (``toolregistry.llm.discovery``) on the engine's search.

Exact-name or BM25F search over a registry's tools, with the reference's ranking reproduced to
1e-9 (the golden vectors are replayed through it): the engine runs with ``profile="reference"``
pinned, whatever the library's default.
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Protocol, Union

from .._errors import Status, ToolRegistryError
from .._native import lib as _lib
from .._discoverer import Discoverer
from .._registry import Registry as NativeRegistry

__all__ = ["DEFAULT_MAX_DF_RATIO", "DEFAULT_MIN_SCORE_RATIO", "TOOL_CALL_DEFERRED_NAME", "TOOL_DISCOVERY_NAME", "ToolDiscoveryTool"]

DEFAULT_MIN_SCORE_RATIO = 0.3
DEFAULT_MAX_DF_RATIO = 0.5
TOOL_DISCOVERY_NAME = "discover_tools"
TOOL_CALL_DEFERRED_NAME = "call_deferred"


class _WrapsNative(Protocol):
    """A registry wrapper with its engine registry: this module's ``ToolRegistry`` is one. Named by
    shape, so that tool_registry.py (which makes discovery tools) and this module do not import
    each other."""

    @property
    def native(self) -> NativeRegistry: ...


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
        registry: Union[_WrapsNative, NativeRegistry],
        field_weights: Optional[Dict[str, float]] = None,
        min_score_ratio: float = DEFAULT_MIN_SCORE_RATIO,
        max_df_ratio: float = DEFAULT_MAX_DF_RATIO,
    ) -> None:
        _validate_ratio("min_score_ratio", min_score_ratio)
        _validate_ratio("max_df_ratio", max_df_ratio)
        native = getattr(registry, "native", registry)
        if not isinstance(native, NativeRegistry):
            raise TypeError(
                f"registry must be a ToolRegistry or toolregistry_rs.Registry, not {type(registry).__name__}"
            )
        self._registry = registry
        self._native = native
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

    # The reference's private names for the options, read by code that inspects a discoverer.
    @property
    def _field_weights(self) -> Dict[str, float]:
        return self.field_weights

    @property
    def _min_score_ratio(self) -> float:
        return self.min_score_ratio

    @property
    def _max_df_ratio(self) -> float:
        return self.max_df_ratio

    def call_deferred(self, _target_tool: str, **kwargs: Any) -> Any:
        """Calls a deferred tool by name, as the engine's ``call_deferred`` does for the model.

        The engine resolves the name (exact spelling first, then with ``-``, ``/`` and ``_`` and
        case ignored), checks the arguments against the tool's schema and runs its function. The
        answer is the function's value as the model sees it, decoded from JSON when it is JSON
        (so a ``str`` that reads as a JSON number or list comes back decoded). Raises KeyError for
        an unknown tool (with the close names), ValueError for a tool that is not deferred, and
        ToolRegistryError for bad arguments or a failing function. Needs discovery enabled on the
        registry (``enable_tool_discovery``), where the engine's ``call_deferred`` lives.
        """
        arguments = {"_target_tool": _target_tool, **kwargs}
        try:
            text = self._native._out(
                _lib.tr_registry_call, b"call_deferred", json.dumps(arguments).encode("utf-8")
            ).decode("utf-8")
        except ToolRegistryError as e:
            not_deferred = re.search(r'"([^"]+)" is not a deferred tool', e.message)
            if not_deferred:
                raise ValueError(
                    f"'{not_deferred.group(1)}' is not a deferred tool — call it directly instead of using call_deferred."
                ) from e
            if "is not registered" in e.message:
                raise KeyError(f"tool '{_target_tool}' not found in registry. {e.message}") from e
            raise
        try:
            return json.loads(text)
        except ValueError:
            return text
