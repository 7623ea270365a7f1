"""Conversations: the conformance corpus of tests/conformance/conversation (byte for byte, as every
language runs it), then the Python side: options as keywords, dict or JSON text; the typed tools;
reveal (all or none, NOT_FOUND); a conversation outliving its registry (Python host functions
included); use after close; tools from many threads while tools are revealed."""

import gc
import json
import threading
from pathlib import Path

import pytest

import toolregistry_rs as tr
from toolregistry_rs import _host

from test_execute import host

CORPUS = Path(__file__).resolve().parents[3] / "tests" / "conformance" / "conversation"


def cases(corpus=None):
    """The corpus' case directories, sorted by name."""
    return sorted(p.parent for p in (corpus or CORPUS).glob("*/calls.json"))


def fixture_registry(corpus=None):
    """The registry of ``fixture.json``, built through this binding (scripted raw hosts)."""
    fixture = json.loads(((corpus or CORPUS) / "fixture.json").read_text())
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


def run_case(case, corpus=None):
    """Runs one case on a fresh fixture registry; returns the library's bytes (messages, loaded,
    tools afterwards).

    The registry handle is closed before the calls run: the conversation outlives it."""
    r = fixture_registry(corpus)
    with r.conversation((case / "options.json").read_bytes()) as c:
        r.close()
        messages = c.execute_json((case / "calls.json").read_bytes())
        loaded = c.loaded_json()
        tools = c.tools_json()
    return messages, loaded, tools


def read(path):
    return path.read_text().rstrip("\n")


def test_corpus_present():
    assert len(cases()) >= 8, f"conversation corpus missing under {CORPUS}"


@pytest.mark.parametrize("case", cases(), ids=[p.name for p in cases()])
def test_conformance(case):
    messages, loaded, tools = run_case(case)
    # The library's bytes, as C, Go and C# compare them.
    assert messages.decode() == read(case / "expected.json")
    assert loaded.decode() == read(case / "loaded.json")
    if (case / "tools.json").exists():
        assert tools.decode() == read(case / "tools.json")
    # The decoded answers of the public methods, with options given as a dict, are the same.
    with fixture_registry() as r, r.conversation(json.loads((case / "options.json").read_text())) as c:
        assert c.execute(json.loads((case / "calls.json").read_text())) == json.loads(
            read(case / "expected.json")
        )
        assert c.loaded() == json.loads(read(case / "loaded.json"))
        tools = c.tools()
        assert len(tools.fingerprint) == 64 and int(tools.fingerprint, 16) >= 0
        assert json.loads(c.tools_json()) == {
            "tools": tools.tools,
            "system_text": tools.system_text,
            "fingerprint": tools.fingerprint,
        }


def names(tools, api_format="openai-chat"):
    if api_format == "openai-chat":
        return [t["function"]["name"] for t in tools.tools]
    return [t.get("name", t.get("type")) for t in tools.tools]


def test_modes_and_typed_tools():
    with fixture_registry() as r:
        with r.conversation() as c:  # summaries, openai-chat
            t = c.tools()
            assert isinstance(t, tr.ConversationTools)
            assert names(t) == ["get_time", "book_bus", "discover_tools", "call_deferred"]
            assert "send_email" in t.tools[2]["function"]["description"] and t.system_text == ""
        with r.conversation(mode="stable") as c:
            t = c.tools()
            assert "send_email" in t.system_text and "get_weather" in t.system_text
            with r.conversation(mode="stable", summary_max_tokens=0) as cut:
                text = cut.tools().system_text
                assert text.endswith("\n- ... and 2 more (call discover_tools to find them)")
                assert "send_email" not in text
            before = t.fingerprint
            c.reveal("get_weather")
            after = c.tools()
            assert names(after)[: len(t.tools)] == names(t), "loading only appends"
            assert names(after)[-1] == "get_weather" and after.fingerprint != before
            assert c.loaded() == ["get_weather"]
        with r.conversation(api_format="anthropic", mode="native") as c:
            t = c.tools()
            deferred = {x["name"]: x.get("defer_loading", False) for x in t.tools}
            assert deferred == {
                "discover_tools": False,
                "get_time": False,
                "book_bus": False,
                "send_email": True,
                "get_weather": True,
            }


def test_options_as_keywords_dict_or_json_text():
    with fixture_registry() as r:
        want = r.conversation(api_format="openai-responses", mode="stable", top_k=3).tools_json()
        assert (
            r.conversation({"api_format": "openai-responses", "mode": "stable", "top_k": 3}).tools_json()
            == want
        )
        assert (
            r.conversation('{"api_format": "openai-responses", "mode": "stable", "top_k": 3}').tools_json()
            == want
        )
        # Keywords win over the options they are merged into.
        assert (
            r.conversation(
                '{"api_format": "gemini", "mode": "stable"}', api_format="openai-responses", top_k=3
            ).tools_json()
            == want
        )
        assert tr.Conversation(r, api_format="openai-responses", mode="stable", top_k=3).tools_json() == want
        # Restoring a saved conversation gives the same tools.
        with r.conversation(mode="stable") as c:
            c.reveal(["send_email", "get_weather"])
            saved = c.loaded()
            assert r.conversation(mode="stable", loaded=saved).tools_json() == c.tools_json()
        for bad, status in [
            ({"mode": "native"}, tr.Status.INVALID_ARGUMENT),  # openai-chat has no native search
            ({"mode": "sometimes"}, tr.Status.INVALID_ARGUMENT),
            ({"api_format": "openai-responses", "mode": "native", "top_k": 0}, tr.Status.INVALID_ARGUMENT),
            ('{"mode": ', tr.Status.INVALID_JSON),
        ]:
            with pytest.raises(tr.ToolRegistryError) as e:
                r.conversation(bad)
            assert e.value.status == status, bad
        with pytest.raises(TypeError):
            r.conversation(loaded="send_email")  # a str is not a list of names
        with pytest.raises(TypeError):
            tr.Conversation("not a registry")


def test_execute_refuses_another_providers_calls():
    with fixture_registry() as r, r.conversation(api_format="anthropic") as c:
        chat = {
            "role": "assistant",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "get_time", "arguments": "{}"}}
            ],
        }
        with pytest.raises(tr.ToolRegistryError) as e:
            c.execute(chat)
        assert e.value.status == tr.Status.INVALID_ARGUMENT
        with pytest.raises(tr.ToolRegistryError) as e:
            c.execute(chat, api_format="openai-chat")
        assert e.value.status == tr.Status.INVALID_ARGUMENT
        with pytest.raises(tr.ToolRegistryError) as e:
            c.execute("[{")
        assert e.value.status == tr.Status.INVALID_JSON
        assert c.loaded() == []


def test_reveal_unknown_is_not_found_and_loads_nothing():
    with fixture_registry() as r, r.conversation(mode="stable") as c:
        before = c.tools_json()
        with pytest.raises(tr.ToolRegistryError) as e:
            c.reveal(["send_email", "no_such_tool"])
        assert e.value.status == tr.Status.NOT_FOUND
        assert "no_such_tool" in e.value.message
        assert c.loaded() == [] and c.tools_json() == before, "all or none"
        with pytest.raises(tr.ToolRegistryError) as e:
            c.reveal("no_such_tool")
        assert e.value.status == tr.Status.NOT_FOUND
        c.reveal(["send_email"])
        assert c.loaded() == ["send_email"] and c.tools_json() != before


def test_conversation_outlives_its_registry():
    gc.collect()  # registries other tests left to the collector hold functions too
    before = len(_host._functions)
    r = tr.Registry()
    r.register_function(
        {
            "name": "greet",
            "description": "Greet someone.",
            "parameters": {"type": "object", "properties": {"who": {"type": "string"}}},
            "metadata": {"defer": True},
        },
        lambda who: f"hello {who}",
    )
    r.enable_discovery(profile="reference")
    c = r.conversation(api_format="anthropic", mode="native")
    r.close()
    with pytest.raises(ValueError):
        r.conversation()
    # The registry's tools and their Python functions live on with the conversation.
    assert len(_host._functions) == before + 1
    out = c.execute(
        {
            "role": "assistant",
            "content": [{"type": "tool_use", "id": "t1", "name": "greet", "input": {"who": "Ada"}}],
        }
    )
    assert out == [
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "hello Ada"}]}
    ]
    assert c.loaded() == ["greet"]
    assert [t["name"] for t in c.tools().tools] == ["discover_tools", "greet"]
    c.close()
    gc.collect()
    assert len(_host._functions) == before, "the last handle released the function"
    # A conversation dropped without close is freed by the collector.
    r = fixture_registry()
    c = r.conversation()
    r.close()
    del c
    gc.collect()


def test_use_after_close():
    with fixture_registry() as r:
        c = r.conversation()
        assert "closed" not in repr(c)
        with c:
            pass
        assert c.closed and "closed" in repr(c)
        c.close()  # a second close does nothing
        for method, args in [
            (c.tools, ()),
            (c.tools_json, ()),
            (c.execute, ("[]",)),
            (c.execute_json, ("[]",)),
            (c.reveal, (["send_email"],)),
            (c.loaded, ()),
            (c.loaded_json, ()),
        ]:
            with pytest.raises(ValueError, match="closed conversation"):
                method(*args)
        # The registry and its other conversations are unaffected.
        assert r.conversation().loaded() == []


def test_tools_from_many_threads():
    order = ["send_email", "get_weather"]
    with fixture_registry() as r:
        # Every state the conversation passes through, from a twin taking the same steps.
        with r.conversation(mode="stable") as twin:
            states = [twin.tools_json()]
            for name in order:
                twin.reveal(name)
                states.append(twin.tools_json())
        assert len(set(states)) == 3
        errors = []
        with r.conversation(mode="stable") as c:
            go = threading.Barrier(9, timeout=30)

            def reader():
                try:
                    go.wait()
                    for _ in range(300):
                        got = c.tools_json()
                        if got not in states:
                            errors.append(got)
                        typed = c.tools()
                        if typed.fingerprint not in {json.loads(s)["fingerprint"] for s in states}:
                            errors.append(typed)
                except Exception as e:  # pragma: no cover - reported below
                    errors.append(e)

            threads = [threading.Thread(target=reader) for _ in range(8)]
            for t in threads:
                t.start()
            go.wait()
            for name in order:
                c.reveal(name)
            for t in threads:
                t.join()
            assert not errors, errors[:3]
            assert c.tools_json() == states[-1] and c.loaded() == order


def test_close_waits_for_calls_in_flight():
    with fixture_registry() as r:
        c = r.conversation()
        stop = threading.Event()
        errors = []

        def reader():
            while not stop.is_set():
                try:
                    c.tools_json()
                except ValueError:
                    return  # closed: the only allowed failure
                except Exception as e:  # pragma: no cover - reported below
                    errors.append(e)
                    return

        threads = [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        c.close()
        stop.set()
        for t in threads:
            t.join()
        assert not errors
