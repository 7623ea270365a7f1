#!/usr/bin/env bash
# Memory checking of the Rust side of the C ABI: the FFI test binary (error table, ownership of every
# returned string, handles freed in any order) and the golden replay through the C ABI (which
# drives every export thousands of times) run under valgrind in a release build: any invalid read or write, use of
# uninitialised memory, or definitely/indirectly lost block fails the run. A canary that leaks one
# registry on purpose must make valgrind fail, so a silently broken check cannot pass.
#
# "Possibly lost" and "still reachable" are not errors: Rust's std keeps a process-lifetime handle
# for the main thread that valgrind files as possibly lost (48 bytes, std::thread::current); it is
# suppressed (scripts/valgrind-rust-std.supp) so that the log shows only what matters.
set -euo pipefail
cd "$(dirname "$0")/../.."

source scripts/lib/setup.sh
need_commands valgrind:valgrind

VALGRIND=(valgrind --quiet --leak-check=full --errors-for-leak-kinds=definite,indirect
          --error-exitcode=99 --fair-sched=yes --suppressions=scripts/valgrind-rust-std.supp)

# The release binary of the integration tests (tests/it/: one binary, a module per file); each run
# below takes one module's tests by name filter.
cargo test --release --locked --no-run --test it
bin=$(cargo test --release --locked --no-run --test it --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == "it":
        print(m["executable"])
')
[ -x "$bin" ] || { echo "memcheck: no integration-test binary (tests/it)" >&2; exit 1; }

# run_checked FILTER...: the tests so named under valgrind, one thread; at least one must run, so
# a renamed module cannot leave valgrind checking nothing.
run_checked() {
  local log
  log=$(mktemp)
  "${VALGRIND[@]}" "$bin" --test-threads=1 "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  if [ "$rc" -ne 0 ]; then rm -f "$log"; return "$rc"; fi
  if ! grep -Eq 'test result: ok\. [1-9][0-9]* passed' "$log"; then
    rm -f "$log"
    echo "memcheck: no test matched $*" >&2
    return 1
  fi
  rm -f "$log"
}
echo "valgrind: tests/it/ffi.rs"
run_checked ffi::
echo "valgrind: tests/it/golden.rs golden_vectors_through_the_c_abi"
run_checked --exact golden::golden_vectors_through_the_c_abi

canary=(--exact leak_canary::leaks_only_when_asked -q)
run_checked "${canary[@]}"
set +e
TR_LEAK_CANARY=1 "${VALGRIND[@]}" "$bin" "${canary[@]}" >/tmp/tr-leak-canary.log 2>&1
rc=$?
set -e
if [ "$rc" -ne 99 ] || ! grep -q "definitely lost" /tmp/tr-leak-canary.log; then
  cat /tmp/tr-leak-canary.log >&2
  echo "memcheck: the leak canary was not caught (exit $rc); the memory check is broken" >&2
  exit 1
fi
echo "memcheck: leak canary caught as expected (valgrind exit 99)"
echo "memcheck: 3 passed, 0 failed"
