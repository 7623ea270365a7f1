#!/usr/bin/env bash
# The Node binding (bindings/node, npm package `toolregistry`): `npm ci` from the committed
# package-lock (koffi's prebuilt binaries come in its npm packages: no node-gyp, no download at
# install; `ai` and the MCP TypeScript SDK for the adapter tests), `tsc` (the .d.ts it ships
# are checked by compiling a TypeScript consumer against them), then `node --test` against the
# release library through TOOLREGISTRY_LIB, with the model folder of scripts/fetch-model.sh for
# the built-in encoder's test. dist/ stays built for the cross-language part.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
need_commands node:nodejs npm:npm
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "the Node binding needs Node >= 20, this is $(node --version)" >&2
  exit 1
fi
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$PWD/$target"
cargo build --release --lib --locked

model="$(scripts/fetch-model.sh "$target/models")"

cd bindings/node
npm ci --no-audit --no-fund --loglevel=error
npx tsc -p tsconfig.json
# The shipped declarations, as a TypeScript user compiles against them.
npx tsc -p test/tsconfig.consumer.json
export TOOLREGISTRY_LIB="$target/release/libtoolregistry.so"
TOOLREGISTRY_TEST_MODEL_DIR="$model" node --expose-gc --test test/*.test.mjs
