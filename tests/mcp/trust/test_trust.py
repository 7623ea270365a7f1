"""Trust in `toolregistry mcp`, driven by the official MCP Python SDK as the client, over stdio:
the poisoned corpus is quarantined before any client sees it (not listed, not found, calls refused
with the rule named); a rug pull between two runs and during a session is held until
`toolregistry mcp approve`, with `review` showing the diff; `"trust": "review"` holds new tools; a
corrupt or unwritable state file turns pinning off with a clear message while the proxy serves.

Usage: test_trust.py PROXY_BINARY
"""

import json
import os
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
CORPUS = HERE / "poisoned.json"
PY = sys.executable
FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def server(*args, **extra) -> dict:
    return {"command": PY, "args": [str(HERE / "servers.py"), *args], **extra}


def write_config(path: Path, servers: dict) -> str:
    path.write_text(json.dumps({"mcpServers": servers}))
    return str(path)


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def proxy(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([PROXY, "mcp", *args], capture_output=True, text=True, timeout=timeout)


class Client:
    """One proxy run with an SDK client session; records list_changed notifications."""

    def __init__(self, config: str, state: str, errlog):
        self.params = StdioServerParameters(command=PROXY, args=["mcp", "--config", config, "--state", state])
        self.errlog = errlog
        self.changed = anyio.Event()

    async def on_message(self, message) -> None:
        if isinstance(message, types.ToolListChangedNotification) or "tools/list_changed" in repr(message):
            self.changed.set()


async def session_run(config: str, state: str, errlog, body) -> None:
    client = Client(config, state, errlog)
    async with stdio_client(client.params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, message_handler=client.on_message) as session:
            await session.initialize()
            await body(session, client)


async def listed(session) -> list[str]:
    return [t.name for t in (await session.list_tools()).tools]


def corpus() -> list[dict]:
    return json.loads(CORPUS.read_text())


async def poisoned(tmp: Path, errlog) -> None:
    state = str(tmp / "poison-state.json")
    config = write_config(tmp / "poison.json", {"poison": server("poisoned", str(CORPUS), defer=False)})
    entries = corpus()
    out = proxy("--check", "--config", config, "--state", state)
    print(out.stdout, end="")
    check(out.returncode == 0 and f"running  1 tools, {len(entries)} quarantined" in out.stdout,
          f"--check: all {len(entries)} poisoned definitions quarantined, the clean tool running")
    for e in entries:
        # The name as the proxy prints it (Rust's Debug: invisible characters escaped).
        shown = "".join(c if c.isprintable() else "\\u{%x}" % ord(c) for c in e["tool"]["name"])
        line = next((l for l in out.stderr.splitlines() if f'tool "{shown}" of MCP server' in l), "")
        check("quarantined" in line and any(r in line for r in e["expect"]),
              f"{e['id']}: quarantined with its rule named ({e['expect'][0]})")

    async def body(session, client) -> None:
        names = await listed(session)
        check("poison-clean_tool" in names, "the clean tool of the poisoned server is listed")
        bad = [n for n in names if n.startswith("poison-") and n != "poison-clean_tool"]
        check(bad == [], f"no poisoned tool is listed: {bad}")
        leaked = []
        for e in entries:
            words = " ".join(e["tool"]["description"].split()[:6])
            r = await session.call_tool("discover_tools", {"query": words, "namespace": "poison"})
            hits = [h["name"] for h in json.loads(text_of(r))] if not r.is_error else []
            leaked += [h for h in hits if h != "poison-clean_tool"]
        check(leaked == [], f"no search finds a poisoned tool: {leaked[:5]}")
        for e in entries[:6]:
            r = await session.call_tool(f"poison-{e['tool']['name']}", {})
            msg = text_of(r)
            check(r.is_error and "quarantined" in msg and any(x in msg for x in e["expect"]),
                  f"calling {e['id']} is refused with the rule named: {msg[:100]}")
        r = await session.call_tool("call_deferred", {"_target_tool": f"poison-{entries[0]['tool']['name']}"})
        check(r.is_error and "quarantined" in text_of(r), "call_deferred refuses a quarantined tool too")
        r = await session.call_tool("poison-clean_tool", {})
        check(not r.is_error and text_of(r) == "ran clean_tool", "the clean tool is called")

    await session_run(config, state, errlog, body)


async def rug_pull(tmp: Path, errlog) -> None:
    state = str(tmp / "rug-state.json")
    version = tmp / "version"
    version.write_text("1")
    config = write_config(tmp / "rug.json", {"facts": server("rugpull", str(version), defer=False)})

    async def first(session, client) -> None:
        names = await listed(session)
        check("facts-fact_of_the_day" in names, "run 1: the tool is listed (and pinned)")
    await session_run(config, state, errlog, first)
    pinned = json.loads(Path(state).read_text())["servers"]["facts"]["pinned"]
    check(pinned.get("fact_of_the_day", {}).get("hash", "").startswith("sha256:"), "the state file holds the pin's SHA-256")

    version.write_text("2")

    async def second(session, client) -> None:
        names = await listed(session)
        check("facts-fact_of_the_day" not in names and "facts-stable_tool" in names,
              "run 2: the changed tool is quarantined, the unchanged one listed")
        r = await session.call_tool("facts-fact_of_the_day", {})
        check(r.is_error and "changed since it was pinned" in text_of(r), "its call names the change: " + text_of(r)[:100])
    await session_run(config, state, errlog, second)

    out = proxy("review", "--config", config, "--state", state)
    print(out.stdout, end="")
    check(out.returncode == 0 and "facts/fact_of_the_day  quarantined: changed" in out.stdout,
          "review lists the quarantined tool")
    lines = [l.strip() for l in out.stdout.splitlines()]
    old_line = '-   "description": "Get a random fact of the day.",'
    new_line = '+   "description": "Get a random fact of the day, with its source.",'
    check(old_line.strip() in lines and new_line.strip() in lines
          and lines.index(old_line.strip()) + 1 == lines.index(new_line.strip()),
          "review shows the diff, old against new")
    out = proxy("approve", "--config", config, "--state", state, "facts/nope")
    check(out.returncode == 1 and "not quarantined" in out.stderr, "approving a tool that is not held fails: " + out.stderr.strip())
    out = proxy("approve", "--config", config, "--state", state, "ghost")
    check(out.returncode == 1 and "no server" in out.stderr, "approving an unknown server fails: " + out.stderr.strip())
    out = proxy("approve", "--config", config, "--state", state, "facts/fact_of_the_day")
    check(out.returncode == 0 and out.stdout.startswith("approved facts/fact_of_the_day (sha256:"), "approve: " + out.stdout.strip())
    out = proxy("review", "--config", config, "--state", state)
    check(out.stdout.startswith("nothing is quarantined"), "review after approve: nothing is quarantined")

    async def third(session, client) -> None:
        names = await listed(session)
        check("facts-fact_of_the_day" in names, "run 3: after approve the tool is back")
        r = await session.call_tool("facts-fact_of_the_day", {})
        check(not r.is_error, "and it is called")
        # A rug pull while the client is connected: the server changes the tool and says so.
        await anyio.sleep(0.5)  # the list_changed of the call above (it loaded its tool) has come
        client.changed = anyio.Event()
        await session.call_tool("facts-mutate", {})
        with anyio.move_on_after(5):
            await client.changed.wait()
        check(client.changed.is_set(), "the client gets list_changed when a tool is quarantined mid-session")
        # The list_changed may be an earlier one (a call loads its tool): wait for the re-listing.
        deadline = time.monotonic() + 10
        while "facts-fact_of_the_day" in (names := await listed(session)) and time.monotonic() < deadline:
            await anyio.sleep(0.2)
        check("facts-fact_of_the_day" not in names, "the tool changed mid-session is no longer listed")
        r = await session.call_tool("facts-fact_of_the_day", {})
        check(r.is_error and "quarantined" in text_of(r), "and its call is refused")
    await session_run(config, state, errlog, third)


async def review_policy(tmp: Path, errlog) -> None:
    state = str(tmp / "review-state.json")
    version = tmp / "v-review"
    version.write_text("1")
    config = write_config(tmp / "review.json", {"careful": server("rugpull", str(version), defer=False, trust="review")})
    out = proxy("--check", "--config", config, "--state", state)
    check("3 quarantined" in out.stdout, "trust \"review\": every new tool waits for approval")
    out = proxy("approve", "--config", config, "--state", state, "careful")
    check(out.returncode == 0 and out.stdout.count("approved careful/") == 3, "approve SERVER approves all its tools")
    out = proxy("--check", "--config", config, "--state", state)
    check("running  3 tools" in out.stdout and "quarantined" not in out.stdout, "after approve they are running")
    bad = write_config(tmp / "bad-trust.json", {"x": server("rugpull", str(version), trust="maybe")})
    out = proxy("--check", "--config", bad, "--state", state)
    check(out.returncode == 1 and "x.trust: expected" in out.stderr, "an unknown trust value is refused: " + out.stderr.strip())


async def broken_state(tmp: Path, errlog) -> None:
    version = tmp / "v-broken"
    version.write_text("1")
    config = write_config(tmp / "broken.json", {"facts": server("rugpull", str(version), defer=False),
                                                 "poison": server("poisoned", str(CORPUS), defer=False)})
    corrupt = tmp / "corrupt-state.json"
    corrupt.write_text('{"version": 1, "servers": {"facts": ')
    for state, why in [(str(corrupt), "not a valid state file"), ("/proc/version/state.json", "state file")]:
        out = proxy("--check", "--config", config, "--state", state)
        check(out.returncode == 0 and "pinning off: " in out.stdout and why in out.stdout
              and "pinning is off" in out.stderr,
              f"a {'corrupt' if 'corrupt' in state else 'unwritable'} state file: pinning reported off: "
              + out.stdout.strip().splitlines()[-1])
        check(f"{len(corpus())} quarantined" in out.stdout, "  and the scanner still quarantines")

        async def body(session, client) -> None:
            names = await listed(session)
            check("facts-fact_of_the_day" in names, "  and the proxy serves")
        await session_run(config, state, errlog, body)
    check(corrupt.read_text() == '{"version": 1, "servers": {"facts": ', "the corrupt file is left as it was")


def benign_servers(tmp: Path) -> None:
    """The scanner's false positives on the 2,000-tool test server and a published server."""
    big = {"command": PY, "args": [str(HERE.parent / "downstream.py"), "big", "2000"]}
    servers = {"big": big}
    time_server = Path(PY).parent / "mcp-server-time"
    if time_server.exists():
        servers["time"] = {"command": str(time_server)}
    config = write_config(tmp / "benign.json", servers)
    out = proxy("--check", "--config", config, "--state", str(tmp / "benign-state.json"))
    print(out.stdout, end="")
    check(out.returncode == 0 and "running  2000 tools" in out.stdout and "quarantined" not in out.stdout,
          "the 2,000-tool server: nothing quarantined")
    scans = [l.split("scan:", 1)[1].strip() for l in out.stdout.splitlines() if "scan:" in l]
    check(scans and all("(high)" not in s for s in scans), f"benign servers: no high-severity finding: {scans}")


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        log = tmp / "proxy.log"
        try:
            with open(log, "w") as errlog:
                benign_servers(tmp)
                await poisoned(tmp, errlog)
                await rug_pull(tmp, errlog)
                await review_policy(tmp, errlog)
                await broken_state(tmp, errlog)
        finally:
            if FAILURES:
                print("--- the proxy's stderr (last 40 lines):\n" + "\n".join(log.read_text().splitlines()[-40:])[-6000:])
    if FAILURES:
        print(f"\n{len(FAILURES)} check(s) failed")
        sys.exit(1)
    print("\nall MCP trust checks passed")


anyio.run(main)
