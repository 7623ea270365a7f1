"""Tool calls awaited on asyncio, and host embedders pulled by the host: the async half of the binding.

``aexecute`` is the library's two-step tool loop (``tr_*_prepare_calls``, then the host runs the
calls, then ``tr_*_finish_calls``) with the middle step done here, on the caller's event loop:
``async def`` functions are awaited there, concurrently; plain functions run in the loop's default
executor (a thread pool), so they never block the loop. Nothing is kept in the library between the
two steps: the plan is JSON text handed back unchanged.

An ``async def`` embedder is never called by the library (it cannot await): the registry's embedder
is the host, *pulled* (``{"pull": true}``), and ``aembed_pending`` takes the texts waiting for
vectors, awaits the embedder and puts the vectors back.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import math
from typing import Any, Awaitable, Callable, Dict, List, Optional, Sequence, Tuple

from . import _host
from ._host import ToolError

#: ``prepare(calls_json, options_json) -> plan_json`` / ``finish(plan_json, results_json) -> messages_json``.
Step = Callable[[bytes, Optional[bytes]], bytes]
Finish = Callable[[bytes, bytes], bytes]
#: An async host embedder: ``await fn(texts)`` gives one vector per text.
AsyncEmbedder = Callable[[List[str]], Awaitable[Sequence[Sequence[float]]]]


def is_async(fn: Any) -> bool:
    """Whether calling ``fn`` gives a coroutine: an ``async def`` function (also through
    ``functools.partial``) or an object whose ``__call__`` is one."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None))


class HostTable:
    """The Python side of one registry's host functions, by registered tool name, for the calls
    ``aexecute`` runs itself; shared by the registry's conversations and discoverers.

    It holds ``_host`` keys, not callables: the library frees a key when it drops the function
    (tool unregistered or replaced, fallback replaced), so a dropped function is never run here
    either.
    """

    __slots__ = ("tools", "fallback", "embedder", "dim")

    def __init__(self) -> None:
        self.tools: Dict[str, int] = {}
        self.fallback: Optional[int] = None
        #: The async embedder of a pull-model registry, else None.
        self.embedder: Optional[AsyncEmbedder] = None
        self.dim = 0

    def lookup(self, name: str) -> Optional[Tuple[Callable[..., Any], str]]:
        """The callable and mode (see ``_host``) that runs a call of ``name``: its own, else the
        fallback, else None."""
        key = self.tools.get(name)
        entry = _host._functions.get(key) if key is not None else None
        if entry is None and self.fallback is not None:
            entry = _host._functions.get(self.fallback)
        return entry


_decoder = json.JSONDecoder()
_WS = " \t\n\r"


def _members(text: str, i: int) -> List[Tuple[Any, int, int]]:
    """The (key, start, end) of each member of the JSON object at ``text[i]`` (or the (index,
    start, end) of each item of an array), as spans of the text itself."""
    out: List[Tuple[Any, int, int]] = []
    is_object = text[i] == "{"
    i += 1
    n = 0
    while True:
        while text[i] in _WS:
            i += 1
        if text[i] in "}]":
            return out
        if is_object:
            key, i = _decoder.raw_decode(text, i)
            while text[i] in _WS:
                i += 1
            i += 1  # the colon
            while text[i] in _WS:
                i += 1
        else:
            key, n = n, n + 1
        _, end = _decoder.raw_decode(text, i)
        out.append((key, i, end))
        i = end
        while text[i] in _WS:
            i += 1
        if text[i] == ",":
            i += 1


def raw_arguments(plan: str) -> Dict[str, str]:
    """Each host call's ``arguments`` as the library wrote them in the plan (its compact JSON, the
    exact text ``execute`` hands a raw-mode function), by call id: re-encoding the parsed object
    would spell some numbers differently (``1e+20`` for ``1e20``)."""
    out: Dict[str, str] = {}
    for key, start, _ in _members(plan, plan.index("{")):
        if key != "calls":
            continue
        for _, c_start, _ in _members(plan, start):
            fields = {k: (a, b) for k, a, b in _members(plan, c_start)}
            if "id" in fields and "arguments" in fields:
                cid = json.loads(plan[fields["id"][0] : fields["id"][1]])
                a, b = fields["arguments"]
                out[str(cid)] = plan[a:b]
    return out


def _cancelling() -> bool:
    """Whether the current task is being cancelled from outside (3.11+ can tell; before, any
    CancelledError is taken for that)."""
    task = asyncio.current_task()
    cancelling = getattr(task, "cancelling", None)
    return True if cancelling is None else bool(cancelling())


async def _invoke(fn: Callable[..., Any], args: Tuple[Any, ...], kwargs: Dict[str, Any]) -> Any:
    if is_async(fn):
        result = await fn(*args, **kwargs)
    else:
        loop = asyncio.get_running_loop()
        # As asyncio.to_thread: the caller's context variables follow the call into the thread.
        ctx = contextvars.copy_context()
        result = await loop.run_in_executor(None, functools.partial(ctx.run, fn, *args, **kwargs))
    while inspect.isawaitable(result):  # a plain function that answered a coroutine
        result = await result
    return result


async def _run_call(
    table: HostTable,
    call: Dict[str, Any],
    raw: Callable[[str], str],
    limit: Optional[asyncio.Semaphore],
    interrupts: List[BaseException],
) -> Dict[str, Any]:
    """One host call, as a result for finish; nothing it raises escapes but a cancellation of the
    whole ``aexecute``."""
    cid = call["id"]
    name = str(call["name"])
    entry = table.lookup(name)
    if entry is None:
        return {"id": cid, "unhandled": True}
    fn, mode = entry
    arguments = call.get("arguments", {})
    if mode == "kwargs":
        args: Tuple[Any, ...] = ()
        kwargs: Dict[str, Any] = dict(arguments)
    elif mode == "raw":
        args, kwargs = (raw(cid),), {}
    elif mode == "fallback":
        args, kwargs = (name, arguments), {}
    else:
        args, kwargs = (name, raw(cid)), {}
    try:
        if limit is None:
            result = await _invoke(fn, args, kwargs)
        else:
            async with limit:
                result = await _invoke(fn, args, kwargs)
        content = _host._content(result)
        if b"\0" in content:
            return {"id": cid, "error": f'the host function of "{name}" returned text with a NUL character'}
        try:
            return {"id": cid, "content": content.decode("utf-8")}
        except UnicodeDecodeError as e:  # a lone surrogate: execute fails such a call too
            return {"id": cid, "error": f"the host function gave an unusable result: content: {e}"}
    except ToolError as e:
        return {"id": cid, "error": str(e)}
    except asyncio.CancelledError:
        if _cancelling():
            raise
        # The function was cancelled by something of its own (a timeout inside, a task it awaited).
        return {"id": cid, "error": f'the host function of "{name}" was cancelled'}
    except Exception as e:
        return {"id": cid, "error": f'the host function of "{name}" panicked: {str(e) or type(e).__name__}'}
    except BaseException as e:  # KeyboardInterrupt, SystemExit: raised again once the batch is over
        interrupts.append(e)
        return {"id": cid, "error": f'the host function of "{name}" panicked: {str(e) or type(e).__name__}'}


def segments(calls: List[Dict[str, Any]]) -> List[List[Dict[str, Any]]]:
    """The host calls in runs that may overlap: consecutive ``concurrency_safe`` calls together,
    each unsafe call alone, in plan order."""
    out: List[List[Dict[str, Any]]] = []
    for call in calls:
        if call.get("concurrency_safe", True) is False:
            out.append([call])
            out.append([])
        elif out:
            out[-1].append(call)
        else:
            out.append([call])
    return [s for s in out if s]


async def run_plan(table: HostTable, plan: bytes, parallel: Optional[int]) -> Tuple[bytes, List[BaseException]]:
    """Runs the plan's host calls on the running loop and answers finish's results JSON."""
    text = plan.decode("utf-8")
    doc = json.loads(text)
    calls = [c for c in doc.get("calls", []) if c.get("run") == "host"]
    spans: List[Dict[str, str]] = []

    def raw(cid: str) -> str:
        if not spans:
            spans.append(raw_arguments(text))
        return spans[0][str(cid)]

    limit = asyncio.Semaphore(parallel) if parallel else None
    interrupts: List[BaseException] = []
    results: List[Dict[str, Any]] = []
    for run in segments(calls):
        if len(run) == 1:
            results.append(await _run_call(table, run[0], raw, limit, interrupts))
        else:
            # gather cancels every call of the run when aexecute is cancelled.
            results.extend(await asyncio.gather(*(_run_call(table, c, raw, limit, interrupts) for c in run)))
    # Messages are the host's text: a lone surrogate in one becomes U+FFFD, never a failed batch.
    return json.dumps(results, ensure_ascii=False).encode("utf-8", "replace"), interrupts


async def aexecute_json(
    table: HostTable,
    prepare: Step,
    finish: Finish,
    calls: bytes,
    options: Optional[bytes],
    parallel: Optional[int],
) -> bytes:
    """prepare, the host calls on this loop, finish: the messages JSON of the next turn."""
    if parallel is not None and (not isinstance(parallel, int) or parallel < 1):
        raise ValueError("parallel must be a positive int or None")
    plan = prepare(calls, options)
    results, interrupts = await run_plan(table, plan, parallel)
    answer = finish(plan, results)
    if interrupts:
        raise interrupts[0]
    return answer


# -- host embedders on the pull model --------------------------------------------------------


def _vector_problem(row: Any, dim: int) -> Tuple[Optional[List[float]], Optional[str]]:
    """The vector as floats, or why the library would refuse it (so one bad vector fails its own
    text instead of the whole batch)."""
    try:
        values = [float(x) for x in row]
    except (TypeError, ValueError) as e:
        return None, f"the embedder returned a vector that is not numbers: {e}"
    if len(values) != dim:
        return None, f"the embedder returned a vector of {len(values)} numbers, expected {dim}"
    if not all(math.isfinite(v) for v in values):
        return None, "the embedder returned a vector with NaN or infinity"
    if not any(values):
        return None, "the embedder returned a vector of zeros"
    return values, None


async def embed_pending(
    table: HostTable,
    take: Callable[[int], bytes],
    put: Callable[[bytes], None],
    pending: Callable[[], int],
    batch_size: int,
) -> int:
    """Takes the waiting texts in batches, awaits the embedder, puts the vectors (or errors) back,
    until no enabled tool waits for its vector; answers how many texts got a vector.

    The library's embedding thread offers one batch at a time and makes the next one after the
    last vector of the previous came back, so an empty take while tools are pending means "soon":
    it polls, sleeping on the loop (1 ms, doubling to 20 ms) in between.
    """
    fn = table.embedder
    if fn is None:
        raise ValueError("the registry has no async embedder: set one with set_embedder(async_fn, dim)")
    embedded = 0
    nap = 0.001
    while True:
        jobs = json.loads(take(batch_size))
        if not jobs:
            if pending() == 0:
                return embedded
            await asyncio.sleep(nap)
            nap = min(nap * 2, 0.02)
            continue
        nap = 0.001
        ids = [j["id"] for j in jobs]
        texts = [j["text"] for j in jobs]
        out: List[Dict[str, Any]] = []
        try:
            vectors = list(await fn(texts))
        except asyncio.CancelledError:
            # The taken texts get an answer, so the library's batch does not wait for ever.
            put(json.dumps([{"id": i, "error": "the embedder was cancelled"} for i in ids]).encode())
            raise
        except Exception as e:
            message = f"the embedder raised {type(e).__name__}: {e}"
            out = [{"id": i, "error": message} for i in ids]
        else:
            if len(vectors) != len(texts):
                message = f"the embedder returned {len(vectors)} vectors for {len(texts)} texts"
                out = [{"id": i, "error": message} for i in ids]
            else:
                for i, row in zip(ids, vectors):
                    values, problem = _vector_problem(row, table.dim)
                    if problem is None:
                        out.append({"id": i, "vector": values})
                        embedded += 1
                    else:
                        out.append({"id": i, "error": problem})
        put(json.dumps(out).encode())


async def query_vector(table: HostTable, query: str) -> Optional[List[float]]:
    """The async embedder's vector of ``query``; None (rank by words, as the library does when its
    own embedder fails on a query) when there is no such embedder or it fails."""
    fn = table.embedder
    if fn is None:
        return None
    try:
        rows = list(await fn([query]))
    except asyncio.CancelledError:
        raise
    except Exception:
        return None
    if len(rows) != 1:
        return None
    values, problem = _vector_problem(rows[0], table.dim)
    return values if problem is None else None
