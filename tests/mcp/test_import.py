"""`toolregistry mcp import` end to end: the program on the fixtures of tests/mcp/import/ (one per
client, from each client's documented format, and bad ones), in a temporary folder.

What the unit tests (cli/src/mcp/import/tests.rs) cannot see is checked here: what the program prints
on stdout and stderr (never a literal secret; every entry left in a client named with its
reason), its exit codes, the files' modes, and a second --rewrite that changes no byte.

Usage: test_import.py PROXY_BINARY
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

PROXY = sys.argv[1]
FIXTURES = Path(__file__).resolve().parent / "import"
SECRETS = ["ghp_FIXTURE_literal_secret_0001", "sntrys_FIXTURE_literal_secret_0002", "ghp_FIXTURE_literal_secret_0003"]
FAILURES: list[str] = []


def check(ok: bool, what: str) -> None:
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        FAILURES.append(what)


def run(*args, cwd=None):
    return subprocess.run([PROXY, "mcp", "import", *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=60)


def snapshot(root: Path) -> dict:
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def no_secret(out, what: str) -> None:
    text = out.stdout + out.stderr
    check(not any(s in text for s in SECRETS), f"{what}: no literal secret on stdout or stderr")


with tempfile.TemporaryDirectory() as tmp:
    root = Path(tmp) / "clients"
    shutil.copytree(FIXTURES, root)
    gateway = Path(tmp) / "gateway" / "servers.json"

    # Printed: Claude Desktop's literal token withheld, its key named; the old gateway skipped.
    out = run(root / "claude_desktop_config.json")
    no_secret(out, "import (printed)")
    check(out.returncode == 0 and json.loads(out.stdout)["mcpServers"].keys() == {"filesystem", "github", "time"},
          "import prints the gateway config of the three servers")
    check("mcpServers.github.env.GITHUB_PERSONAL_ACCESS_TOKEN: a literal value, withheld" in out.stderr,
          "the withheld value's key is named on stderr")
    check('"old gateway": already runs the gateway' in out.stderr or "old gateway: already runs the gateway" in out.stderr,
          "the entry that already runs the gateway is skipped, and said so")

    # Every client's fixture, rewritten twice.
    clients = ["vscode/.vscode/mcp.json", "vscode-settings/settings.json", "claude-code/.mcp.json", "cursor/.cursor/mcp.json"]
    for rel in clients:
        config = root / rel
        os.chmod(config, 0o640)
        out = run(config, "--write", gateway, "--rewrite")
        no_secret(out, f"{rel}: --rewrite")
        check(out.returncode == 0 and "rewrote" in out.stdout, f"{rel}: rewritten: {out.stdout.strip()[:160]} {out.stderr.strip()[:300]}")
        check(Path(str(config) + ".bak").read_bytes() == (FIXTURES / rel).read_bytes(), f"{rel}: the backup is the original")
        check(stat.S_IMODE(config.stat().st_mode) == 0o640, f"{rel}: same permissions")
        before = snapshot(Path(tmp))
        out = run(config, "--write", gateway, "--rewrite")
        check(out.returncode == 0 and "unchanged" in out.stdout and snapshot(Path(tmp)) == before,
              f"{rel}: a second --rewrite changes nothing")
    check(stat.S_IMODE(gateway.stat().st_mode) == 0o600, "the gateway's config is mode 0600")
    check(SECRETS[1] in gateway.read_text(), "the literal header value is in the gateway's config (only there)")
    errs = ""
    for rel in clients:
        errs += run(root / rel).stderr
    for needle in ["legacy: an SSE server", "sandboxed: has \"sandbox\", \"sandboxEnabled\"", "events: an SSE server",
                   "with-env-file: has \"envFile\"", "static-oauth: has \"auth\""]:
        check(needle in errs, f"left in the client and said so: {needle}")
    vscode = (root / "vscode/.vscode/mcp.json").read_text()
    check(vscode.startswith("{\n\t// VS Code's workspace MCP configuration") and '"inputs"' in vscode,
          "VS Code's comments and inputs are kept")

    # The gateway loads what import wrote (with the variables it reads set).
    env = {**os.environ, "TOOLREGISTRY_INPUT_PERPLEXITY_KEY": "k", "API_KEY": "k", "AIRTABLE_API_KEY": "k",
           "DATABASE_URL": "postgres://x", "TOOLREGISTRY_WORKSPACEFOLDER": "/w", "TOOLREGISTRY_USERHOME": "/h",
           "LINEAR_TOKEN": "k"}
    out = subprocess.run([PROXY, "mcp", "review", "--config", str(gateway), "--state", str(Path(tmp) / "state.json")],
                         capture_output=True, text=True, env=env)
    check(out.returncode == 0, f"the gateway reads the imported config: {out.stderr.strip()[:200]}")

    # Bad configs: exit 1, file and place named, nothing written.
    for rel, needles in [
        ("bad/claude_desktop_config.json", ["claude_desktop_config.json", "line 6, column 7"]),
        ("bad/.mcp.json", [".mcp.json", "mcpServers.broken.args: expected an array of strings"]),
        ("bad/truncated.json", ["truncated.json", "line 5"]),
        ("bad/not-a-client.json", ["not-a-client.json", "not an MCP client's config"]),
    ]:
        before = snapshot(Path(tmp))
        out = run(root / "claude-code/.mcp.json", root / rel, "--write", Path(tmp) / "other.json", "--rewrite")
        no_secret(out, rel)
        check(out.returncode == 1 and all(n in out.stderr for n in needles) and snapshot(Path(tmp)) == before,
              f"{rel} is refused, nothing written: {out.stderr.strip()[:160]}")
    out = run(root / "claude-code/.mcp.json", "--rewrite")
    check(out.returncode != 0 and "--write" in out.stderr, "--rewrite needs --write")

if FAILURES:
    sys.exit(f"{len(FAILURES)} checks failed")
print("import: all checks passed")
