"""The raw C ABI: every ctypes declaration of include/toolregistry.h, and nothing else.

This is the only module that declares C types and functions. The public classes in ``_registry``
call the functions declared here; ``_host`` turns Python callables into the ``tr_tool_fn``
callbacks declared here.

Conventions mirrored from the header: every fallible function returns ``tr_status`` (int32) and
takes ``char **err_out`` last; every returned ``char *`` is declared ``c_void_p`` (never
``c_char_p``, which would copy the text and lose the pointer) so the caller can free it with
``tr_string_free``. ``ctypes.CDLL`` releases the GIL around each call, so discovers from several
Python threads run in parallel inside the library.
"""

from __future__ import annotations

import ctypes
import os
import sys
from ctypes import POINTER, c_bool, c_char_p, c_int32, c_size_t, c_uint64, c_void_p
from pathlib import Path
from typing import Any

#: Environment variable naming a libtoolregistry shared library to load instead of the one
#: shipped inside the package (for trying a locally built library without reinstalling).
LIBRARY_ENV = "TOOLREGISTRY_LIB"


def _library_name() -> str:
    if sys.platform == "darwin":
        return "libtoolregistry.dylib"
    if sys.platform == "win32":
        return "toolregistry.dll"
    return "libtoolregistry.so"


class tr_registry(ctypes.Structure):
    """Opaque ``tr_registry``; only ever used through a pointer."""


class tr_discoverer(ctypes.Structure):
    """Opaque ``tr_discoverer``; only ever used through a pointer."""


class tr_conversation(ctypes.Structure):
    """Opaque ``tr_conversation``; only ever used through a pointer."""


class tr_call(ctypes.Structure):
    """Opaque ``tr_call``: one tool call in flight, valid only inside the callback that got it."""


RegistryPtr = POINTER(tr_registry)
DiscovererPtr = POINTER(tr_discoverer)
ConversationPtr = POINTER(tr_conversation)
CallPtr = POINTER(tr_call)

#: ``tr_tool_fn``: ``void (*)(void *user_data, const char *tool_name, const char *args_json,
#: tr_call *call)``. ctypes takes the GIL around the Python body whatever thread calls it (the
#: library's own threads under ``{"parallel": N}`` too), and the GIL is released again on return.
TOOL_FN = ctypes.CFUNCTYPE(None, c_void_p, c_char_p, c_char_p, CallPtr)
#: ``tr_free_fn``: ``void (*)(void *user_data)``.
FREE_FN = ctypes.CFUNCTYPE(None, c_void_p)
#: ``tr_embed_fn``: ``int32_t (*)(void *user_data, const char *const *texts, size_t count,
#: float *vectors, size_t dim, char *error, size_t error_cap)``. ``vectors`` and ``error`` are
#: declared as addresses: the trampoline writes into the library's buffers in place.
EMBED_FN = ctypes.CFUNCTYPE(c_int32, c_void_p, POINTER(c_char_p), c_size_t, c_void_p, c_size_t, c_void_p, c_size_t)
#: ``char **`` out-parameter for library-owned strings (outputs and ``err_out``).
StringOut = POINTER(c_void_p)


def _declare(lib: ctypes.CDLL) -> None:
    """Sets argtypes and restype of every exported function, so ctypes checks each call."""

    def fn(name: str, restype: Any, *argtypes: Any) -> None:
        f = getattr(lib, name)
        f.restype = restype
        f.argtypes = list(argtypes)

    fn("tr_version", c_char_p)
    fn("tr_status_name", c_char_p, c_int32)
    fn("tr_string_free", None, c_void_p)

    fn("tr_registry_new", c_int32, c_char_p, POINTER(RegistryPtr), StringOut)
    fn("tr_registry_free", None, RegistryPtr)
    fn("tr_registry_register", c_int32, RegistryPtr, c_char_p, StringOut, StringOut)
    fn("tr_registry_unregister", c_int32, RegistryPtr, c_char_p, StringOut)
    fn("tr_registry_set_metadata", c_int32, RegistryPtr, c_char_p, c_char_p, StringOut)
    fn("tr_registry_set_enabled", c_int32, RegistryPtr, c_char_p, c_bool, StringOut)
    fn("tr_registry_get_schemas", c_int32, RegistryPtr, c_char_p, StringOut, StringOut)
    fn("tr_registry_deferred_summaries", c_int32, RegistryPtr, StringOut, StringOut)
    fn("tr_registry_enable_discovery", c_int32, RegistryPtr, c_char_p, StringOut)
    fn("tr_registry_call", c_int32, RegistryPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_registry_disable", c_int32, RegistryPtr, c_char_p, c_char_p, StringOut)
    fn("tr_registry_tools_status", c_int32, RegistryPtr, StringOut, StringOut)
    fn("tr_registry_enable_usage", c_int32, RegistryPtr, c_char_p, StringOut)
    fn("tr_registry_record_usage", c_int32, RegistryPtr, c_char_p, POINTER(c_size_t), StringOut)
    fn("tr_registry_save_usage", c_int32, RegistryPtr, StringOut)
    fn("tr_registry_usage_status", c_int32, RegistryPtr, StringOut, StringOut)

    fn("tr_call_return", c_int32, CallPtr, c_char_p)
    fn("tr_call_fail", c_int32, CallPtr, c_char_p)
    fn(
        "tr_registry_register_callable",
        c_int32,
        RegistryPtr,
        c_char_p,
        TOOL_FN,
        c_void_p,
        FREE_FN,
        StringOut,
        StringOut,
    )
    fn("tr_registry_set_fallback", c_int32, RegistryPtr, TOOL_FN, c_void_p, FREE_FN, StringOut)
    fn("tr_registry_execute", c_int32, RegistryPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_registry_prepare_calls", c_int32, RegistryPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_registry_finish_calls", c_int32, RegistryPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_registry_set_embedder", c_int32, RegistryPtr, c_char_p, EMBED_FN, c_void_p, FREE_FN, StringOut)
    fn("tr_registry_take_embedding_jobs", c_int32, RegistryPtr, c_size_t, StringOut, StringOut)
    fn("tr_registry_put_embeddings", c_int32, RegistryPtr, c_char_p, StringOut)
    fn("tr_registry_wait_embeddings", c_int32, RegistryPtr, c_uint64, POINTER(c_bool), StringOut)
    fn("tr_registry_embedding_status", c_int32, RegistryPtr, StringOut, StringOut)

    fn("tr_conversation_new", c_int32, RegistryPtr, c_char_p, POINTER(ConversationPtr), StringOut)
    fn("tr_conversation_tools", c_int32, ConversationPtr, StringOut, StringOut)
    fn("tr_conversation_execute", c_int32, ConversationPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_conversation_prepare_calls", c_int32, ConversationPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_conversation_finish_calls", c_int32, ConversationPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_conversation_reveal", c_int32, ConversationPtr, c_char_p, StringOut)
    fn("tr_conversation_loaded", c_int32, ConversationPtr, StringOut, StringOut)
    fn("tr_conversation_free", None, ConversationPtr)

    fn("tr_discoverer_new", c_int32, RegistryPtr, c_char_p, POINTER(DiscovererPtr), StringOut)
    fn("tr_discoverer_free", None, DiscovererPtr)
    fn("tr_discoverer_discover", c_int32, DiscovererPtr, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_discoverer_explain", c_int32, DiscovererPtr, c_char_p, c_char_p, c_char_p, StringOut, StringOut)
    fn("tr_discoverer_rebuild_index", c_int32, DiscovererPtr, StringOut)


def library_path() -> Path:
    """The shared library this package loads: ``$TOOLREGISTRY_LIB`` if set, else the one in the package."""
    override = os.environ.get(LIBRARY_ENV)
    if override:
        return Path(override)
    return Path(__file__).resolve().parent / _library_name()


def _load() -> ctypes.CDLL:
    path = library_path()
    try:
        lib = ctypes.CDLL(str(path))
    except OSError as e:
        raise ImportError(
            f"toolregistry_rs: cannot load the native library {path}: {e}. "
            f"Reinstall the package (pip install bindings/python builds it with cargo), "
            f"or point {LIBRARY_ENV} at a libtoolregistry shared library."
        ) from e
    _declare(lib)
    return lib


#: The loaded library, with every function declared.
lib: ctypes.CDLL = _load()


def take_string(p: c_void_p) -> bytes | None:
    """Copies a library-owned string into Python bytes and frees the original; NULL gives None."""
    if not p.value:
        return None
    try:
        return ctypes.string_at(p.value)
    finally:
        lib.tr_string_free(p)
        p.value = None
