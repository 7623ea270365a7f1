#!/usr/bin/env bash
# `toolregistry mcp` over streamable HTTP (cargo feature `mcp`): downstream servers at a URL and
# clients over `--http`. The official MCP Python SDK as the client and, with MCPServer
# (streamable-http on 127.0.0.1), as the remote servers, beside a stdio one (tests/mcp/test_http.py);
# the TypeScript SDK's client (@modelcontextprotocol/sdk from npm) for list, search and call; then
# the load check, 32 sessions x 40 calls (two rounds here), once more with the remote server killed
# half-way (bench/mcp_http.py; BENCHMARKS.md's figures are from its default, 100 calls and 4
# rounds). Reuses the MCP parts' virtualenv and the program with the gateway; the npm packages stay
# in $target/mcp-npm. All traffic is to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
venv="$target/mcp-venv"
npmdir="$target/mcp-npm"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi
mcp_venv "$venv"
mcp_npm "$npmdir"

build_program
TOOLREGISTRY_TEST_TS_DIR="$npmdir" "$venv/bin/python" tests/mcp/test_http.py "$target/release/toolregistry"
BENCH_PLAIN_ROUNDS=2 BENCH_CALLS=40 "$venv/bin/python" bench/mcp_http.py "$target/release/toolregistry" 200
