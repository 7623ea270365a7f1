"""toolregistry_rs.compat with async tools: inside a running event loop the sync
``execute_tool_calls`` and ``Tool.run`` still give the real results (the reference's thread backend
does), and ``aexecute_tool_calls`` / ``ainvoke`` await them on the caller's loop, concurrently."""

import asyncio
import json
import threading

from toolregistry_rs.compat.tool import Tool, ToolMetadata
from toolregistry_rs.compat.llm.tool_calls import ErrorResult
from toolregistry_rs.compat.tool_registry import ToolRegistry


async def get_weather(city: str) -> str:
    """The weather in a city."""
    await asyncio.sleep(0.05)
    return f"sunny in {city}"


async def failing(city: str) -> str:
    """Always fails."""
    await asyncio.sleep(0)
    raise ValueError("no forecast")


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def chat_call(call_id, name, args):
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def registry():
    r = ToolRegistry(name="async")
    r.register(get_weather)
    r.register(failing)
    r.register(add)
    return r


CALLS = [
    chat_call("w1", "get_weather", {"city": "Oslo"}),
    chat_call("w2", "get_weather", {"city": "Rome"}),
    chat_call("f", "failing", {"city": "Oslo"}),
    chat_call("a", "add", {"a": 2, "b": 3}),
]


def check(results):
    assert [r.id for r in results] == ["w1", "w2", "f", "a"]
    assert results["w1"].result == "sunny in Oslo" and results["w2"].result == "sunny in Rome"
    assert isinstance(results["f"], ErrorResult) and "no forecast" in str(results["f"])
    assert results["a"].result == "5"


def test_execute_tool_calls_without_a_loop():
    with registry() as r:
        check(r.execute_tool_calls(CALLS))


def test_execute_tool_calls_inside_a_running_loop():
    async def main():
        with registry() as r:
            check(r.execute_tool_calls(CALLS))
            assert r.invoke("get_weather", {"city": "Lima"}).result == "sunny in Lima"
            t = Tool.from_function(get_weather)
            assert t.run({"city": "Kyiv"}) == "sunny in Kyiv"
            assert await t.arun({"city": "Kyiv"}) == "sunny in Kyiv"

    asyncio.run(main())


def test_aexecute_tool_calls_awaits_on_the_callers_loop_concurrently():
    async def main():
        loop_thread = threading.get_ident()
        seen = []

        all_started = asyncio.Event()

        async def where(i: int) -> int:
            """Where it ran."""
            seen.append(threading.get_ident())
            if len(seen) == 4:
                all_started.set()
            await asyncio.wait_for(all_started.wait(), 5)  # one after another: times out
            return i

        with registry() as r:
            r.register(where)
            check(await r.aexecute_tool_calls(CALLS))
            results = await r.aexecute_tool_calls([chat_call(f"c{i}", "where", {"i": i}) for i in range(4)])
            assert [x.result for x in results] == ["0", "1", "2", "3"]
            assert seen == [loop_thread] * 4
            assert (await r.ainvoke("add", {"a": 1, "b": 1}, invocation_id="i1")).result == "2"

    asyncio.run(main())


def test_a_tool_that_is_not_concurrency_safe_runs_alone():
    async def main():
        log = []

        async def step(i: int) -> int:
            """A step."""
            log.append(("start", i))
            await asyncio.sleep(0.02)
            log.append(("end", i))
            return i

        with ToolRegistry() as r:
            r.register(Tool.from_function(step, metadata=ToolMetadata(is_concurrency_safe=False)))
            results = await r.aexecute_tool_calls([chat_call(f"c{i}", "step", {"i": i}) for i in range(3)])
            assert [x.result for x in results] == ["0", "1", "2"]
        assert log == [("start", 0), ("end", 0), ("start", 1), ("end", 1), ("start", 2), ("end", 2)]

    asyncio.run(main())
