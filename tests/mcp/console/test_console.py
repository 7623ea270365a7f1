"""The gateway's web console (`toolregistry mcp --console`), in a real browser: headless Chromium
driven by Selenium, against a gateway the official MCP Python SDK's client started over stdio, in
front of real servers (mcp-server-time; poisoning.py, whose tool turned poisoned since it was
pinned; a remote server that cannot be reached, so "failed" with its error; and a remote server
protected by OAuth, the scripted authorization server and MCP server of tests/mcp/test_oauth.py,
whose first authorization the person declines). The page lists the servers and their states; the
protected server needs sign-in, and its Sign in (the gateway's own sign-in, with `--open-with` a
browser that approves at once, as the oauth tests' opener does) makes it run, its tool listed in
the page and to the SDK client; the quarantined tool shows its diff; Approve in the page makes the
tool appear to the SDK client (per tool, then per server); a search shows hits with reasons; the
client's call appears under calls. Then the refusals over plain HTTP (no token 401; a POST
without the CSRF token, or from another Origin, or to another Host, 403; no literal secret of
the config's env/headers in any answer; beyond loopback without --token-file the gateway refuses
to start), the same state file after an Approve in the page and after `toolregistry mcp
approve`, and --console beside --http. With SCREENSHOTS=DIR, the page's screenshots go there
(docs/ holds the ones committed).

Usage: test_console.py PROXY_BINARY
"""

from http.server import ThreadingHTTPServer
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

PROXY = sys.argv[1]
HERE = Path(__file__).resolve().parent
PY = sys.executable
BIN = Path(PY).parent
ENV_SECRET = "env-secret-7f3a9c51"
HEADER_SECRET = "header-secret-2b8d41e6"
FAILURES: list[str] = []
# The approving browser of the oauth tests: requests the authorization URL without following
# redirects, then the Location it got (the gateway's loopback listener).
OPENER = f"{PY} {HERE.parent / 'conformance_driver.py'} --open"

sys.path.insert(0, str(HERE.parent))
import test_oauth  # noqa: E402  (the scripted authorization server and protected MCP server)

test_oauth.ACCESS_TTL = 3600  # refreshing is test_oauth's to check


class DeclinesFirst(test_oauth.Handler):
    """test_oauth's servers, where the person declines the first authorization (the gateway's
    own sign-in at start) and approves the next ones (the console's Sign in)."""

    authorizations: list[str] = []

    def do_GET(self):
        url, parts = self.split()
        if len(parts) == 2 and parts[1] == "authorize":
            DeclinesFirst.authorizations.append(parts[0])
            if len(DeclinesFirst.authorizations) == 1:
                q = dict(urllib.parse.parse_qsl(url.query))
                target = q["redirect_uri"] + "?" + urllib.parse.urlencode(
                    {"error": "access_denied", "error_description": "the person declined",
                     "state": q.get("state", "")})
                return self.send(302, headers=[("location", target)])
        return super().do_GET()


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def write_config(tmp: Path, version: Path, name: str, protected: str | None) -> Path:
    config = {"mcpServers": {
        "time": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"], "defer": False},
        "facts": {"command": PY, "args": [str(HERE / "poisoning.py"), str(version)],
                  "env": {"CONSOLE_TEST_SECRET": ENV_SECRET}, "defer": False},
        # Port 9 (discard): nothing listens, so the server is "failed" with its error.
        "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {HEADER_SECRET}"}},
    }}
    if protected:
        # No "headers": it signs in. Nothing pinned, so that the state file stays the CLI twin's.
        config["mcpServers"]["protected"] = {"url": protected, "defer": False, "trust": "off"}
    path = tmp / name
    path.write_text(json.dumps(config))
    return path


def proxy(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([PROXY, "mcp", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def pinned_then_poisoned(tmp: Path, label: str, protected: str | None = None) -> tuple[Path, Path]:
    """A config and a state file where facts/fact_of_the_day was pinned benign, then changed."""
    version = tmp / f"version-{label}"
    version.write_text("1")
    config = write_config(tmp, version, f"config-{label}.json", protected)
    state = tmp / f"state-{label}" / "mcp-state.json"
    proxy("--check", "--config", str(config), "--state", str(state))
    version.write_text("2")
    return config, state


def http(url: str, method="GET", headers=None, body=None) -> tuple[int, str]:
    request = urllib.request.Request(url, method=method, headers=headers or {}, data=body)
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def browser() -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for arg in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--disable-gpu", "--no-first-run", "--disable-extensions"]:
        options.add_argument(arg)
    driver = shutil.which("chromedriver") or "/usr/bin/chromedriver"
    return webdriver.Chrome(options=options, service=Service(executable_path=driver))


def wait_for(what, timeout=15.0, every=0.25):
    deadline = time.monotonic() + timeout
    while True:
        try:
            value = what()
        except Exception:  # the page re-renders between polls: an element may go stale
            value = None
        if value or time.monotonic() > deadline:
            return value
        time.sleep(every)


async def wait_listed(session, name: str, timeout=15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if name in [t.name for t in (await session.list_tools()).tools]:
            return True
        await anyio.sleep(0.3)
    return False


def refusals(base: str, token: str, csrf: str) -> None:
    code, _ = http(f"{base}/api/overview")
    check(code == 401, f"no token: 401 ({code})")
    code, _ = http(f"{base}/api/overview?token={'0' * 64}")
    check(code == 401, f"a wrong token: 401 ({code})")
    code, _ = http(f"{base}/", headers={"Authorization": f"Bearer {token}"})
    check(code == 200, f"the token as a bearer: 200 ({code})")
    bearer = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    body = json.dumps({"target": "facts"}).encode()
    code, text = http(f"{base}/api/approve", "POST", bearer, body)
    check(code == 403 and "CSRF" in text, f"a POST without the CSRF token: 403 ({code})")
    code, _ = http(f"{base}/api/approve", "POST", {**bearer, "X-Console-Csrf": "0" * 64}, body)
    check(code == 403, f"a POST with a wrong CSRF token: 403 ({code})")
    code, _ = http(f"{base}/api/approve", "POST",
                   {**bearer, "X-Console-Csrf": csrf, "Origin": "http://evil.example"}, body)
    check(code == 403, f"a POST from another Origin: 403 ({code})")
    sign_in = json.dumps({"server": "protected"}).encode()
    code, text = http(f"{base}/api/sign-in", "POST", bearer, sign_in)
    check(code == 403 and "CSRF" in text, f"a Sign in POST without the CSRF token: 403 ({code})")
    code, _ = http(f"{base}/api/sign-in", "POST",
                   {**bearer, "X-Console-Csrf": csrf, "Origin": "http://evil.example"}, sign_in)
    check(code == 403, f"a Sign in POST from another Origin: 403 ({code})")
    code, text = http(f"{base}/api/sign-in", "POST", {**bearer, "X-Console-Csrf": csrf},
                      json.dumps({"server": "time"}).encode())
    check(code == 409 and "only a remote server" in text, f"Sign in for a program on stdio: 409 ({code} {text.strip()})")
    code, _ = http(f"{base}/api/overview", headers={**bearer, "Host": "evil.example"})
    check(code == 403, f"another Host (DNS rebinding): 403 ({code})")
    with urllib.request.urlopen(urllib.request.Request(f"{base}/", headers={"Authorization": f"Bearer {token}"})) as r:
        head = r.headers.get("Content-Security-Policy", "")
        text = r.read().decode()
    check("default-src 'none'" in head and "script-src 'self'" in head and "unsafe" not in head,
          f"a strict Content-Security-Policy: {head}")
    check("http://" not in text.replace(base, "") and "https://" not in text,
          "the page loads nothing from another origin")


def no_secret(base: str, token: str) -> None:
    bearer = {"Authorization": f"Bearer {token}"}
    leaked = []
    for path in ["/", "/console.js", "/console.css", "/api/session", "/api/overview", "/api/servers",
                 "/api/tools", "/api/quarantine", "/api/calls", "/api/config", "/api/search?q=secret",
                 f"/api/search?q={ENV_SECRET}"]:
        code, text = http(base + path, headers=bearer)
        if code != 200 or ENV_SECRET in text or HEADER_SECRET in text:
            leaked.append(f"{path} ({code})")
    check(leaked == [], f"no literal env/headers secret in any page or API answer: {leaked}")
    code, text = http(base + "/api/config", headers=bearer)
    config = json.loads(text)["config"]["mcpServers"]
    check(config["facts"]["env"]["CONSOLE_TEST_SECRET"] == "••••••"
          and config["remote"]["headers"]["Authorization"] == "••••••", "the config's env and headers are masked")


async def sign_in(driver, session, row, tool_row, oauth_base: str) -> None:
    """The protected server needs sign-in; Sign in in the page makes it run, its tool listed."""
    names = [t.name for t in (await session.list_tools()).tools]
    check("protected-whoami" not in names, "before sign-in the protected server's tool is not listed")

    def press():
        driver.find_element(By.CSS_SELECTOR, 'button[data-sign-in="protected"]').click()
        return True

    check(bool(wait_for(press)), "Sign in is pressed")
    link = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, '#sign-in-note a[data-sign-in-url="protected"]'))
    href = link.get_attribute("href") if link else ""
    check(href.startswith(f"{oauth_base}/protected/authorize?") and "code_challenge=" in href,
          f"the page shows the authorization URL for a person to open: {href[:60]}...")
    note = driver.find_element(By.ID, "sign-in-note").text
    check("--open-with" in note, f"and says what opened it: {note[:100]!r}")
    running = wait_for(lambda: "running" in row("protected") and row("protected"), timeout=30)
    check(bool(running) and " 1 " in f" {running} " and "Sign in" not in running,
          f"once signed in the server runs with its tool: {running!r}")
    listed = wait_for(lambda: "listed" in tool_row("protected-whoami") and tool_row("protected-whoami"))
    check(bool(listed), f"its tool is in the page's tools table: {listed!r}")
    check(await wait_listed(session, "protected-whoami"), "and appears to the SDK client")
    r = await session.call_tool("protected-whoami", {})
    text = " ".join(getattr(c, "text", "") for c in r.content)
    check("signed in to protected" in text, f"its tool answers through the gateway: {text}")
    check(DeclinesFirst.authorizations == ["protected", "protected"],
          f"two authorizations: the gateway's own (declined), the page's: {DeclinesFirst.authorizations}")


async def in_browser(tmp: Path, shots: Path | None, oauth_base: str) -> tuple[Path, Path]:
    config, state = pinned_then_poisoned(tmp, "page", f"{oauth_base}/protected/mcp")
    errlog = open(tmp / "gateway-stderr.log", "w+")
    params = StdioServerParameters(command=PROXY, args=["mcp", "--config", str(config), "--state", str(state),
                                                        "--console", "127.0.0.1:0", "--open-with", OPENER])
    async with stdio_client(params, errlog=errlog) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = [t.name for t in (await session.list_tools()).tools]
            check("facts-fact_of_the_day" not in names and "facts-count_words" not in names
                  and "time-get_current_time" in names, "both changed tools are quarantined, time's listed")
            url_file = state.parent / "console-url"
            url = url_file.read_text().strip()
            errlog.seek(0)
            check(f"console: {url}" in errlog.read(), f"the URL is printed on stderr: {url[:40]}...")
            check(stat.S_IMODE(url_file.stat().st_mode) == 0o600, "console-url is mode 0600")
            token = url.split("token=")[1]
            base = url.split("/?")[0]
            driver = browser()
            try:
                driver.get(url)
                check("token=" not in driver.current_url, "the token leaves the address bar for a cookie")
                row = lambda name: driver.find_element(By.CSS_SELECTOR, f'tr[data-server="{name}"]').text
                wait_for(lambda: "running" in row("time") and "running" in row("facts") and "failed" in row("remote")
                         and "needs sign-in" in row("protected") and "declined" in row("protected"))
                check("running" in row("time"), f"time is running: {row('time')!r}")
                check("running" in row("facts") and " 0 2 " in f" {row('facts')} ", f"facts is running, 2 quarantined: {row('facts')!r}")
                check("failed" in row("remote") and "connection failed" in row("remote"),
                      f"remote is failed with its error: {row('remote')[:120]!r}")
                check("needs sign-in" in row("protected") and "mcp login protected" in row("protected")
                      and "the person declined" in row("protected") and "Sign in" in row("protected"),
                      f"protected needs sign-in, with why and a Sign in button: {row('protected')[:160]!r}")
                label = driver.find_element(By.CSS_SELECTOR, 'button[data-sign-in="protected"]').get_attribute("aria-label")
                check(label == "Sign in to protected", f"the Sign in button is labelled: {label!r}")
                if shots:
                    driver.find_element(By.ID, "servers").screenshot(str(shots / "mcp-console-servers.png"))
                tool_row = lambda name: driver.find_element(By.CSS_SELECTOR, f'tr[data-tool="{name}"]').text
                await sign_in(driver, session, row, tool_row, oauth_base)
                check("quarantined" in (wait_for(lambda: tool_row("facts-fact_of_the_day")) or "")
                      and "listed" in tool_row("time-get_current_time"),
                      "the tools table: the held tool quarantined, time's tools listed")
                config_text = wait_for(lambda: driver.find_element(By.ID, "config-body").text) or ""
                check("••••••" in config_text and ENV_SECRET not in config_text and HEADER_SECRET not in config_text
                      and "CONSOLE_TEST_SECRET" in config_text, "the page's config shows the env and headers masked")
                card = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, 'article[data-tool="facts/fact_of_the_day"]'))
                text = card.text if card else ""
                check("- " in text and '"description": "Get a random fact of the day."' in text
                      and "<IMPORTANT>" in text and "changed" in text and "secrets.private-file" in text,
                      "the quarantined tool shows why, the findings and the diff, old against new")
                dels = card.find_elements(By.CSS_SELECTOR, ".diff .del") if card else []
                adds = card.find_elements(By.CSS_SELECTOR, ".diff .add") if card else []
                check(any("random fact of the day.\"" in d.text for d in dels) and any("IMPORTANT" in a.text for a in adds),
                      "the diff marks the old line removed and the new one added")
                if shots:
                    driver.execute_script("arguments[0].scrollIntoView()", card)
                    card.screenshot(str(shots / "mcp-console-quarantine.png"))
                # Approve with the keyboard: focus the button, press Enter.
                button = card.find_element(By.CSS_SELECTOR, 'button[data-approve="facts/fact_of_the_day"]')
                button.send_keys(Keys.ENTER)
                check(await wait_listed(session, "facts-fact_of_the_day"),
                      "after Approve in the page the tool appears to the SDK client")
                gone = wait_for(lambda: not driver.find_elements(By.CSS_SELECTOR, 'article[data-tool="facts/fact_of_the_day"]'))
                check(bool(gone), "and leaves the page's quarantine")
                check("listed" in (wait_for(lambda: "listed" in tool_row("facts-fact_of_the_day") and tool_row("facts-fact_of_the_day")) or ""),
                      "and is listed in the tools table")
                names = [t.name for t in (await session.list_tools()).tools]
                check("facts-count_words" not in names, "the other held tool stays held")
                # Approve per server, with a click.
                server = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, 'button[data-approve="facts"]'))
                server.click()
                check(await wait_listed(session, "facts-count_words"),
                      "Approve every tool of a server: its last held tool appears to the client")
                empty = wait_for(lambda: "Nothing is quarantined" in driver.find_element(By.ID, "quarantine-body").text)
                check(bool(empty), "and the page's quarantine is empty")
                # Search.
                box = driver.find_element(By.ID, "search-q")
                box.send_keys("current time in a timezone", Keys.ENTER)
                hit = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, 'li[data-hit="time-get_current_time"]'))
                check(hit is not None and "matched:" in hit.text and len(hit.find_element(By.CLASS_NAME, "reason").text) > 5,
                      "a search shows its hits with reasons: " + (hit.text.replace("\n", " | ")[:160] if hit else "none"))
                # A call by the client shows under calls.
                r = await session.call_tool("time-get_current_time", {"timezone": "UTC"})
                check(not r.is_error, "the client calls time-get_current_time")
                call = wait_for(lambda: driver.find_element(By.CSS_SELECTOR, 'tr[data-call="time-get_current_time"]'))
                check(call is not None and "ok" in call.text and "ms" in call.text and "#" in call.text,
                      "the call appears under calls (session, latency, ok): " + (call.text if call else "none"))
                code, text = http(f"{base}/api/calls", headers={"Authorization": f"Bearer {token}"})
                check("UTC" not in text and "timezone" not in text, "calls keep neither arguments nor results")
                csrf = driver.find_element(By.CSS_SELECTOR, 'meta[name="csrf"]').get_attribute("content")
            finally:
                driver.quit()
            refusals(base, token, csrf)
            no_secret(base, token)
            # The page's Approve again (the server approved already): a clear error, no change.
            before = state.read_bytes()
            code, text = http(f"{base}/api/approve", "POST",
                              {"Authorization": f"Bearer {token}", "X-Console-Csrf": csrf,
                               "Content-Type": "application/json"}, json.dumps({"target": "facts"}).encode())
            check(code == 409 and "nothing quarantined" in text and state.read_bytes() == before,
                  f"approving what is not held: 409, state untouched ({code} {text.strip()})")
    return config, state


def same_state_as_cli(tmp: Path, page_state: Path) -> None:
    config, state = pinned_then_poisoned(tmp, "cli")
    out = proxy("--check", "--config", str(config), "--state", str(state))
    check("2 quarantined" in out.stdout, "the CLI's twin: the same tools quarantined")
    out = proxy("approve", "--config", str(config), "--state", str(state), "facts/fact_of_the_day")
    check(out.returncode == 0 and out.stdout.startswith("approved facts/fact_of_the_day"), "toolregistry mcp approve: " + out.stdout.strip())
    out = proxy("approve", "--config", str(config), "--state", str(state), "facts")
    check(out.returncode == 0 and out.stdout.startswith("approved facts/count_words"), "toolregistry mcp approve SERVER: " + out.stdout.strip())
    page, cli = json.loads(page_state.read_text()), json.loads(state.read_text())
    check(page == cli, "an Approve in the page and `toolregistry mcp approve` leave the same state file")
    check({"fact_of_the_day", "count_words"} <= set(page["servers"]["facts"]["pinned"]) and not page["servers"]["facts"].get("quarantined"),
          "in both the new definition is pinned and nothing is held")


def beyond_loopback(tmp: Path) -> None:
    config, state = pinned_then_poisoned(tmp, "wide")
    out = proxy("--config", str(config), "--state", str(state), "--console", "0.0.0.0:0", timeout=30)
    check(out.returncode != 0 and "needs a token (--token-file FILE)" in out.stderr,
          "--console beyond loopback without --token-file refuses to start: " + out.stderr.strip()[-100:])
    out = proxy("--config", str(config), "--state", str(state), "--console", "localhost", timeout=30)
    check(out.returncode != 0 and "expected IP:PORT" in out.stderr, "a malformed --console address is refused")


def beside_http(tmp: Path) -> None:
    config, state = pinned_then_poisoned(tmp, "http")
    # The config's "console" key instead of the flag.
    value = json.loads(config.read_text())
    value["console"] = "127.0.0.1:0"
    config.write_text(json.dumps(value))
    p = subprocess.Popen([PROXY, "mcp", "--config", str(config), "--state", str(state), "--http", "127.0.0.1:0"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = ""
        deadline = time.monotonic() + 60
        while not url and time.monotonic() < deadline:
            line = p.stderr.readline()
            if "console: http://" in line:
                url = line.split("console: ")[1].strip()
        code, text = http(url.split("/?")[0] + "/api/servers", headers={"Authorization": f"Bearer {url.split('token=')[-1]}"})
        check(code == 200 and '"time"' in text, f"with --http and the config's \"console\" key: the console answers ({code})")
    finally:
        p.terminate()
        p.wait(timeout=10)


def main() -> int:
    shots = Path(os.environ["SCREENSHOTS"]) if os.environ.get("SCREENSHOTS") else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    oauth = ThreadingHTTPServer(("127.0.0.1", 0), DeclinesFirst)
    threading.Thread(target=oauth.serve_forever, daemon=True).start()
    oauth_base = f"http://127.0.0.1:{oauth.server_port}"
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _, page_state = anyio.run(in_browser, tmp, shots, oauth_base)
        same_state_as_cli(tmp, page_state)
        beyond_loopback(tmp)
        beside_http(tmp)
    if FAILURES:
        print(f"\n{len(FAILURES)} failed", flush=True)
        return 1
    print("\nall console checks passed", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
