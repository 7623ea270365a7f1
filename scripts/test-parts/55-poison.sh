#!/usr/bin/env bash
# Lock poisoning through the C ABI, with the test-only panic hook (cargo feature `test-hooks`, never
# in a shipped build): the panic is TR_STATUS_PANIC and every later call TR_STATUS_INTERNAL.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo test --locked --features test-hooks --test poison
