#!/usr/bin/env bash
# The Go binding: gofmt, go vet and go test with the race detector, linked against the static
# library built here (bindings/go links target/release/libtoolregistry.a, no library path needed).
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v go >/dev/null 2>&1; then
  # The binding needs Go >= 1.24 (runtime.AddCleanup). This machine kind ships it in /usr/local/go
  # (scripts/test.sh puts it on PATH); Debian's golang-go is recent enough only from trixie on.
  apt-get update && apt-get install -y golang-go
fi
if ! command -v gcc >/dev/null 2>&1; then
  apt-get update && apt-get install -y gcc libc6-dev
fi

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
