"""Host functions: Python callables run by the library for tool calls (``tr_tool_fn``) and
host embedders (``tr_embed_fn``).

The library gets one C trampoline for every host function, and a small integer as ``user_data``
naming the Python callable in ``_functions``. The library frees ``user_data`` through
``tr_free_fn`` exactly once (when the tool is unregistered or replaced, the registry freed, or a
registration fails), which drops the callable. The two ctypes trampolines live as long as the
module, so no C pointer ever outlives its Python object.

A call runs the callable with the GIL held (ctypes takes it, also on the library's own threads);
nothing escapes into C: a :class:`ToolError` fails the call with its message, any other exception
fails it with ``the host function of "NAME" panicked: MESSAGE`` (the wording every binding uses),
and a result becomes the text the model sees (a ``str`` as is, anything else as JSON). A
KeyboardInterrupt or SystemExit fails its call too, then is raised again by ``execute`` once the
batch is over.

A host function that answers an awaitable (an ``async def`` function, or a plain one returning a
coroutine) is awaited to completion with ``asyncio.run`` on a fresh loop when no event loop runs
in the thread that called ``execute``; when one does, the call fails with a message naming
``aexecute`` (blocking that loop to run the coroutine elsewhere would deadlock on anything bound to
it). The model never reads a coroutine's repr.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import inspect
import itertools
import json
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple, cast

from . import _native

_lib = _native.lib

#: user_data key -> (callable, mode). Modes: "kwargs" fn(**arguments), "raw" fn(arguments_json),
#: "fallback" fn(tool_name, arguments), "fallback_raw" fn(tool_name, arguments_json), "embed"
#: fn(texts) -> vectors (a host embedder, ``tr_embed_fn``).
_functions: Dict[int, Tuple[Callable[..., Any], str]] = {}
_keys = itertools.count(1)


class ToolError(Exception):
    """Raise it in a host function to fail the call with exactly this message.

    The model reads ``Error: <message>`` (or the provider's error shape); the batch goes on.
    """


#: KeyboardInterrupt / SystemExit raised inside host functions, for ``reraise_interrupt``.
_interrupts: List[BaseException] = []


def reraise_interrupt() -> None:
    """Raises a KeyboardInterrupt or SystemExit a host function got during the last batch."""
    if _interrupts:
        pending = _interrupts.pop(0)
        _interrupts.clear()
        raise pending


def keep(fn: Callable[..., Any], mode: str) -> int:
    """Stores a callable for the library and returns its ``user_data`` key."""
    key = next(_keys)
    _functions[key] = (fn, mode)
    return key


def drop(key: int) -> None:
    """Forgets a callable the library never received."""
    _functions.pop(key, None)


def _content(result: Any) -> bytes:
    text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
    return text.encode("utf-8", "surrogatepass")


def _fail(call: Any, message: str) -> None:
    _lib.tr_call_fail(call, message.replace("\0", "\\0").encode("utf-8", "replace"))


#: Per thread: set while this thread is inside a sync ``execute`` (its value: whether an event loop
#: runs in it). The library's own threads (``parallel``) never have it set.
_batch = threading.local()
#: How many sync ``execute`` calls are in progress from a thread with a running event loop. A
#: library thread cannot tell which ``execute`` it serves, so it refuses coroutines while any is.
_loop_batches = 0
_loop_batches_lock = threading.Lock()


def running_loop() -> Optional[asyncio.AbstractEventLoop]:
    """The event loop running in this thread, if any."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


@contextlib.contextmanager
def sync_batch() -> Iterator[None]:
    """Marks a sync ``execute`` in progress on this thread, so that host functions answering
    awaitables know whether they may start a loop of their own."""
    global _loop_batches
    in_loop = running_loop() is not None
    outer = getattr(_batch, "in_loop", None)
    _batch.in_loop = in_loop
    if in_loop:
        with _loop_batches_lock:
            _loop_batches += 1
    try:
        yield
    finally:
        _batch.in_loop = outer
        if in_loop:
            with _loop_batches_lock:
                _loop_batches -= 1


async def _awaited(value: Any) -> Any:
    return await value


def resolve_awaitable(name: str, result: Any) -> Any:
    """What a sync ``execute`` makes of a host function's answer: an awaitable is run to completion
    on a fresh loop, or refused (see the module) when an event loop would be blocked by it."""
    if not inspect.isawaitable(result):
        return result
    in_loop = getattr(_batch, "in_loop", None)
    blocked = running_loop() is not None or (in_loop is None and _loop_batches > 0) or bool(in_loop)
    if blocked:
        if inspect.iscoroutine(result):
            result.close()  # never awaited on purpose: no RuntimeWarning
        raise ToolError(
            f'the host function of "{name}" is async and an event loop is running in the thread '
            f"that called execute: use `await registry.aexecute(...)` (or `await conversation.aexecute(...)`)"
        )
    return asyncio.run(_awaited(result))


def _run(user_data: Optional[int], tool_name: bytes, args_json: bytes, call: Any) -> None:
    name = tool_name.decode("utf-8", "replace")
    try:
        entry = _functions.get(user_data or 0)
        if entry is None:
            _fail(call, f'the host function of "{name}" is gone')
            return
        fn, mode = entry
        if mode == "kwargs":
            result = fn(**json.loads(args_json))
        elif mode == "raw":
            result = fn(args_json.decode("utf-8"))
        elif mode == "fallback":
            result = fn(name, json.loads(args_json))
        else:
            result = fn(name, args_json.decode("utf-8"))
        content = _content(resolve_awaitable(name, result))
        if b"\0" in content:
            _fail(call, f'the host function of "{name}" returned text with a NUL character')
            return
        _lib.tr_call_return(call, content)
    except ToolError as e:
        _fail(call, str(e))
    except BaseException as e:  # nothing may unwind into the library
        # The message, or the exception's type when it has none (a bare KeyboardInterrupt).
        _fail(call, f'the host function of "{name}" panicked: {str(e) or type(e).__name__}')
        if not isinstance(e, Exception):
            # KeyboardInterrupt, SystemExit: raised again in the caller once the batch returns.
            _interrupts.append(e)


def _free(user_data: Optional[int]) -> None:
    _functions.pop(user_data or 0, None)


#: Set while an embedder callable runs on this thread (``Registry.close`` must not wait then).
_in_embedder = threading.local()


def wait_released(keys: List[int], timeout: float = 5.0) -> None:
    """Waits (GIL released) until the library has dropped these embedders.

    The library lets go of an embedder once no call of it runs, possibly on its embedding thread a
    moment after ``tr_registry_free`` returns; a ctypes callback that arrives while the
    interpreter finalizes aborts the process, so ``Registry.close`` waits for it here.
    """
    if getattr(_in_embedder, "active", False):
        return
    deadline = time.monotonic() + timeout
    while any(k in _functions for k in keys) and time.monotonic() < deadline:
        time.sleep(0.001)


def _fail_embed(error: Optional[int], error_cap: int, message: str) -> int:
    """Writes a NUL-terminated message (cut to ``error_cap``) into the library's buffer; returns 1."""
    if error and error_cap > 0:
        data = message.replace("\0", "\\0").encode("utf-8", "replace")[: error_cap - 1]
        # A cut may split a UTF-8 sequence; the library reads the message lossily.
        ctypes.memmove(error, data + b"\0", len(data) + 1)
    return 1


def _embed(
    user_data: Optional[int],
    texts: Any,
    count: int,
    vectors: Optional[int],
    dim: int,
    error: Optional[int],
    error_cap: int,
) -> int:
    """``tr_embed_fn``: runs the embedder callable; nothing it raises reaches the library."""
    _in_embedder.active = True
    try:
        entry = _functions.get(user_data or 0)
        if entry is None:
            return _fail_embed(error, error_cap, "the embedder is gone")
        fn = entry[0]
        batch = [cast(bytes, texts[i]).decode("utf-8", "surrogatepass") for i in range(count)]
        result = list(fn(batch))
        if len(result) != count:
            return _fail_embed(error, error_cap, f"the embedder returned {len(result)} vectors for {count} texts")
        out = (ctypes.c_float * (count * dim)).from_address(cast(int, vectors))
        for i, row in enumerate(result):
            values: List[Any] = [float(x) for x in row]
            if len(values) != dim:
                return _fail_embed(
                    error, error_cap, f"the embedder returned a vector of {len(values)} numbers, expected {dim}"
                )
            out[i * dim : (i + 1) * dim] = values
        return 0
    except BaseException as e:  # nothing may unwind into the library
        if not isinstance(e, Exception):
            _interrupts.append(e)
        return _fail_embed(error, error_cap, f"the embedder raised {type(e).__name__}: {e}")
    finally:
        _in_embedder.active = False


#: The C side of every host function; alive as long as the module.
TOOL_TRAMPOLINE = _native.TOOL_FN(_run)
FREE_TRAMPOLINE = _native.FREE_FN(_free)
#: The C side of every host embedder.
EMBED_TRAMPOLINE = _native.EMBED_FN(_embed)
#: A NULL ``tr_tool_fn``, to remove the fallback.
NO_FUNCTION = _native.TOOL_FN()
