"""The MCP conformance suite's client under test: the released `toolregistry mcp` gateway.

`conformance client --command "python conformance_driver.py" ...` appends the scenario's server
URL. The driver writes a gateway config whose one server is that URL (`"defer": false`,
`"trust": "off"`; a pre-registered client from MCP_CONFORMANCE_CONTEXT goes into its `"oauth"`;
with DRIVER_PIN=1 the scenario's revision, MCP_CONFORMANCE_PROTOCOL_VERSION, goes into its
`"protocol_version"`, else the gateway picks), starts `toolregistry mcp` on stdio with a temporary
`--state` (so the token file is temporary too) and `--open-with` pointing back at this script,
then, as an MCP client (the official Python SDK), lists the tools (waiting for the server's tools
to appear: a sign-in may come first) and calls each with arguments made from its schema, or makes
the calls the context's `toolCalls` name; then gets each prompt and reads each resource. It declares elicitation (not with
DRIVER_NO_ELICITATION=1) and plays a user who accepts each form as shown: an empty answer, the
gateway fills in the schema's defaults.

`conformance_driver.py --open URL` is the opener: it plays a browser whose user approves at once
(the suite's authorization servers do): it requests URL without following redirects and then
requests the `Location` it got (the gateway's loopback listener).

The program is $TOOLREGISTRY (default: target/release/toolregistry).
"""

import json
import os
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

GATEWAY_TOOLS = {"discover_tools", "call_deferred"}
CIMD_URL = "https://conformance-test.local/client-metadata.json"


def open_url(url: str) -> None:
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        response = opener.open(url, timeout=20)
        location = response.headers.get("Location")
    except urllib.error.HTTPError as e:
        location = e.headers.get("Location")
    if not location:
        sys.exit(f"open: no redirect from {url}")
    try:
        urllib.request.urlopen(location, timeout=20).read()
    except urllib.error.HTTPError:
        pass


def arguments(tool) -> dict:
    """Arguments a tool's schema accepts: a value of each required property's type."""
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
    props = schema.get("properties", {}) or {}
    out = {}
    for name in schema.get("required", []) or []:
        kind = (props.get(name) or {}).get("type")
        out[name] = {"number": 1, "integer": 1, "boolean": True, "array": [], "object": {}}.get(kind, "test")
    if set(props) >= {"a", "b"}:
        out.update(a=5, b=3)
    return out


async def accept(context, params):
    """The user accepts the form as shown, changing nothing."""
    from mcp.types import ElicitResult

    print("elicitation:", getattr(params, "message", ""), file=sys.stderr)
    return ElicitResult(action="accept", content={})


async def drive(url: str) -> None:
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    program = os.environ.get("TOOLREGISTRY", "target/release/toolregistry")
    work = Path(tempfile.mkdtemp(prefix="tr-conformance-"))
    server = {"url": url, "defer": False, "trust": "off"}
    # The client ID metadata document's URL the suite's authorization servers expect (its own
    # example clients name the same one); used only where a server advertises support.
    server["oauth"] = {"client_metadata_url": CIMD_URL}
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if context.get("client_id"):
        server["oauth"]["client_id"] = context["client_id"]
        if context.get("client_secret"):
            server["oauth"]["client_secret"] = context["client_secret"]
    # By default the gateway picks the revision (the newest, falling back as the server answers);
    # DRIVER_PIN=1 pins the scenario's.
    if os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION") and os.environ.get("DRIVER_PIN") == "1":
        server["protocol_version"] = os.environ["MCP_CONFORMANCE_PROTOCOL_VERSION"]
    config = work / "config.json"
    config.write_text(json.dumps({"mcpServers": {"s": server}}))
    opener = f"{sys.executable} {Path(__file__).resolve()} --open"
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR") if k in os.environ}
    env.update(XDG_DATA_HOME=str(work / "data"), XDG_CACHE_HOME=str(work / "cache"),
               XDG_CONFIG_HOME=str(work / "config"))
    params = StdioServerParameters(
        command=program,
        args=["mcp", "--config", str(config), "--state", str(work / "state.json"),
              "--open-with", opener, "--no-watch"],
        env=env,
    )
    async with stdio_client(params) as (read, write):
        # DRIVER_NO_ELICITATION=1: a client without the capability (the gateway must refuse).
        answers = None if os.environ.get("DRIVER_NO_ELICITATION") == "1" else accept
        async with ClientSession(read, write, elicitation_callback=answers) as session:
            await session.initialize()
            tools = []
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                tools = [t for t in (await session.list_tools()).tools if t.name not in GATEWAY_TOOLS]
                if tools:
                    break
                await anyio.sleep(0.3)
            print("tools:", [t.name for t in tools], file=sys.stderr)
            # The calls the scenario asks for (its context's toolCalls), else each tool once.
            calls = [(t.name, arguments(t)) for t in tools]
            if context.get("toolCalls"):
                named = {t.name.split("-", 1)[-1]: t.name for t in tools}
                calls = [(named.get(c["name"], c["name"]), c.get("arguments") or {})
                         for c in context["toolCalls"]]
            for name, args in calls:
                r = await session.call_tool(name, args)
                print(name, "error" if getattr(r, "is_error", getattr(r, "isError", False)) else "ok", file=sys.stderr)
            # The servers' prompts and resources, passed through the gateway: each got and read.
            for prompt in (await session.list_prompts()).prompts:
                await session.get_prompt(prompt.name)
                print("prompt", prompt.name, file=sys.stderr)
            for resource in (await session.list_resources()).resources:
                await session.read_resource(resource.uri)
                print("resource", resource.uri, file=sys.stderr)


def main() -> None:
    if len(sys.argv) == 3 and sys.argv[1] == "--open":
        open_url(sys.argv[2])
        return
    import anyio

    anyio.run(drive, sys.argv[-1])


if __name__ == "__main__":
    main()
