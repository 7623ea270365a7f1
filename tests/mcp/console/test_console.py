"""The gateway's web console (`toolregistry mcp --console`), in a real browser: headless Chromium
driven by Selenium, against a gateway the official MCP Python SDK's client started over stdio, in
front of real servers (mcp-server-time; poisoning.py, whose tool turned poisoned since it was
pinned; and a remote server that cannot be reached, so "failed" with its error). The page lists
the servers and their states; the quarantined tool shows its diff; Approve in the page makes the
tool appear to the SDK client (per tool, then per server); a search shows hits with reasons; the client's call appears under
calls. Then the refusals over plain HTTP (no token 401; a POST without the CSRF token, or from
another Origin, or to another Host, 403; no literal secret of the config's env/headers in any
answer; beyond loopback without --token-file the gateway refuses to start), the same state file
after an Approve in the page and after `toolregistry mcp approve`, and --console beside --http.
With SCREENSHOTS=DIR, the page's screenshots go there (docs/ holds the ones committed).

Usage: test_console.py PROXY_BINARY
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.error
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


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def write_config(tmp: Path, version: Path, name: str) -> Path:
    config = {"mcpServers": {
        "time": {"command": str(BIN / "mcp-server-time"), "args": ["--local-timezone", "UTC"], "defer": False},
        "facts": {"command": PY, "args": [str(HERE / "poisoning.py"), str(version)],
                  "env": {"CONSOLE_TEST_SECRET": ENV_SECRET}, "defer": False},
        # Port 9 (discard): nothing listens, so the server is "failed" with its error.
        "remote": {"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": f"Bearer {HEADER_SECRET}"}},
    }}
    path = tmp / name
    path.write_text(json.dumps(config))
    return path


def proxy(*args, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([PROXY, "mcp", *args], capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def pinned_then_poisoned(tmp: Path, label: str) -> tuple[Path, Path]:
    """A config and a state file where facts/fact_of_the_day was pinned benign, then changed."""
    version = tmp / f"version-{label}"
    version.write_text("1")
    config = write_config(tmp, version, f"config-{label}.json")
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


async def in_browser(tmp: Path, shots: Path | None) -> tuple[Path, Path]:
    config, state = pinned_then_poisoned(tmp, "page")
    errlog = open(tmp / "gateway-stderr.log", "w+")
    params = StdioServerParameters(command=PROXY, args=["mcp", "--config", str(config), "--state", str(state),
                                                        "--console", "127.0.0.1:0"])
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
                wait_for(lambda: "running" in row("time") and "running" in row("facts") and "failed" in row("remote"))
                check("running" in row("time"), f"time is running: {row('time')!r}")
                check("running" in row("facts") and " 0 2 " in f" {row('facts')} ", f"facts is running, 2 quarantined: {row('facts')!r}")
                check("failed" in row("remote") and "connection failed" in row("remote"),
                      f"remote is failed with its error: {row('remote')[:120]!r}")
                if shots:
                    driver.find_element(By.ID, "servers").screenshot(str(shots / "mcp-console-servers.png"))
                tool_row = lambda name: driver.find_element(By.CSS_SELECTOR, f'tr[data-tool="{name}"]').text
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
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        _, page_state = anyio.run(in_browser, tmp, shots)
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
