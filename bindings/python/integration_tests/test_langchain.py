"""LangChain 1.x's own agent loop (``create_agent`` with a scripted chat model that binds tools
as real ones do, no network) over ``ToolSearchMiddleware``."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, List

import pytest
from langchain.agents import create_agent
from langchain_core.language_models.chat_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.utils.function_calling import convert_to_openai_tool

from scenario import ASYNC_TOOL, CORE, CURRENCY, CURRENCY_ARGS, FAILING, QUERY, Scenario, hit_names
from toolregistry_rs.integrations.langchain import ToolSearchMiddleware


class ScriptedChat(BaseChatModel):
    """Answers call i with steps[i](messages); records the tools each call was bound with (in
    the OpenAI shape, as ChatOpenAI sends them)."""

    steps: List[Any]
    sent: List[Any]

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self.bind(tools=[convert_to_openai_tool(t) for t in tools], **kwargs)

    def _generate(self, messages: List[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.sent.append({t["function"]["name"]: t["function"] for t in kwargs.get("tools", [])})
        message = self.steps[len(self.sent) - 1](messages)
        return ChatResult(generations=[ChatGeneration(message=message)])


@pytest.fixture
def scenario():
    s = Scenario()
    yield s
    s.close()


def tool_messages(messages: List[BaseMessage]) -> List[ToolMessage]:
    return [m for m in messages if isinstance(m, ToolMessage)]


def call(name: str, args: Any, cid: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": cid, "type": "tool_call"}])


def agent_for(scenario: Scenario, steps: List[Callable[[List[BaseMessage]], AIMessage]]):
    model = ScriptedChat(steps=steps, sent=[])
    agent = create_agent(model, middleware=[ToolSearchMiddleware(scenario.registry, top_k=5)])
    return agent, model


PROMPT = {"messages": [{"role": "user", "content": "How much is 100 USD in EUR?"}]}


def test_search_then_call_the_found_tool(scenario):
    found: List[str] = []

    def call_found(messages):
        found.extend(hit_names(tool_messages(messages)[-1].content))
        return call(found[0], dict(CURRENCY_ARGS), "c1")

    steps = [
        lambda m: call("search_tools", {"query": QUERY}, "s1"),
        call_found,
        lambda m: AIMessage(content=f"result: {tool_messages(m)[-1].content}"),
    ]
    agent, model = agent_for(scenario, steps)
    state = agent.invoke(PROMPT)

    assert found[0] == CURRENCY and found == scenario.expected(QUERY)
    first, second = (set(s) for s in model.sent[:2])
    assert CORE in first and "search_tools" in first
    assert not scenario.deferred & first, first
    assert CURRENCY in second and second & scenario.deferred == set(found)
    assert state["found_tools"] == found
    assert scenario.calls == [(CURRENCY, CURRENCY_ARGS)]
    assert json.loads(state["messages"][-1].content.removeprefix("result: ")) == {"amount": 90.0, "currency": "EUR"}
    # The registry's provider-exact schema is what the model was bound with.
    exact = scenario.registry.get_schemas(names=[CURRENCY])[0]["function"]
    assert model.sent[1][CURRENCY]["parameters"] == exact["parameters"]
    assert model.sent[1][CURRENCY]["description"] == exact["description"]


def test_async_tool_called_by_name_without_search(scenario):
    steps = [
        lambda m: call(ASYNC_TOOL, {"city": "Paris"}, "w1"),
        lambda m: AIMessage(content=str(tool_messages(m)[-1].content)),
    ]
    agent, model = agent_for(scenario, steps)
    state = asyncio.run(agent.ainvoke(PROMPT))
    assert ASYNC_TOOL not in model.sent[0]
    assert scenario.calls == [(ASYNC_TOOL, {"city": "Paris"})]
    assert state["messages"][-1].content == "Sunny in Paris"


def test_failing_and_bad_calls_are_error_results(scenario):
    def bad_calls(messages):
        return AIMessage(
            content="",
            tool_calls=[
                {"name": FAILING, "args": {"level": 3}, "id": "f1", "type": "tool_call"},
                {"name": CORE, "args": {"timezone": 42}, "id": "b1", "type": "tool_call"},
                {"name": "search_tools", "args": {}, "id": "q1", "type": "tool_call"},
            ],
        )

    steps = [bad_calls, lambda m: AIMessage(content="done")]
    agent, model = agent_for(scenario, steps)
    state = agent.invoke(PROMPT)
    seen = {m.tool_call_id: m for m in tool_messages(state["messages"])}
    assert state["messages"][-1].content == "done"
    assert seen["f1"].status == "error" and "reactor offline" in seen["f1"].content
    assert seen["b1"].status == "error" and "timezone" in seen["b1"].content
    assert seen["q1"].status == "error"
    assert scenario.calls == [(FAILING, {"level": 3})]
