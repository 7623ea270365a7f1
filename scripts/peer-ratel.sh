#!/usr/bin/env bash
# The peer engine measured beside ours: builds ratel-ai-core 0.12.0-rc.6 (bench/peer/ratel, its own
# folder and target; Candle makes it minutes of build, so it is outside the default build and the
# suite), runs its BM25 and hybrid over each public set in ../shared/eval, and scores the rankings
# with `toolregistry eval --score`: the same metrics and scoring as our own rows.
#
#   scripts/peer-ratel.sh [--model-dir DIR] [--out DIR] [SET...]    default: every set, all-MiniLM-L6-v2
#
# The rankings stay in OUT (default target/peer/rankings) as SET.bm25.jsonl and SET.hybrid.jsonl;
# the metrics are printed as one table per engine. Hybrid uses the same model folder as ours (the
# peer's Candle encoder loads it as EmbeddingModel::Local).
set -euo pipefail
cd "$(dirname "$0")/.."
model=""
out=""
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --model-dir) model="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "peer-ratel.sh: unknown option $1" >&2; exit 2 ;;
    *) sets+=("$1"); shift ;;
  esac
done
[ ${#sets[@]} -gt 0 ] || sets=(bfcl metatool apibench apibank)
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$PWD/$target"
out="${out:-$target/peer/rankings}"
model="${model:-$(scripts/fetch-model.sh "$target/models")}"
mkdir -p "$out"
cargo build --release --quiet --manifest-path bench/peer/ratel/Cargo.toml --target-dir "$target/peer"
cargo build --release --quiet -p toolregistry-cli
peer="$target/peer/release/peer-ratel"
program="$target/release/toolregistry"
for set in "${sets[@]}"; do
  dir="../shared/eval/$set"
  "$peer" "$dir" bm25 >"$out/$set.bm25.jsonl"
  "$peer" "$dir" hybrid "$model" >"$out/$set.hybrid.jsonl"
  for method in bm25 hybrid; do
    "$program" eval --catalog "$dir" --score "$out/$set.$method.jsonl" --label "ratel $method"
  done
done
