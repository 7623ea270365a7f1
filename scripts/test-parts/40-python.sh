#!/usr/bin/env bash
# The Python binding: a fresh virtualenv, `pip install bindings/python` (its build backend runs
# `cargo build --release --lib --locked` and puts libtoolregistry.so inside the wheel), pytest,
# mypy and the reference toolregistry 0.19.0 from PyPI (the compat tests compare against it side by
# side), then the type check and the tests against the installed package, with no library path set. The virtualenv stays in
# $target/python-venv for the cross-language part.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
case "$target" in /*) ;; *) target="$PWD/$target" ;; esac   # an absolute CARGO_TARGET_DIR too
venv="$target/python-venv"
python="${PYTHON:-python3}"

if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  # Debian splits venv and ensurepip out of python3.
  apt_install python3 python3-venv
  python=python3
fi

rm -rf "$venv"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check pytest "mypy==2.4.1" "toolregistry==0.19.0"
# The binding must work without any of these pointing at the library.
unset TOOLREGISTRY_LIB LD_LIBRARY_PATH
"$venv/bin/python" -m pip install --disable-pip-version-check bindings/python

# Imported from anywhere (not from the source tree), the installed package loads its own library.
(cd / && "$venv/bin/python" -c "import toolregistry_rs as tr; print('toolregistry_rs', tr.__version__, 'loads', tr._native.library_path())")

cd bindings/python
# The hints the package ships (py.typed) must hold.
"$venv/bin/python" -m mypy --strict --no-incremental src/toolregistry_rs
"$venv/bin/python" -m pytest -q -p no:cacheprovider
