#!/usr/bin/env bash
# Provider conformance checked by the official Python SDKs: the virtualenv 40-python.sh left in
# $target/python-venv (the binding installed) gets openai, anthropic and google-genai at the versions
# the shapes were verified against, then tests/sdk/sdk_conformance.py validates what the library
# writes against the SDKs' request types (strictly), feeds it the SDKs' response models dumped every
# way they dump, and sends its tools and messages through the SDKs' real clients to a recording
# server on 127.0.0.1. Runs on its own too (it makes the virtualenv when 40-python.sh has not).
# after: 40-python
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
venv="$target/python-venv"
python="${PYTHON:-python3}"

# Bump together with the versions named in tests/conformance/README.md and README.md.
sdks=("openai==3.57.0" "anthropic==2.15.0" "google-genai==3.6.1")

if ! "$venv/bin/python" -c "import toolregistry_rs" >/dev/null 2>&1; then
  if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
    apt_install python3 python3-venv
    python=python3
  fi
  rm -rf "$venv"
  "$python" -m venv "$venv"
  unset TOOLREGISTRY_LIB LD_LIBRARY_PATH
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check bindings/python
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${sdks[@]}"

catalog=../shared/eval/bfcl/catalog.json
[ -f "$catalog" ] || catalog=""
(cd / && "$OLDPWD/$venv/bin/python" "$OLDPWD/tests/sdk/sdk_conformance.py" ${catalog:+"$OLDPWD/$catalog"})
