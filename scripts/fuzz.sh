#!/usr/bin/env bash
# Runs every cargo-fuzz target for SECONDS each (default 60) and prints the executions per target.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# Needs a nightly toolchain and cargo-fuzz (`cargo install cargo-fuzz`). Seeds are generated from
# ../shared/golden and ../shared/eval by fuzz/seeds.py; the corpus grows in fuzz/corpus/<target>
# and crashes land in fuzz/artifacts/<target> (none of them committed). Exits non-zero if any
# target found a crash. FUZZ_JOBS=N runs N targets at once (default 1); runs are niced.
# `register` goes through the C ABI (unsafe code), so it runs under AddressSanitizer; the others
# call only safe Rust, where ASan finds nothing, so they run without it at two to three times the speed.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

seconds="${1:-60}"
shift || true
all_targets=(register metadata discovery_options schema_options discover_args analyzer ops execute conversation embedder)
targets=("${@:-${all_targets[@]}}")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
jobs="${FUZZ_JOBS:-1}"

command -v cargo-fuzz >/dev/null || { echo "fuzz.sh: cargo-fuzz missing: cargo install cargo-fuzz" >&2; exit 2; }
rustup run nightly rustc --version >/dev/null || { echo "fuzz.sh: no nightly toolchain" >&2; exit 2; }

python3 seeds.py
cargo +nightly fuzz build -O register
cargo +nightly fuzz build -O execute
cargo +nightly fuzz build -O conversation
cargo +nightly fuzz build -O embedder
cargo +nightly fuzz build -O -s none --target-dir target-nosan
mkdir -p logs

sanitizer_args() {
  case "$1" in
    register | execute | conversation | embedder) ;;
    *) echo "-s none --target-dir target-nosan" ;;
  esac
}

# libFuzzer grows inputs slowly from a few bytes; an operation sequence needs a few hundred bytes
# to say anything, so `ops` starts at its full length.
length_args() {
  case "$1" in
    ops) echo "-max_len=4096 -len_control=0" ;;
    *) echo "-max_len=65536" ;;
  esac
}

run_one() {
  local t="$1"
  mkdir -p "corpus/$t" "seeds/$t" "artifacts/$t"
  # shellcheck disable=SC2046
  nice cargo +nightly fuzz run -O $(sanitizer_args "$t") "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$seconds" -dict=json.dict $(length_args "$t") -rss_limit_mb=4096 \
    -timeout=10 -print_final_stats=1 >"logs/$t.log" 2>&1
}

status=0
pids=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done

total=0
printf '%-18s %14s %10s %8s\n' target executions exec/s crashes
for t in "${targets[@]}"; do
  runs=$( (grep -o 'Done [0-9]* runs in [0-9]* second' "logs/$t.log" || true) | awk '{print $2}' | tail -1)
  secs=$( (grep -o 'Done [0-9]* runs in [0-9]* second' "logs/$t.log" || true) | awk '{print $5}' | tail -1)
  rate=$([ -n "$runs" ] && [ "${secs:-0}" -gt 0 ] && echo $((runs / secs)) || echo "?")
  crashes=$(find "artifacts/$t" -type f | wc -l)
  printf '%-18s %14s %10s %8s\n' "$t" "${runs:-?}" "${rate:-?}" "$crashes"
  total=$((total + ${runs:-0}))
  [ "$crashes" -eq 0 ] || status=1
done
printf '%-18s %14s\n' total "$total"
[ "$status" -eq 0 ] || echo "fuzz.sh: a target failed; see fuzz/logs/ and fuzz/artifacts/" >&2
exit "$status"
