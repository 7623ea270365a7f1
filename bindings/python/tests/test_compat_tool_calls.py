"""toolregistry_rs.compat's tool calls: ToolRegistry.execute_tool_calls (run by the engine),
ResultList, and the llm.tool_calls helpers that read a provider's call and rebuild the assistant
turn and the results, compared with the reference toolregistry 0.19.0 where it is installed."""

import json
import warnings

import pytest

from toolregistry_rs.compat.llm.tool_calls import (
    ErrorResult,
    ResultList,
    ToolCall,
    ToolCallResult,
    build_assistant_messages,
    build_tool_result_messages,
    convert_tool_calls,
)
from toolregistry_rs.compat.tool_registry import ToolRegistry

FORMATS = ("openai-chat", "openai-responses", "anthropic", "gemini")


def reference_tool_calls():
    pytest.importorskip("toolregistry", minversion="0.19.0")
    from toolregistry.llm import tool_calls

    return tool_calls


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def lookup(city: str) -> dict:
    """Look a city up."""
    return {"city": city, "population": 3}


def broken(x: int) -> int:
    """Always fails."""
    raise ValueError("no luck")


def chat_call(call_id, name, args):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


@pytest.fixture
def reg():
    with ToolRegistry(name="calls") as r:
        r.register(add)
        r.register(lookup)
        r.register(broken)
        yield r


def test_results_by_call_id_in_call_order(reg):
    calls = [chat_call("c1", "add", {"a": 3, "b": 4}), chat_call("c2", "lookup", {"city": "Oslo"})]
    results = reg.execute_tool_calls(calls)
    assert isinstance(results, ResultList)
    assert [r.id for r in results] == ["c1", "c2"]
    assert results["c1"] == ToolCallResult(id="c1", name="add", result="7")
    assert json.loads(results["c2"].result) == {"city": "Oslo", "population": 3}
    assert "c2" in results and "c9" not in results
    with pytest.raises(KeyError):
        results.by_id("c9")
    assert reg.execute_tool_calls([]) == []


def test_failures_are_error_results(reg):
    reg.disable("add", reason="under maintenance")
    results = reg.execute_tool_calls(
        [
            chat_call("d", "add", {"a": 1, "b": 2}),
            chat_call("u", "nope", {}),
            chat_call("x", "broken", {"x": 1}),
            chat_call("v", "lookup", {"city": 5}),
        ]
    )
    assert all(isinstance(r, ErrorResult) for r in results)
    assert "disabled" in str(results["d"]).lower() and "under maintenance" in str(results["d"])
    assert "not registered" in str(results["u"])
    assert "no luck" in str(results["x"])
    assert "lookup" in str(results["v"])  # arguments checked against the schema by the engine
    reg.enable("add")
    assert str(reg.execute_tool_calls([chat_call("d", "add", {"a": 1, "b": 2})])["d"]) == "3"


def test_every_provider_shape_runs(reg):
    shapes = [
        {"type": "function_call", "call_id": "r1", "name": "add", "arguments": '{"a": 1, "b": 1}'},
        {"type": "tool_use", "id": "a1", "name": "add", "input": {"a": 2, "b": 2}},
        {"functionCall": {"id": "g1", "name": "add", "args": {"a": 3, "b": 3}}},
        ToolCall(id="t1", name="add", arguments='{"a": 4, "b": 4}'),
    ]
    assert [str(r) for r in reg.execute_tool_calls(shapes)] == ["2", "4", "6", "8"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_round_trip_messages_match_the_reference(reg, fmt):
    ref = reference_tool_calls()
    calls = [chat_call("c1", "add", {"a": 1, "b": 2}), chat_call("c2", "nope", {})]
    results = reg.execute_tool_calls(calls)
    ours = reg.build_tool_call_messages(calls, results, api_format=fmt)
    ref_calls = ref.convert_tool_calls(calls)
    ref_results = [ref.ToolCallResult(id="c1", name="add", result="3"), ref.ErrorResult(id="c2", name="nope", message=str(results["c2"]))]
    want = ref.build_assistant_messages(ref_calls, api_format=fmt) + ref.build_tool_result_messages(
        {r.id: str(r) for r in ref_results}, api_format=fmt, tool_calls=ref_calls
    )
    assert _comparable(ours) == _comparable(want)


def _comparable(messages):
    """Messages without the fields the reference's converter adds that no provider requires:
    Anthropic's ``caller``, the Responses ``status``, and the Gemini response ``id`` (the
    reference puts the function name there, this binding the call id, as the engine does)."""
    text = json.dumps(messages)
    out = json.loads(text)

    def strip(node):
        if isinstance(node, dict):
            for key in ("caller", "status"):
                node.pop(key, None)
            if "functionResponse" in node:
                node["functionResponse"].pop("id", None)
            for v in node.values():
                strip(v)
        elif isinstance(node, list):
            for v in node:
                strip(v)

    strip(out)
    return out


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "tool_use", "id": "toolu_1", "name": "add", "input": {"a": 1}},
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {}},
        {"functionCall": {"id": "fc_1", "name": "add", "args": {"a": 1}}},
        {"function_call": {"id": "fc_2", "name": "sub", "args": {}}},
        {"id": "call_1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
        {"type": "function_call", "call_id": "call_2", "name": "add", "arguments": '{"a": 2}'},
    ],
)
def test_from_tool_call_reads_every_shape_like_the_reference(raw):
    ref = reference_tool_calls()
    ours, want = ToolCall.from_tool_call(raw), ref.ToolCall.from_tool_call(raw)
    assert (ours.id, ours.name, json.loads(ours.arguments), ours.type) == (
        want.id,
        want.name,
        json.loads(want.arguments),
        want.type,
    )


def test_gemini_calls_without_an_id_get_one_and_bad_shapes_raise():
    tc = ToolCall.from_tool_call({"functionCall": {"name": "add", "args": {"a": 1}}})
    assert tc.id and tc.name == "add"
    with pytest.raises(TypeError):
        ToolCall.from_tool_call({"something": "else"})
    with pytest.raises(ValueError):
        build_assistant_messages([tc], api_format="cohere")
    assert convert_tool_calls([tc]) == [tc]


def test_builders_follow_the_reference():
    calls = [ToolCall(id="t1", name="add", arguments='{"a": 1}'), ToolCall(id="t2", name="", arguments="{}")]
    assert build_assistant_messages(calls, api_format="anthropic") == [
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "add", "input": {"a": 1}}]}
    ]
    assert build_tool_result_messages({"t1": "2"}, api_format="gemini")[0]["parts"][0]["functionResponse"]["name"] == "t1"
    named = build_tool_result_messages({"t1": "2"}, api_format="gemini", tool_calls=calls)
    assert named[0]["parts"][0]["functionResponse"]["name"] == "add"
    assert build_tool_result_messages({"t1": "2"}) == [{"role": "tool", "tool_call_id": "t1", "content": "2"}]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(DeprecationWarning):
            build_assistant_messages(calls, api_format="openai")


def test_invoke_runs_one_call_and_never_raises(reg):
    ok = reg.invoke("add", {"a": 2, "b": 5}, invocation_id="inv1")
    assert ok == ToolCallResult(id="inv1", name="add", result="7")
    assert reg.invoke("add", {"a": 1, "b": 1}).id.startswith("tr_sig_")
    reg.disable("lookup", reason="offline")
    failed = reg.invoke("lookup", {"city": "Rome"})
    assert isinstance(failed, ErrorResult) and "offline" in str(failed)
    reg.enable_tool_discovery()
    hits = json.loads(reg.invoke("discover_tools", {"query": "add two numbers"}).result)
    assert hits[0]["name"] == "add"


def test_think_augment_reason_is_not_passed_to_the_function():
    with ToolRegistry(think_augment=True) as r:
        r.register(add)
        props = r.get_schemas()[0]["function"]["parameters"]["properties"]
        assert "toolcall_reason" in props
        call = chat_call("c1", "add", {"a": 1, "b": 2, "toolcall_reason": "the user asked"})
        assert str(r.execute_tool_calls([call])["c1"]) == "3"
