"""Live config of `toolregistry mcp`, driven by the official MCP Python SDK client over stdio: while
one client stays connected, the config is edited (a server added, one removed, one changed), then
broken, then changed again and signalled with SIGHUP under --no-watch. The untouched server keeps
its process, the changed one is restarted, the client gets list_changed each time, and a config
that no longer parses is refused while everything keeps running.

Usage: test_live.py PROXY_BINARY
"""

import json
import os
import signal
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
FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def named(label: str, **extra) -> dict:
    return {"command": PY, "args": [str(HERE / "servers.py"), "named", label], "defer": False, **extra}


def write(path: Path, text: str) -> None:
    """Replaces the file in one step, as editors do."""
    tmp = path.with_suffix(".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def config_text(servers: dict) -> str:
    return json.dumps({"mcpServers": servers})


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def proxy_pid(config: Path) -> int:
    """The proxy this test started: the process whose command line has this run's config path."""
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                argv = (d / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if argv and argv[0] == PROXY.encode() and str(config).encode() in argv:
                return int(d.name)
    raise RuntimeError("proxy process not found")


async def session(config: Path, errlog, body, *extra) -> None:
    changed = {"event": anyio.Event()}

    async def on_message(message) -> None:
        if isinstance(message, types.ToolListChangedNotification) or "tools/list_changed" in repr(message):
            changed["event"].set()

    params = StdioServerParameters(command=PROXY, args=["mcp", "--config", str(config), "--state",
                                                       str(config.with_name("state.json")), *extra])
    async with stdio_client(params, errlog=errlog) as (read, write_):
        async with ClientSession(read, write_, message_handler=on_message) as s:
            await s.initialize()
            await body(s, changed)


async def names(s) -> set[str]:
    return {t.name for t in (await s.list_tools()).tools}


async def until(s, pred, seconds=15.0) -> set[str]:
    deadline = time.monotonic() + seconds
    while True:
        n = await names(s)
        if pred(n) or time.monotonic() > deadline:
            return n
        await anyio.sleep(0.2)


async def ping(s, name: str) -> str:
    r = await s.call_tool(name, {})
    return ("ERROR " if r.is_error else "") + text_of(r)


async def edits(tmp: Path, errlog, log: Path) -> None:
    config = tmp / "live.json"
    write(config, config_text({"a": named("a"), "b": named("b"), "c": named("c")}))

    async def body(s, changed) -> None:
        first = await names(s)
        check({"a-a_ping", "b-b_ping", "c-c_ping"} <= first, "the three servers are listed")
        a_pid, c_pid = await ping(s, "a-a_ping"), await ping(s, "c-c_ping")
        changed["event"] = anyio.Event()
        # b removed, d added, c changed (a new timeout): a is not touched.
        write(config, config_text({"a": named("a"), "c": named("c", timeout_ms=20000), "d": named("d")}))
        with anyio.move_on_after(10):
            await changed["event"].wait()
        check(changed["event"].is_set(), "the client gets list_changed after the edit")
        after = await until(s, lambda n: "d-d_ping" in n and "c-c_ping" in n and "b-b_ping" not in n)
        check("d-d_ping" in after and "b-b_ping" not in after and {"a-a_ping", "c-c_ping"} <= after,
              f"added d is listed, removed b is gone: {sorted(after)}")
        check(await ping(s, "a-a_ping") == a_pid, f"the untouched server keeps its process ({a_pid})")
        c_now = await ping(s, "c-c_ping")
        check(c_now.startswith("c pid") and c_now != c_pid, f"the changed server was restarted ({c_pid} -> {c_now})")
        check((await ping(s, "d-d_ping")).startswith("d pid"), "the added server answers")
        b = await ping(s, "b-b_ping")
        check(b.startswith("ERROR"), "the removed server's tool is an error result: " + b[:90])

        write(config, '{"mcpServers": {"a": ')
        await anyio.sleep(2)
        check("the config is refused" in log.read_text(), "a config that no longer parses is refused on stderr")
        check(await ping(s, "a-a_ping") == a_pid and (await names(s)) == after,
              "and the running servers keep going as they were")
        write(config, config_text({"a": named("a"), "c": named("c", timeout_ms=20000), "d": named("d")}))
        await anyio.sleep(1.5)
        check(await ping(s, "c-c_ping") == c_now, "the fixed config, equal to the running one, restarts nothing")

    await session(config, errlog, body)


async def hangup(tmp: Path, errlog) -> None:
    config = tmp / "hup.json"
    write(config, config_text({"a": named("a")}))

    async def body(s, changed) -> None:
        check("a-a_ping" in await names(s), "--no-watch: the server is listed")
        write(config, config_text({"a": named("a"), "e": named("e")}))
        await anyio.sleep(1.5)
        check("e-e_ping" not in await names(s), "--no-watch: an edit alone reloads nothing")
        changed["event"] = anyio.Event()
        os.kill(proxy_pid(config), signal.SIGHUP)
        after = await until(s, lambda n: "e-e_ping" in n)
        check("e-e_ping" in after and changed["event"].is_set(), "SIGHUP reloads the config and the client gets list_changed")

    await session(config, errlog, body, "--no-watch")


async def passthrough(tmp: Path, errlog) -> None:
    config = tmp / "pass.json"
    write(config, config_text({"x": named("x"), "x-y": named("y")}))

    async def body(s, changed) -> None:
        prompts = sorted(p.name for p in (await s.list_prompts()).prompts)
        check(prompts == ["x-greet", "x-y-greet"], f"prompts pass through, namespaced: {prompts}")
        r = await s.get_prompt("x-y-greet", {"who": "Ann"})
        check(r.messages[0].content.text == "y greets Ann", "prompts/get goes to the server of the longest prefix")
        r = await s.get_prompt("x-greet", {"who": "Bo"})
        check(r.messages[0].content.text == "x greets Bo", "and to the other server")
        try:
            await s.get_prompt("zz-greet", {})
            refused = False
        except Exception as e:
            refused = "no server has a prompt" in str(e)
        check(refused, "an unknown prompt is an error")
        resources = sorted((r.name, str(r.uri)) for r in (await s.list_resources()).resources)
        check(resources == [("x-note", "memo://x/note"), ("x-y-note", "memo://y/note")],
              f"resources pass through, names namespaced, URIs kept: {resources}")
        r = await s.read_resource("memo://y/note")
        check(r.contents[0].text == "note of y", "resources/read goes to the server that lists the URI")

    await session(config, errlog, body)


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        log = tmp / "proxy.log"
        try:
            with open(log, "w") as errlog:
                await edits(tmp, errlog, log)
                await hangup(tmp, errlog)
                await passthrough(tmp, errlog)
        finally:
            if FAILURES:
                print("--- the proxy's stderr (last 40 lines):\n" + "\n".join(log.read_text().splitlines()[-40:])[-6000:])
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        sys.exit(1)
    print("\nall live-config checks passed")


anyio.run(main)
