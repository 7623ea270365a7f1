#!/usr/bin/env bash
# The Go binding: gofmt, go vet and go test with the race detector, linked against the static
# library built here (bindings/go links target/release/libtoolregistry.a, no library path needed).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh

# The binding needs Go >= 1.24 (runtime.AddCleanup). This machine kind ships it in /usr/local/go
# (scripts/test.sh puts it on PATH); elsewhere it comes from the Go module proxy.
ensure_go 24
need_commands gcc:gcc gcc:libc6-dev

cargo build --release --lib --locked

# Without HOME (some CI containers) Go has no build cache and refuses to build: keep one in target/.
if [ "$(go env GOCACHE)" = off ]; then
  export GOCACHE="$PWD/target/go-build"
fi

cd bindings/go
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "gofmt needed on: $unformatted" >&2
  exit 1
fi
export CGO_ENABLED=1
go vet ./...
go test -race -count=1 ./...
