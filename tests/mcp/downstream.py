"""A scripted MCP server (the official Python SDK's low-level server) for the proxy's tests.

`downstream.py scripted`: tools that answer, fail, crash the process, hang, write a line that is
not JSON-RPC, and add a tool (with notifications/tools/list_changed); its tools/list also carries
entries the proxy must skip (malformed, oversized, a name with a space). `downstream.py big N`: N
tools, listed in pages of 500. `downstream.py echo`: one tool `echo` (the benchmark's);
`downstream.py prefixed`: one tool `q-echo`; `downstream.py habits`: the tools of an agenda app
(co-use: test_usage.py), `book_room` always failing.
"""

import io
import json
import os
import sys

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

MODE = sys.argv[1] if len(sys.argv) > 1 else "scripted"
COUNT = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
PAGE = 500
OBJECT = {"type": "object", "properties": {}}
TEXT_ARG = {"type": "object", "properties": {"text": {"type": "string", "description": "Text to echo."}}}

state = {"added": False}
wire: dict = {}


def tool(name: str, description: str, schema: dict = OBJECT) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema)


def scripted_tools() -> list:
    tools = [
        tool("echo", "Echo the text back, with a small image.", TEXT_ARG),
        tool("fail", "Always fails with a tool error."),
        tool("crash", "Exit the server process at once."),
        tool("hang", "Never answer."),
        tool("garbage", "Write a line that is not JSON-RPC, then answer."),
        tool("add_tool", "Add the tides tool to this server and announce it."),
        tool("env_names", "The names of this process's environment variables."),
        tool("oversized", "x" * (2 * 1024 * 1024)),
        tool("bad name", "A name with a space."),
    ]
    if state["added"]:
        tools.append(tool("tide_table", "Tide times (high and low water) for a harbour.", TEXT_ARG))
    return tools


# Entries no valid server sends (the SDK would refuse them, so they are added on the wire): the
# proxy must skip them, not fail the whole list.
MALFORMED = [{"name": 42, "inputSchema": OBJECT}, {"name": "no_schema"}, "not an object",
             {"name": "bad_schema", "inputSchema": "not a schema"}]


class Wire:
    """stdout, with the malformed entries appended to every tools/list answer."""

    def __init__(self, out):
        self.out = out

    async def write(self, line: str) -> None:
        if MODE == "scripted" and '"tools"' in line:
            msg = json.loads(line)
            tools = msg.get("result", {}).get("tools")
            if isinstance(tools, list):
                tools.extend(MALFORMED)
                line = json.dumps(msg) + "\n"
        await self.out.write(line)

    async def flush(self) -> None:
        await self.out.flush()


def habit_tools() -> list:
    return [
        tool("add_agenda", "Add an agenda item to the user's schedule.", TEXT_ARG),
        tool("get_user_token", "Get the user token by username and password."),
        tool("list_files", "List the files of a folder."),
        tool("book_room", "Reserve a meeting room (always fails here)."),
    ]


def big_tools() -> list:
    return [
        tool(f"op_{i:04d}", f"Operation {i}: process record batch number {i} of the archive.")
        for i in range(COUNT)
    ]


async def list_tools(ctx, params):
    if MODE == "big":
        start = int(params.cursor) if params is not None and params.cursor else 0
        page = big_tools()[start : start + PAGE]
        nxt = str(start + PAGE) if start + PAGE < COUNT else None
        return types.ListToolsResult(tools=page, next_cursor=nxt)
    if MODE == "habits":
        return types.ListToolsResult(tools=habit_tools())
    if MODE in ("echo", "prefixed"):
        name = "echo" if MODE == "echo" else "q-echo"
        return types.ListToolsResult(tools=[tool(name, "Echo the text back.", TEXT_ARG)])
    return types.ListToolsResult(tools=scripted_tools())


def text(t: str) -> types.TextContent:
    return types.TextContent(type="text", text=t)


async def call_tool(ctx, params):
    args = params.arguments or {}
    name = params.name
    if name in ("echo", "q-echo"):
        content = [text(f"echo: {args.get('text', '')}")]
        if MODE == "scripted":
            content.append(types.ImageContent(type="image", data="iVBORw0KGgo=", mime_type="image/png"))
        return types.CallToolResult(content=content, structured_content={"echoed": args.get("text", "")})
    if name == "env_names":
        return types.CallToolResult(content=[text(json.dumps(sorted(os.environ)))])
    if name == "fail":
        return types.CallToolResult(content=[text("deliberate failure")], is_error=True)
    if name == "crash":
        os._exit(3)
    if name == "hang":
        await anyio.sleep(3600)
    if name == "garbage":
        await wire["out"].write("this line is not JSON-RPC {\n")
        await wire["out"].flush()
        return types.CallToolResult(content=[text("answered after garbage")])
    if name == "add_tool":
        state["added"] = True
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[text("added tide_table")])
    if MODE == "habits" and name != "book_room":
        return types.CallToolResult(content=[text(f"{name} ran")])
    if name == "tide_table" or name.startswith("op_"):
        return types.CallToolResult(content=[text(f"{name} ran")])
    return types.CallToolResult(content=[text(f"unknown tool {name}")], is_error=True)


async def main() -> None:
    server = Server(f"downstream-{MODE}", on_list_tools=list_tools, on_call_tool=call_tool)
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(0, "rb", buffering=0), encoding="utf-8"))
    out = Wire(anyio.wrap_file(io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), encoding="utf-8")))
    wire["out"] = out
    async with stdio_server(stdin=stdin, stdout=out) as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
