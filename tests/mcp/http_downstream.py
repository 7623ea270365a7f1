"""A downstream MCP server over streamable HTTP for the proxy's tests: the official Python SDK's
MCPServer (FastMCP in mcp 1.x) with `streamable-http`, on 127.0.0.1.

Usage: http_downstream.py PORT [--token TOKEN] [--name NAME] [--wait-file PATH] [--revoke-file PATH]

With --wait-file it imports everything, then waits for PATH to exist before it binds: a standby
that replaces a killed server within a fraction of a second (Python's imports take seconds here).

Tools: `remote_echo` (answers its arguments and the server's name and start time, so a test can
tell which run answered), `whoami_headers` (the names of the request's headers, not values),
`add_tool` (adds `tide_table` and announces it with list_changed, to a 2025-11-25 session and
to 2026-07-28 subscriptions/listen streams). With --token, every request
without `Authorization: Bearer TOKEN` gets 401, as a hosted server does; while the --revoke-file
exists, every request gets 401 (a token revoked or expired).
"""

import argparse
import json
import os
import time

import uvicorn
from mcp.server.mcpserver import Context, MCPServer

ap = argparse.ArgumentParser()
ap.add_argument("port", type=int)
ap.add_argument("--token")
ap.add_argument("--name", default="remote")
ap.add_argument("--wait-file")
ap.add_argument("--revoke-file")
opts = ap.parse_args()

STARTED = time.time()
server = MCPServer(opts.name)


@server.tool(description="Echo the arguments back with a remote signature (which server, which run).")
def remote_echo(text: str, n: int = 0) -> str:
    return json.dumps({"text": text, "n": n, "server": opts.name, "started": STARTED})


@server.tool(description="The names of the HTTP request headers the server received.")
def whoami_headers(ctx: Context) -> str:
    headers = ctx.headers or {}
    return json.dumps(sorted(k.lower() for k in headers))


def tide_table(harbour: str) -> str:
    return f"tides for {harbour}: high 06:12, low 12:25"


@server.tool(description="Add the tide table tool to this server and announce it.")
async def add_tool(ctx: Context) -> str:
    server.add_tool(tide_table, description="Tide times (high and low water) for a harbour.")
    # Announced both ways: on the session (2025-11-25) and to subscriptions/listen streams
    # (2026-07-28, where notifications go nowhere else).
    await ctx.session.send_tool_list_changed()
    try:
        await ctx.notify_tools_changed()
    except ValueError:  # no subscriptions bus (not a 2026-07-28 request)
        pass
    return "added"


app = server.streamable_http_app(host="127.0.0.1")


def with_token(inner, token):
    async def guarded(scope, receive, send):
        if scope["type"] == "http":
            auth = dict(scope["headers"]).get(b"authorization", b"").decode()
            revoked = opts.revoke_file and os.path.exists(opts.revoke_file)
            if auth != f"Bearer {token}" or revoked:
                await send({"type": "http.response.start", "status": 401,
                            "headers": [(b"www-authenticate", b'Bearer realm="test"'),
                                        (b"content-type", b"text/plain")]})
                await send({"type": "http.response.body", "body": b"unauthorized"})
                return
        await inner(scope, receive, send)
    return guarded


if opts.wait_file:
    while not os.path.exists(opts.wait_file):
        time.sleep(0.01)
    STARTED = time.time()

uvicorn.run(with_token(app, opts.token) if opts.token else app, host="127.0.0.1", port=opts.port,
            log_level="warning", lifespan="on")
