"""`toolregistry mcp` over streamable HTTP, both ways, driven by the official MCP Python SDK.

Downstream: tests/mcp/http_downstream.py (the SDK's MCPServer, streamable-http, 127.0.0.1) with a
bearer token sent from the config's "headers" (${VAR} from the proxy's environment), a second one
that answers 401 to the proxy's token, and a stdio server (downstream.py echo): a mixed config.
Upstream: the proxy with --http on 127.0.0.1 and --token-file, the SDK's streamable-HTTP client.

Cases: --check (running / unauthorized states, no secret printed); list, search and call of a
remote and a local tool; Host and Origin (403, --allow-origin); token missing or wrong (401);
refusal to listen beyond loopback without a token; two sessions whose lists differ after
different searches; DELETE ends a session; session cap and idle timeout; a remote list_changed;
the remote server killed and restarted mid-run; a 401 server's calls fail naming it.

Usage: test_http.py PROXY_BINARY
"""

import atexit
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio
import httpx2
import mcp_types as types
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client

# The proxy's trust pins go here, never to the user's data folder.
STATE = os.path.join(tempfile.mkdtemp(prefix="tr-mcp-state-"), "mcp-state.json")
atexit.register(shutil.rmtree, os.path.dirname(STATE), True)

PROXY = sys.argv[1]
HERE = Path(__file__).resolve().parent
PY = sys.executable
REMOTE_TOKEN = "remote-SECRET-8842-never-printed"
CLIENT_TOKEN = "client-SECRET-5531-never-printed"
FAILURES: list[str] = []
REVOKED = Path(tempfile.mkdtemp()) / "revoked"


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port: int, seconds: float = 60) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return True
        except OSError:
            time.sleep(0.2)
    return False


def start_remote(port: int, token: str, name: str = "remote", *extra: str) -> subprocess.Popen:
    p = subprocess.Popen([PY, str(HERE / "http_downstream.py"), str(port), "--token", token, "--name", name, *extra])
    if not wait_port(port):
        raise SystemExit(f"the downstream HTTP server on {port} did not start")
    return p


def text_of(result) -> str:
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def names(listed) -> list[str]:
    return [t.name for t in listed.tools]


def config(remote_port: int, locked_port: int) -> dict:
    return {
        "mcpServers": {
            # A remote server, as hosts write it: "type", "url" and a bearer header from the env.
            "remote": {"type": "http", "url": f"http://127.0.0.1:{remote_port}/mcp",
                       "headers": {"Authorization": "Bearer ${REMOTE_TOKEN}", "X-Trace": "t-1"},
                       "timeout_ms": 5000},
            # The same kind of server, which answers 401 while its token is revoked.
            "locked": {"type": "streamableHttp", "url": f"http://127.0.0.1:{locked_port}/mcp",
                       "headers": {"Authorization": "Bearer locked-${REMOTE_TOKEN}"}},
            # A local one on stdio.
            "local": {"command": PY, "args": [str(HERE / "downstream.py"), "echo"]},
        }
    }


class Proxy:
    """The proxy serving HTTP; its stderr kept to find the port and to look for secrets."""

    def __init__(self, cfg: str, tmp: str, *extra: str, env: dict | None = None):
        self.log = Path(tmp) / f"proxy-{time.monotonic_ns()}.log"
        self.err = open(self.log, "w")
        self.p = subprocess.Popen([PROXY, "mcp", "--config", cfg, "--state", STATE, "--http", "127.0.0.1:0", *extra],
                                  stdout=subprocess.DEVNULL, stderr=self.err, env=env)
        self.url = None
        end = time.monotonic() + 90
        while time.monotonic() < end and self.url is None:
            m = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", self.log.read_text())
            if m:
                self.url = m.group(1)
            elif self.p.poll() is not None:
                break
            else:
                time.sleep(0.2)
        if self.url is None:
            raise SystemExit("the proxy did not start:\n" + self.log.read_text())

    def stop(self) -> str:
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.err.close()
        return self.log.read_text()


def client(token: str | None = CLIENT_TOKEN, **headers: str) -> httpx2.AsyncClient:
    if token:
        headers["Authorization"] = f"Bearer {token}"
    return httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=120))


class Session:
    """One MCP client session over HTTP; `changed` is set by notifications/tools/list_changed."""

    def __init__(self, url: str, token: str | None = CLIENT_TOKEN):
        self.url, self.token = url, token
        self.changed = anyio.Event()

    async def list_tools(self):
        return await self.s.list_tools()

    async def call_tool(self, name: str, args: dict):
        return await self.s.call_tool(name, args)

    async def __aenter__(self) -> "Session":
        async def on_message(message) -> None:
            if isinstance(message, types.ToolListChangedNotification) or "tools/list_changed" in repr(message):
                self.changed.set()

        self._http = client(self.token)
        self._t = streamable_http_client(self.url, http_client=self._http)
        read, write = (await self._t.__aenter__())[:2]
        self._s = ClientSession(read, write, message_handler=on_message)
        self.s = await self._s.__aenter__()
        await self.s.initialize()
        return self

    async def __aexit__(self, *exc) -> None:
        await self._s.__aexit__(*exc)
        await self._t.__aexit__(*exc)
        await self._http.aclose()


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}}}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


async def raw_post(url: str, headers: dict, body: dict = INIT) -> httpx2.Response:
    async with httpx2.AsyncClient(timeout=30) as c:
        return await c.post(url, headers={**ACCEPT, **headers}, json=body)


def run_check(cfg: str, env: dict) -> None:
    out = subprocess.run([PROXY, "mcp", "--check", "--config", cfg, "--state", STATE], capture_output=True, text=True,
                         timeout=120, env=env)
    print(out.stdout, end="")
    lines = {l.split()[0]: l for l in out.stdout.splitlines() if l.strip()}
    check(out.returncode == 1, "--check exits 1 (one server refuses the token)")
    check("running  3 tools" in lines.get("remote", ""), "--check: the remote HTTP server runs, 3 tools")
    check("running  1 tools" in lines.get("local", ""), "--check: the local stdio server runs beside it")
    check("failed" in lines.get("locked", "") and "unauthorized (HTTP 401)" in lines.get("locked", ""),
          "--check: a server answering 401 is reported unauthorized: " + lines.get("locked", "")[:140])
    check(REMOTE_TOKEN not in out.stdout + out.stderr, "--check never prints a header's value")
    # A reader that leaves before the report (`| grep -q`): the same exit, no panic.
    proc = subprocess.Popen([PROXY, "mcp", "--check", "--config", cfg, "--state", STATE], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    proc.wait(timeout=120)
    check(proc.returncode == 1 and "panicked" not in err,
          f"--check with its reader gone exits 1 without a panic (exit {proc.returncode}): {err.strip()[-160:]}")
    missing = {k: v for k, v in env.items() if k != "REMOTE_TOKEN"}
    out = subprocess.run([PROXY, "mcp", "--check", "--config", cfg, "--state", STATE], capture_output=True, text=True, env=missing)
    check(out.returncode == 1 and "${REMOTE_TOKEN} is not set" in out.stderr,
          "an unset ${VAR} in a header is a config error naming it: " + out.stderr.strip()[:120])


async def security_tests(url: str) -> None:
    origin = url.rsplit("/mcp", 1)[0]
    auth = {"Authorization": f"Bearer {CLIENT_TOKEN}"}
    r = await raw_post(url, {})
    check(r.status_code == 401 and "bearer" in r.headers.get("www-authenticate", "").lower(),
          f"no token: 401 ({r.status_code})")
    r = await raw_post(url, {"Authorization": "Bearer " + CLIENT_TOKEN[:-1] + "X"})
    check(r.status_code == 401, f"a wrong token: 401 ({r.status_code})")
    r = await raw_post(url, {"Authorization": "Bearer " + CLIENT_TOKEN[:8]})
    check(r.status_code == 401, f"a prefix of the token: 401 ({r.status_code})")
    r = await raw_post(url, {**auth, "Origin": "http://evil.example"})
    check(r.status_code == 403, f"a foreign Origin: 403 ({r.status_code})")
    r = await raw_post(url, {**auth, "Origin": "http://localhost:1"})
    check(r.status_code == 403, f"a loopback Origin on another port: 403 ({r.status_code})")
    r = await raw_post(url, {**auth, "Host": "evil.example"})
    check(r.status_code == 403, f"a foreign Host (DNS rebinding): 403 ({r.status_code})")
    r = await raw_post(url, {**auth, "Origin": "http://app.example:3000"})
    check(r.status_code == 200 and r.headers.get("mcp-session-id"), f"an --allow-origin origin: 200 ({r.status_code})")
    sid = r.headers.get("mcp-session-id", "")
    r = await raw_post(url, {**auth, "Origin": origin})
    check(r.status_code == 200, f"the server's own origin: 200 ({r.status_code})")
    async with httpx2.AsyncClient(timeout=30) as c:
        d = await c.delete(url, headers={**auth, "Mcp-Session-Id": sid})
        ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        r = await c.post(url, headers={**ACCEPT, **auth, "Mcp-Session-Id": sid,
                                       "MCP-Protocol-Version": "2025-11-25"}, json=ping)
    check(d.status_code in (200, 202, 204) and r.status_code == 404,
          f"DELETE ends a session: later requests get 404 ({d.status_code}, {r.status_code})")


async def session_tests(url: str, remote: dict, tmp: str) -> None:
    async with Session(url) as a, Session(url) as b:
        first = names(await a.list_tools())
        check({"discover_tools", "call_deferred"} <= set(first) and not any(n.startswith("remote-") for n in first),
              "the built-ins are listed; deferred remote tools are not")
        r = await a.call_tool("discover_tools", {"query": "echo arguments remote signature", "namespace": "remote"})
        hits = json.loads(text_of(r))
        check(not r.is_error and hits and hits[0]["name"] == "remote-remote_echo", "a search finds the remote tool")
        r = await b.call_tool("discover_tools", {"query": "echo the text back", "namespace": "local"})
        hits = json.loads(text_of(r))
        check(not r.is_error and hits and hits[0]["name"] == "local-echo", "a search finds the local tool")
        la, lb = names(await a.list_tools()), names(await b.list_tools())
        check("remote-remote_echo" in la and "local-echo" not in la, f"session A's list has its find only: {la}")
        check("local-echo" in lb and "remote-remote_echo" not in lb, f"session B's list has its find only: {lb}")

        r = await a.call_tool("remote-remote_echo", {"text": "hello", "n": 7})
        body = json.loads(text_of(r)) if not r.is_error else {}
        check(body.get("text") == "hello" and body.get("n") == 7 and body.get("server") == "remote",
              "a remote tool is called through the proxy: " + text_of(r)[:100])
        remote["started"] = body.get("started")
        r = await b.call_tool("local-echo", {"text": "hi"})
        check(not r.is_error and text_of(r) == "echo: hi", "a local (stdio) tool is called in the same proxy")
        r = await a.call_tool("call_deferred", {"_target_tool": "remote-whoami_headers"})
        got = json.loads(text_of(r)) if not r.is_error else []
        check("authorization" in got and "x-trace" in got, f"the config's headers reach the remote server: {got}")

        r = await a.call_tool("discover_tools", {"query": "echo arguments", "namespace": "locked"})
        check(not r.is_error and json.loads(text_of(r))[0]["name"] == "locked-remote_echo",
              "the second remote server (its token accepted) is searchable")
        REVOKED.touch()
        r = await a.call_tool("locked-remote_echo", {"text": "x"})
        check(r.is_error and '"locked"' in text_of(r) and "unauthorized (HTTP 401)" in text_of(r),
              "a server answering 401 mid-run: the call's error names it and says unauthorized: " + text_of(r)[:160])
        a.changed = anyio.Event()
        r = await a.call_tool("call_deferred", {"_target_tool": "remote-add_tool"})
        changed = await wait_for(a.changed, 10)
        r = await b.call_tool("discover_tools", {"query": "tide times harbour", "namespace": "remote"})
        hits = json.loads(text_of(r))
        check(changed and hits and hits[0]["name"] == "remote-tide_table",
              "a remote server's list_changed is followed: its new tool is found")

        # The remote server dies: calls in that window are error results naming it; after its
        # restart (a new process, so the old session is unknown: 404, initialize again) they work.
        remote["proc"].kill()
        remote["proc"].wait(10)
        r = await a.call_tool("remote-remote_echo", {"text": "down"})
        check(r.is_error and '"remote"' in text_of(r), "the remote server down: an error result naming it: " + text_of(r)[:140])
        remote["proc"] = start_remote(remote["port"], REMOTE_TOKEN)
        ok, t0 = None, time.monotonic()
        while time.monotonic() - t0 < 60:
            r = await a.call_tool("remote-remote_echo", {"text": "back"})
            if not r.is_error:
                ok = json.loads(text_of(r))
                break
            await anyio.sleep(0.5)
        check(ok is not None and ok["text"] == "back" and ok["started"] != remote["started"],
              f"after the restart calls reach the new server ({time.monotonic() - t0:.1f} s)")
        r = await b.call_tool("remote-remote_echo", {"text": "b too"})
        check(not r.is_error and json.loads(text_of(r))["text"] == "b too", "and from the other session too")


async def wait_for(event: anyio.Event, seconds: float) -> bool:
    with anyio.move_on_after(seconds):
        await event.wait()
        return True
    return False


async def cap_tests(cfg: str, tmp: str, env: dict) -> None:
    proxy = Proxy(cfg, tmp, "--max-sessions", "2", "--session-idle-timeout", "3", env=env)
    try:
        ids = []
        for _ in range(2):
            r = await raw_post(proxy.url, {})
            ids.append(r.headers.get("mcp-session-id"))
        r = await raw_post(proxy.url, {})
        check(r.status_code == 503 and all(ids), f"a session beyond --max-sessions: 503 ({r.status_code})")
        await anyio.sleep(5)
        r = await raw_post(proxy.url, {})
        check(r.status_code == 200, f"idle sessions end after --session-idle-timeout: a new one fits ({r.status_code})")
    finally:
        proxy.stop()


async def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        remote_port, locked_port = free_port(), free_port()
        env = {**os.environ, "REMOTE_TOKEN": REMOTE_TOKEN}
        remote = {"port": remote_port, "proc": start_remote(remote_port, REMOTE_TOKEN)}
        REVOKED.touch()
        locked = start_remote(locked_port, "locked-" + REMOTE_TOKEN, "locked", "--revoke-file", str(REVOKED))
        cfg = Path(tmp) / "servers.json"
        cfg.write_text(json.dumps(config(remote_port, locked_port)))
        token_file = Path(tmp) / "token"
        token_file.write_text(CLIENT_TOKEN + "\n")
        try:
            run_check(str(cfg), env)
            REVOKED.unlink()
            out = subprocess.run([PROXY, "mcp", "--config", str(cfg), "--state", STATE, "--http", "0.0.0.0:0"],
                                 capture_output=True, text=True, timeout=60, env=env)
            check(out.returncode != 0 and "needs a bearer token" in out.stderr,
                  "listening beyond loopback without --token-file is refused: " + out.stderr.strip()[:100])
            proxy = Proxy(str(cfg), tmp, "--token-file", str(token_file),
                          "--allow-origin", "http://app.example:3000", env=env)
            try:
                await security_tests(proxy.url)
                await session_tests(proxy.url, remote, tmp)
                ts_dir = os.environ.get("TOOLREGISTRY_TEST_TS_DIR")
                if ts_dir:  # a directory whose node_modules has @modelcontextprotocol/sdk
                    script = Path(ts_dir) / "ts_client.mjs"
                    shutil.copy(HERE / "ts_client.mjs", script)
                    out = subprocess.run(["node", str(script), proxy.url, CLIENT_TOKEN],
                                         capture_output=True, text=True, timeout=120)
                    print(out.stdout, end="")
                    check(out.returncode == 0, "the TypeScript SDK's client over HTTP: list, search, call "
                          + out.stderr.strip()[-300:])
            finally:
                log = proxy.stop()
            check(REMOTE_TOKEN not in log and CLIENT_TOKEN not in log,
                  "the proxy's output never carries the remote token or the client token")
            await cap_tests(str(cfg), tmp, env)
        finally:
            for p in (remote["proc"], locked):
                p.kill()
                p.wait(10)
    if FAILURES:
        print(f"{len(FAILURES)} FAILED:", *FAILURES, sep="\n  ")
        sys.exit(1)
    print("all toolregistry mcp HTTP checks passed")


anyio.run(main)
