"""The error table: every status the library can report, reached from Python, and the Python-side
refusals (wrong Python types, closed handles). A failed call changes nothing."""

import ctypes

import pytest

import toolregistry_rs as tr
from toolregistry_rs import _native
from toolregistry_rs._handle import _check

S = tr.Status


def status_of(call):
    with pytest.raises(tr.ToolRegistryError) as info:
        call()
    err = info.value
    assert err.message, "every failure carries a message"
    assert str(err) == err.message
    return err.status


def test_null_argument_from_a_real_call():
    # The safe API never passes NULL; the raw layer shows the status travels through _check.
    err = ctypes.c_void_p()
    status = _native.lib.tr_registry_unregister(None, None, ctypes.byref(err))
    with pytest.raises(tr.ToolRegistryError) as info:
        _check(status, err)
    assert info.value.status == S.NULL_ARGUMENT
    assert info.value.status_name == "TR_STATUS_NULL_ARGUMENT"


@pytest.mark.parametrize(
    "case, call, status",
    [
        # INVALID_UTF8: a lone surrogate in a str, raw invalid bytes.
        ("surrogate name", lambda r, d: r.unregister("bad\udcc3name"), S.INVALID_UTF8),
        ("bytes query", lambda r, d: d.discover(b"\xc3\x28 weather"), S.INVALID_UTF8),
        (
            "surrogate in tool JSON",
            lambda r, d: r.register({"name": "x\ud800", "description": ""}),
            S.INVALID_UTF8,
        ),
        # INVALID_JSON: malformed, NUL inside, NaN, nested too deep.
        ("truncated", lambda r, d: r.register('[{"name": "x"'), S.INVALID_JSON),
        ("NUL in JSON", lambda r, d: r.register('{"name": "x\0"}'), S.INVALID_JSON),
        (
            "NaN",
            lambda r, d: r.register(
                {"name": "x", "description": "", "parameters": {"type": "object", "default": float("nan")}}
            ),
            S.INVALID_JSON,
        ),
        ("too deep", lambda r, d: r.register("[" * 200 + "]" * 200), S.INVALID_JSON),
        (
            "call args",
            lambda r, d: tr.Registry(discovery=True).call("discover_tools", "{query"),
            S.INVALID_JSON,
        ),
        # INVALID_ARGUMENT: wrong JSON types and values, empty queries, bad options, NUL in a name.
        ("no name", lambda r, d: r.register({"description": "no name"}), S.INVALID_ARGUMENT),
        ("name is a number", lambda r, d: r.register({"name": 5, "description": ""}), S.INVALID_ARGUMENT),
        (
            "tags not a list",
            lambda r, d: r.register({"name": "x", "description": "", "metadata": {"tags": "a"}}),
            S.INVALID_ARGUMENT,
        ),
        (
            "metadata unknown key",
            lambda r, d: r.register({"name": "x", "description": "", "metadata": {"deferr": True}}),
            S.INVALID_ARGUMENT,
        ),
        (
            "reserved name",
            lambda r, d: r.register({"name": "discover_tools", "description": ""}),
            S.INVALID_ARGUMENT,
        ),
        ("empty query", lambda r, d: d.discover(""), S.INVALID_ARGUMENT),
        ("blank query", lambda r, d: d.discover(" \t\n"), S.INVALID_ARGUMENT),
        ("top_k 0", lambda r, d: d.discover("email", 0), S.INVALID_ARGUMENT),
        ("top_k negative", lambda r, d: d.discover("email", -1), S.INVALID_ARGUMENT),
        ("top_k fraction", lambda r, d: d.discover("email", 1.5), S.INVALID_ARGUMENT),
        ("top_k string", lambda r, d: d.discover("email", "3"), S.INVALID_ARGUMENT),
        ("top_k bool", lambda r, d: d.discover("email", True), S.INVALID_ARGUMENT),
        ("NUL in name", lambda r, d: r.unregister("send\0email"), S.INVALID_ARGUMENT),
        ("NUL in query", lambda r, d: d.discover("send\0email"), S.INVALID_ARGUMENT),
        ("unknown profile", lambda r, d: r.enable_discovery(profile="fancy"), S.INVALID_ARGUMENT),
        ("ratio out of range", lambda r, d: r.discoverer(min_score_ratio=1.5), S.INVALID_ARGUMENT),
        ("negative k1", lambda r, d: r.enable_discovery(k1=-0.5), S.INVALID_ARGUMENT),
        ("unknown field", lambda r, d: r.enable_discovery(field_weights={"nmae": 2.0}), S.INVALID_ARGUMENT),
        ("bad api_format", lambda r, d: r.get_schemas(api_format="cobol"), S.INVALID_ARGUMENT),
        ("bad discover option", lambda r, d: d.discover("email", options={"top_kk": 3}), S.INVALID_ARGUMENT),
        (
            "call empty query",
            lambda r, d: tr.Registry(discovery={"profile": "reference"}).call(
                "discover_tools", {"query": ""}
            ),
            S.INVALID_ARGUMENT,
        ),
        (
            "set_metadata wrong type",
            lambda r, d: r.set_metadata("send_email", defer="yes"),
            S.INVALID_ARGUMENT,
        ),
        # NOT_FOUND: unknown tools, namespaces and built-ins.
        ("unregister unknown", lambda r, d: r.unregister("nope"), S.NOT_FOUND),
        ("set_enabled unknown", lambda r, d: r.set_enabled("nope", False), S.NOT_FOUND),
        ("set_metadata unknown", lambda r, d: r.set_metadata("nope", defer=True), S.NOT_FOUND),
        ("call unknown", lambda r, d: r.call("nope", {}), S.NOT_FOUND),
        ("discovery off", lambda r, d: r.call("discover_tools", {"query": "email"}), S.NOT_FOUND),
        ("explain unknown tool", lambda r, d: d.explain("email", "nope"), S.NOT_FOUND),
        # TOO_LARGE: the documented limits.
        ("query over 64 KiB", lambda r, d: d.discover("a" * 70_000), S.TOO_LARGE),
        ("name over 1 KiB", lambda r, d: r.register({"name": "n" * 2000, "description": ""}), S.TOO_LARGE),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_error_table(registry, discoverer, case, call, status):
    before = registry.get_schemas()
    assert status_of(lambda: call(registry, discoverer)) == status, case
    assert registry.get_schemas() == before, "a failed call changed the registry"


def test_a_query_over_1024_tokens_is_answered_from_its_first_tokens(registry, discoverer):
    # The library reads the first TR_MAX_QUERY_TOKENS tokens of a longer query (within 64 KiB).
    long_query = "send an email " + "w " * 2000
    assert discoverer.discover(long_query)[0]["name"] == "send_email"
    assert discoverer.discover("w " * 2000) == []


def test_a_failed_batch_registers_nothing(registry):
    before = registry.get_schemas()
    bad = [{"name": "new_tool", "description": "fine"}, {"name": "", "description": "empty name"}]
    with pytest.raises(tr.ToolRegistryError) as info:
        registry.register(bad)
    assert info.value.status == S.INVALID_ARGUMENT
    assert "tools[1]" in info.value.message, "the message names the offending element"
    assert registry.get_schemas() == before


@pytest.mark.parametrize(
    "call",
    [
        lambda r, d: r.register(42),
        lambda r, d: r.unregister(None),
        lambda r, d: r.unregister(5),
        lambda r, d: d.discover(None),
        lambda r, d: d.explain("email", 3),
        lambda r, d: r.register({"name": "x", "description": "", "parameters": {"p": object()}}),
        lambda r, d: tr.Discoverer("not a registry"),
    ],
)
def test_wrong_python_types_raise_type_error(registry, discoverer, call):
    with pytest.raises(TypeError):
        call(registry, discoverer)


def test_closed_handles_raise_value_error():
    r = tr.Registry()
    d = r.discoverer()
    r.close()
    assert r.closed
    for call in (
        lambda: r.register({"name": "x", "description": ""}),
        lambda: r.get_schemas(),
        lambda: r.discoverer(),
        lambda: r.call("discover_tools", {"query": "x"}),
    ):
        with pytest.raises(ValueError, match="closed registry"):
            call()
    d.discover("anything")  # the discoverer outlives its registry
    d.close()
    d.close()  # idempotent
    with pytest.raises(ValueError, match="closed discoverer"):
        d.discover("anything")


def test_error_fields():
    e = tr.ToolRegistryError(5, "not found: x")
    assert e.status is S.NOT_FOUND and e.status == 5 and e.message == "not found: x"
    assert e.status_name == "TR_STATUS_NOT_FOUND" == tr.status_name(5)
    assert "TR_STATUS_NOT_FOUND" in repr(e)
    unknown = tr.ToolRegistryError(99, "")
    assert unknown.status == 99 and not isinstance(unknown.status, S)
    assert unknown.status_name == "TR_STATUS_UNKNOWN" == tr.status_name(99)
    for s in S:
        assert tr.status_name(s) == f"TR_STATUS_{s.name}"
