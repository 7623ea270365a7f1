"""The error type: one exception class carrying the library's status code."""

from __future__ import annotations

import enum


class Status(enum.IntEnum):
    """``tr_status``: the outcome of a C call. The values are part of the ABI and never change."""

    OK = 0
    #: A required pointer argument was NULL (the Python API never passes one).
    NULL_ARGUMENT = 1
    #: A string argument was not valid UTF-8 (e.g. a ``str`` with a lone surrogate).
    INVALID_UTF8 = 2
    #: A JSON argument was malformed or nested too deeply.
    INVALID_JSON = 3
    #: Well-formed input with wrong content: a missing name, a wrong type, a value out of range,
    #: an empty query, ``top_k`` 0.
    INVALID_ARGUMENT = 4
    #: An unknown tool, namespace or built-in name.
    NOT_FOUND = 5
    #: An input over a documented size limit.
    TOO_LARGE = 6
    #: A broken invariant, such as a lock poisoned by an earlier panic.
    INTERNAL = 7
    #: A panic was caught at the boundary.
    PANIC = 8


class ToolRegistryError(Exception):
    """A failure reported by the library (or refused before the call, for the same reason).

    ``status`` is the :class:`Status` (a plain ``int`` for a code this version does not know),
    ``message`` the library's one-line message, which says what was wrong and where::

        try:
            registry.unregister("nope")
        except ToolRegistryError as e:
            if e.status == Status.NOT_FOUND: ...
    """

    def __init__(self, status: int, message: str) -> None:
        try:
            self.status: Status | int = Status(status)
        except ValueError:
            self.status = status
        self.message = message
        super().__init__(message or self.status_name)

    @property
    def status_name(self) -> str:
        """The C name of the status, e.g. ``"TR_STATUS_NOT_FOUND"``."""
        if isinstance(self.status, Status):
            return f"TR_STATUS_{self.status.name}"
        return "TR_STATUS_UNKNOWN"

    def __repr__(self) -> str:
        return f"ToolRegistryError({self.status_name}, {self.message!r})"
