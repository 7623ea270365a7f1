"""Discoverer: searches a registry's tools with its own ranking options."""

from __future__ import annotations

import json
from ctypes import byref, c_void_p
from typing import Any, Dict, List, Mapping, Optional, Union, cast

from . import _async, _native
from ._handle import _check, _discovery_options, _Handle, _json, _Owner, _RegistryBase, _text
from ._types import APIFormat, DiscoverResult, Explanation, Profile

_lib = _native.lib


class Discoverer(_Owner):
    """Finds a registry's tools by exact name or natural-language query, with its own options.

    It sees every change to the registry at once and keeps the registry's tools alive after
    ``Registry.close``. Thread-safe; searches from many threads run in parallel (the GIL is
    released during each search). Close it (or use ``with``) when done.
    """

    def __init__(
        self,
        registry: _RegistryBase,
        *,
        profile: Optional[Profile] = None,
        field_weights: Optional[Mapping[str, float]] = None,
        min_score_ratio: Optional[float] = None,
        max_df_ratio: Optional[float] = None,
        k1: Optional[float] = None,
        b: Optional[float] = None,
        delta: Optional[float] = None,
        intents: Optional[bool] = None,
        usage: Optional[bool] = None,
    ) -> None:
        if not isinstance(registry, _RegistryBase):
            raise TypeError(f"registry must be a toolregistry_rs.Registry, not {type(registry).__name__}")
        options = _discovery_options(
            profile, field_weights, min_score_ratio, max_df_ratio, k1, b, delta, intents, usage
        )
        options_json = _json("options", options) if options else None
        out = _native.DiscovererPtr()
        err = c_void_p()
        h = registry._handle.acquire("registry")
        try:
            status = _lib.tr_discoverer_new(h, options_json, byref(out), byref(err))
        finally:
            registry._handle.release()
        _check(status, err)
        self._handle = _Handle(self, out, _lib.tr_discoverer_free)
        self._table = registry._table
        #: Whether a query may need a vector (the default profile is hybrid with an embedder).
        self._may_embed = profile in (None, "hybrid")

    def discover_json(
        self,
        query: Union[str, bytes],
        top_k: int = 10,
        *,
        api_format: Optional[APIFormat] = None,
        strict: bool = False,
        max_tokens: Optional[int] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> bytes:
        """:meth:`discover`'s answer as the library's JSON text (UTF-8), undecoded. Its length is
        what ``max_tokens`` counts (bytes / 4, rounded up)."""
        q = _text("query", query)
        plain = options is None and api_format is None and not strict and max_tokens is None
        if plain and type(top_k) is int and top_k >= 0:
            opts = b'{"top_k":%d}' % top_k
        else:
            doc: Dict[str, Any] = {"top_k": top_k}
            if api_format is not None:
                doc["api_format"] = api_format
            if strict:
                doc["strict"] = True
            if max_tokens is not None:
                doc["max_tokens"] = max_tokens
            doc.update(options or {})
            opts = _json("options", doc)
        h = self._handle.acquire("discoverer")
        out, err = c_void_p(), c_void_p()
        try:
            status = _lib.tr_discoverer_discover(h, q, opts, byref(out), byref(err))
        finally:
            self._handle.release()
        _check(status, err)
        return _native.take_string(out) or b"[]"

    def discover(
        self,
        query: Union[str, bytes],
        top_k: int = 10,
        *,
        api_format: Optional[APIFormat] = None,
        strict: bool = False,
        max_tokens: Optional[int] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> List[DiscoverResult]:
        """Up to ``top_k`` tools for ``query``, best first.

        A query equal to an enabled tool's name (ignoring case, with ``-`` and ``/`` read as
        ``_``) returns that tool alone with score 1.0 and its schema; otherwise the BM25F
        ranking. A query that holds several needs (unless the discoverer has ``intents=False``)
        gives each hit the ``intent`` it answers, in the query's words. Deferred tools carry their
        schema (rendered in ``api_format``). ``strict=True`` renders those schemas in OpenAI
        strict mode (OpenAI formats only, else ``INVALID_ARGUMENT``);
        a hit whose schema cannot be strict carries it non-strict, with a ``warning`` saying why.
        ``max_tokens`` caps the answer at that many tokens, counted as the UTF-8 bytes of its JSON
        (:meth:`discover_json`) / 4, rounded up: hits keep their schemas while they fit, then come
        cut to name + one-line summary (no ``schema``, ``description`` the first sentence), then
        stop; the top hit is always returned, cut if its schema alone is too big. ``options`` adds
        further discover options (the filters ``namespaces``, ``tags``, ``deferred``), sent to the
        library as is.

        Raises ToolRegistryError: ``INVALID_ARGUMENT`` for an empty or whitespace-only query, a
        ``top_k`` or ``max_tokens`` below 1; ``TOO_LARGE`` for a query over 64 KiB. A query of more than 1,024
        tokens is answered from its first 1,024.
        """
        answer = self.discover_json(
            query, top_k, api_format=api_format, strict=strict, max_tokens=max_tokens, options=options
        )
        return cast(List[DiscoverResult], json.loads(answer))

    async def adiscover(
        self,
        query: Union[str, bytes],
        top_k: int = 10,
        *,
        api_format: Optional[APIFormat] = None,
        strict: bool = False,
        max_tokens: Optional[int] = None,
        options: Optional[Mapping[str, Any]] = None,
    ) -> List[DiscoverResult]:
        """:meth:`discover` for asyncio: with the registry's async embedder (see
        :meth:`Registry.set_embedder`), the query's vector is awaited from it and sent as
        ``query_vector``, so hybrid ranking fuses words and meaning; if the embedder fails, the
        query is ranked by words, as :meth:`discover` does when its embedder fails. Without an
        async embedder it is :meth:`discover`. The search itself takes microseconds to
        milliseconds and runs on the loop's thread."""
        if self._may_embed and self._table.embedder is not None and "query_vector" not in (options or {}):
            text = query.decode("utf-8", "surrogatepass") if isinstance(query, (bytes, bytearray)) else query
            vector = await _async.query_vector(self._table, text)
            if vector is not None:
                options = {**(options or {}), "query_vector": vector}
        return self.discover(query, top_k, api_format=api_format, strict=strict, max_tokens=max_tokens, options=options)

    def explain(self, query: Union[str, bytes], tool_name: str, top_k: int = 10) -> Explanation:
        """Why ``query`` ranks ``tool_name`` where it does, or why it is not in the answer.

        Runs the same analysis and scoring as :meth:`discover`: the analyzed query tokens with the
        filter's verdicts, and the tool's score taken apart per token and per field.
        ``NOT_FOUND`` when no tool of that name is registered.
        """
        q = _text("query", query)
        name = _text("tool name", tool_name)
        opts = _json("options", {"top_k": top_k})
        h = self._handle.acquire("discoverer")
        out, err = c_void_p(), c_void_p()
        try:
            status = _lib.tr_discoverer_explain(h, q, name, opts, byref(out), byref(err))
        finally:
            self._handle.release()
        _check(status, err)
        return cast(Explanation, json.loads(_native.take_string(out) or b"{}"))

    def rebuild_index(self) -> None:
        """Rebuilds the search index. Never needed (it is kept up to date incrementally); changes
        no answer."""
        h = self._handle.acquire("discoverer")
        err = c_void_p()
        try:
            status = _lib.tr_discoverer_rebuild_index(h, byref(err))
        finally:
            self._handle.release()
        _check(status, err)
