"""pydantic-ai's own agent loop (``Agent.run`` with a scripted ``FunctionModel``, no network)
over ``RegistryToolset``: what each model call is sent, what runs, what the model reads."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, List

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, ToolCallPart, ToolReturnPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from scenario import ASYNC_TOOL, CORE, CURRENCY, CURRENCY_ARGS, FAILING, QUERY, Scenario, hit_names
from toolregistry_rs.integrations.pydantic_ai import RegistryToolset


@pytest.fixture
def scenario():
    s = Scenario()
    yield s
    s.close()


def returns(messages: List[ModelMessage]) -> List[ToolReturnPart]:
    return [p for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, ToolReturnPart)]


def scripted(steps: List[Callable[[List[ModelMessage]], ModelResponse]], sent: List[List[str]]) -> FunctionModel:
    """A model that answers call i with steps[i] and records the tool names of each call."""

    def model(messages: List[ModelMessage], info: AgentInfo) -> ModelResponse:
        sent.append(sorted(t.name for t in info.function_tools))
        return steps[len(sent) - 1](messages)

    return FunctionModel(model)


def run(scenario: Scenario, steps: List[Callable[[List[ModelMessage]], ModelResponse]], sent: List[List[str]]) -> Any:
    tools = RegistryToolset(scenario.registry, top_k=5)
    agent = Agent(scripted(steps, sent), toolsets=[tools], capabilities=[tools.tool_search()])
    return asyncio.run(agent.run("How much is 100 USD in EUR?"))


def test_search_then_call_the_found_tool(scenario):
    sent: List[List[str]] = []
    found: List[str] = []

    def search(messages):
        return ModelResponse(parts=[ToolCallPart("search_tools", {"queries": [QUERY]}, tool_call_id="s1")])

    def call_found(messages):
        found.extend(hit_names(returns(messages)[-1].content))
        return ModelResponse(parts=[ToolCallPart(found[0], dict(CURRENCY_ARGS), tool_call_id="c1")])

    def answer(messages):
        return ModelResponse(parts=[TextPart(f"result: {returns(messages)[-1].content}")])

    result = run(scenario, [search, call_found, answer], sent)

    assert found[0] == CURRENCY and found == scenario.expected(QUERY), found
    # Before the search: the core tool and the search tool, none of the 50 deferred ones.
    assert CORE in sent[0] and "search_tools" in sent[0]
    assert not scenario.deferred & set(sent[0]), sent[0]
    # After it: the found tools joined, the others still absent.
    assert CURRENCY in sent[1] and CORE in sent[1]
    assert set(sent[1]) & scenario.deferred == set(found)
    assert scenario.calls == [(CURRENCY, CURRENCY_ARGS)]
    assert json.loads(result.output.removeprefix("result: ")) == {"amount": 90.0, "currency": "EUR"}
    # The registry's provider-exact schema is what pydantic-ai was given.
    tools = asyncio.run(RegistryToolset(scenario.registry).get_tools(None))  # type: ignore[arg-type]
    exact = scenario.registry.get_schemas(names=[CURRENCY])[0]["function"]["parameters"]
    assert tools[CURRENCY].tool_def.parameters_json_schema == exact


def test_async_tool_called_by_name_without_search(scenario):
    sent: List[List[str]] = []

    def call_unsearched(messages):
        return ModelResponse(parts=[ToolCallPart(ASYNC_TOOL, {"city": "Paris"}, tool_call_id="w1")])

    def answer(messages):
        return ModelResponse(parts=[TextPart(str(returns(messages)[-1].content))])

    result = run(scenario, [call_unsearched, answer], sent)
    assert ASYNC_TOOL not in sent[0]
    assert scenario.calls == [(ASYNC_TOOL, {"city": "Paris"})]
    assert result.output == "Sunny in Paris"


def test_failing_and_bad_calls_are_error_results(scenario):
    sent: List[List[str]] = []
    seen: Dict[str, str] = {}

    def bad_calls(messages):
        return ModelResponse(
            parts=[
                ToolCallPart(FAILING, {"level": 3}, tool_call_id="f1"),
                ToolCallPart(CORE, {"timezone": 42}, tool_call_id="b1"),
            ]
        )

    def answer(messages):
        for p in returns(messages):
            seen[p.tool_call_id] = str(p.content)
        return ModelResponse(parts=[TextPart("done")])

    result = run(scenario, [bad_calls, answer], sent)
    assert result.output == "done"
    assert seen["f1"].startswith("Error:") and "reactor offline" in seen["f1"], seen
    assert seen["b1"].startswith("Error:") and "timezone" in seen["b1"], seen
    # The failing function ran once; the badly typed call never reached its function.
    assert scenario.calls == [(FAILING, {"level": 3})]


def test_search_is_the_registrys_discover(scenario):
    """pydantic-ai's search_tools is answered by the registry (a query of two needs, each found),
    not by pydantic-ai's keyword fallback."""
    from scenario import TWO_NEEDS

    sent: List[List[str]] = []
    found: List[str] = []

    def search(messages):
        return ModelResponse(parts=[ToolCallPart("search_tools", {"queries": [TWO_NEEDS]}, tool_call_id="s1")])

    def answer(messages):
        found.extend(hit_names(returns(messages)[-1].content))
        return ModelResponse(parts=[TextPart("ok")])

    run(scenario, [search, answer], sent)
    assert found == scenario.expected(TWO_NEEDS) == [ASYNC_TOOL, CURRENCY]
    assert set(sent[1]) & scenario.deferred == {ASYNC_TOOL, CURRENCY}
