"""What the handle classes share: arguments in, answers out, and the native handle's lifetime.

``Registry``, ``Discoverer`` and ``Conversation`` all build on it; it imports none of them, so
``_conversation`` needs nothing from ``_registry``.
"""

from __future__ import annotations

import json
import threading
import weakref
from ctypes import c_void_p
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, TypeVar, Union

from . import _native
from ._async import HostTable
from ._errors import Status, ToolRegistryError

# ---- arguments in, answers out --------------------------------------------------------------


def _text(what: str, value: Union[str, bytes]) -> bytes:
    """A name or query as NUL-terminated UTF-8 for C.

    A ``str`` is encoded with ``surrogatepass``, so a lone surrogate reaches the library as the
    invalid UTF-8 it is and comes back as ``INVALID_UTF8``. A NUL inside would silently cut the
    string short on the C side, so it is refused here.
    """
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")
    if b"\0" in data:
        raise ToolRegistryError(
            Status.INVALID_ARGUMENT, f"{what} contains a NUL byte at offset {data.index(0)}"
        )
    return data


def _json(what: str, value: Any) -> bytes:
    """A JSON argument: ``str``/``bytes`` are sent as JSON text, anything else is encoded with ``json``.

    The library validates the document; a raw NUL is never valid JSON, so it is reported as such.
    """
    if isinstance(value, str):
        data = value.encode("utf-8", "surrogatepass")
    elif isinstance(value, (bytes, bytearray)):
        data = bytes(value)
    else:
        data = json.dumps(value, ensure_ascii=False).encode("utf-8", "surrogatepass")
    if b"\0" in data:
        raise ToolRegistryError(Status.INVALID_JSON, f"{what} contains a NUL byte at offset {data.index(0)}")
    return data


def _check(status: int, err: c_void_p) -> None:
    """Raises ToolRegistryError for a failed status, taking (and freeing) its message."""
    if status != 0:
        message = _native.take_string(err)
        raise ToolRegistryError(status, message.decode("utf-8", "replace") if message else "")
    # The contract says err_out is untouched on success; free it anyway should that change.
    _native.take_string(err)


def _names(names: Iterable[str]) -> List[str]:
    """A list of tool names; one bare string is refused rather than read as its letters."""
    if isinstance(names, (str, bytes)):
        raise TypeError("names must be a sequence of tool names, not a single string")
    return list(names)


def _options(**fields: Any) -> Optional[bytes]:
    """Options JSON from the fields that are set; None (NULL: the defaults) when none is."""
    doc = {k: v for k, v in fields.items() if v is not None}
    return _json("options", doc) if doc else None


def _discovery_options(
    profile: Optional[str],
    field_weights: Optional[Mapping[str, float]],
    min_score_ratio: Optional[float],
    max_df_ratio: Optional[float],
    k1: Optional[float],
    b: Optional[float],
    delta: Optional[float],
    intents: Optional[bool] = None,
    usage: Optional[bool] = None,
) -> Dict[str, Any]:
    fields = {
        "profile": profile,
        "field_weights": dict(field_weights) if field_weights is not None else None,
        "min_score_ratio": min_score_ratio,
        "max_df_ratio": max_df_ratio,
        "k1": k1,
        "b": b,
        "delta": delta,
        "intents": intents,
        "usage": usage,
    }
    return {k: v for k, v in fields.items() if v is not None}


class _Handle:
    """A native handle shared by calls in flight and freed once, by ``close`` or the collector.

    Calls hold it for their duration (``acquire``/``release``); ``close`` stops new calls, waits
    for those in flight, then frees it, so a handle is never freed under a running call. If the
    owner is garbage-collected unclosed, ``weakref.finalize`` frees it as a safety net.
    """

    __slots__ = ("_ptr", "_cond", "_active", "_finalizer", "__weakref__")

    def __init__(self, owner: object, ptr: Any, free: Callable[[Any], None]) -> None:
        self._ptr = ptr
        self._cond = threading.Condition(threading.Lock())
        self._active = 0
        self._finalizer = weakref.finalize(owner, free, ptr)

    def acquire(self, kind: str) -> Any:
        with self._cond:
            if self._ptr is None:
                raise ValueError(f"operation on a closed {kind}")
            self._active += 1
            return self._ptr

    def release(self) -> None:
        with self._cond:
            self._active -= 1
            if self._active == 0:
                self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._ptr is None

    def close(self) -> None:
        with self._cond:
            if self._ptr is None:
                return
            self._ptr = None
            while self._active:
                self._cond.wait()
        self._finalizer()


_Self = TypeVar("_Self", bound="_Owner")


class _Owner:
    """What every class that owns a library handle shares: ``close()``, ``closed``, use as a
    context manager, and a repr that says whether it is closed."""

    _handle: _Handle

    def close(self) -> None:
        """Frees the library object. Waits for calls in flight; calling it again does nothing."""
        self._handle.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._handle.closed

    def __enter__(self: _Self) -> _Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<toolregistry_rs.{type(self).__name__}{' (closed)' if self.closed else ''}>"


class _RegistryBase(_Owner):
    """The part of :class:`~toolregistry_rs.Registry` a :class:`~toolregistry_rs.Conversation`
    needs: its native handle, and the host functions ``aexecute`` runs. ``Registry`` is the one
    subclass."""

    _table: HostTable
