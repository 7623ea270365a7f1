#!/usr/bin/env bash
# Release artifacts in dist/, for users without a Rust toolchain:
#
#   toolregistry-VERSION-ARCH-linux-gnu.tar.gz   the C library (shared, stripped, its debug info in
#       lib/libtoolregistry.so.VERSION.debug; static), include/toolregistry.h, the C++17 headers,
#       the CMake package (lib/cmake/toolregistry), lib/pkgconfig/toolregistry.pc, and under
#       share/doc/toolregistry the licence, README.md and the embedded data's source notes.
#       It is `cmake --install` of a Release build: relocatable, unpack it anywhere. bin/toolregistry
#       is the command-line program with the gateway (`toolregistry mcp`, cargo feature `mcp`).
#   toolregistry_rs-VERSION-py3-none-manylinux_*.whl   the Python binding with the same stripped
#       library inside, repaired and checked by auditwheel (tagged for the oldest glibc it runs on),
#       and bin/toolregistry as the wheel's script (pip puts it on PATH).
#   toolregistry-VERSION.tgz   the Node binding (`npm pack` of bindings/node compiled with tsc)
#       with the same stripped library in lib/; koffi, its one dependency, comes from npm. Its
#       "bin" runs lib/toolregistry, the same program (`npx toolregistry mcp ...`).
#   toolregistry-VERSION.jar and .pom   the Java binding (Maven dev.toolregistry:toolregistry, the
#       core module of bindings/java) with the same stripped library at linux-x86-64/, where JNA
#       looks for it; JNA 5.19.1, its one dependency, comes from Maven Central.
#
# Reuses target/release when it is built (cargo runs once, through CMake; the wheel takes the
# library CMake made instead of running cargo again). Needs cargo, CMake, a C/C++ compiler,
# binutils and patchelf (installed from Debian packages when missing) and Python's venv;
# auditwheel comes from PyPI into $DIST_VENV (default $target/dist-venv, kept between runs).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/setup.sh

need_commands cmake:cmake cc:gcc c++:g++ make:make objcopy:binutils readelf:binutils patchelf:patchelf \
  node:nodejs npm:npm
python="${PYTHON:-python3}"
if ! command -v "$python" >/dev/null 2>&1 || ! "$python" -c "import venv, ensurepip" >/dev/null 2>&1; then
  apt_install python3 python3-venv
  python=python3
fi

target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$PWD/$target"
version=$(sed -n 's/^version = "\([^"]*\)"/\1/p' Cargo.toml | head -n 1)
name="toolregistry-$version-$(uname -m)-linux-gnu"
build=build/dist
venv="${DIST_VENV:-$target/dist-venv}"

rm -rf dist "$build/stage" "$build/wheel" "$build/npm"
mkdir -p dist "$build/stage" "$build/wheel" "$build/npm"

node_version=$(node -p 'require("./bindings/node/package.json").version')
if [ "$node_version" != "$version" ]; then
  echo "dist: bindings/node/package.json has version $node_version, Cargo.toml $version" >&2
  exit 1
fi

# The library: CMake runs `cargo build --release --lib --locked` (nothing to do when it is built)
# and strips it into toolregistry-lib/, the debug info beside it.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DTOOLREGISTRY_BUILD_TESTS=OFF \
  -DTOOLREGISTRY_BUILD_EXAMPLES=OFF -DTOOLREGISTRY_CARGO_TARGET_DIR="$target" >/dev/null
cmake --build "$build"
stage="$build/stage/$name"
cmake --install "$build" --prefix "$stage"
doc="$stage/share/doc/toolregistry"
mkdir -p "$doc"
cp LICENSE README.md "$doc/"
cp data/english-background/SOURCE.md "$doc/english-background-SOURCE.md"

# ---- the program with the gateway (issue 44) -------------------------------------------------
# The program is its own package (cli/): its `mcp` feature pulls rmcp and tokio into the program
# alone, never into the library staged above. Stripped of everything but what it runs with; it
# needs glibc and libgcc_s only.
build_program
mkdir -p "$stage/bin"
objcopy --strip-all "$target/release/toolregistry" "$stage/bin/toolregistry"
chmod 0755 "$stage/bin/toolregistry"
# ---- end of the program with the gateway ------------------------------------------------------

tar -C "$build/stage" -czf "dist/$name.tar.gz" --owner=0 --group=0 --numeric-owner "$name"

# The wheel, with the library just stripped for the tarball (same bytes, same debug file).
if [ ! -x "$venv/bin/auditwheel" ]; then
  # A venv given in DIST_VENV (the Python part's, which the cross-language part uses afterwards)
  # is kept as it is: auditwheel is only added to it.
  [ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check auditwheel
fi
TOOLREGISTRY_SHIPPED_LIB="$PWD/$build/toolregistry-lib/libtoolregistry.so.$version" \
  TOOLREGISTRY_SHIPPED_BIN="$PWD/$stage/bin/toolregistry" \
  "$venv/bin/python" -m pip wheel --quiet --disable-pip-version-check --no-deps \
  -w "$build/wheel" bindings/python
# auditwheel checks every symbol version and library the .so needs against the manylinux
# policies and retags the wheel with the oldest one it satisfies; it refuses a wheel that needs
# anything outside them. It patches ELF files with patchelf >= 0.14.5; Debian 12's is 0.14.3.
# This wheel grafts no library (the .so needs only glibc and libgcc_s), so nothing needs patching
# and the "none" patcher, which fails on any patch it would have to make, does the same job there.
patcher=patchelf
if ! printf '%s\n' 0.14.5 "$(patchelf --version | awk '{print $2}')" | sort -V -C; then
  patcher=none
fi
"$venv/bin/auditwheel" repair --patcher "$patcher" -w dist "$build/wheel"/toolregistry_rs-*.whl
"$venv/bin/auditwheel" show dist/toolregistry_rs-*.whl

# The npm tarball: the compiled package (tsc's dist/ with its .d.ts), the licence, and the same
# stripped library in lib/, where the package looks for its own copy.
(cd bindings/node && npm ci --no-audit --no-fund --loglevel=error && npx tsc -p tsconfig.json)
pkg="$build/npm/toolregistry"
mkdir -p "$pkg/lib"
cp -R bindings/node/package.json bindings/node/README.md bindings/node/dist LICENSE "$pkg/"
cp "$build/toolregistry-lib/libtoolregistry.so.$version" "$pkg/lib/libtoolregistry.so"
cp -R bindings/node/bin "$pkg/"
cp "$stage/bin/toolregistry" "$pkg/lib/toolregistry"   # the program with the gateway (issue 44)
(cd "$pkg" && npm pack --quiet --pack-destination "$OLDPWD/dist" >/dev/null)

# The Java jar: the core module built apart (build/dist/java; its tests run in 80-java.sh) with
# the same stripped library as a resource, and a pom without the parent's, for a local repository.
need_java_maven
java_version=$(sed -n 's:^  <version>\(.*\)</version>:\1:p' bindings/java/pom.xml | head -n 1)
jna_version=$(sed -n 's:.*<jna.version>\(.*\)</jna.version>.*:\1:p' bindings/java/pom.xml)
if [ "$java_version" != "$version" ]; then
  echo "dist: bindings/java/pom.xml has version $java_version, Cargo.toml $version" >&2
  exit 1
fi
java_build="$PWD/$build/java"
rm -rf "$java_build"
mkdir -p "$java_build/native/linux-x86-64"
cp "$build/toolregistry-lib/libtoolregistry.so.$version" "$java_build/native/linux-x86-64/libtoolregistry.so"
(cd bindings/java && mvn_offline_first -q -B package -pl toolregistry -DskipTests \
  -Dtoolregistry.build.dir="$java_build/target" -Dtoolregistry.native.dir="$java_build/native")
cp "$java_build/target/toolregistry-$version.jar" dist/
cat > "dist/toolregistry-$version.pom" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.toolregistry</groupId>
  <artifactId>toolregistry</artifactId>
  <version>$version</version>
  <name>toolregistry</name>
  <description>Tool registry and tool discovery for LLM agents (JNA binding of libtoolregistry, linux-x86-64 inside).</description>
  <dependencies>
    <dependency>
      <groupId>net.java.dev.jna</groupId>
      <artifactId>jna</artifactId>
      <version>$jna_version</version>
    </dependency>
  </dependencies>
</project>
EOF

echo
ls -l dist
