"""Google ADK's own loop (``InMemoryRunner`` over an ``LlmAgent`` whose model is a scripted
``BaseLlm``, no network) with ``RegistryToolset``."""

from __future__ import annotations

import asyncio
import json
from typing import Any, AsyncGenerator, Callable, Dict, List

import pytest
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import InMemoryRunner
from google.genai import types

from scenario import ASYNC_TOOL, CORE, CURRENCY, CURRENCY_ARGS, FAILING, QUERY, Scenario, hit_names
from toolregistry_rs.integrations.google_adk import FOUND_STATE_KEY, RegistryToolset


class ScriptedLlm(BaseLlm):
    """Answers request i with steps[i](contents); records the declarations of each request."""

    steps: List[Any]
    sent: List[Any]

    async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        declared = {}
        for tool in llm_request.config.tools or []:
            for d in tool.function_declarations or []:
                declared[d.name] = d
        self.sent.append(declared)
        parts = self.steps[len(self.sent) - 1](llm_request.contents)
        yield LlmResponse(content=types.Content(role="model", parts=parts))


def call(name: str, args: Dict[str, Any], cid: str) -> types.Part:
    return types.Part(function_call=types.FunctionCall(name=name, args=args, id=cid))


def responses(contents: List[types.Content]) -> Dict[str, Dict[str, Any]]:
    """The function responses the model was sent, by call id."""
    return {
        p.function_response.id: p.function_response.response
        for c in contents
        for p in c.parts or []
        if p.function_response is not None
    }


@pytest.fixture
def scenario():
    s = Scenario()
    yield s
    s.close()


def run(scenario: Scenario, steps: List[Callable[[Any], List[types.Part]]]):
    llm = ScriptedLlm(model="scripted", steps=steps, sent=[])
    agent = LlmAgent(name="assistant", model=llm, tools=[RegistryToolset(scenario.registry, top_k=5)])
    runner = InMemoryRunner(agent=agent, app_name="test")

    async def go():
        session = await runner.session_service.create_session(app_name="test", user_id="u")
        last = None
        message = types.Content(role="user", parts=[types.Part(text="How much is 100 USD in EUR?")])
        async for event in runner.run_async(user_id="u", session_id=session.id, new_message=message):
            if event.content and event.content.parts and event.content.parts[0].text:
                last = event.content.parts[0].text
        session = await runner.session_service.get_session(app_name="test", user_id="u", session_id=session.id)
        return last, session.state

    last, state = asyncio.run(go())
    return last, state, llm.sent


def test_search_then_call_the_found_tool(scenario):
    found: List[str] = []

    def call_found(contents):
        found.extend(hit_names(responses(contents)["s1"]["result"]))
        return [call(found[0], dict(CURRENCY_ARGS), "c1")]

    steps = [
        lambda c: [call("search_tools", {"query": QUERY}, "s1")],
        call_found,
        lambda c: [types.Part(text="result: " + responses(c)["c1"]["result"])],
    ]
    last, state, sent = run(scenario, steps)

    assert found[0] == CURRENCY and found == scenario.expected(QUERY)
    first, second = set(sent[0]), set(sent[1])
    assert CORE in first and "search_tools" in first
    assert not scenario.deferred & first, first
    assert CURRENCY in second and second & scenario.deferred == set(found)
    assert state[FOUND_STATE_KEY] == found
    assert scenario.calls == [(CURRENCY, CURRENCY_ARGS)]
    assert json.loads(last.removeprefix("result: ")) == {"amount": 90.0, "currency": "EUR"}
    # Declared with the registry's Gemini schema.
    exact = scenario.registry.get_schemas(names=[CURRENCY], api_format="gemini")[0]["parameters"]
    declared = sent[1][CURRENCY].parameters.model_dump(exclude_none=True, mode="json")
    assert declared == exact


def test_async_tool_called_by_name_without_search(scenario):
    steps = [
        lambda c: [call(ASYNC_TOOL, {"city": "Paris"}, "w1")],
        lambda c: [types.Part(text=responses(c)["w1"]["result"])],
    ]
    last, _, sent = run(scenario, steps)
    assert ASYNC_TOOL not in sent[0]
    assert scenario.calls == [(ASYNC_TOOL, {"city": "Paris"})]
    assert last == "Sunny in Paris"


def test_failing_and_bad_calls_are_error_results(scenario):
    seen: Dict[str, Any] = {}

    def answer(contents):
        seen.update(responses(contents))
        return [types.Part(text="done")]

    steps = [
        lambda c: [call(FAILING, {"level": 3}, "f1"), call(CORE, {"timezone": 42}, "b1"), call("search_tools", {}, "q1")],
        answer,
    ]
    last, _, _ = run(scenario, steps)
    assert last == "done"
    assert "reactor offline" in seen["f1"]["error"], seen
    assert "timezone" in seen["b1"]["error"], seen
    assert seen["q1"]["error"].startswith("Error:"), seen
    assert scenario.calls == [(FAILING, {"level": 3})]
