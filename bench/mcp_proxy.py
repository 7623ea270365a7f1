"""`toolregistry mcp` benchmark: what a proxied call costs over a direct one, and start-up time.

The client is the official MCP Python SDK over stdio; the server is tests/mcp/downstream.py's
`echo` (one tool). Overhead: p50 of N sequential calls through the proxy minus p50 of N calls to
the same server directly (the client's own cost cancels). Start-up: from launching the proxy
with 10 such servers to the client holding the full tool list.

Usage: python bench/mcp_proxy.py PROXY_BINARY [CALLS]   (the python of a venv with `mcp`)
"""

import atexit
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

# The proxy's trust pins go here, never to the user's data folder.
STATE = os.path.join(tempfile.mkdtemp(prefix="tr-mcp-state-"), "mcp-state.json")
atexit.register(shutil.rmtree, os.path.dirname(STATE), True)

PROXY = sys.argv[1]
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
SERVER = str(Path(__file__).resolve().parent.parent / "tests" / "mcp" / "downstream.py")


async def latencies(params: StdioServerParameters, tool: str) -> list[float]:
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            await session.list_tools()
            for _ in range(100):  # warm-up
                await session.call_tool(tool, {"text": "x"})
            out = []
            for _ in range(CALLS):
                t0 = time.perf_counter()
                await session.call_tool(tool, {"text": "x"})
                out.append(time.perf_counter() - t0)
            return out


async def startup(config: str, servers: int) -> float:
    t0 = time.perf_counter()
    params = StdioServerParameters(command=PROXY, args=["mcp", "--config", config, "--state", STATE])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            took = time.perf_counter() - t0
            assert len(tools) == servers + 2, [t.name for t in tools]
            return took


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        one = os.path.join(tmp, "one.json")
        ten = os.path.join(tmp, "ten.json")
        entry = {"command": sys.executable, "args": [SERVER, "echo"], "defer": False}
        Path(one).write_text(json.dumps({"mcpServers": {"s": entry}}))
        Path(ten).write_text(json.dumps({"mcpServers": {f"s{i}": entry for i in range(10)}}))
        direct = await latencies(StdioServerParameters(command=sys.executable, args=[SERVER, "echo"]), "echo")
        proxied = await latencies(StdioServerParameters(command=PROXY, args=["mcp", "--config", one, "--state", STATE]), "s-echo")
        starts = [await startup(ten, 10) for _ in range(5)]
        singles = [await startup(one, 1) for _ in range(5)]
    ms = lambda s: f"{s * 1000:.3f} ms"
    print(f"calls: {CALLS} sequential, after 100 warm-up")
    print(f"direct  p50 {ms(statistics.median(direct))}  p90 {ms(pct(direct, 0.9))}")
    print(f"proxied p50 {ms(statistics.median(proxied))}  p90 {ms(pct(proxied, 0.9))}")
    print(f"overhead p50 {ms(statistics.median(proxied) - statistics.median(direct))}")
    print(f"start-up, 1 server:   median of 5 {ms(statistics.median(singles))}")
    print(f"start-up, 10 servers: median of 5 {ms(statistics.median(starts))}")


anyio.run(main)
