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

# Prints the path of the release test binary for tests/$1.rs.
test_binary() {
  cargo test --release --locked --no-run --test "$1" --message-format=json 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["name"] == sys.argv[1]:
        print(m["executable"])
' "$1"
}

cargo test --release --locked --no-run --test ffi --test golden --test leak_canary
for t in ffi golden; do
  bin=$(test_binary "$t")
  [ -x "$bin" ] || { echo "memcheck: no test binary for $t" >&2; exit 1; }
  filter=()
  [ "$t" = golden ] && filter=(golden_vectors_through_the_c_abi)
  echo "valgrind: tests/$t.rs ${filter[*]}"
  "${VALGRIND[@]}" "$bin" --test-threads=1 "${filter[@]}"
done

canary=$(test_binary leak_canary)
"${VALGRIND[@]}" "$canary" -q
set +e
TR_LEAK_CANARY=1 "${VALGRIND[@]}" "$canary" -q >/tmp/tr-leak-canary.log 2>&1
rc=$?
set -e
if [ "$rc" -ne 99 ] || ! grep -q "definitely lost" /tmp/tr-leak-canary.log; then
  cat /tmp/tr-leak-canary.log >&2
  echo "memcheck: the leak canary was not caught (exit $rc); the memory check is broken" >&2
  exit 1
fi
echo "memcheck: leak canary caught as expected (valgrind exit 99)"
echo "memcheck: 3 passed, 0 failed"
