"""`toolregistry mcp` driven by the official MCP Python SDK as its client, over stdio.

Downstream: `mcp-server-time` (published), the scripted server of downstream.py (answers, tool
errors, crash, hang, a line that is not JSON-RPC, list_changed, malformed and oversized entries),
a 2,000-tool server, two servers whose names would collide, and one that cannot start.

Usage: test_proxy.py PROXY_BINARY
"""

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

PROXY = sys.argv[1]
HERE = Path(__file__).resolve().parent
PY = sys.executable
BIN = Path(PY).parent
SECRET = "tok-SECRET-4711-do-not-print"
LEAK = "proxy-env-must-not-leak"
FAILURES: list[str] = []
# The proxy's trust pins go here, never to the user's data folder (whose pins from their own use of
# the gateway would quarantine the suite's servers, and which the suite's servers would join).
STATE = os.path.join(tempfile.mkdtemp(prefix="tr-mcp-state-"), "mcp-state.json")
atexit.register(shutil.rmtree, os.path.dirname(STATE), True)


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def config() -> dict:
    server = lambda *args, **extra: {"command": PY, "args": [str(HERE / "downstream.py"), *args], **extra}
    return {
        "mcpServers": {
            "time": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"], "defer": False},
            "script": server("scripted", env={"SCRIPT_TOKEN": SECRET}, timeout_ms=1500),
            "big": server("big", "2000", deny=["op_0000"], disabled=False),  # "disabled": a host's key, ignored
            # "p" lists "q-echo" and "p-q" lists "echo": both would be "p-q-echo".
            "p": server("prefixed"),
            "p-q": server("echo"),
            "broken": {"command": "/nonexistent/toolregistry-test-server", "env": {"TOKEN": SECRET}},
        }
    }


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def names(listed) -> list[str]:
    return [t.name for t in listed.tools]


async def call(session, name: str, args: dict | None = None):
    return await session.call_tool(name, args or {})


async def wait_for(event: anyio.Event, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        await event.wait()
        return True
    return False


def run_check(path: str) -> None:
    out = subprocess.run([PROXY, "mcp", "--check", "--config", path, "--state", STATE], capture_output=True, text=True, timeout=60)
    lines = {l.split()[0]: l for l in out.stdout.splitlines() if l.strip()}
    print(out.stdout, end="")
    check(out.returncode == 1, "--check exits 1 when a server cannot start")
    check("running  2 tools" in lines.get("time", ""), "--check: time (published server) is running with 2 tools")
    # echo, fail, crash, hang, garbage, add_tool, env_names; oversized, "bad name" and the malformed
    # entries are skipped.
    check("running  7 tools" in lines.get("script", ""), "--check: the scripted server's 7 valid tools")
    check("running  1999 tools" in lines.get("big", ""), "--check: the 2,000-tool server, one tool denied")
    check("failed" in lines.get("broken", ""), "--check: the broken server is reported failed")
    check(SECRET not in out.stdout + out.stderr, "--check never prints a secret from env")
    skipped = out.stderr
    check('"oversized"' in skipped and "bytes" in skipped, "an oversized tool is skipped with its reason")
    check('"bad name"' in skipped, "a tool with an invalid name is skipped with its reason")
    check("tool #9" in skipped and "tool #10" in skipped, "malformed entries are skipped with their reason")
    check("is already a tool of server" in skipped, "a server cannot take another server's tool name")
    bad = Path(path).with_name("bad.json")
    for text, needle in [
        ('{"servers": {}}', "mcpServers"),
        ('{"mcpServers": {"a": {"args": []}}}', "a.command: missing"),
        ('{"mcpServers": {"bad name": {"command": "x"}}}', "bad name"),
        ('{"mcpServers": {"a": {"type": "sse", "url": "http://127.0.0.1:1/sse"}}}', "legacy SSE"),
        ('{"mcpServers": {"a": {"command": "x", "defer": 1}}}', "a.defer: expected a boolean"),
        ('{"mcpServers": {"a": {"command": "x", "timeout_ms": 0}}}', "a.timeout_ms"),
        ('{"mcpServers": {"a": {"command": "x", "allow": "one"}}}', "a.allow: expected an array"),
        ('{"mcpServers": {"a": {"command": "x", "env": {"K": 5}}}}', "a.env.K: expected a string"),
        ('{"mcpServers": {"a": {"command": "x", "env": {"K=": "%s"}}}}' % SECRET, "a.env.K=: not a valid"),
        ("not json", "not JSON"),
    ]:
        bad.write_text(text)
        out = subprocess.run([PROXY, "mcp", "--check", "--config", str(bad), "--state", STATE], capture_output=True, text=True)
        check(out.returncode == 1 and needle in out.stderr and SECRET not in out.stderr,
              f"config {text[:50]!r} is refused: {out.stderr.strip()[:120]}")
    no_model = {k: v for k, v in os.environ.items() if k != "TOOLREGISTRY_MODEL_DIR"}
    out = subprocess.run([PROXY, "mcp", "--check", "--config", str(path), "--state", STATE, "--embed-cache", str(bad)],
                         capture_output=True, text=True, env=no_model)
    check(out.returncode == 1 and "model_dir: required" in out.stderr,
          f"--embed-cache without a model is refused: {out.stderr.strip()[:120]}")


async def session_tests(path: str, errlog) -> None:
    changed = anyio.Event()
    state = {"changed": changed}

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification) or "tools/list_changed" in repr(message):
            state["changed"].set()

    def reset() -> anyio.Event:
        state["changed"] = anyio.Event()
        return state["changed"]

    params = StdioServerParameters(
        command=PROXY, args=["mcp", "--config", path, "--state", STATE], env={"LEAK_CHECK": LEAK}
    )
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            first = names(await session.list_tools())
            print("listed:", first)
            check(first[:2] == ["discover_tools", "call_deferred"] or {"discover_tools", "call_deferred"} <= set(first),
                  "the built-ins are listed")
            check({"time-get_current_time", "time-convert_time"} <= set(first), "non-deferred tools are listed")
            check("script-echo" not in first and not any(n.startswith("big-") for n in first),
                  "deferred tools are not listed")

            r = await call(session, "time-get_current_time", {"timezone": "UTC"})
            check(not r.is_error and '"timezone": "UTC"' in text_of(r).replace('":"', '": "'),
                  "a published server's tool is called through the proxy")

            changed = reset()
            r = await call(session, "discover_tools", {"query": "echo the text back", "namespace": "script"})
            hits = json.loads(text_of(r))
            check(not r.is_error and hits and hits[0]["name"] == "script-echo", "search finds a deferred tool")
            check(all(h["name"].startswith("script-") for h in hits), "the namespace filter keeps one server")
            check(await wait_for(changed, 3), "list_changed after a search found a tool")
            after = names(await session.list_tools())
            check(after[: len(first)] == first and after[len(first):] == ["script-echo"],
                  "the found tool is appended; the earlier order is unchanged")

            r = await call(session, "script-echo", {"text": "hi"})
            kinds = [c.type for c in r.content]
            check(not r.is_error and text_of(r) == "echo: hi" and kinds == ["text", "image"]
                  and r.structured_content == {"echoed": "hi"},
                  "a found tool is called; content types and structured content pass through")

            r = await call(session, "call_deferred", {"_target_tool": "script-fail"})
            check(r.is_error and text_of(r) == "deliberate failure", "call_deferred passes isError through")
            r = await call(session, "script-fail")
            check(r.is_error and text_of(r) == "deliberate failure", "a direct call passes isError through")

            r = await call(session, "discover_tools", {"query": "record batch number 1234", "namespace": "big", "top_k": 3})
            hits = json.loads(text_of(r))
            check(bool(hits) and hits[0]["name"] == "big-op_1234" and all(h["name"].startswith("big-") for h in hits),
                  "search over the 2,000-tool server: " + str([h["name"] for h in hits]))
            r = await call(session, "discover_tools", {"query": "big-op_0000"})
            check(all(h["name"] != "big-op_0000" for h in json.loads(text_of(r))), "a denied tool is not registered")
            r = await call(session, "call_deferred", {"_target_tool": "big-op_1234"})
            check(not r.is_error and text_of(r) == "op_1234 ran", "call_deferred runs a tool of the 2,000-tool server")

            r = await call(session, "script-env_names")
            env = json.loads(text_of(r))
            check("SCRIPT_TOKEN" in env and "PATH" in env and "LEAK_CHECK" not in env,
                  "a server gets the config's env and PATH, not the proxy's other variables")

            t0 = time.monotonic()
            try:
                # The client's own deadline, so that a proxy without one fails here instead of hanging.
                r = await session.call_tool("script-hang", {}, read_timeout_seconds=15)
                hung = r.is_error and "did not answer" in text_of(r)
            except Exception as e:  # the client's timeout: the proxy never answered
                hung = False
                print("     the proxy did not answer:", repr(e)[:200])
            took = time.monotonic() - t0
            check(hung and took < 5, f"a hung call times out with an error result ({took:.1f} s)")

            r = await call(session, "script-garbage")
            check(not r.is_error and text_of(r) == "answered after garbage", "a line that is not JSON-RPC is ignored")
            r = await call(session, "script-echo", {"text": "still"})
            check(text_of(r) == "echo: still", "the server still answers after malformed output")

            changed = reset()
            # Through call_deferred, which loads nothing: the list_changed can only be the server's.
            r = await call(session, "call_deferred", {"_target_tool": "script-add_tool"})
            check(await wait_for(changed, 3), "a downstream list_changed reaches the client")
            r = await call(session, "discover_tools", {"query": "tide times harbour"})
            hits = json.loads(text_of(r))
            check(hits and hits[0]["name"] == "script-tide_table", "a tool added downstream is found")

            r = await call(session, "script-crash")
            check(r.is_error, "a call that crashes its server gets an error result")
            r = await call(session, "script-echo", {"text": "x"})
            check(r.is_error and "script" in text_of(r), "calls while the server restarts get a clear error: " + text_of(r))
            r = await call(session, "time-get_current_time", {"timezone": "UTC"})
            check(not r.is_error, "the other servers keep working while one is down")
            ok = False
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                r = await call(session, "script-echo", {"text": "back"})
                if not r.is_error:
                    ok = text_of(r) == "echo: back"
                    break
                await anyio.sleep(0.1)
            check(ok, "the crashed server is restarted and answers again")

            r = await call(session, "p-q-echo", {"text": "one"})
            check(not r.is_error, "the colliding name routes to exactly one server")
            r = await call(session, "no-such-tool")
            check(r.is_error and "discover_tools" in text_of(r), "an unknown tool is an error result")


async def model_tests(tmp: str, model: str, errlog) -> None:
    """With a model: a search by meaning through the proxy, and the vectors kept in a cache."""
    path = os.path.join(tmp, "model-config.json")
    with open(path, "w") as f:
        json.dump({"mcpServers": {"script": config()["mcpServers"]["script"]}}, f)
    cache = os.path.join(tmp, "vectors.bin")
    # No word in common with "Exit the server process at once." (the crash tool).
    query = {"query": "terminate the program immediately", "namespace": "script"}
    for run in (1, 2):
        params = StdioServerParameters(
            command=PROXY,
            args=["mcp", "--config", path, "--state", STATE, "--model-dir", model, "--embed-cache", cache],
            env={"LEAK_CHECK": LEAK},
        )
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                hits: list = []
                deadline = time.monotonic() + 30
                while time.monotonic() < deadline:
                    r = await call(session, "discover_tools", query)
                    hits = json.loads(text_of(r)) if not r.is_error else []
                    if hits and hits[0]["name"] == "script-crash":
                        break
                    await anyio.sleep(0.2)
                check(bool(hits) and hits[0]["name"] == "script-crash",
                      f"run {run}: found by meaning through the proxy: {[h['name'] for h in hits][:3]}")
        check(os.path.isfile(cache) and os.path.getsize(cache) > 0,
              f"run {run}: the tools' vectors are kept in --embed-cache")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "config.json")
        with open(path, "w") as f:
            json.dump(config(), f)
        run_check(path)
        log = os.path.join(tmp, "proxy.log")
        try:
            with open(log, "w") as errlog:
                await session_tests(path, errlog)
                model = os.environ.get("TOOLREGISTRY_TEST_MODEL_DIR")
                if model:
                    await model_tests(tmp, model, errlog)
                else:
                    print("skip  the model checks (TOOLREGISTRY_TEST_MODEL_DIR is not set)")
        finally:
            stderr = Path(log).read_text()
            if FAILURES:
                print("--- the proxy's stderr (last 40 lines):\n" + "\n".join(stderr.splitlines()[-40:])[-6000:])
        check(SECRET not in stderr, "the proxy's log never carries a secret")
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        sys.exit(1)
    print("\nall MCP proxy checks passed")


anyio.run(main)
