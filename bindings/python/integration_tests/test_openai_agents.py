"""The OpenAI Agents SDK's own loop (``Runner.run`` with ``agents.testing.ScriptedModel``, no
network) over ``RegistryTools``."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message, function_call

from scenario import ASYNC_TOOL, CORE, CURRENCY, CURRENCY_ARGS, FAILING, QUERY, Scenario, hit_names
from toolregistry_rs.integrations.openai_agents import RegistryTools

set_tracing_disabled(True)  # no trace export: the test stays off the network


@pytest.fixture
def scenario():
    s = Scenario()
    yield s
    s.close()


def outputs(call: ModelCall) -> Dict[str, str]:
    """The tool outputs in a model call's input, by call id."""
    items = call.input if isinstance(call.input, list) else []
    out = {}
    for item in items:
        item = item if isinstance(item, dict) else item.model_dump()
        if item.get("type") == "function_call_output":
            out[item["call_id"]] = item["output"] if isinstance(item["output"], str) else json.dumps(item["output"])
    return out


def run(scenario: Scenario, steps: List[Any]):
    scripted = ScriptedModel(steps)
    tools = RegistryTools(scenario.registry, top_k=5)
    agent = Agent(name="assistant", model=tools.model(scripted), tools=tools.tools())
    result = asyncio.run(Runner.run(agent, "How much is 100 USD in EUR?"))
    scripted.assert_complete()
    sent = [{t.name: t for t in c.tools} for c in scripted.calls]
    return result, sent, tools


def test_search_then_call_the_found_tool(scenario):
    found: List[str] = []

    def call_found(call):
        found.extend(hit_names(outputs(call)["s1"]))
        return [function_call(found[0], dict(CURRENCY_ARGS), call_id="c1")]

    steps = [
        [function_call("search_tools", {"query": QUERY}, call_id="s1")],
        ModelStep.respond(call_found),
        ModelStep.respond(lambda call: [assistant_message("result: " + outputs(call)["c1"])]),
    ]
    result, sent, tools = run(scenario, steps)

    assert found[0] == CURRENCY and found == scenario.expected(QUERY)
    first, second = set(sent[0]), set(sent[1])
    assert CORE in first and "search_tools" in first
    assert not scenario.deferred & first, first
    assert CURRENCY in second and second & scenario.deferred == set(found)
    assert tools.found == found
    assert scenario.calls == [(CURRENCY, CURRENCY_ARGS)]
    assert json.loads(result.final_output.removeprefix("result: ")) == {"amount": 90.0, "currency": "EUR"}
    exact = scenario.registry.get_schemas(names=[CURRENCY])[0]["function"]
    assert sent[1][CURRENCY].params_json_schema == exact["parameters"]


def test_async_tool_called_by_name_without_search(scenario):
    steps = [
        [function_call(ASYNC_TOOL, {"city": "Paris"}, call_id="w1")],
        ModelStep.respond(lambda call: [assistant_message(outputs(call)["w1"])]),
    ]
    result, sent, _ = run(scenario, steps)
    assert ASYNC_TOOL not in sent[0]
    assert scenario.calls == [(ASYNC_TOOL, {"city": "Paris"})]
    assert result.final_output == "Sunny in Paris"


def test_failing_and_bad_calls_are_error_results(scenario):
    seen: Dict[str, str] = {}

    def answer(call):
        seen.update(outputs(call))
        return [assistant_message("done")]

    steps = [
        [
            function_call(FAILING, {"level": 3}, call_id="f1"),
            function_call(CORE, {"timezone": 42}, call_id="b1"),
            function_call("search_tools", {}, call_id="q1"),
        ],
        ModelStep.respond(answer),
    ]
    result, _, _ = run(scenario, steps)
    assert result.final_output == "done"
    assert seen["f1"].startswith("Error:") and "reactor offline" in seen["f1"], seen
    assert seen["b1"].startswith("Error:") and "timezone" in seen["b1"], seen
    assert seen["q1"].startswith("Error:"), seen
    assert scenario.calls == [(FAILING, {"level": 3})]
