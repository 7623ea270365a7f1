"""`toolregistry mcp login`, `--check` and `logout` against protected remote servers.

One scripted HTTP server on 127.0.0.1 plays, per path prefix, an MCP server (stateless JSON
answers; every request needs a bearer token it issued, unexpired) with its protected-resource
metadata, and its authorization server (RFC 8414 metadata, dynamic registration, an authorize
endpoint that approves at once with `iss`, a token endpoint issuing access tokens that expire
after ACCESS_TTL seconds and refresh tokens). Prefixes:
  good      everything right
  badmeta   the authorization server's metadata is not JSON
  wrongiss  the metadata's issuer is another server's
  nopkce    the metadata advertises only "plain" PKCE
  noreg     dynamic registration answers 400
Checked: login then --check shows the server running with its tool; the token file has mode
0600; no token is on stdout, stderr or in --check; an expired access token is refreshed without
the user (the refresh grant used); each error case fails with a message naming the server,
writes nothing to the token file, and the good server keeps running beside it; logout forgets;
the running gateway's web console shows the server needing sign-in, with the URL of the sign-in
waiting on the browser.

Usage: test_oauth.py PATH/TO/toolregistry
"""

import base64
import hashlib
import http.server
import json
import os
import secrets
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ACCESS_TTL = 3
FAILURES = []
ISSUED = []  # every token handed out (none may be printed)
GRANTS = {"authorization_code": 0, "refresh_token": 0}


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


class State:
    codes = {}  # code -> (prefix, challenge, resource)
    access = {}  # token -> (prefix, expires_at)
    refresh = {}  # token -> prefix


class Handler(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def base(self):
        return f"http://127.0.0.1:{self.server.server_port}"

    def send(self, status, body=None, headers=(), raw=None):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else b"")
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        if data:
            self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def split(self):
        url = urllib.parse.urlparse(self.path)
        parts = url.path.strip("/").split("/")
        return url, parts

    def as_metadata(self, prefix):
        b = self.base()
        issuer = f"{b}/{prefix}"
        meta = {
            "issuer": issuer if prefix != "wrongiss" else f"{b}/elsewhere",
            "authorization_endpoint": f"{issuer}/authorize",
            "token_endpoint": f"{issuer}/token",
            "registration_endpoint": f"{issuer}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["plain"] if prefix == "nopkce" else ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
            "authorization_response_iss_parameter_supported": True,
            "scopes_supported": ["tools"],
        }
        return meta

    def do_GET(self):
        url, parts = self.split()
        q = dict(urllib.parse.parse_qsl(url.query))
        # RFC 8414 well-known for an issuer with a path: /.well-known/oauth-authorization-server/P
        if parts[:2] == [".well-known", "oauth-authorization-server"] and len(parts) == 3:
            prefix = parts[2]
            if prefix == "badmeta":
                return self.send(200, raw=b"<html>not metadata</html>")
            return self.send(200, self.as_metadata(prefix))
        if len(parts) == 2 and parts[1] == "prm":
            prefix = parts[0]
            return self.send(200, {
                "resource": f"{self.base()}/{prefix}/mcp",
                "authorization_servers": [f"{self.base()}/{prefix}"],
                "scopes_supported": ["tools"],
            })
        if len(parts) == 2 and parts[1] == "authorize":
            prefix = parts[0]
            code = secrets.token_urlsafe(16)
            State.codes[code] = (prefix, q.get("code_challenge"), q.get("resource"))
            target = q["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"code": code, "state": q.get("state", ""), "iss": f"{self.base()}/{prefix}"})
            return self.send(302, headers=[("location", target)])
        return self.send(404, {"error": "not_found"})

    def body(self):
        n = int(self.headers.get("content-length") or 0)
        return self.rfile.read(n)

    def do_POST(self):
        url, parts = self.split()
        data = self.body()
        if len(parts) == 2 and parts[1] == "register":
            if parts[0] == "noreg":
                return self.send(400, {"error": "invalid_client_metadata",
                                       "error_description": "registration is closed"})
            reg = json.loads(data)
            return self.send(201, {"client_id": secrets.token_hex(8), **reg})
        if len(parts) == 2 and parts[1] == "token":
            form = dict(urllib.parse.parse_qsl(data.decode()))
            prefix = parts[0]
            grant = form.get("grant_type")
            if grant == "authorization_code":
                entry = State.codes.pop(form.get("code", ""), None)
                if not entry:
                    return self.send(400, {"error": "invalid_grant"})
                _, challenge, resource = entry
                verifier = form.get("code_verifier", "")
                digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if digest != challenge or form.get("resource") != resource:
                    return self.send(400, {"error": "invalid_grant", "error_description": "pkce or resource"})
            elif grant == "refresh_token":
                if State.refresh.pop(form.get("refresh_token", ""), None) != prefix:
                    return self.send(400, {"error": "invalid_grant"})
            else:
                return self.send(400, {"error": "unsupported_grant_type"})
            GRANTS[grant] += 1
            access, refresh = "AT-" + secrets.token_hex(12), "RT-" + secrets.token_hex(12)
            ISSUED.extend([access, refresh])
            State.access[access] = (prefix, time.time() + ACCESS_TTL)
            State.refresh[refresh] = prefix
            return self.send(200, {"access_token": access, "token_type": "Bearer",
                                   "expires_in": ACCESS_TTL, "refresh_token": refresh, "scope": "tools"})
        if len(parts) == 2 and parts[1] == "mcp":
            prefix = parts[0]
            auth = self.headers.get("authorization", "")
            token = auth[7:] if auth.startswith("Bearer ") else ""
            entry = State.access.get(token)
            if not entry or entry[0] != prefix or entry[1] < time.time():
                return self.send(401, {"error": "invalid_token"}, headers=[(
                    "www-authenticate",
                    f'Bearer error="invalid_token", resource_metadata="{self.base()}/{prefix}/prm", scope="tools"')])
            msg = json.loads(data)
            if "id" not in msg:
                return self.send(202)
            method = msg.get("method")
            if method == "initialize":
                result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                          "serverInfo": {"name": "protected", "version": "1"}}
            elif method == "tools/list":
                result = {"tools": [{"name": "whoami", "description": "Says who is signed in",
                                     "inputSchema": {"type": "object", "properties": {}}}]}
            elif method == "tools/call":
                result = {"content": [{"type": "text", "text": f"signed in to {prefix}"}]}
            else:
                return self.send(200, {"jsonrpc": "2.0", "id": msg["id"],
                                       "error": {"code": -32601, "message": "no such method"}})
            return self.send(200, {"jsonrpc": "2.0", "id": msg["id"], "result": result})
        return self.send(404, {"error": "not_found"})


async def serving(program, config, state, env, opener):
    import anyio
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    changed = anyio.Event()

    async def on_message(message):
        if "tools/list_changed" in repr(message) or "ToolListChanged" in type(message).__name__:
            changed.set()

    errlog = open(Path(state).parent / "gateway.err", "w+")
    params = StdioServerParameters(command=program, env=env, args=[
        "mcp", "--config", str(config), "--state", str(state), "--open-with", "true", "--no-watch",
        "--console", "127.0.0.1:0"])
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write, message_handler=on_message) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            check(not any("whoami" in n for n in names), f"before sign-in the server has no tools: {names}")
            # The web console meanwhile: good needs sign-in, its sign-in waits on the browser,
            # and the page is given the authorization URL to open.
            url = (Path(state).parent / "console-url").read_text().strip()
            request = urllib.request.Request(url.split("/?")[0] + "/api/servers",
                                             headers={"Authorization": f"Bearer {url.split('token=')[1]}"})
            with urllib.request.urlopen(request, timeout=10) as r:
                servers = {s["name"]: s for s in json.loads(r.read())}
            good = servers.get("good", {})
            sign_in = good.get("sign_in") or {}
            base = config_base(config)
            check(good.get("state") == "needs sign-in" and sign_in.get("needed") and sign_in.get("signing")
                  and (sign_in.get("authorization_url") or "").startswith(f"{base}/good/authorize?"),
                  f"the console: good needs sign-in, its sign-in waits with its URL: {good.get('state')} {sign_in}")
            p = await anyio.to_thread.run_sync(lambda: subprocess.run(
                [program, "mcp", "login", "good", "--open-with", opener, "--config", str(config),
                 "--state", str(state)], capture_output=True, text=True, env=env, timeout=60))
            check(p.returncode == 0, "login beside the running gateway")
            with anyio.move_on_after(20):
                await changed.wait()
            check(changed.is_set(), "the gateway sends tools/list_changed once the server is signed in")
            names = [t.name for t in (await session.list_tools()).tools]
            whoami = [n for n in names if "whoami" in n]
            check(bool(whoami), f"the signed-in server's tool is listed: {names}")
            if whoami:
                r = await session.call_tool(whoami[0], {})
                text = " ".join(getattr(c, "text", "") for c in r.content)
                check("signed in to good" in text, f"its tool answers through the gateway: {text}")
    errlog.seek(0)
    err = errlog.read()
    check("needs sign-in (toolregistry mcp login good)" in err, "the gateway's stderr says good needs sign-in")
    check(not any(t in err for t in ISSUED), "the gateway's stderr has no token")


def config_base(config):
    """The scripted server's base URL, from the config's good server."""
    return json.loads(Path(config).read_text())["mcpServers"]["good"]["url"].rsplit("/good/", 1)[0]


def main():
    program = sys.argv[1]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}"
    work = Path(tempfile.mkdtemp(prefix="tr-oauth-"))
    state = work / "state" / "mcp-state.json"
    tokens = work / "state" / "mcp-oauth.json"
    names = ["good", "badmeta", "wrongiss", "nopkce", "noreg"]
    config = work / "config.json"
    config.write_text(json.dumps({"mcpServers": {
        n: {"url": f"{base}/{n}/mcp", "defer": False, "trust": "off", "timeout_ms": 10000} for n in names}}))
    opener = f"{sys.executable} {Path(__file__).resolve().parent / 'conformance_driver.py'} --open"
    env = {k: os.environ[k] for k in ("PATH", "HOME", "TMPDIR") if k in os.environ}
    env.update(XDG_DATA_HOME=str(work / "data"), XDG_CACHE_HOME=str(work / "cache"),
               XDG_CONFIG_HOME=str(work / "config"))

    def run(*args):
        p = subprocess.run([program, "mcp", *args, "--config", str(config), "--state", str(state)],
                           capture_output=True, text=True, env=env, timeout=120)
        out = p.stdout + p.stderr
        check(not any(t in out for t in ISSUED), f"`mcp {' '.join(args)}` prints no token")
        return p

    p = run("--check")
    check(f"needs sign-in (toolregistry mcp login good)" in p.stdout,
          "--check before login: the server needs sign-in, and says how")
    check(not tokens.exists(), "--check opens no browser and writes no token file")

    p = run("login", "good", "--open-with", opener)
    check(p.returncode == 0 and "signed in" in p.stdout, f"login good: {p.stdout.strip()} {p.stderr.strip()[-300:]}")
    check(tokens.exists() and stat.S_IMODE(tokens.stat().st_mode) == 0o600, "the token file has mode 0600")
    stored = json.loads(tokens.read_text())
    check(list(stored["servers"]) == [f"{base}/good/mcp"], "the token file is keyed by the server's URL")

    p = run("--check")
    good = [l for l in p.stdout.splitlines() if l.startswith("good ")]
    check(bool(good) and "running  1 tools" in good[0], f"--check after login: {good}")

    # The access token expires; the next start refreshes it without the user.
    time.sleep(ACCESS_TTL + 1)
    before = GRANTS["refresh_token"]
    p = run("--check")
    good = [l for l in p.stdout.splitlines() if l.startswith("good ")]
    check(bool(good) and "running  1 tools" in good[0], f"--check past the access token's expiry: {good}")
    check(GRANTS["refresh_token"] > before, "the expired access token was refreshed (refresh_token grant)")

    for name, says in [("badmeta", "metadata"), ("wrongiss", "issuer"), ("nopkce", "S256"),
                       ("noreg", "regist")]:
        before = tokens.read_bytes()
        p = run("login", name, "--open-with", opener)
        err = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ""
        check(p.returncode != 0 and f'server "{name}"' in err and says.lower() in err.lower(),
              f"login {name} fails naming the server and the cause: {err}")
        check(tokens.read_bytes() == before, f"login {name} writes nothing to the token file")

    p = run("--check")
    good = [l for l in p.stdout.splitlines() if l.startswith("good ")]
    check(bool(good) and "running" in good[0], "the signed-in server runs beside the failing ones")

    p = run("logout", "good")
    check(p.returncode == 0 and "signed out" in p.stdout, "logout good")
    check(f"{base}/good/mcp" not in json.loads(tokens.read_text()).get("servers", {}), "logout forgets the tokens")

    # The running gateway: `good` needs sign-in (its own sign-in goes to an opener that never
    # approves), the other servers fail; a login from elsewhere makes good's tool appear, with
    # notifications/tools/list_changed, without a restart.
    import anyio
    anyio.run(serving, program, config, state, env, opener)

    server.shutdown()
    if FAILURES:
        sys.exit(f"{len(FAILURES)} checks failed: {FAILURES}")
    print("oauth: all checks passed")


if __name__ == "__main__":
    main()
