#!/usr/bin/env bash
# The gateway's web console (`toolregistry mcp --console`, cargo feature `mcp`) in a real browser:
# Debian's headless Chromium and its driver (installed when missing), driven by Selenium from PyPI
# with the system browser (no browser download), against a gateway the official MCP Python SDK's
# client starts, in front of mcp-server-time, the scripted server of tests/mcp/console/poisoning.py
# and an OAuth-protected server (the scripted authorization server and MCP server of
# tests/mcp/test_oauth.py; see tests/mcp/console/test_console.py for what is checked). The
# virtualenv stays in $target/console-venv; the page's screenshots go to
# $target/console-screenshots (docs/images/mcp-console-*.png are copies of them).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
venv="$target/console-venv"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi
need_commands chromium:chromium chromedriver:chromium-driver
[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==2.3.0" \
  "mcp-server-time==2026.10.19" "selenium==4.51.0"

build_program
# Selenium must not fetch a driver: the test names chromium and chromedriver itself.
SE_OFFLINE=true SCREENSHOTS="$target/console-screenshots" \
  "$venv/bin/python" tests/mcp/console/test_console.py "$target/release/toolregistry"
