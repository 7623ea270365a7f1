"""Co-use in `toolregistry mcp`, driven by the official MCP Python SDK: one client session is one
task of the tools it called that ran; discover_tools then brings in the partners of its best hits.

Over streamable HTTP (several sessions of one gateway): two sessions call `add_agenda` and
`get_user_token` (one directly, one through call_deferred) and a failing, an unknown and a
unknown call; a third lists files. A fourth session's search for
an agenda item brings `get_user_token` in with its reason, never the failing tool. The gateway
stops (SIGTERM): the counts are in `mcp-usage.json` beside the --state file; a restart over stdio
with the same --state finds the partner again; `"usage": false` in the config brings nothing in
and leaves the file as it was.

Usage: test_usage.py PROXY_BINARY
"""

import atexit
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

PROXY = sys.argv[1]
HERE = Path(__file__).resolve().parent
PY = sys.executable
FAILURES: list[str] = []
TMP = tempfile.mkdtemp(prefix="tr-mcp-usage-")
atexit.register(shutil.rmtree, TMP, True)
STATE = os.path.join(TMP, "mcp-state.json")
USAGE = os.path.join(TMP, "mcp-usage.json")
QUERY = "add an agenda item for tomorrow"
REASON = "used with `habits-add_agenda` in 2 of its 2 tasks"


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def write_config(name: str, **top) -> str:
    path = os.path.join(TMP, name)
    config = {"mcpServers": {"habits": {"command": PY, "args": [str(HERE / "downstream.py"), "habits"]}}, **top}
    Path(path).write_text(json.dumps(config))
    return path


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def discover(session) -> list:
    r = await session.call_tool("discover_tools", {"query": QUERY})
    return json.loads(text_of(r))


async def habit(session, via_deferred: bool) -> None:
    """One session's calls: two tools that run, and calls that must not count."""
    r = await session.call_tool("habits-add_agenda", {"text": "standup"})
    check(not r.is_error, "add_agenda runs")
    if via_deferred:
        r = await session.call_tool("call_deferred", {"_target_tool": "habits-get_user_token"})
    else:
        r = await session.call_tool("habits-get_user_token", {})
    check(not r.is_error, "get_user_token runs" + (" (call_deferred)" if via_deferred else ""))
    r = await session.call_tool("habits-book_room", {})
    check(r.is_error, "book_room fails (a tool error: not counted)")
    r = await session.call_tool("call_deferred", {"_target_tool": "habits-book_room"})
    check(r.is_error, "book_room through call_deferred fails too")
    r = await session.call_tool("habits-no_such_tool", {})
    check(r.is_error, "an unknown tool is refused")
    r = await session.call_tool("call_deferred", {"_target_tool": "habits-no_such_tool"})
    check(r.is_error, "an unknown call_deferred target is refused")


class HttpGateway:
    def __init__(self, config: str):
        self.log = Path(TMP) / f"http-{time.monotonic_ns()}.log"
        self.err = open(self.log, "w")
        self.p = subprocess.Popen([PROXY, "mcp", "--config", config, "--state", STATE, "--http", "127.0.0.1:0"],
                                  stdout=subprocess.DEVNULL, stderr=self.err)
        self.url = None
        end = time.monotonic() + 60
        while time.monotonic() < end and self.url is None:
            m = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", self.log.read_text())
            if m:
                self.url = m.group(1)
            elif self.p.poll() is not None:
                break
            else:
                time.sleep(0.2)
        if self.url is None:
            raise SystemExit("the gateway did not start:\n" + self.log.read_text())

    async def session(self, body) -> None:
        async with httpx2.AsyncClient(timeout=httpx2.Timeout(30, read=60)) as http:
            async with streamable_http_client(self.url, http_client=http) as streams:
                async with ClientSession(streams[0], streams[1]) as s:
                    await s.initialize()
                    await body(s)

    def stop(self) -> str:
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.close()
        return self.log.read_text()


async def stdio_session(config: str, body) -> None:
    params = StdioServerParameters(command=PROXY, args=["mcp", "--config", config, "--state", STATE])
    with open(os.path.join(TMP, "stdio.log"), "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as s:
                await s.initialize()
                await body(s)


def brought(hits: list) -> dict:
    return {h["name"]: h.get("brought_in") for h in hits if h.get("brought_in")}


async def main() -> None:
    config = write_config("servers.json")
    gateway = HttpGateway(config)
    try:
        async def fresh(s):
            hits = await discover(s)
            check(hits and hits[0]["name"] == "habits-add_agenda", "the query ranks add_agenda first")
            check(not brought(hits), "nothing is brought in before any use: " + str([h["name"] for h in hits]))

        await gateway.session(fresh)
        await gateway.session(lambda s: habit(s, via_deferred=False))
        await gateway.session(lambda s: habit(s, via_deferred=True))

        async def files(s):
            r = await s.call_tool("habits-list_files", {})
            check(not r.is_error, "list_files runs (a task of its own)")

        await gateway.session(files)
        # A session's task is recorded when it ends: the client's DELETE ends it at once.
        found: dict = {}
        end = time.monotonic() + 10
        while time.monotonic() < end:
            async def look(s):
                found["hits"] = await discover(s)

            await gateway.session(look)
            if brought(found["hits"]):
                break
            await anyio.sleep(0.3)
        hits = found["hits"]
        print("with usage:", [(h["name"], h.get("brought_in")) for h in hits])
        check(hits[0]["name"] == "habits-add_agenda", "the query's own best hit keeps its place")
        check(brought(hits).get("habits-get_user_token") == REASON,
              f"a later session's search brings in the partner with its reason: {brought(hits)}")
        check("habits-book_room" not in [h["name"] for h in hits], "failed calls do not count: book_room is not brought in")
        check("habits-list_files" not in [h["name"] for h in hits], "a tool of another task is not brought in")
    finally:
        log = gateway.stop()
    check(gateway.p.returncode == 0, f"the gateway stops cleanly on SIGTERM (exit {gateway.p.returncode})")
    check(os.path.exists(USAGE), "the counts are written beside the --state file (mcp-usage.json)")
    saved = json.loads(Path(USAGE).read_text()) if os.path.exists(USAGE) else {}
    tools = dict(saved.get("tools", []))
    print("saved:", saved)
    check(saved.get("tasks") == 3 and tools.get("habits-add_agenda") == 2 and tools.get("habits-get_user_token") == 2
          and tools.get("habits-list_files") == 1,
          "three tasks saved: the two habits and list_files (the searching sessions are no task)")
    check("habits-book_room" not in tools and not any("no_such" in n for n in tools),
          "failed and unknown calls are not in the file")
    check("usage" not in log, "no usage warning at start or stop: " + log[-300:])

    # A restart with the same --state keeps it (now over stdio: a session is the process).
    async def after_restart(s):
        hits = await discover(s)
        check(brought(hits).get("habits-get_user_token") == REASON,
              f"after a restart the partner is still brought in: {brought(hits)}")

    await stdio_session(config, after_restart)

    # "usage": false: nothing brought in, nothing recorded, the file left as it was.
    before = Path(USAGE).read_bytes()
    off = write_config("off.json", usage=False)

    async def turned_off(s):
        hits = await discover(s)
        check(not brought(hits), f'"usage": false brings nothing in: {[h["name"] for h in hits]}')
        await habit(s, via_deferred=False)

    await stdio_session(off, turned_off)
    check(Path(USAGE).read_bytes() == before, '"usage": false leaves the usage file as it was')

    # A corrupt file is a warning and an empty start, never a failed start.
    Path(USAGE).write_bytes(b"\xff\xfe not a usage file")

    async def corrupt(s):
        hits = await discover(s)
        check(hits and not brought(hits), "a corrupt usage file: the gateway serves, nothing brought in")

    await stdio_session(config, corrupt)
    errors = Path(TMP, "stdio.log").read_text()
    check("ignored the usage file" in errors, "a corrupt usage file is a warning on stderr")

    # A bad "usage" value is a config error.
    bad = write_config("bad.json", usage="sometimes")
    out = subprocess.run([PROXY, "mcp", "--config", bad, "--state", STATE], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    check(out.returncode != 0 and "usage: expected true or false" in out.stderr,
          f'"usage": "sometimes" is refused: {out.stderr.strip()[:160]}')


anyio.run(main)
if FAILURES:
    print(f"{len(FAILURES)} failed:", *FAILURES, sep="\n  ")
    sys.exit(1)
print("all passed")
