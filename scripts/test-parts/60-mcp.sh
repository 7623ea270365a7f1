#!/usr/bin/env bash
# `toolregistry mcp` (the MCP proxy, cargo feature `mcp`): the release binary with the feature
# (the one cargo build of this part; config errors are checked through the binary too), then the
# official MCP Python SDK as the client over stdio against a published server
# (mcp-server-time), the scripted servers of tests/mcp/downstream.py (crash, hang, malformed
# output, list_changed, 2,000 tools) and one that cannot start, and with the local encoder a search
# by meaning and the vector cache (--model-dir, --embed-cache); `mcp import` end to end on the
# clients' fixtures of tests/mcp/import; and co-use (tests/mcp/test_usage.py: sessions as tasks,
# partners brought in, kept beside --state across a restart, `"usage": false`). The virtualenv stays in $target/mcp-venv, so a second run
# installs nothing. In scripts/test.sh, 70-dist.sh ran before this part and built the program
# (the release build with `mcp`): the cargo build here then has nothing to do.
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
"$venv/bin/python" tests/mcp/test_import.py "$target/release/toolregistry"
# The model (46-model.sh fetched it already; this finds it there) for a search by meaning.
model="$(PYTHON="$python" scripts/fetch-model.sh "$target/models")"
TOOLREGISTRY_TEST_MODEL_DIR="$model" "$venv/bin/python" tests/mcp/test_proxy.py "$target/release/toolregistry"
"$venv/bin/python" tests/mcp/test_usage.py "$target/release/toolregistry"
