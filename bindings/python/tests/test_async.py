"""asyncio: ``aexecute`` on the two-step loop (prepare, the host runs the calls, finish).

First the corpus of tests/conformance/execute and of tests/conformance/conversation through
``aexecute`` (sync and ``async def`` scripted hosts alike) against ``execute``'s bytes and the
hand-written expected bytes, for every provider shape and option; then the asyncio contract inside
a running loop (no pytest plugin: each test runs ``asyncio.run``): ``async def`` functions awaited
concurrently, plain ones in threads, errors and cancellations per call, cancellation of the whole
batch, calls back into the registry, ``concurrency_safe: false``; then finish's refusals; then the
sync ``execute`` with an ``async def`` function.
"""

import asyncio
import json
import threading
import warnings
from pathlib import Path

import pytest

import toolregistry_rs as tr

import test_conversation
from test_execute import CASES, CORPUS, openai_calls

ASYNC_HOSTS = {}


def async_host(kind, name):
    """The corpus' scripted host functions (tests/conformance/README.md) as ``async def``, raw mode."""
    if kind == "echo":

        async def echo(args_json):
            await asyncio.sleep(0)
            return f"{name} <- {args_json}"

        return echo
    if kind == "fail":

        async def fail(args_json):
            await asyncio.sleep(0)
            raise tr.ToolError("upstream returned 503")

        return fail

    async def panic(args_json):
        await asyncio.sleep(0)
        raise RuntimeError("kaboom")

    return panic


def fixture_registry(make_host):
    fixture = json.loads((CORPUS / "fixture.json").read_text())
    r = tr.Registry()
    for entry in fixture["tools"]:
        if entry["host"] is None:
            r.register(entry["tool"])
        else:
            r.register_function(entry["tool"], make_host(entry["host"], entry["tool"]["name"]), raw=True)
    for d in fixture.get("disable", []):
        r.disable(d["name"], d.get("reason"))
    r.enable_discovery(**fixture["discovery"])
    return r


def option_sets(case):
    """The case's own options, then the same with the shape forced (``api_format``) and with
    ``parallel`` (accepted by both paths)."""
    base = json.loads((case / "options.json").read_text()) if (case / "options.json").exists() else {}
    return [base, {**base, "api_format": case.parent.name}, {**base, "parallel": 4}]


@pytest.mark.parametrize("case", CASES, ids=[f"{p.parent.name}/{p.name}" for p in CASES])
def test_aexecute_equals_execute_on_the_corpus(case):
    from test_execute import host

    expected = (case / "expected.json").read_text().rstrip("\n")
    calls = (case / "calls.json").read_bytes()

    async def main():
        for make_host in (host, async_host):
            with fixture_registry(make_host) as r:
                for options in option_sets(case):
                    got = (await r.aexecute_json(calls, **options)).decode()
                    assert got == expected, (make_host.__name__, options)
                    # And the sync path on the same registry, for async hosts too (no loop runs in
                    # the thread that calls it here).
                    sync = await asyncio.to_thread(r.execute, calls.decode(), **options)
                    assert sync == json.loads(expected)

    asyncio.run(main())


@pytest.mark.parametrize(
    "case", test_conversation.cases(), ids=[p.name for p in test_conversation.cases()]
)
def test_conversation_aexecute_equals_execute_on_the_corpus(case):
    want_messages, want_loaded, want_tools = test_conversation.run_case(case)

    async def main():
        r = test_conversation.fixture_registry()
        with r.conversation((case / "options.json").read_bytes()) as c:
            r.close()
            messages = await c.aexecute_json((case / "calls.json").read_bytes())
            return messages, c.loaded_json(), c.tools_json()

    assert asyncio.run(main()) == (want_messages, want_loaded, want_tools)
    assert want_messages.decode() == (case / "expected.json").read_text().rstrip("\n")


# -- the asyncio contract ----------------------------------------------------------------------

NUMBER = {"type": "object", "properties": {"i": {"type": "integer"}}}


def tool(name, **metadata):
    doc = {"name": name, "description": f"The {name} tool.", "parameters": NUMBER}
    if metadata:
        doc["metadata"] = metadata
    return doc


def contents(messages):
    return [m["content"] for m in messages]


def test_mixed_sync_and_async_functions_in_a_running_loop():
    async def main():
        loop_thread = threading.get_ident()
        started = asyncio.Event()
        threads = {}
        unblock_sync = threading.Event()

        async def first(i):
            # Both async calls are in flight at once, or this times out.
            started.set()
            await asyncio.sleep(0)
            threads["first"] = threading.get_ident()
            return f"first {i}"

        async def second(i):
            await asyncio.wait_for(started.wait(), 5)
            unblock_sync.set()  # the sync call waits for this: it must not block the loop
            threads["second"] = threading.get_ident()
            return {"second": i}

        def plain(i):
            assert unblock_sync.wait(5), "the sync function blocked the loop"
            threads["plain"] = threading.get_ident()
            return i * 10

        with tr.Registry() as r:
            r.register_function(tool("plain"), plain)
            r.register_function(tool("first"), first)
            r.register_function(tool("second"), second)
            out = await r.aexecute(openai_calls(("plain", {"i": 1}), ("second", {"i": 2}), ("first", {"i": 3})))
        assert contents(out) == ["10", '{"second": 2}', "first 3"]
        assert [m["tool_call_id"] for m in out] == ["c0", "c1", "c2"]
        assert threads["first"] == threads["second"] == loop_thread
        assert threads["plain"] != loop_thread

    asyncio.run(main())


def test_async_calls_overlap_in_time():
    async def main():
        started = []
        all_started = asyncio.Event()

        async def nap(i):
            started.append(i)
            if len(started) == 5:
                all_started.set()
            # Run one after another, the first call would wait here for ever (5 s, then fail).
            await asyncio.wait_for(all_started.wait(), 5)
            return i

        with tr.Registry() as r:
            r.register_function(tool("nap"), nap)
            out = await r.aexecute(openai_calls(*[("nap", {"i": i}) for i in range(5)]))
        assert contents(out) == [str(i) for i in range(5)]
        assert sorted(started) == list(range(5))

    asyncio.run(main())


def test_an_async_function_that_raises_fails_its_call_only():
    async def main():
        async def boom(i):
            await asyncio.sleep(0)
            raise ValueError("bad value")

        async def denied(**_):
            raise tr.ToolError("permission denied")

        async def ok(i):
            return i

        with tr.Registry() as r:
            for name, fn in [("boom", boom), ("denied", denied), ("ok", ok)]:
                r.register_function(tool(name), fn)
            r.register({"name": "no_function", "description": "x"})
            out = await r.aexecute(
                openai_calls(("boom", {"i": 1}), ("denied", {}), ("ok", {"i": 7}), ("no_function", {}), ("nope", {}))
            )
            sync_out = await asyncio.to_thread(
                r.execute, openai_calls(("boom", {"i": 1}), ("denied", {}), ("ok", {"i": 7}), ("no_function", {}), ("nope", {}))
            )
        got = contents(out)
        assert got[0] == 'Error: the host function of "boom" panicked: bad value'
        assert got[1] == "Error: permission denied"
        assert got[2] == "7"
        assert "has no host function" in got[3]
        assert got[4].startswith("Error:") and "nope" in got[4]
        assert out == sync_out

    asyncio.run(main())


def test_an_async_function_cancelled_by_itself_fails_its_call_only():
    async def main():
        async def times_out(i=0):
            inner = asyncio.ensure_future(asyncio.sleep(10))
            inner.cancel()
            await inner  # raises CancelledError inside the tool: nobody cancelled aexecute

        async def ok(i):
            await asyncio.sleep(0.01)
            return i

        with tr.Registry() as r:
            r.register_function(tool("times_out"), times_out)
            r.register_function(tool("ok"), ok)
            out = await r.aexecute(openai_calls(("times_out", {}), ("ok", {"i": 2})))
        assert contents(out) == ['Error: the host function of "times_out" was cancelled', "2"]

    asyncio.run(main())


def test_cancelling_aexecute_cancels_the_running_calls():
    async def main():
        seen = []
        running = asyncio.Event()

        async def forever(i):
            running.set()
            try:
                await asyncio.sleep(60)
            except asyncio.CancelledError:
                seen.append(("cancelled", i))
                raise
            seen.append(("finished", i))

        with tr.Registry() as r:
            r.register_function(tool("forever"), forever)
            task = asyncio.create_task(r.aexecute(openai_calls(("forever", {"i": 1}), ("forever", {"i": 2}))))
            await asyncio.wait_for(running.wait(), 5)
            await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # Still usable afterwards: nothing was kept between the two steps.
            r.register_function(tool("quick"), lambda i: i)
            assert contents(await r.aexecute(openai_calls(("quick", {"i": 5})))) == ["5"]
        assert sorted(seen) == [("cancelled", 1), ("cancelled", 2)]

    asyncio.run(main())


def test_a_timeout_around_aexecute_cancels_it():
    async def main():
        async def slow(i=0):
            await asyncio.sleep(60)

        with tr.Registry() as r:
            r.register_function(tool("slow"), slow)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(r.aexecute(openai_calls(("slow", {}))), 0.05)

    asyncio.run(main())


def test_async_functions_may_call_back_into_the_registry():
    async def main():
        with tr.Registry() as r:

            async def add(a, b):
                await asyncio.sleep(0)
                return a + b

            async def nested(i=0):
                inner = await r.aexecute(openai_calls(("add", {"a": 40, "b": 2})))
                r.register({"name": "made_inside", "description": "x"})
                hits = r.call("discover_tools", {"query": "made inside"})
                return f"{inner[0]['content']} {hits[0]['name']}"

            r.enable_discovery(profile="reference")
            r.register_function(
                {
                    "name": "add",
                    "description": "Add.",
                    "parameters": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]},
                },
                add,
            )
            r.register_function(tool("nested"), nested)
            out = await r.aexecute(openai_calls(("nested", {})))
            assert contents(out) == ["42 made_inside"]

    asyncio.run(main())


def test_a_tool_that_is_not_concurrency_safe_runs_alone():
    async def main():
        log = []

        def make(name):
            async def fn(i):
                log.append(f"start {name}{i}")
                await asyncio.sleep(0.02)
                log.append(f"end {name}{i}")
                return i

            return fn

        with tr.Registry() as r:
            r.register_function(tool("safe"), make("s"))
            r.register_function(tool("alone", concurrency_safe=False), make("a"))
            plan = r.prepare_calls(openai_calls(("safe", {"i": 1}), ("alone", {"i": 2}), ("safe", {"i": 3})))
            assert [c.get("concurrency_safe") for c in plan["calls"]] == [True, False, True]
            out = await r.aexecute(
                openai_calls(("safe", {"i": 1}), ("safe", {"i": 2}), ("alone", {"i": 3}), ("safe", {"i": 4}), ("safe", {"i": 5}))
            )
        assert contents(out) == ["1", "2", "3", "4", "5"]
        # The two first overlap, the unsafe one runs between the runs, the two last overlap.
        assert log[:2] == ["start s1", "start s2"]
        assert log[4:6] == ["start a3", "end a3"]
        assert log[6:8] == ["start s4", "start s5"]

    asyncio.run(main())


def test_parallel_caps_the_calls_in_flight():
    async def main():
        in_flight = [0, 0]

        async def count(i):
            in_flight[0] += 1
            in_flight[1] = max(in_flight[1], in_flight[0])
            await asyncio.sleep(0.01)
            in_flight[0] -= 1
            return i

        with tr.Registry() as r:
            r.register_function(tool("count"), count)
            await r.aexecute(openai_calls(*[("count", {"i": i}) for i in range(6)]), parallel=2)
            assert in_flight[1] == 2
            with pytest.raises(ValueError):
                await r.aexecute(openai_calls(), parallel=0)

    asyncio.run(main())


def test_fallback_and_a_plain_function_answering_a_coroutine():
    async def main():
        async def later(name, args):
            return f"routed {name} {args}"

        with tr.Registry() as r:
            r.register([{"name": "a", "description": "x"}])
            r.register_function(tool("lambda_async"), lambda i: later("lambda", i))
            r.set_fallback(later)
            out = await r.aexecute(openai_calls(("a", {"x": 1}), ("lambda_async", {"i": 3})))
        assert contents(out) == ["routed a {'x': 1}", "routed lambda 3"]

    asyncio.run(main())


def test_conversation_aexecute_loads_what_the_calls_revealed():
    async def main():
        with tr.Registry(discovery={"profile": "reference"}) as r:

            async def send_email(to):
                return f"sent to {to}"

            r.register_function(
                {
                    "name": "send_email",
                    "description": "Send an email to a recipient.",
                    "parameters": {"type": "object", "properties": {"to": {"type": "string"}}},
                    "metadata": {"defer": True},
                },
                send_email,
            )
            with r.conversation() as c:
                out = await c.aexecute(openai_calls(("discover_tools", {"query": "send email"})))
                assert "send_email" in out[0]["content"]
                assert c.loaded() == ["send_email"]
                out = await c.aexecute(openai_calls(("send_email", {"to": "ann"})))
                assert contents(out) == ["sent to ann"]

    asyncio.run(main())


# -- finish's refusals -------------------------------------------------------------------------


def test_finish_refuses_bad_results_and_plans():
    with tr.Registry() as r:
        r.register_function(tool("f"), lambda i: i)
        r.register_function(tool("g"), lambda i: i)
        plan = r.prepare_calls_json(openai_calls(("f", {"i": 1}), ("g", {"i": 2}), ("nope", {})))
        host_ids = [c["id"] for c in json.loads(plan)["calls"] if c["run"] == "host"]
        assert host_ids == ["c0", "c1"]
        good = [{"id": "c1", "content": "two"}, {"id": "c0", "error": "bad"}]
        out = r.finish_calls(plan, good)
        assert contents(out)[:2] == ["Error: bad", "two"]
        assert r.finish_calls(plan, [{"id": "c0", "unhandled": True}, {"id": "c1", "content": "x"}])[0][
            "content"
        ].startswith("Error:")
        bad_results = [
            [{"id": "c0", "content": "one"}],  # missing c1
            good + [{"id": "c1", "content": "again"}],  # duplicate
            good + [{"id": "zzz", "content": "who"}],  # unknown id
            [{"id": "c0", "content": "one"}, {"id": "c1"}],  # none of the three shapes
            [{"id": "c0", "content": 1}, {"id": "c1", "content": "x"}],  # wrong type
            {"id": "c0"},  # not an array
        ]
        for results in bad_results:
            with pytest.raises(tr.ToolRegistryError) as e:
                r.finish_calls(plan, results)
            assert e.value.status == tr.Status.INVALID_ARGUMENT, results
            assert e.value.message
        for bad_plan in [{"calls": []}, {"toolregistry_plan": 99, "calls": []}, [], {"toolregistry_plan": 1}, 42]:
            with pytest.raises(tr.ToolRegistryError) as e:
                r.finish_calls(bad_plan, [])
            assert e.value.status == tr.Status.INVALID_ARGUMENT, bad_plan
        with pytest.raises(tr.ToolRegistryError) as e:
            r.finish_calls("{not json", [])
        assert e.value.status in (tr.Status.INVALID_JSON, tr.Status.INVALID_ARGUMENT)
        # The refusals changed nothing: the good results still finish the same plan.
        assert r.finish_calls(plan, good) == out


def test_a_tool_unregistered_between_the_steps_becomes_unknown():
    with tr.Registry() as r:
        r.register_function(tool("f"), lambda i: i)
        plan = r.prepare_calls(openai_calls(("f", {"i": 1})))
        r.unregister("f")
        out = r.finish_calls(plan, [{"id": "c0", "content": "1"}])
        assert out[0]["content"].startswith("Error:") and '"f"' in out[0]["content"]


# -- the sync execute with async functions -----------------------------------------------------


async def _async_add(a, b):
    await asyncio.sleep(0)
    return a + b


ADD = {
    "name": "add",
    "description": "Add.",
    "parameters": {"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"]},
}


def test_sync_execute_runs_an_async_function_when_no_loop_runs():
    with tr.Registry() as r:
        r.register_function(ADD, _async_add)
        r.register_function(tool("lambda_coro"), lambda i: _async_add(i, 1))
        out = r.execute(openai_calls(("add", {"a": 1, "b": 2}), ("lambda_coro", {"i": 4})))
        assert contents(out) == ["3", "5"]
        # On the library's threads too.
        out = r.execute(openai_calls(*[("add", {"a": i, "b": 0}) for i in range(4)]), parallel=4)
        assert contents(out) == ["0", "1", "2", "3"]


def test_sync_execute_inside_a_running_loop_names_aexecute():
    async def main():
        with tr.Registry() as r:
            r.register_function(ADD, _async_add)
            r.register_function(tool("lambda_coro"), lambda i: _async_add(i, 1))
            r.register_function(tool("plain"), lambda i: i)
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # no "coroutine was never awaited"
                for parallel in (None, 3):
                    out = r.execute(
                        openai_calls(("add", {"a": 1, "b": 2}), ("lambda_coro", {"i": 4}), ("plain", {"i": 9})),
                        parallel=parallel,
                    )
                    got = contents(out)
                    for text in got[:2]:
                        assert text.startswith("Error:") and "aexecute" in text and "coroutine" not in text
                    assert got[2] == "9"

    asyncio.run(main())


# -- the async embedder (pull model) -----------------------------------------------------------

DIM = 8


def _bag(text):
    """A deterministic bag-of-letters vector, so that similar words land near each other."""
    v = [0.0] * DIM
    for ch in text.lower():
        if ch.isalpha():
            v[ord(ch) % DIM] += 1.0
    return v if any(v) else [1.0] + [0.0] * (DIM - 1)


def test_async_embedder_embeds_pending_texts_and_queries():
    from conftest import SAMPLE_TOOLS

    async def main():
        batches = []

        async def embed(texts):
            await asyncio.sleep(0)
            batches.append(list(texts))
            return [_bag(t) for t in texts]

        with tr.Registry() as r:
            r.set_embedder(embed, dim=DIM)
            r.register(SAMPLE_TOOLS)
            before = r.embedding_status()
            assert before is not None and before["pending"] >= len(SAMPLE_TOOLS)
            n = await r.aembed_pending(batch_size=2)
            assert n == len(SAMPLE_TOOLS) and max(len(b) for b in batches) <= 2
            batches.clear()
            status = r.embedding_status()
            assert status["pending"] == 0 and status["ready"] == len(SAMPLE_TOOLS) and status["failed"] == 0
            assert r.wait_embeddings(0)
            with r.discoverer() as d:
                hits = await d.adiscover("read a file from disk", top_k=3)
                assert hits and batches == [["read a file from disk"]]
                # The vector changes the ranking's inputs: equal to discover with that vector.
                same = d.discover("read a file from disk", 3, options={"query_vector": _bag("read a file from disk")})
                assert hits == same
            assert await r.aembed_pending() == 0  # nothing waits any more

    asyncio.run(main())


def test_async_embedder_failures_fail_their_texts_only():
    async def main():
        async def embed(texts):
            out = []
            for t in texts:
                if "broken" in t:
                    out.append([float("nan")] * DIM)
                elif "short" in t:
                    out.append([1.0])
                elif "zero" in t:
                    out.append([0.0] * DIM)
                else:
                    out.append(_bag(t))
            return out

        async def raising(texts):
            raise RuntimeError("HTTP 500")

        with tr.Registry() as r:
            r.set_embedder(embed, dim=DIM)
            # One at a time, so each text is a batch of its own in the library.
            for name in ["fine_tool", "broken_tool", "short_tool", "zero_tool"]:
                r.register({"name": name, "description": f"A {name.split('_')[0]} tool."})
                assert await r.aembed_pending() == (1 if name == "fine_tool" else 0)
            status = r.embedding_status()
            assert status["ready"] == 1 and status["failed"] == 3 and status["pending"] == 0
            # Together, a bad vector fails the library's batch it is in, never the call.
            r.register([{"name": "ok_two", "description": "Okay."}, {"name": "broken_two", "description": "Broken."}])
            await r.aembed_pending()
            status = r.embedding_status()
            assert status["pending"] == 0 and status["failed"] == 5
            r.set_embedder(raising, dim=DIM)  # again: every tool is embedded anew
            assert await r.aembed_pending() == 0
            assert r.embedding_status()["failed"] == 6
            with r.discoverer() as d:
                # The embedder fails on the query too: ranked by words.
                assert (await d.adiscover("fine tool"))[0]["name"] == "fine_tool"

    asyncio.run(main())


def test_aembed_pending_without_an_async_embedder():
    async def main():
        with tr.Registry() as r:
            with pytest.raises(ValueError):
                await r.aembed_pending()
            r.set_embedder(lambda texts: [_bag(t) for t in texts], dim=DIM)  # a sync one: the callback model
            with pytest.raises(ValueError):
                await r.aembed_pending()

    asyncio.run(main())


def test_cancelled_aembed_pending_answers_the_texts_it_took():
    async def main():
        called = asyncio.Event()

        async def stuck(texts):
            called.set()
            await asyncio.sleep(60)

        with tr.Registry() as r:
            r.set_embedder(stuck, dim=DIM)
            r.register([{"name": "send_email", "description": "Send an email."}])
            task = asyncio.create_task(r.aembed_pending())
            await asyncio.wait_for(called.wait(), 5)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # The library's batch got its answer (an error): nothing waits, the tool failed.
            assert r.wait_embeddings(5)
            status = r.embedding_status()
            assert status["pending"] == 0 and status["failed"] == 1
            # A plain discover never calls the async embedder: words.
            with r.discoverer() as d:
                assert d.discover("send an email")[0]["name"] == "send_email"

    asyncio.run(main())
