#!/usr/bin/env bash
# Trust in `toolregistry mcp` (cargo feature `mcp`; the scanner's and the pins' unit tests, with the
# poisoned corpus of tests/mcp/trust/poisoned.json, run in scripts/test.sh's `cargo test`, which
# compiles them without the feature): the official MCP
# Python SDK as the client against the scripted servers of tests/mcp/trust/servers.py (poisoned
# definitions quarantined, a rug pull held until approve, review's diff, a corrupt or unwritable
# state file), the live config (servers added, removed and changed while a client is connected,
# a broken config refused, SIGHUP), then the scanner's counts over the benign catalogs of
# ../shared/eval. Reuses the release build and the virtualenv of 60-mcp.sh ($target/mcp-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
venv="$target/mcp-venv"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi
mcp_venv "$venv"

build_program
bin="$target/release/toolregistry"
"$venv/bin/python" tests/mcp/trust/test_trust.py "$bin"
"$venv/bin/python" tests/mcp/trust/test_live.py "$bin"

# False positives: every tool of the public catalogs is benign; the counts go to EVALUATION.md.
shared="${SHARED:-../shared}"
if [ -d "$shared/eval" ]; then
  "$bin" mcp scan "$shared"/eval/{bfcl,metatool,apibench}/catalog.json
else
  echo "skip  the scanner's false-positive counts ($shared/eval is missing)"
fi
