#!/usr/bin/env bash
# What the test parts download and need no build for, fetched while scripts/test.sh's `cargo test`
# compiles (mostly waiting on the network and the disk, while the compile keeps both cores busy):
# the sentence encoders (46-model, 35-node, 60-mcp), the MCP parts' virtualenv, the forward-pass
# virtualenv of 46-model, and the MCP TypeScript SDK (61-mcp-http). Each part still installs what
# it needs when run alone; after this it finds it there. A failure here is reported and left to
# the part that needs the thing to fail on clearly.
set -uo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$PWD/$target"
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi
status=0
step() { "$@" >/dev/null || { echo "prefetch: '$*' failed (the part that needs it will retry)"; status=1; }; }
step env PYTHON="$python" scripts/fetch-model.sh "$target/models"
step env PYTHON="$python" scripts/fetch-model.sh --model all-mpnet-base-v2 "$target/models"
step mcp_venv "$target/mcp-venv"
step model_venv "$target/model-venv"
step mcp_npm "$target/mcp-npm"
echo "prefetch: done in $SECONDS s, beside the compile"
exit "$status"
