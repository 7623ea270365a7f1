"""An MCP client (the official MCP Python SDK) that starts a server the way an MCP client's
config says (its entry's command, args and env), here the gateway `mcp import` put there, and
finds and calls a tool of the imported servers through search.

Usage: dist_client.py CLIENT_CONFIG ENTRY_NAME QUERY EXPECTED_TOOL ARGS_JSON EXPECTED_TEXT
Exits 1 when a check fails.
"""

import json
import os
import sys

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

config_path, entry_name, query, expected, call_args, expected_text = sys.argv[1:7]
FAILURES = []


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main() -> None:
    config = json.load(open(config_path))
    servers = config.get("mcpServers") or config.get("servers")
    entry = servers[entry_name]
    # Only what an MCP client hands a server it starts: a few variables of its own plus the
    # entry's env (the data and cache folders point at the test's temporary ones).
    keep = ("PATH", "HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "TMPDIR")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    env.update(entry.get("env", {}))
    params = StdioServerParameters(command=entry["command"], args=entry.get("args", []), env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = [t.name for t in (await session.list_tools()).tools]
            print("listed:", listed)
            check({"discover_tools", "call_deferred"} <= set(listed), "the gateway lists its search")
            check(expected not in listed, f"{expected} is deferred: found through search")
            r = await session.call_tool("discover_tools", {"query": query})
            hits = [h["name"] for h in json.loads(text_of(r))]
            print("found:", hits)
            check(not r.is_error and expected in hits[:3], f"search for {query!r} finds {expected}")
            r = await session.call_tool(expected, json.loads(call_args))
            print("answer:", text_of(r)[:200])
            check(not r.is_error and expected_text in text_of(r), f"{expected} answers through the gateway")


anyio.run(main)
if FAILURES:
    sys.exit(f"{len(FAILURES)} checks failed: {FAILURES}")
print("dist client: all checks passed")
