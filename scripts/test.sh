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
# (scripts/lib/setup.sh, cli/tests/cli/program.rs, the MCP tests' --state): a part that read these pins
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
# On the way out (a failed step too): the timings, no download left running, the stand-ins gone.
stop_prefetch() {
  [ -n "${prefetch_pid:-}" ] || return 0
  # The script first (it dies once its running step ends), then that step.
  kill "$prefetch_pid" 2>/dev/null || true
  pkill -P "$prefetch_pid" 2>/dev/null || true
}
trap 'print_timings; stop_prefetch; rm -rf "$stand_in"' EXIT

# What the parts download (models, virtualenvs, npm packages: scripts/lib/prefetch.sh) comes in
# while the crate compiles: the compile keeps both cores busy, the downloads mostly wait.
logs="${CARGO_TARGET_DIR:-target}/test-logs"
rm -rf "$logs"
mkdir -p "$logs"
bash scripts/lib/prefetch.sh >"$logs/prefetch.log" 2>&1 &
prefetch_pid=$!

# One optimised build for everything: the crate's tests run on the release profile, so the library,
# its dependencies and the test binaries compiled here are the ones every part below links or runs
# (memcheck's test binaries, CMake's `cargo build --release --lib`, the Python wheel, Go, C#) and
# no part compiles the crate again in another profile. The tests also run faster optimised. The
# program (cli/) is built with the MCP gateway (`mcp`) here, once: a package of its own, its
# feature compiles the program alone, never the library. `--tests` leaves the examples (the
# benchmarks' programs) to 90-cross-language, which compiles them beside a part waiting on one core.
section "Rust: cargo test --release (core, golden vectors, C ABI, header freshness, the program)"
# --timings: each unit's compile time in target/cargo-timings/ (docs/testing.md reads it).
timed "cargo test" cargo test --release --locked --workspace --features mcp --tests --timings
timed "cargo test --doc" cargo test --release --locked --workspace --features mcp --doc

section "downloads fetched during the compile (scripts/lib/prefetch.sh)"
prefetch_ok=0
wait "$prefetch_pid" || prefetch_ok=$?
prefetch_pid=""
cat "$logs/prefetch.log"
[ "$prefetch_ok" -eq 0 ] || echo "(a download failed; the parts retry it)"

# The parts, two at a time (scripts/lib/run_parts.py): most wait on one core. A part names the
# parts it must follow (`# after:`); the rest start longest first.
order=(63-mcp-oauth 10-c-cpp 40-python 41-python-frameworks 11-c-cpp-release 80-java 35-node 30-csharp 45-sdk-conformance 90-cross-language 70-dist
       61-mcp-http 46-model 62-mcp-trust 63-mcp-console 60-mcp 20-go 50-memcheck)
parts=()
for name in "${order[@]}"; do
  [ -e "scripts/test-parts/$name.sh" ] && parts+=("scripts/test-parts/$name.sh")
done
for part in scripts/test-parts/*.sh; do
  [[ " ${order[*]} " == *" $(basename "$part" .sh) "* ]] || parts+=("$part")
done
: >"$logs/timings"
parts_ok=0
python3 scripts/lib/run_parts.py --jobs 2 --logs "$logs" --timings "$logs/timings" "${parts[@]}" || parts_ok=$?
while IFS= read -r line; do timings+=("$line"); done <"$logs/timings"
[ "$parts_ok" -eq 0 ] || exit 1

# The program as `cargo run --release` builds it, without the gateway: what a newcomer's first
# command compiles (only the program's own crate here). Last: it replaces the program the parts ran.
section "the program without the gateway (cargo run --release's build)"
timed "program without mcp" cargo build --release --locked -p toolregistry-cli
program="${CARGO_TARGET_DIR:-target}/release/toolregistry"
if "$program" mcp --help >/dev/null 2>&1; then
  echo "the default build of the program has the gateway: the mcp feature leaked into the defaults" >&2
  exit 1
fi
"$program" discover "convert currency" --top-k 3 | grep -q . ||
  { echo "the default build of the program answered nothing" >&2; exit 1; }
echo "ok: discover answers; no mcp subcommand"

section "the user's folders are as seeded"
if [ "$(python3 scripts/lib/user_folders.py digest "$stand_in")" != "$seeded" ]; then
  echo "a part wrote into the user's data or cache folder ($stand_in):" >&2
  diff <(printf '%s\n' "$seeded") <(python3 scripts/lib/user_folders.py digest "$stand_in") >&2 || true
  exit 1
fi
echo "unchanged: $XDG_DATA_HOME (conflicting pins) and $XDG_CACHE_HOME (a stale vector cache)"

section "all tests passed"
