"""Scripted MCP servers (the official Python SDK's low-level server) for the trust tests.

`servers.py poisoned CORPUS`: every tool of the poisoned corpus, plus `clean_tool`.
`servers.py rugpull VERSION_FILE`: `fact_of_the_day` and `stable_tool`; the fact's description is
the one numbered by the file's content (read at each tools/list), and the tool `mutate` writes the
next number and sends notifications/tools/list_changed, for a change while a client is connected.
`servers.py named LABEL`: one tool `LABEL_ping` answering `LABEL pid PID` (the live-config tests),
the prompt `greet` (argument `who`) and the resource `memo://LABEL/note` (the passthrough tests).
"""

import io
import json
import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.stdio import stdio_server

MODE = sys.argv[1]
ARG = sys.argv[2] if len(sys.argv) > 2 else ""
OBJECT = {"type": "object", "properties": {}}
FACTS = {
    "1": "Get a random fact of the day.",
    "2": "Get a random fact of the day, with its source.",
}


def tool(name: str, description: str, schema: dict = OBJECT, **extra) -> types.Tool:
    return types.Tool(name=name, description=description, input_schema=schema, **extra)


def corpus_tools() -> list:
    tools = []
    for e in json.loads(Path(ARG).read_text()):
        t = e["tool"]
        extra = {"annotations": types.ToolAnnotations(**t["annotations"])} if "annotations" in t else {}
        tools.append(tool(t["name"], t["description"], t["inputSchema"], **extra))
    tools.append(tool("clean_tool", "Convert a temperature between Celsius and Fahrenheit."))
    return tools


def version() -> str:
    return Path(ARG).read_text().strip()


async def list_tools(ctx, params):
    if MODE == "poisoned":
        return types.ListToolsResult(tools=corpus_tools())
    if MODE == "rugpull":
        return types.ListToolsResult(tools=[
            tool("fact_of_the_day", FACTS.get(version(), f"Get a random fact of the day (v{version()}).")),
            tool("stable_tool", "Count the words of a text."),
            tool("mutate", "Change the fact tool's description and announce it."),
        ])
    return types.ListToolsResult(tools=[tool(f"{ARG}_ping", f"Answer with the {ARG} server's process id.")])


async def call_tool(ctx, params):
    name = params.name
    if name == "mutate":
        Path(ARG).write_text(str(int(version()) + 1))
        await ctx.session.send_tool_list_changed()
        return types.CallToolResult(content=[types.TextContent(type="text", text="mutated")])
    if name.endswith("_ping"):
        return types.CallToolResult(content=[types.TextContent(type="text", text=f"{ARG} pid {os.getpid()}")])
    return types.CallToolResult(content=[types.TextContent(type="text", text=f"ran {name}")])


async def list_prompts(ctx, params):
    arg = types.PromptArgument(name="who", description="Whom to greet.", required=True)
    return types.ListPromptsResult(prompts=[types.Prompt(name="greet", description="A greeting.", arguments=[arg])])


async def get_prompt(ctx, params):
    if params.name != "greet":
        raise ValueError(f"unknown prompt {params.name}")
    who = (params.arguments or {}).get("who", "nobody")
    message = types.PromptMessage(role="user", content=types.TextContent(type="text", text=f"{ARG} greets {who}"))
    return types.GetPromptResult(messages=[message])


async def list_resources(ctx, params):
    return types.ListResourcesResult(resources=[types.Resource(uri=f"memo://{ARG}/note", name="note", mime_type="text/plain")])


async def read_resource(ctx, params):
    return types.ReadResourceResult(contents=[types.TextResourceContents(uri=params.uri, text=f"note of {ARG}", mime_type="text/plain")])


async def main() -> None:
    extra = {}
    if MODE == "named":
        extra = dict(on_list_prompts=list_prompts, on_get_prompt=get_prompt,
                     on_list_resources=list_resources, on_read_resource=read_resource)
    server = Server(f"trust-{MODE}", on_list_tools=list_tools, on_call_tool=call_tool, **extra)
    stdin = anyio.wrap_file(io.TextIOWrapper(os.fdopen(0, "rb", buffering=0), encoding="utf-8"))
    stdout = anyio.wrap_file(io.TextIOWrapper(os.fdopen(1, "wb", buffering=0), encoding="utf-8"))
    async with stdio_server(stdin=stdin, stdout=stdout) as (read, write):
        options = server.create_initialization_options(NotificationOptions(tools_changed=True))
        await server.run(read, write, options)


if __name__ == "__main__":
    anyio.run(main)
