#!/usr/bin/env bash
# Runs every test of the project: the Rust crate (unit, golden vectors, C ABI, concurrency), then
# each language part. Builds or installs what it needs; safe to run on a fresh machine. Prints each
# part's wall time at the end, so a part that grows slow shows up in CI's log.
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

timings=()
suite_start=$SECONDS
# timed NAME COMMAND...: runs the command and records its wall time under NAME.
timed() {
  local name="$1" start=$SECONDS
  shift
  "$@"
  timings+=("$(printf '%5d s  %s' $((SECONDS - start)) "$name")")
}
print_timings() {
  section "wall time per part"
  printf '%s\n' "${timings[@]}"
  printf '%5d s  total\n' $((SECONDS - suite_start))
}

# The user's folders, as the parts see them: stand-ins seeded like a machine where the gateway was
# used by hand (pins that conflict with the suite's servers) and the CLI ran with a model (a stale
# vector cache). Every part, and every program the Rust tests start, must use folders of its own
# (scripts/lib/setup.sh, tests/it/cli.rs, the MCP tests' --state): a part that read these pins
# would see its servers "changed" and fail, and one that wrote here is caught at the end, where
# both folders must be byte for byte as seeded. The package managers' caches stay where the user
# keeps them (computed before the stand-ins replace XDG_CACHE_HOME).
if [ -z "${GOCACHE:-}" ] && command -v go >/dev/null 2>&1; then
  GOCACHE="$(go env GOCACHE 2>/dev/null || true)"
fi
user_cache_home="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}"
export GOCACHE="${GOCACHE:-$user_cache_home/go-build}" PIP_CACHE_DIR="${PIP_CACHE_DIR:-$user_cache_home/pip}" \
  UV_CACHE_DIR="${UV_CACHE_DIR:-$user_cache_home/uv}"
stand_in="$(mktemp -d "${TMPDIR:-/tmp}/toolregistry-user.XXXXXX")"
export XDG_DATA_HOME="$stand_in/data" XDG_CACHE_HOME="$stand_in/cache"
python3 scripts/lib/user_folders.py seed "$stand_in"
seeded="$(python3 scripts/lib/user_folders.py digest "$stand_in")"
trap 'print_timings; rm -rf "$stand_in"' EXIT

# One optimised build for everything: the crate's tests run on the release profile, so the library,
# its dependencies and the test binaries compiled here are the ones every part below links or runs
# (memcheck's test binaries, CMake's `cargo build --release --lib`, the Python wheel, Go, C#) and
# no part compiles the crate again in another profile. The tests also run faster optimised.
section "Rust: cargo test --release (core, golden vectors, C ABI, header freshness)"
timed "cargo test" cargo test --release --locked

# Parts that compile the crate with another feature set run after all the others. Cargo keeps one
# build of this crate per profile, whatever its features, and the library's outputs carry no hash
# in their names: after `--features mcp`, the next plain `cargo build --lib` compiles the crate
# again. 70-dist first: it stages the plain library (built by `cargo test` above, nothing to
# compile), then builds the program with `mcp` that the release artifacts ship; the MCP parts
# after it reuse that build, and no part after them needs the plain library.
feature_parts=(70-dist 60-mcp 61-mcp-http 62-mcp-trust)
parts=()
for part in scripts/test-parts/*.sh; do
  [ -e "$part" ] || continue
  [[ " ${feature_parts[*]} " == *" $(basename "$part" .sh) "* ]] || parts+=("$part")
done
for name in "${feature_parts[@]}"; do
  [ -e "scripts/test-parts/$name.sh" ] && parts+=("scripts/test-parts/$name.sh")
done
for part in "${parts[@]}"; do
  section "$(basename "$part" .sh)"
  timed "$(basename "$part" .sh)" bash "$part"
done

section "the user's folders are as seeded"
if [ "$(python3 scripts/lib/user_folders.py digest "$stand_in")" != "$seeded" ]; then
  echo "a part wrote into the user's data or cache folder ($stand_in):" >&2
  diff <(printf '%s\n' "$seeded") <(python3 scripts/lib/user_folders.py digest "$stand_in") >&2 || true
  exit 1
fi
echo "unchanged: $XDG_DATA_HOME (conflicting pins) and $XDG_CACHE_HOME (a stale vector cache)"

section "all tests passed"
