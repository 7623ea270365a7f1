"""Registry: the Pythonic face of the C ABI declared in ``_native`` (Discoverer is in ``_discoverer``)."""

from __future__ import annotations

import atexit
import json
import os
import weakref
from ctypes import byref, c_bool, c_size_t, c_void_p
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Union,
    cast,
)

from . import _async, _host, _native
from ._conversation import Conversation
from ._discoverer import Discoverer
from ._errors import ToolRegistryError
from ._handle import (
    _check,
    _discovery_options,
    _Handle,
    _json,
    _names,
    _options,
    _RegistryBase,
    _text,
)
from ._types import (
    APIFormat,
    ConversationMode,
    EmbeddingStatus,
    Profile,
    SearchSide,
    StrictSchemas,
    Summary,
    UsageStatus,
)

_lib = _native.lib

#: What ``register`` accepts: one tool definition, a sequence of them, or JSON text of either.
Tools = Union[Mapping[str, Any], Sequence[Mapping[str, Any]], str, bytes]


def version() -> str:
    """The version of the loaded native library, e.g. ``"0.1.0"``."""
    return cast(bytes, _lib.tr_version()).decode()


def status_name(status: int) -> str:
    """The C name of a status code, e.g. ``"TR_STATUS_NOT_FOUND"``."""
    return cast(bytes, _lib.tr_status_name(status)).decode()


#: Registries that may hold an embedder: closed at exit, before the interpreter finalizes (the
#: library's embedding thread must not call into Python after that).
_live_with_embedders: "weakref.WeakSet[Registry]" = weakref.WeakSet()


@atexit.register
def _close_registries_at_exit() -> None:
    for r in list(_live_with_embedders):
        if r._embedders:
            r.close()


class Registry(_RegistryBase):
    """Tool definitions, their metadata and enabled state, and the search index.

    Use it as a context manager or call :meth:`close`; every method is safe to call from many
    threads at once (searches run in parallel, changes are serialized by the library). After
    ``close`` every method raises ``ValueError``; discoverers made from it keep working.

    ``discovery`` enables the built-in ``discover_tools`` at once, with these options (see
    :meth:`enable_discovery`); ``True`` means the defaults. ``embedding`` loads the built-in
    sentence encoder: ``{"model_dir": str, "cache_path"?: str, "threads"?: int}``; the registry
    then ranks with the ``hybrid`` profile unless discovery options name another.
    """

    def __init__(
        self,
        *,
        discovery: Union[Mapping[str, Any], bool, None] = None,
        embedding: Optional[Mapping[str, Any]] = None,
        usage: Union[Mapping[str, Any], bool, None] = None,
    ) -> None:
        doc: Dict[str, Any] = {}
        if discovery is True:
            doc["discovery"] = {}
        elif discovery:
            doc["discovery"] = dict(discovery)
        if embedding is not None:
            doc["embedding"] = dict(embedding)
        if usage is not None:
            doc["usage"] = usage if isinstance(usage, bool) else dict(usage)
        options = _json("options", doc) if doc else None
        out = _native.RegistryPtr()
        err = c_void_p()
        _check(_lib.tr_registry_new(options, byref(out), byref(err)), err)
        self._handle = _Handle(self, out, _lib.tr_registry_free)
        self._table = _async.HostTable()
        #: user_data keys of the embedders given to the library, awaited by ``close``.
        self._embedders: List[int] = []
        _live_with_embedders.add(self)

    def close(self) -> None:
        """Frees the registry (see the class). Waits for calls in flight, and for the library to
        drop the embedders it was given (a moment later, on its embedding thread)."""
        super().close()
        keys, self._embedders = self._embedders, []
        _host.wait_released(keys)

    def _out(self, call: Callable[..., int], *args: Any) -> bytes:
        """Runs ``call(handle, *args, &out, &err)`` and returns the output string."""
        h = self._handle.acquire("registry")
        out, err = c_void_p(), c_void_p()
        try:
            status = call(h, *args, byref(out), byref(err))
        finally:
            self._handle.release()
        _check(status, err)
        text = _native.take_string(out)
        return text if text is not None else b""

    def _do(self, call: Callable[..., int], *args: Any) -> None:
        """Runs ``call(handle, *args, &err)``, which has no output."""
        h = self._handle.acquire("registry")
        err = c_void_p()
        try:
            status = call(h, *args, byref(err))
        finally:
            self._handle.release()
        _check(status, err)

    # -- tools --

    def register(self, tools: Tools) -> List[str]:
        """Registers one tool or a sequence of tools, all or none, and returns the registered names.

        Each tool is a dict in any shape the library accepts: flat ``{"name", "description",
        "parameters"}``, OpenAI chat ``{"type": "function", "function": {...}}``, OpenAI
        responses, Anthropic ``{"input_schema"}`` or MCP ``{"inputSchema"}``, each with an
        optional ``"namespace"`` (registered as ``namespace-name``) and ``"metadata": {"defer":
        bool, "tags": [str], "search_hint": str}``. A ``str`` or ``bytes`` is taken as JSON text
        of the same. A name already registered is replaced in place.

        Raises ToolRegistryError: ``INVALID_JSON``, ``INVALID_ARGUMENT`` (with the JSON path of
        the offending field), ``TOO_LARGE``; nothing is registered then.
        """
        if not isinstance(tools, (str, bytes, bytearray, Mapping)) and not isinstance(tools, list):
            tools = list(tools)
        return cast(List[str], json.loads(self._out(_lib.tr_registry_register, _json("tools", tools))))

    def register_function(
        self,
        tool: Union[Mapping[str, Any], str, bytes],
        fn: Callable[..., Any],
        *,
        raw: bool = False,
    ) -> List[str]:
        """Registers one tool with the Python callable that runs its calls (see :meth:`execute`).

        ``tool`` is one tool definition as for :meth:`register`; a tool of the same name is
        replaced, with its function. ``fn`` is called as ``fn(**arguments)`` (the arguments are
        already checked against the tool's JSON Schema); with ``raw=True`` as
        ``fn(arguments_json)`` with the library's compact JSON text. Its return value is what the
        model sees: a ``str`` as is, anything else as JSON. Raising :class:`ToolError` fails the
        call with that message; any other exception fails it with ``the host function of "NAME"
        panicked: MESSAGE``. Nothing a host function raises escapes into the library, and the
        batch goes on. The library may call ``fn`` from its own threads (``parallel``), with the
        GIL held.
        """
        if not callable(fn):
            raise TypeError(f"fn must be callable, not {type(fn).__name__}")
        doc = _json("tool", tool)
        key = _host.keep(fn, "raw" if raw else "kwargs")
        try:
            h = self._handle.acquire("registry")
        except ValueError:
            _host.drop(key)
            raise
        out, err = c_void_p(), c_void_p()
        try:
            # The library owns ``key`` from here on, success or not, and frees it once.
            status = _lib.tr_registry_register_callable(
                h, doc, _host.TOOL_TRAMPOLINE, key, _host.FREE_TRAMPOLINE, byref(out), byref(err)
            )
        finally:
            self._handle.release()
        _check(status, err)
        names = cast(List[str], json.loads(_native.take_string(out) or b"[]"))
        for name in names:
            self._table.tools[name] = key
        return names

    def set_fallback(self, fn: Optional[Callable[..., Any]], *, raw: bool = False) -> None:
        """Sets the callable that runs calls of registered tools without a function of their own.

        It is called as ``fn(tool_name, arguments)`` (``raw=True``: ``fn(tool_name,
        arguments_json)``), with the same result and error rules as :meth:`register_function`:
        a gateway that routes by name registers definitions only, plus one fallback. ``None``
        removes it.
        """
        h = self._handle.acquire("registry")
        err = c_void_p()
        try:
            if fn is None:
                status = _lib.tr_registry_set_fallback(
                    h, _host.NO_FUNCTION, None, _host.FREE_TRAMPOLINE, byref(err)
                )
            else:
                if not callable(fn):
                    raise TypeError(f"fn must be callable, not {type(fn).__name__}")
                key = _host.keep(fn, "fallback_raw" if raw else "fallback")
                status = _lib.tr_registry_set_fallback(
                    h, _host.TOOL_TRAMPOLINE, key, _host.FREE_TRAMPOLINE, byref(err)
                )
        finally:
            self._handle.release()
        _check(status, err)
        self._table.fallback = None if fn is None else key

    def execute(
        self,
        calls: Union[Mapping[str, Any], Sequence[Any], str, bytes],
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """Runs a batch of the model's tool calls and returns the messages of the next turn.

        ``calls`` is what the provider returned (an OpenAI chat assistant message or its
        ``tool_calls``, an OpenAI Responses response or its ``function_call`` items, an Anthropic
        message or its ``tool_use`` blocks, a Gemini ``Content`` or response), as Python objects
        or JSON text; ``api_format`` forces the shape. The answer is the list of messages to append
        after the assistant turn, in the same provider's shape, one result per call in call order
        (``include_assistant=True`` puts the rebuilt assistant turn first). ``parallel`` runs up
        to that many calls at once (1..64) on library threads.

        One bad call never fails the batch: a bad argument, an unknown or disabled tool, a failing
        host function each become an error result for the model. ``discover_tools`` and
        ``call_deferred`` run in the library. Raises ToolRegistryError only when ``calls`` is no
        provider's tool-call list (``INVALID_ARGUMENT``, with the JSON path) or the options are
        bad. The GIL is released while the batch runs; host functions take it back.

        An ``async def`` host function is run to completion here (``asyncio.run``) when no event
        loop runs in this thread; inside a running loop its call fails with a message naming
        :meth:`aexecute`, which is what async code calls.
        """
        options = _options(api_format=api_format, parallel=parallel, include_assistant=include_assistant)
        try:
            with _host.sync_batch():
                answer = self._out(_lib.tr_registry_execute, _json("calls", calls), options)
        finally:
            _host.reraise_interrupt()
        return cast(List[Dict[str, Any]], json.loads(answer))

    # -- the two-step tool loop --

    def prepare_calls_json(
        self,
        calls: Union[Mapping[str, Any], Sequence[Any], str, bytes],
        *,
        api_format: Optional[APIFormat] = None,
        include_assistant: Optional[bool] = None,
    ) -> bytes:
        """:meth:`prepare_calls`' plan as the library's JSON text, to hand back to
        :meth:`finish_calls` unchanged."""
        options = _options(api_format=api_format, include_assistant=include_assistant)
        return self._out(_lib.tr_registry_prepare_calls, _json("calls", calls), options)

    def prepare_calls(
        self,
        calls: Union[Mapping[str, Any], Sequence[Any], str, bytes],
        *,
        api_format: Optional[APIFormat] = None,
        include_assistant: Optional[bool] = None,
    ) -> Dict[str, Any]:
        """The first step of a batch of tool calls: reads ``calls`` as :meth:`execute` does and
        answers the plan, ``{"calls": [...], ...}``. Each ``{"run": "host", "id", "name",
        "arguments", "concurrency_safe"}`` call is the host's to run (``arguments`` already checked
        against the schema; a ``concurrency_safe: false`` call runs alone); ``"run": "done"`` calls
        were answered by the library. Nothing is kept between the steps: the plan is plain JSON
        that may cross threads or processes. Pass it to :meth:`finish_calls` unchanged.
        :meth:`aexecute` is both steps with the host functions awaited in between."""
        return cast(
            Dict[str, Any],
            json.loads(self.prepare_calls_json(calls, api_format=api_format, include_assistant=include_assistant)),
        )

    def finish_calls_json(
        self, plan: Union[Mapping[str, Any], str, bytes], results: Union[Sequence[Mapping[str, Any]], str, bytes]
    ) -> bytes:
        """:meth:`finish_calls`' messages as the library's JSON text."""
        return self._out(_lib.tr_registry_finish_calls, _json("plan", plan), _json("results", results))

    def finish_calls(
        self, plan: Union[Mapping[str, Any], str, bytes], results: Union[Sequence[Mapping[str, Any]], str, bytes]
    ) -> List[Dict[str, Any]]:
        """The second step: the plan of :meth:`prepare_calls` and one result per host call, in any
        order (``{"id", "content"}``, ``{"id", "error"}`` or ``{"id", "unhandled": True}``), give
        the next turn's messages, exactly what :meth:`execute` answers for the same outcomes.

        Raises ToolRegistryError ``INVALID_ARGUMENT`` (naming the problem) for a malformed plan, a
        missing, duplicated or unknown result id, or a result of none of the three shapes.
        """
        return cast(List[Dict[str, Any]], json.loads(self.finish_calls_json(plan, results)))

    async def aexecute_json(
        self,
        calls: Union[Mapping[str, Any], Sequence[Any], str, bytes],
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> bytes:
        """:meth:`aexecute`'s answer as the library's JSON text (UTF-8), undecoded."""
        options = _options(api_format=api_format, include_assistant=include_assistant)
        return await _async.aexecute_json(
            self._table,
            lambda c, o: self._out(_lib.tr_registry_prepare_calls, c, o),
            lambda p, r: self._out(_lib.tr_registry_finish_calls, p, r),
            _json("calls", calls),
            options,
            parallel,
        )

    async def aexecute(
        self,
        calls: Union[Mapping[str, Any], Sequence[Any], str, bytes],
        *,
        api_format: Optional[APIFormat] = None,
        parallel: Optional[int] = None,
        include_assistant: Optional[bool] = None,
    ) -> List[Dict[str, Any]]:
        """:meth:`execute` for asyncio: the same calls, options and answer, byte for byte, with the
        host functions run on the caller's event loop.

        ``async def`` functions are awaited on this loop, concurrently (``asyncio.gather``); plain
        functions run in the loop's default executor (a thread pool), so they never block it. A
        call whose tool is ``concurrency_safe: false`` runs alone: after the calls before it end,
        before the calls after it start. ``parallel`` caps how many calls run at once (default: no
        cap). A function that raises fails its own call only, as in :meth:`execute`; one that is
        cancelled by something of its own fails with ``was cancelled``. Cancelling ``aexecute``
        cancels the running ``async def`` calls and raises CancelledError (plain functions already
        running in threads finish there; their results are dropped).
        """
        return cast(
            List[Dict[str, Any]],
            json.loads(
                await self.aexecute_json(
                    calls, api_format=api_format, parallel=parallel, include_assistant=include_assistant
                )
            ),
        )

    def disable(self, name: str, reason: Optional[str] = None) -> None:
        """Disables a tool or a namespace like ``set_enabled(name, False)``, recording why.

        The reason shows in :meth:`tools_status` and in the error result of a call of the tool; an
        empty reason is no reason (``None`` in :meth:`tools_status`). Enabling again clears it.
        """
        self._do(
            _lib.tr_registry_disable, _text("name", name), None if reason is None else _text("reason", reason)
        )

    # -- embeddings --

    def set_embedder(
        self,
        fn: Union[Callable[[List[str]], Sequence[Sequence[float]]], _async.AsyncEmbedder],
        dim: int,
        *,
        identity: Optional[str] = None,
        cache_path: Optional[str] = None,
    ) -> None:
        """Gives the registry a host embedder; it then ranks with ``hybrid`` by default.

        ``fn(texts)`` gets a list of ``str`` and returns one vector of ``dim`` floats per text
        (any sequences; the library normalizes them). The library calls it on its embedding
        thread for the catalog (batches of up to 64) and on the discovering thread for a query,
        with the GIL held; it may call back into this registry. Whatever it raises, or an answer
        of the wrong length, fails that batch only: those tools stay findable by words and
        :meth:`embedding_status` counts them as failed, with a warning. ``identity`` names the
        model for the vector cache kept at ``cache_path``. It replaces any embedder set before
        (which the library drops once no call of it runs); every enabled tool is embedded again.

        An ``async def fn`` (e.g. an HTTP embedding API's client) is never called by the library:
        the registry's embedder is then the host, *pulled*. ``await`` :meth:`aembed_pending` to
        embed the texts waiting (after registering tools), and use :meth:`Discoverer.adiscover`,
        which embeds the query with ``fn``; a plain ``discover`` then ranks by words.
        """
        if not callable(fn):
            raise TypeError(f"fn must be callable, not {type(fn).__name__}")
        doc: Dict[str, Any] = {"dim": dim}
        if identity is not None:
            doc["identity"] = identity
        if cache_path is not None:
            doc["cache_path"] = cache_path
        if _async.is_async(fn):
            doc["pull"] = True
            self._do(
                _lib.tr_registry_set_embedder, _json("options", doc), _native.EMBED_FN(), None, _native.FREE_FN()
            )
            self._table.embedder = cast(_async.AsyncEmbedder, fn)
            self._table.dim = dim
            return
        options = _json("options", doc)
        key = _host.keep(fn, "embed")
        try:
            h = self._handle.acquire("registry")
        except ValueError:
            _host.drop(key)
            raise
        self._embedders.append(key)
        err = c_void_p()
        try:
            # The library owns ``key`` from here on, success or not, and frees it once.
            status = _lib.tr_registry_set_embedder(
                h, options, _host.EMBED_TRAMPOLINE, key, _host.FREE_TRAMPOLINE, byref(err)
            )
        finally:
            self._handle.release()
        _check(status, err)
        self._table.embedder = None

    async def aembed_pending(self, batch_size: int = 64) -> int:
        """Embeds every text waiting for a vector with the async embedder of :meth:`set_embedder`
        and answers how many got one: takes batches of up to ``batch_size`` texts, awaits
        ``fn(texts)``, gives the vectors back, until no enabled tool waits (the library's embedding
        thread offers its batches one after another: an empty take while tools wait is polled
        again after a short sleep on the loop). Call it after registering or changing tools (tools
        not embedded yet are found by words meanwhile), or run it as a task. Whatever ``fn``
        raises, and a vector of the wrong length, with NaN or infinity, or all zeros, becomes an
        error for that text, which fails the library's batch it was in (up to 64 texts): those
        tools stay findable by words and :meth:`embedding_status` counts them as failed; a bad
        vector never fails the call. Cancelled, it answers the texts it holds with an error first.
        ``ValueError`` when the registry has no async embedder."""
        if not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError("batch_size must be a positive int")
        return await _async.embed_pending(
            self._table,
            lambda n: self._out(_lib.tr_registry_take_embedding_jobs, n),
            lambda doc: self._do(_lib.tr_registry_put_embeddings, doc),
            lambda: (self.embedding_status() or {"pending": 0})["pending"],
            batch_size,
        )

    def wait_embeddings(self, timeout: float) -> bool:
        """Waits up to ``timeout`` seconds for every enabled tool to have its vector (or to have
        failed); True when none is left waiting (at once without an embedder). Discovers never
        need it: a tool not embedded yet is found by words. The GIL is released while waiting."""
        if timeout < 0:
            raise ValueError("timeout must be >= 0")
        done = c_bool(False)
        self._do(_lib.tr_registry_wait_embeddings, int(timeout * 1000), byref(done))
        return bool(done.value)

    def embedding_status(self) -> Optional[EmbeddingStatus]:
        """What the embedder has done (see :class:`EmbeddingStatus`); None without one."""
        return cast(Optional[EmbeddingStatus], json.loads(self._out(_lib.tr_registry_embedding_status)))

    def enable_usage(self, path: Union[str, "os.PathLike[str]", None] = None) -> None:
        """Turns usage (co-use learning) on: the tool calls the library runs (``execute``, the two
        steps, conversations) are recorded as tasks, and discovers let their best hits bring in
        the tools they are used with (each such hit's ``brought_in`` says why). With a ``path`` the
        counts are loaded from that file and written back to it atomically (at most every 5
        seconds while tasks come, on :meth:`save_usage`, and on ``close``); a missing or corrupt
        file is an empty start (a corrupt one's warning is in :meth:`usage_status`). The same as
        ``Registry(usage={"path": ...})``."""
        p = None if path is None else _text("path", os.fspath(path))
        self._do(_lib.tr_registry_enable_usage, p)

    def record_usage(self, names: Iterable[str]) -> int:
        """Records one task: these tools were used together (for hosts that run tools themselves;
        it records whether or not usage is enabled). Names of no registered tool, repeats and
        empty names do not count, nor names past the first 32; returns how many counted (0:
        nothing was recorded). A name that is not a string is ``INVALID_ARGUMENT`` and records
        nothing."""
        counted = c_size_t(0)
        self._do(_lib.tr_registry_record_usage, _json("names", _names(names)), byref(counted))
        return int(counted.value)

    def save_usage(self) -> None:
        """Writes the usage file now, if there is one and something is unsaved (``INTERNAL`` when
        it cannot be written: the counts stay in memory)."""
        self._do(_lib.tr_registry_save_usage)

    def usage_status(self) -> UsageStatus:
        """What usage holds (see :class:`UsageStatus`)."""
        return cast(UsageStatus, json.loads(self._out(_lib.tr_registry_usage_status)))

    def tools_status(self) -> List[Dict[str, Any]]:
        """Every registered tool, disabled ones included, sorted by name: ``{"name", "namespace",
        "enabled", "reason", "deferred", "tags", "callable"}`` (``callable``: a call would reach a
        host function, its own or the fallback), plus ``"embedding"`` (an
        :data:`EmbeddingState`) when the registry has an embedder."""
        return cast(List[Dict[str, Any]], json.loads(self._out(_lib.tr_registry_tools_status)))

    def unregister(self, name: str) -> None:
        """Removes a tool by registered name (``NOT_FOUND`` if there is none).

        Unregistering ``discover_tools`` turns discovery off.
        """
        self._do(_lib.tr_registry_unregister, _text("name", name))

    def set_metadata(
        self,
        name: str,
        *,
        defer: Optional[bool] = None,
        tags: Optional[Iterable[str]] = None,
        search_hint: Optional[str] = None,
    ) -> None:
        """Replaces the given metadata fields of a tool; the others keep their values.

        ``tags`` replaces the tags (an empty sequence removes them). ``NOT_FOUND`` for an
        unknown tool.
        """
        fields: Dict[str, Any] = {}
        if defer is not None:
            fields["defer"] = defer
        if tags is not None:
            fields["tags"] = tags if isinstance(tags, (str, bytes)) else list(tags)
        if search_hint is not None:
            fields["search_hint"] = search_hint
        self._do(_lib.tr_registry_set_metadata, _text("name", name), _json("metadata", fields))

    def set_enabled(self, name: str, enabled: bool) -> None:
        """Enables or disables a tool, or every tool of a namespace.

        Disabled tools are left out of schemas, summaries and discovery and keep their place for
        when they come back. ``NOT_FOUND`` if ``name`` is neither a tool nor a namespace.
        """
        self._do(_lib.tr_registry_set_enabled, _text("name", name), bool(enabled))

    def get_schemas(
        self,
        *,
        include_deferred: bool = True,
        api_format: Optional[APIFormat] = None,
        tags: Optional[Iterable[str]] = None,
        exclude_tags: Optional[Iterable[str]] = None,
        names: Optional[Iterable[str]] = None,
        strict: bool = False,
    ) -> List[Dict[str, Any]]:
        """The schemas of the enabled tools sorted by name, ready to send to a model.

        ``discover_tools`` is included when discovery is on. ``include_deferred=False`` leaves
        deferred tools out (the usual choice with discovery on); ``tags`` keeps tools with any of
        these tags, ``exclude_tags`` drops tools with any. ``names`` selects exactly these tools in
        this order, disabled ones included, and ignores those filters (``NOT_FOUND`` naming the
        first unknown name). ``api_format`` is ``"openai-chat"`` (default), ``"openai-responses"``,
        ``"anthropic"`` or ``"gemini"``. ``strict=True`` gives the ``tools`` of
        :meth:`get_strict_schemas` (where a tool that cannot be strict comes non-strict: that
        method says which).
        """
        if strict:
            return self.get_strict_schemas(
                include_deferred=include_deferred,
                api_format=api_format,
                tags=tags,
                exclude_tags=exclude_tags,
                names=names,
            )["tools"]
        options = self._schema_options(include_deferred, api_format, tags, exclude_tags, names, False)
        return cast(List[Dict[str, Any]], json.loads(self._out(_lib.tr_registry_get_schemas, options)))

    def get_strict_schemas(
        self,
        *,
        include_deferred: bool = True,
        api_format: Optional[APIFormat] = None,
        tags: Optional[Iterable[str]] = None,
        exclude_tags: Optional[Iterable[str]] = None,
        names: Optional[Iterable[str]] = None,
    ) -> StrictSchemas:
        """:meth:`get_schemas` in OpenAI strict mode: ``{"tools": [...], "warnings": [{"name", "reason"}]}``.

        Every schema that can be strict is (``"strict": true``, ``additionalProperties: false``,
        every property required, optional ones nullable); a tool whose schema cannot be (an object
        taking arbitrary keys, a value without a type, ...) is still in ``tools``, non-strict, and
        named in ``warnings`` with the reason. With ``names``, both follow the order of
        ``names``. Only ``"openai-chat"`` (default) and ``"openai-responses"`` have a strict mode;
        another format raises ``INVALID_ARGUMENT``.
        """
        options = self._schema_options(include_deferred, api_format, tags, exclude_tags, names, True)
        return cast(StrictSchemas, json.loads(self._out(_lib.tr_registry_get_schemas, options)))

    @staticmethod
    def _schema_options(
        include_deferred: bool,
        api_format: Optional[APIFormat],
        tags: Optional[Iterable[str]],
        exclude_tags: Optional[Iterable[str]],
        names: Optional[Iterable[str]],
        strict: bool,
    ) -> Optional[bytes]:
        return _options(
            include_deferred=bool(include_deferred),
            api_format=api_format,
            tags=None if tags is None else list(tags),
            exclude_tags=None if exclude_tags is None else list(exclude_tags),
            names=None if names is None else _names(names),
            strict=True if strict else None,
        )

    def deferred_summaries(self) -> List[Summary]:
        """One line per enabled deferred tool, in registration order, for a system prompt."""
        return cast(List[Summary], json.loads(self._out(_lib.tr_registry_deferred_summaries)))

    # -- discovery --

    def enable_discovery(
        self,
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
        """Registers the built-in ``discover_tools`` with these ranking options (again: replaces them).

        Options left ``None`` keep the library's defaults. ``profile="reference"`` ranks exactly
        like the Python reference toolregistry 0.19.0; ``"enhanced"`` finds the right tool more
        often (stemming, identifier splitting, ...). ``field_weights`` overrides the weights of
        the named fields (``name`` 3.0, ``description`` 2.0, ``search_hint`` 2.0, ``tags`` 1.5,
        ``params`` 1.0). ``min_score_ratio`` drops hits below this fraction of the best (0.3);
        ``max_df_ratio`` drops query words found in at least this fraction of tools (0.5);
        ``k1``, ``b``, ``delta`` are the BM25+ parameters. ``intents=False`` ranks every query as
        one need; by default a query that holds several ("convert 100 dollars to euros and then
        tell me the weather in Paris") is searched whole and per need, so that one need's
        near-duplicates do not take every place, and each hit names its need (``intent``).
        ``usage=False`` ranks as if no usage were recorded (see :meth:`record_usage`).
        """
        options = _discovery_options(
            profile, field_weights, min_score_ratio, max_df_ratio, k1, b, delta, intents, usage
        )
        self._do(_lib.tr_registry_enable_discovery, _json("options", options) if options else None)

    def call(self, name: str, arguments: Union[Mapping[str, Any], str, bytes, None] = None) -> Any:
        """Runs a built-in tool as a model's tool call would, and returns its decoded JSON answer.

        ``arguments`` is the arguments object (a dict, or JSON text); ``None`` means ``{}``. For
        ``discover_tools`` that is ``{"query": str, "top_k"?: int, "api_format"?: str}`` and the
        answer is a list of :class:`DiscoverResult`. ``NOT_FOUND`` for an unknown built-in or when
        discovery is off.
        """
        args = _json("arguments", {} if arguments is None else arguments)
        return json.loads(self._out(_lib.tr_registry_call, _text("tool name", name), args))

    def discoverer(
        self,
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
    ) -> "Discoverer":
        """A :class:`Discoverer` on this registry with its own ranking options (as for
        :meth:`enable_discovery`). It follows every change to the registry and stays usable
        after the registry is closed."""
        return Discoverer(
            self,
            profile=profile,
            field_weights=field_weights,
            min_score_ratio=min_score_ratio,
            max_df_ratio=max_df_ratio,
            k1=k1,
            b=b,
            delta=delta,
            intents=intents,
            usage=usage,
        )

    def conversation(
        self,
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
    ) -> "Conversation":
        """A :class:`Conversation` on this registry with these options (see :class:`Conversation`).
        It follows every change to the registry and stays usable after the registry is closed."""
        return Conversation(
            self,
            options,
            api_format=api_format,
            mode=mode,
            search=search,
            loaded=loaded,
            strict=strict,
            defer_threshold_tokens=defer_threshold_tokens,
            summary_max_tokens=summary_max_tokens,
            discovery=discovery,
            top_k=top_k,
            max_tokens=max_tokens,
            namespaces=namespaces,
            tags=tags,
        )
