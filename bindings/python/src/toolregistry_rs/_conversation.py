"""Conversation: the tools of each request of one chat, and the model's calls run against them.

A thin layer over ``tr_conversation_*`` (declared in ``_native``). The library decides which tools
go into each request (mode ``summaries``, ``stable``, ``native`` or ``auto``), renders them in the
conversation's provider format, remembers the deferred tools the model found (``loaded``), and
answers searches the provider's native way (Anthropic ``tool_reference`` blocks, Responses
``tool_search_output`` items) in ``native`` mode.
"""

from __future__ import annotations

import json
from ctypes import byref, c_void_p
from dataclasses import dataclass
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Union, cast

from . import _async, _host, _native
from ._handle import _check, _Handle, _json, _options, _Owner, _RegistryBase
from ._types import APIFormat, ConversationMode, SearchSide

_lib = _native.lib

#: What ``execute`` accepts: a provider's assistant turn or tool-call list, as objects or JSON text.
Calls = Union[Mapping[str, Any], Sequence[Any], str, bytes]


@dataclass(frozen=True)
class ConversationTools:
    """The tools part of the next request, as :meth:`Conversation.tools` returns it."""

    #: The exact ``tools`` array to send, in the conversation's provider format.
    tools: List[Dict[str, Any]]
    #: Text to add to the system prompt (``""`` when there is none).
    system_text: str
    #: SHA-256 (64 hex digits) of ``{"tools":...,"system_text":...}`` as the library wrote them;
    #: it changes exactly when those bytes change, that is when the provider's prompt cache breaks.
    fingerprint: str


def _conversation_options(
    options: Union[Mapping[str, Any], str, bytes, None], fields: Dict[str, Any]
) -> Optional[bytes]:
    """The options JSON: ``options`` (a dict or JSON text) with the keyword fields that are set on top.

    JSON text with no keyword field is sent exactly as given, so the library reads (and reports
    errors in) the caller's own bytes.
    """
    set_fields = {k: v for k, v in fields.items() if v is not None}
    if options is None:
        return _json("options", set_fields) if set_fields else None
    if isinstance(options, (str, bytes, bytearray)):
        if not set_fields:
            return _json("options", options)
        decoded = json.loads(options)
        if not isinstance(decoded, dict):
            raise TypeError("options JSON text must be an object to merge keyword options into")
        base: Dict[str, Any] = decoded
    elif isinstance(options, Mapping):
        base = dict(options)
    else:
        raise TypeError(f"options must be a mapping, str or bytes, not {type(options).__name__}")
    base.update(set_fields)
    return _json("options", base)


class Conversation(_Owner):
    """One chat's view of a registry: the tools of each request, and the model's calls run on them.

    Create it with :meth:`Registry.conversation` or ``Conversation(registry, ...)``; use it as a
    context manager or call :meth:`close`. It shares the registry's live state (every change shows
    in the next :meth:`tools`) and keeps it alive, so it stays usable after ``Registry.close``.
    Thread-safe: calls on one conversation are serialized by the library, calls on different
    conversations run in parallel; the GIL is released during each call. After ``close`` every
    method raises ``ValueError``.

    Options (keywords, or ``options``: a dict or JSON text of the same, the keywords winning):

    - ``api_format``: ``"openai-chat"`` (default), ``"openai-responses"``, ``"anthropic"`` or
      ``"gemini"``: the shape of the tools and of the calls and replies.
    - ``mode``: ``"summaries"`` (default: the core tools, ``discover_tools`` listing the deferred
      tools in its description, then the loaded ones), ``"stable"`` (the deferred tools listed in
      ``system_text`` instead, so loading a tool only appends to ``tools``), ``"native"``
      (``anthropic`` and ``openai-responses`` only: every tool, deferred ones with
      ``"defer_loading": true``, and the provider's tool search) or ``"auto"`` (every tool while
      they total under ``defer_threshold_tokens``, else as ``stable``).
    - ``search``: ``"client"`` (default) or ``"server"`` (native mode: the provider's hosted search).
    - ``loaded``: names of deferred tools already loaded (restores a conversation saved with
      :meth:`loaded`).
    - ``strict`` (OpenAI strict schemas), ``defer_threshold_tokens`` (auto mode, default 10000),
      ``summary_max_tokens`` (caps the deferred list, bytes / 4, ending it with ``- ... and N
      more``; default none in ``summaries`` as the reference, 2000 in ``stable`` and ``auto``),
      ``discovery`` (ranking options as for :meth:`Registry.enable_discovery`), and ``top_k``,
      ``max_tokens``, ``namespaces``, ``tags`` applied to every search.

    Raises ToolRegistryError ``INVALID_JSON`` / ``INVALID_ARGUMENT`` for bad options (``native``
    mode with ``openai-chat`` or ``gemini``, an unknown mode, ...).
    """

    def __init__(
        self,
        registry: _RegistryBase,
        options: Union[Mapping[str, Any], str, bytes, None] = None,
        *,
        api_format: Optional[APIFormat] = None,
        mode: Optional[ConversationMode] = None,
        search: Optional[SearchSide] = None,
        loaded: Optional[Iterable[str]] = None,
        strict: Optional[bool] = None,
        defer_threshold_tokens: Optional[int] = None,
        summary_max_tokens: Optional[int] = None,
        discovery: Optional[Mapping[str, Any]] = None,
        top_k: Optional[int] = None,
        max_tokens: Optional[int] = None,
        namespaces: Optional[Iterable[str]] = None,
        tags: Optional[Iterable[str]] = None,
    ) -> None:
        if not isinstance(registry, _RegistryBase):
            raise TypeError(f"registry must be a toolregistry_rs.Registry, not {type(registry).__name__}")
        fields: Dict[str, Any] = {
            "api_format": api_format,
            "mode": mode,
            "search": search,
            "loaded": None if loaded is None else _names("loaded", loaded),
            "strict": strict,
            "defer_threshold_tokens": defer_threshold_tokens,
            "summary_max_tokens": summary_max_tokens,
            "discovery": None if discovery is None else dict(discovery),
            "top_k": top_k,
            "max_tokens": max_tokens,
            "namespaces": None if namespaces is None else _names("namespaces", namespaces),
            "tags": None if tags is None else _names("tags", tags),
        }
        options_json = _conversation_options(options, fields)
        out = _native.ConversationPtr()
        err = c_void_p()
        h = registry._handle.acquire("registry")
        try:
            status = _lib.tr_conversation_new(h, options_json, byref(out), byref(err))
        finally:
            registry._handle.release()
        _check(status, err)
        self._handle = _Handle(self, out, _lib.tr_conversation_free)
        # The registry's host functions, for aexecute (they outlive Registry.close, as the tools do).
        self._table = registry._table

    def _out(self, call: Any, *args: Any) -> bytes:
        """Runs ``call(handle, *args, &out, &err)`` and returns the output string."""
        h = self._handle.acquire("conversation")
        out, err = c_void_p(), c_void_p()
        try:
            status = call(h, *args, byref(out), byref(err))
        finally:
            self._handle.release()
        _check(status, err)
        text = _native.take_string(out)
        return text if text is not None else b""

    # -- the request's tools --

    def tools_json(self) -> bytes:
        """:meth:`tools`' answer as the library's JSON text (UTF-8), undecoded:
        ``{"tools": [...], "system_text": "...", "fingerprint": "..."}``."""
        return self._out(_lib.tr_conversation_tools)

    def tools(self) -> ConversationTools:
        """The next request's tools: the ``tools`` array, the ``system_text`` to add to the
        system prompt, and the ``fingerprint`` of both (see :class:`ConversationTools`).

        Cheap when the registry has not changed (the shared part is rendered once per change).
        """
        doc = json.loads(self.tools_json())
        return ConversationTools(
            tools=doc["tools"], system_text=doc["system_text"], fingerprint=doc["fingerprint"]
        )

    # -- the model's calls --

    def execute_json(
        self,
        calls: Calls,
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> bytes:
        """:meth:`execute`'s answer as the library's JSON text (UTF-8), undecoded."""
        options = _options(api_format=api_format, parallel=parallel, include_assistant=include_assistant)
        try:
            with _host.sync_batch():
                return self._out(_lib.tr_conversation_execute, _json("calls", calls), options)
        finally:
            _host.reraise_interrupt()

    def execute(
        self,
        calls: Calls,
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """Runs the model's tool calls like :meth:`Registry.execute` and keeps what the model found.

        Tools returned by ``discover_tools`` (or a Responses ``tool_search_call``) and deferred
        tools the model called, directly or through ``call_deferred``, become loaded: the next
        :meth:`tools` appends them. In ``native`` mode a search is answered with Anthropic
        ``tool_reference`` blocks or a Responses ``tool_search_output`` item. ``api_format``, if
        given, must be the conversation's; the other options are :meth:`Registry.execute`'s.
        Searches and calls run one after another. Raises ToolRegistryError ``INVALID_ARGUMENT``
        for another provider's call list.
        """
        return cast(
            List[Dict[str, Any]],
            json.loads(
                self.execute_json(
                    calls, api_format=api_format, parallel=parallel, include_assistant=include_assistant
                )
            ),
        )

    def prepare_calls_json(
        self, calls: Calls, *, api_format: Optional[APIFormat] = None, include_assistant: Optional[bool] = None
    ) -> bytes:
        """:meth:`prepare_calls`' plan as the library's JSON text."""
        options = _options(api_format=api_format, include_assistant=include_assistant)
        return self._out(_lib.tr_conversation_prepare_calls, _json("calls", calls), options)

    def prepare_calls(
        self, calls: Calls, *, api_format: Optional[APIFormat] = None, include_assistant: Optional[bool] = None
    ) -> Dict[str, Any]:
        """The first step of the two-step loop (see :meth:`Registry.prepare_calls`) in this
        conversation: searches are answered in the plan the conversation's way."""
        return cast(
            Dict[str, Any],
            json.loads(self.prepare_calls_json(calls, api_format=api_format, include_assistant=include_assistant)),
        )

    def finish_calls_json(
        self, plan: Union[Mapping[str, Any], str, bytes], results: Union[Sequence[Mapping[str, Any]], str, bytes]
    ) -> bytes:
        """:meth:`finish_calls`' messages as the library's JSON text."""
        return self._out(_lib.tr_conversation_finish_calls, _json("plan", plan), _json("results", results))

    def finish_calls(
        self, plan: Union[Mapping[str, Any], str, bytes], results: Union[Sequence[Mapping[str, Any]], str, bytes]
    ) -> List[Dict[str, Any]]:
        """The second step (see :meth:`Registry.finish_calls`); it also loads what the calls
        revealed, in the order :meth:`execute` would."""
        return cast(List[Dict[str, Any]], json.loads(self.finish_calls_json(plan, results)))

    async def aexecute_json(
        self,
        calls: Calls,
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> bytes:
        """:meth:`aexecute`'s answer as the library's JSON text (UTF-8), undecoded."""
        options = _options(api_format=api_format, include_assistant=include_assistant)
        return await _async.aexecute_json(
            self._table,
            lambda c, o: self._out(_lib.tr_conversation_prepare_calls, c, o),
            lambda p, r: self._out(_lib.tr_conversation_finish_calls, p, r),
            _json("calls", calls),
            options,
            parallel,
        )

    async def aexecute(
        self,
        calls: Calls,
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """:meth:`execute` for asyncio, as :meth:`Registry.aexecute` is: host functions awaited on
        the caller's loop (``async def``) or run in its thread pool (plain), concurrently unless
        ``concurrency_safe: false``; what the calls revealed is loaded as :meth:`execute` would."""
        return cast(
            List[Dict[str, Any]],
            json.loads(
                await self.aexecute_json(
                    calls, api_format=api_format, parallel=parallel, include_assistant=include_assistant
                )
            ),
        )

    def reveal(self, names: Union[Iterable[str], str]) -> None:
        """Loads these registered tools as if the model had found them (a name, or several).

        All or none: an unknown name raises ToolRegistryError ``NOT_FOUND`` (the message names
        it) and loads nothing.
        """
        doc = [names] if isinstance(names, str) else _names("names", names)
        h = self._handle.acquire("conversation")
        err = c_void_p()
        try:
            status = _lib.tr_conversation_reveal(h, _json("names", doc), byref(err))
        finally:
            self._handle.release()
        _check(status, err)

    def loaded_json(self) -> bytes:
        """:meth:`loaded`'s answer as the library's JSON text (UTF-8), undecoded."""
        return self._out(_lib.tr_conversation_loaded)

    def loaded(self) -> List[str]:
        """The deferred tools loaded so far, in load order. Pass it back as ``loaded=`` to restore
        the conversation; a loaded tool that is unregistered or disabled stays listed."""
        return cast(List[str], json.loads(self.loaded_json()))


def _names(what: str, names: Iterable[str]) -> List[str]:
    """A list of names from any iterable of ``str`` (a lone ``str`` is refused: it would be read
    as its letters)."""
    if isinstance(names, (str, bytes, bytearray)):
        raise TypeError(f"{what} must be an iterable of str, not a single {type(names).__name__}")
    return list(names)
