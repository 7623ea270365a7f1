#!/usr/bin/env bash
# The agent-framework adapters of the Python package (bindings/python/src/toolregistry_rs/
# integrations/): the wheel built once (the package's build backend: the library scripts/test.sh's
# cargo test already built), then for each framework an empty virtualenv in which
# `WHEEL[extra]` is installed (the extra's pinned versions, bindings/python/pyproject.toml) with
# pytest, running that framework's agent-loop test (bindings/python/integration_tests/) and the
# import test; and one virtualenv with the wheel alone, where `import toolregistry_rs` works and
# each adapter names its extra. The installs go through uv's pip interface (uv from the MCP parts'
# virtualenv, shared with them; its cache is the user's, as scripts/test.sh sets it): pip takes
# 15-36 s a framework here, uv 1-2 s. The pydantic-ai one also runs with pip itself, the command
# the README gives, so the wheel's extras are checked against pip's resolver too (10 of the
# part's 29 s on an idle machine, with empty uv and pip caches as with warm ones; about 70 s
# while other parts load both cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac
dir="$target/python-frameworks"
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi
# The package must work without any of these pointing at the library.
unset TOOLREGISTRY_LIB LD_LIBRARY_PATH

# What each step costs, in the part's log.
step() { echo "--- [${SECONDS}s] $*"; }
[ -x "$target/mcp-venv/bin/uv" ] || mcp_venv "$target/mcp-venv"
uv="$target/mcp-venv/bin/uv"
rm -rf "$dir"
mkdir -p "$dir/dist"

# The wheel, built by the package's own build backend (uv build runs it as pip does), then
# installed alone.
step "the wheel"
"$uv" build --quiet --wheel --out-dir "$dir/dist" bindings/python
wheel=$(ls "$dir"/dist/toolregistry_rs-*.whl)
"$uv" venv --quiet --python "$python" "$dir/bare"
"$uv" pip install --quiet --python "$dir/bare/bin/python" pytest "$wheel"
tests="$PWD/bindings/python/integration_tests"
run_tests() { # VENV TEST_FILE...
  local venv="$1"; shift
  (cd "$tests" && "$venv/bin/python" -m pytest -q -p no:cacheprovider --rootdir "$tests" "$@")
}
step "the wheel alone"
(cd / && "$dir/bare/bin/python" -c "import toolregistry_rs as tr; print('toolregistry_rs', tr.__version__)")
run_tests "$dir/bare" test_no_framework.py

for extra in pydantic-ai langchain openai-agents google-adk; do
  module="${extra//-/_}"
  step "[$extra]"
  "$uv" venv --quiet --python "$python" "$dir/$extra"
  "$uv" pip install --quiet --python "$dir/$extra/bin/python" pytest "$wheel[$extra]"
  step "[$extra] installed"
  run_tests "$dir/$extra" "test_$module.py" test_no_framework.py
done

step "[pydantic-ai] with pip itself"
"$python" -m venv "$dir/pip-pydantic-ai"
"$dir/pip-pydantic-ai/bin/python" -m pip install --quiet --disable-pip-version-check pytest "$wheel[pydantic-ai]"
step "[pydantic-ai] installed with pip"
run_tests "$dir/pip-pydantic-ai" test_pydantic_ai.py
step "done"
