"""Tool calls run by Python host functions: the conformance corpus of tests/conformance/execute
(byte for byte, every provider and case, like every other language), then the Python side of the
contract: keyword arguments, results, ToolError and other exceptions, the fallback, parallel calls
on library threads (the GIL), re-entrant calls, and the life of the callables."""

import gc
import json
import threading
from pathlib import Path

import pytest

import toolregistry_rs as tr
from toolregistry_rs import _host

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "conformance" / "execute"
CASES = sorted(p.parent for p in CORPUS.glob("*/*/calls.json"))


def host(kind, name):
    """The corpus' scripted host functions (tests/conformance/README.md), in raw mode."""
    if kind == "echo":
        return lambda args_json: f"{name} <- {args_json}"
    if kind == "fail":

        def fail(args_json):
            raise tr.ToolError("upstream returned 503")

        return fail

    def panic(args_json):
        raise RuntimeError("kaboom")

    return panic


def fixture_registry():
    fixture = json.loads((CORPUS / "fixture.json").read_text())
    r = tr.Registry()
    for entry in fixture["tools"]:
        if entry["host"] is None:
            r.register(entry["tool"])
        else:
            r.register_function(entry["tool"], host(entry["host"], entry["tool"]["name"]), raw=True)
    for d in fixture.get("disable", []):
        r.disable(d["name"], d.get("reason"))
    r.enable_discovery(**fixture["discovery"])
    return r


def test_corpus_present():
    assert len(CASES) >= 50, f"conformance corpus missing under {CORPUS}"


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_conformance(case):
    options = json.loads((case / "options.json").read_text()) if (case / "options.json").exists() else {}
    expected = (case / "expected.json").read_text().rstrip("\n")
    with fixture_registry() as r:
        # Compare the library's bytes: the raw answer, as C, Go and C# do.
        answer = r._out(
            tr._registry._lib.tr_registry_execute,
            (case / "calls.json").read_bytes(),
            json.dumps(options).encode() if options else None,
        )
        assert answer.decode() == expected
        # And the decoded answer of the public method is the same document.
        assert r.execute((case / "calls.json").read_text(), **options) == json.loads(expected)


def openai_calls(*calls):
    return {
        "role": "assistant",
        "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
            for i, (n, a) in enumerate(calls)
        ],
    }


ADD = {
    "name": "add",
    "description": "Add two numbers.",
    "parameters": {
        "type": "object",
        "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
        "required": ["a", "b"],
    },
}


def contents(messages):
    return [m["content"] for m in messages]


def test_keyword_arguments_and_results():
    with tr.Registry() as r:
        assert r.register_function(ADD, lambda a, b: a + b) == ["add"]
        r.register_function({"name": "info", "description": "Info."}, lambda: {"ok": True, "n": [1, 2]})
        r.register_function({"name": "text", "description": "Text."}, lambda: "plain text")
        r.register_function({"name": "nothing", "description": "Nothing."}, lambda: None)
        out = r.execute(
            openai_calls(("add", {"a": 2, "b": 3.5}), ("info", {}), ("text", {}), ("nothing", {}))
        )
        assert contents(out) == ["5.5", '{"ok": true, "n": [1, 2]}', "plain text", "null"]
        assert [m["tool_call_id"] for m in out] == ["c0", "c1", "c2", "c3"]


def test_errors_become_results_and_the_batch_goes_on():
    def boom(**_):
        raise ValueError("bad value")

    def denied(**_):
        raise tr.ToolError("permission denied")

    with tr.Registry() as r:
        r.register_function(ADD, lambda a, b: a + b)
        r.register_function({"name": "boom", "description": "x"}, boom)
        r.register_function({"name": "denied", "description": "x"}, denied)
        r.register_function({"name": "wrong_signature", "description": "x"}, lambda: 1)
        out = r.execute(
            openai_calls(
                ("boom", {}),
                ("denied", {}),
                ("add", {"a": "two"}),
                ("wrong_signature", {"extra": 1}),
                ("addd", {}),
                ("add", {"a": 1, "b": 1}),
            )
        )
        got = contents(out)
        assert got[0] == 'Error: the host function of "boom" panicked: bad value'
        assert got[1] == "Error: permission denied"
        assert got[2].startswith("Error:") and "a" in got[2]  # schema violation, by the library
        assert got[3].startswith('Error: the host function of "wrong_signature" panicked:')
        assert got[4].startswith("Error:") and "add" in got[4]  # unknown tool, did you mean
        assert got[5] == "2"


def test_disable_with_reason_and_tools_status():
    with tr.Registry() as r:
        r.register_function(ADD, lambda a, b: a + b)
        r.register({"name": "definition_only", "description": "x", "namespace": "gw"})
        r.disable("add", "under maintenance")
        assert "under maintenance" in contents(r.execute(openai_calls(("add", {"a": 1, "b": 2}))))[0]
        status = {s["name"]: s for s in r.tools_status()}
        assert status["add"]["enabled"] is False and status["add"]["reason"] == "under maintenance"
        assert status["add"]["callable"] is True and status["gw-definition_only"]["callable"] is False
        r.set_enabled("add", True)
        assert {s["name"]: s for s in r.tools_status()}["add"]["reason"] is None
        # An empty reason is no reason: it reads back as null and the model hears none.
        r.disable("add", "")
        assert {s["name"]: s for s in r.tools_status()}["add"]["reason"] is None
        assert contents(r.execute(openai_calls(("add", {"a": 1, "b": 2}))))[0] == 'Error: tool "add" is disabled'
        r.set_enabled("add", True)
        with pytest.raises(tr.ToolRegistryError) as e:
            r.disable("nope")
        assert e.value.status == tr.Status.NOT_FOUND


def test_fallback_routes_by_name():
    seen = []
    with tr.Registry() as r:
        r.register([{"name": "a", "description": "x"}, {"name": "b", "description": "x"}])
        r.set_fallback(lambda name, args: seen.append((name, args)) or f"routed {name}")
        assert contents(r.execute(openai_calls(("a", {"x": 1}), ("b", {})))) == ["routed a", "routed b"]
        assert seen == [("a", {"x": 1}), ("b", {})]
        r.set_fallback(lambda name, args_json: args_json, raw=True)
        assert contents(r.execute(openai_calls(("a", {"x": 1})))) == ['{"x":1}']
        r.set_fallback(None)
        assert contents(r.execute(openai_calls(("a", {}))))[0].startswith("Error:")
        assert {s["name"]: s["callable"] for s in r.tools_status()} == {"a": False, "b": False}


def test_parallel_calls_run_on_library_threads():
    threads = set()
    barrier = threading.Barrier(4, timeout=10)

    def slow(i):
        threads.add(threading.get_ident())
        barrier.wait()  # four calls at once, or this times out
        return i

    with tr.Registry() as r:
        r.register_function(
            {"name": "slow", "description": "x", "parameters": {"type": "object", "properties": {"i": {}}}},
            slow,
        )
        out = r.execute(openai_calls(*[("slow", {"i": i}) for i in range(8)]), parallel=4)
        assert contents(out) == [str(i) for i in range(8)]  # call order kept
        assert threading.get_ident() not in threads and len(threads) >= 4


def test_host_functions_may_call_the_library():
    with tr.Registry() as r:
        r.register_function(ADD, lambda a, b: a + b)

        def nested(**_):
            inner = r.execute(openai_calls(("add", {"a": 40, "b": 2})))
            r.register({"name": "made_inside", "description": "x"})
            return inner[0]["content"]

        r.register_function({"name": "nested", "description": "x"}, nested)
        assert contents(r.execute(openai_calls(("nested", {})))) == ["42"]
        assert "made_inside" in [s["name"] for s in r.tools_status()]


def test_callables_are_released():
    before = len(_host._functions)
    r = tr.Registry()
    r.register_function(ADD, lambda a, b: a + b)
    r.register_function(ADD, lambda a, b: a - b)  # replaced: the first is freed
    assert len(_host._functions) == before + 1
    with pytest.raises(tr.ToolRegistryError):
        r.register_function({"name": ""}, lambda: 0)  # refused: freed too
    assert len(_host._functions) == before + 1
    r.set_fallback(lambda n, a: 0)
    r.set_fallback(lambda n, a: 1)
    assert len(_host._functions) == before + 2
    r.unregister("add")
    assert len(_host._functions) == before + 1
    r.close()
    assert len(_host._functions) == before
    r2 = tr.Registry()
    r2.register_function(ADD, lambda a, b: a + b)
    del r2
    gc.collect()
    assert len(_host._functions) == before


def test_execute_refusals():
    with tr.Registry() as r:
        for calls, status in [
            ('{"not": "calls"}', tr.Status.INVALID_ARGUMENT),
            ("[{", tr.Status.INVALID_JSON),
        ]:
            with pytest.raises(tr.ToolRegistryError) as e:
                r.execute(calls)
            assert e.value.status == status
        with pytest.raises(tr.ToolRegistryError) as e:
            r.execute(openai_calls(), parallel=0)
        assert e.value.status == tr.Status.INVALID_ARGUMENT
        with pytest.raises(TypeError):
            r.register_function(ADD, "not callable")
        with pytest.raises(TypeError):
            r.set_fallback(42)
    closed = tr.Registry()
    closed.close()
    before = len(_host._functions)
    with pytest.raises(ValueError):
        closed.register_function(ADD, lambda a, b: 0)
    assert len(_host._functions) == before


def test_keyboard_interrupt_fails_the_call_then_reaches_the_caller():
    ran = []

    def interrupted(**_):
        raise KeyboardInterrupt

    with tr.Registry() as r:
        r.register_function({"name": "interrupted", "description": "x"}, interrupted)
        r.register_function(ADD, lambda a, b: ran.append(1) or a + b)
        with pytest.raises(KeyboardInterrupt):
            r.execute(openai_calls(("interrupted", {}), ("add", {"a": 1, "b": 2})))
        assert ran == [1], "the batch finished before the interrupt was raised again"
        out = r.execute(openai_calls(("add", {"a": 1, "b": 2})))
        assert contents(out) == ["3"], "nothing left pending"
