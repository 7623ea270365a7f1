#!/usr/bin/env bash
# The release artifacts as a user without Rust gets them: scripts/dist.sh makes the tarball and the
# wheel (reusing target/release), then
#   - the wheel goes into a fresh virtualenv, with a PATH that has no cargo, and answers a discover;
#   - the tarball is unpacked somewhere else, an outside C program is built against it with
#     pkg-config and run, and a CMake project finds it with find_package;
#   - the shipped library (in both) is stripped and its .gnu_debuglink names the tarball's debug
#     file with that file's CRC, so gdb and valgrind would find it.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
need_commands pkg-config:pkg-config cc:gcc readelf:binutils cmake:cmake

target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$PWD/$target"
# auditwheel goes into the Python part's virtualenv when there is one (no second venv to make).
if [ -x "$target/python-venv/bin/python" ]; then
  export DIST_VENV="$target/python-venv"
fi
bash scripts/dist.sh

version=$(sed -n 's/^version = "\([^"]*\)"/\1/p' Cargo.toml | head -n 1)
work="$target/dist-check"
rm -rf "$work"
mkdir -p "$work"

tarballs=(dist/toolregistry-"$version"-*-linux-gnu.tar.gz)
wheels=(dist/toolregistry_rs-"$version"-py3-none-*.whl)
[ "${#tarballs[@]}" -eq 1 ] && [ -f "${tarballs[0]}" ] || { echo "dist: expected one tarball, got ${tarballs[*]}" >&2; exit 1; }
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "dist: expected one wheel, got ${wheels[*]}" >&2; exit 1; }
case "${wheels[0]}" in
  *manylinux*) ;;
  *) echo "dist: the wheel is not tagged manylinux: ${wheels[0]}" >&2; exit 1 ;;
esac

# ---- the tarball ----------------------------------------------------------------------------
tar -C "$work" -xzf "${tarballs[0]}"
prefix=$(echo "$work"/toolregistry-"$version"-*)
for f in include/toolregistry.h include/toolregistry.hpp include/toolregistry/handles.hpp \
         lib/libtoolregistry.a lib/cmake/toolregistry/toolregistryConfig.cmake \
         lib/pkgconfig/toolregistry.pc share/doc/toolregistry/LICENSE share/doc/toolregistry/README.md \
         "lib/libtoolregistry.so.$version" "lib/libtoolregistry.so.$version.debug"; do
  [ -e "$prefix/$f" ] || { echo "dist: the tarball lacks $f" >&2; exit 1; }
done

# debuglink_ok LIB DEBUGFILE: LIB has no debug info and its .gnu_debuglink names DEBUGFILE's
# basename with DEBUGFILE's CRC-32; DEBUGFILE holds the debug info.
debuglink_ok() {
  if readelf -S --wide "$1" | grep -q '\.debug_info'; then
    echo "dist: $1 still carries debug info" >&2
    return 1
  fi
  readelf -S --wide "$2" | grep -q '\.debug_info' || { echo "dist: $2 holds no debug info" >&2; return 1; }
  python3 - "$1" "$2" <<'EOF'
import os, subprocess, sys, tempfile, zlib
lib, debug = sys.argv[1:]
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "link")
    subprocess.run(["objcopy", "--dump-section", f".gnu_debuglink={out}", lib, os.path.join(tmp, "copy")], check=True)
    link = open(out, "rb").read()
name, rest = link.split(b"\0", 1)
crc = int.from_bytes(link[-4:], "little")
want = zlib.crc32(open(debug, "rb").read())
if name.decode() != os.path.basename(debug) or crc != want:
    sys.exit(f"dist: {lib} links {name.decode()!r} crc {crc:08x}, expected {os.path.basename(debug)!r} crc {want:08x}")
print(f"{os.path.basename(lib)}: stripped, debug link {name.decode()} (crc {crc:08x}) matches")
EOF
}
debuglink_ok "$prefix/lib/libtoolregistry.so.$version" "$prefix/lib/libtoolregistry.so.$version.debug"

# An outside program, built with nothing but the unpacked tarball and pkg-config.
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Werror examples/discover.c $(pkg-config --cflags --libs toolregistry) \
  -o "$work/discover"
answer=$(LD_LIBRARY_PATH="$(pkg-config --variable=libdir toolregistry)" "$work/discover" "send an email")
echo "$answer"
grep -q '"name":"send_email"' <<<"$answer" || { echo "dist: the pkg-config program did not find send_email" >&2; exit 1; }
unset PKG_CONFIG_PATH

# A CMake project, with find_package against the unpacked tree.
cmake -S tests/consumer/c -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
"$work/consumer/consumer_c" "send an email" | grep -q '"name":"send_email"' ||
  { echo "dist: the find_package program did not find send_email" >&2; exit 1; }
echo "tarball ok: pkg-config and find_package programs built and run"

# ---- the wheel ------------------------------------------------------------------------------
# A fresh virtualenv and a PATH with the venv and the system directories only: no cargo, no rustc.
python="${PYTHON:-python3}"
"$python" -m venv "$work/venv"
clean_path="$work/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
if PATH="$clean_path" command -v cargo >/dev/null 2>&1; then
  echo "dist: cargo is on the clean PATH ($(PATH="$clean_path" command -v cargo)); the check would prove nothing" >&2
  exit 1
fi
env -u CARGO -u RUSTUP_HOME -u TOOLREGISTRY_LIB -u LD_LIBRARY_PATH PATH="$clean_path" \
  "$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "${wheels[0]}"
site=$(cd / && env -u TOOLREGISTRY_LIB PATH="$clean_path" "$work/venv/bin/python" -c '
import toolregistry_rs as tr
with tr.Registry() as registry:
    registry.register([
        {"name": "send_email", "description": "Send an email.", "metadata": {"defer": True}},
        {"name": "read_file", "description": "Read a file from disk."},
    ])
    with registry.discoverer() as d:
        hits = d.discover("email someone", top_k=3)
assert hits and hits[0]["name"] == "send_email", hits
print(tr._native.library_path())
')
echo "wheel ok: discover answered from $site"
case "$site" in
  "$work/venv/"*) ;;
  *) echo "dist: the wheel's package loaded a library outside the virtualenv: $site" >&2; exit 1 ;;
esac
debuglink_ok "$site" "$prefix/lib/libtoolregistry.so.$version.debug"
echo "dist: 3 checks passed (tarball, wheel, debug link)"
