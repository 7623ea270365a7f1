#!/usr/bin/env bash
# Lock poisoning through the C ABI, with the test-only panic hook (cargo feature `test-hooks`, never
# in a shipped build): the panic is TR_STATUS_PANIC and every later call TR_STATUS_INTERNAL.
#
# Release, like scripts/test.sh's cargo test, so only the crate is compiled again (for the
# feature), not its dependencies. It runs last: the library's outputs carry no hash in their file
# names (target/release/deps/libtoolregistry.{so,a,rlib}), so this build overwrites the ones
# every other part uses. Afterwards they are removed, and the next build makes them again without
# the hook instead of taking the hooked ones for up to date.
set -euo pipefail
cd "$(dirname "$0")/../.."
target="${CARGO_TARGET_DIR:-target}"
remove_hooked_library() {
  rm -f "$target"/release/deps/libtoolregistry.{so,a,rlib} "$target"/release/libtoolregistry.{so,a,rlib}
}
trap remove_hooked_library EXIT
cargo test --release --locked --features test-hooks --test poison
