#!/usr/bin/env bash
# Runs every test of the project: the Rust crate (unit, golden vectors, C ABI, concurrency), then
# each language part. Builds or installs what it needs; safe to run on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."

section() { printf '\n==> %s\n' "$*"; }

# Toolchains this machine kind installs outside the default PATH (rustup, the Go tarball), in case
# the environment running this script does not carry them.
for dir in "${HOME:-/root}/.cargo/bin" /usr/local/go/bin; do
  if [ -d "$dir" ] && [[ ":$PATH:" != *":$dir:"* ]]; then
    PATH="$PATH:$dir"
  fi
done
export PATH

section "Rust: cargo test (core, golden vectors, C ABI, header freshness)"
cargo test --locked

for part in scripts/test-parts/*.sh; do
  [ -e "$part" ] || continue
  section "$(basename "$part" .sh)"
  bash "$part"
done

section "all tests passed"
