#!/usr/bin/env bash
# The release artifacts as a user without Rust gets them: scripts/dist.sh makes the tarball, the
# wheel and the npm tarball (reusing target/release), then
#   - the wheel goes into a fresh virtualenv, with a PATH that has no cargo, and answers a discover;
#   - the npm tarball is installed into an empty folder with the same PATH (koffi from npm) and a
#     Node script there answers a discover from the package's own library;
#   - the jar is installed into a local Maven repository and an empty Maven project answers a
#     discover from the library inside it; the README's Java quickstart is compiled with javac
#     against the jar and JNA alone, and run (same PATH, no library path);
#   - the tarball is unpacked somewhere else, an outside C program is built against it with
#     pkg-config and run, and a CMake project finds it with find_package;
#   - the shipped library (in both) is stripped and its .gnu_debuglink names the tarball's debug
#     file with that file's CRC, so gdb and valgrind would find it;
#   - the program with the gateway (issue 44), in each of the three: the tarball's bin/toolregistry,
#     the wheel's script on the venv's PATH (pip, and uvx from the wheel) and the npm package's
#     bin through npx: `mcp --help`, `mcp import` of a Claude Desktop config (its literal secret
#     never printed), `mcp --check` and an MCP client (the official Python SDK) that starts the
#     gateway from the rewritten client entry and finds and calls mcp-server-time's tool through
#     search. Every run of the gateway here has its state, data and cache folders in $work.
# dist.sh runs `npm ci` in bindings/node and installs auditwheel into the Python part's
# virtualenv: after the parts that use them.
# after: 35-node 40-python 45-sdk-conformance 80-java 90-cross-language
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
npm_tarball="$PWD/dist/toolregistry-$version.tgz"
[ -f "$npm_tarball" ] || { echo "dist: expected the npm tarball $npm_tarball" >&2; exit 1; }
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

# ---- the npm tarball ------------------------------------------------------------------------
# An empty folder, the same PATH without cargo (node and npm are the system's), no library path.
app="$work/npm-app"
mkdir -p "$app"
echo '{"name": "npm-app", "private": true, "type": "module"}' > "$app/package.json"
(cd "$app" && env -u TOOLREGISTRY_LIB -u LD_LIBRARY_PATH PATH="$clean_path" \
  npm install --no-audit --no-fund --loglevel=error "$npm_tarball")
cat > "$app/discover.mjs" <<'EOF'
import { Registry, libraryPath } from "toolregistry";
const registry = new Registry();
registry.register([
  { name: "send_email", description: "Send an email.", metadata: { defer: true } },
  { name: "read_file", description: "Read a file from disk." },
]);
const hits = registry.discoverer().discover("email someone", { topK: 3 });
if (hits[0]?.name !== "send_email") throw new Error(`unexpected answer ${JSON.stringify(hits)}`);
registry.close();
console.log(libraryPath);
EOF
node_lib=$(cd "$app" && env -u TOOLREGISTRY_LIB -u LD_LIBRARY_PATH PATH="$clean_path" node discover.mjs)
echo "npm ok: discover answered from $node_lib"
case "$node_lib" in
  "$app/node_modules/toolregistry/lib/"*) ;;
  *) echo "dist: the npm package loaded a library outside its folder: $node_lib" >&2; exit 1 ;;
esac
debuglink_ok "$node_lib" "$prefix/lib/libtoolregistry.so.$version.debug"

# ---- the Java jar ---------------------------------------------------------------------------
jar="$PWD/dist/toolregistry-$version.jar"
[ -f "$jar" ] && [ -f "${jar%.jar}.pom" ] || { echo "dist: expected the jar $jar and its pom" >&2; exit 1; }
python3 -c 'import sys, zipfile; sys.exit("linux-x86-64/libtoolregistry.so" not in zipfile.ZipFile(sys.argv[1]).namelist())' "$jar" ||
  { echo "dist: the jar does not carry linux-x86-64/libtoolregistry.so" >&2; exit 1; }
# A local repository of its own (in the package cache: its plugins are kept between runs; the
# toolregistry artifact is installed anew each time), used by an empty Maven project.
m2="${HOME:-/root}/.m2/toolregistry-dist-check"
rm -rf "$m2/dev/toolregistry"
java_app="$work/maven-app"
mkdir -p "$java_app/src/main/java"
cat > "$java_app/pom.xml" <<EOF
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>example</groupId>
  <artifactId>maven-app</artifactId>
  <version>1</version>
  <properties>
    <maven.compiler.release>17</maven.compiler.release>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
  </properties>
  <dependencies>
    <dependency>
      <groupId>dev.toolregistry</groupId>
      <artifactId>toolregistry</artifactId>
      <version>$version</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
    </plugins>
  </build>
</project>
EOF
cat > "$java_app/src/main/java/App.java" <<'EOF'
import dev.toolregistry.Hit;
import dev.toolregistry.Registry;
import java.util.List;

public class App {
    public static void main(String[] args) {
        try (Registry registry = new Registry()) {
            registry.register("[{\"name\": \"send_email\", \"description\": \"Send an email.\", \"metadata\": {\"defer\": true}},"
                    + " {\"name\": \"read_file\", \"description\": \"Read a file from disk.\"}]");
            List<Hit> hits = registry.discoverer().discover("email someone", 3);
            if (hits.isEmpty() || !hits.get(0).name().equals("send_email")) {
                throw new IllegalStateException("unexpected answer " + hits);
            }
            System.out.println(Registry.libraryPath());
        }
    }
}
EOF
java_env=(env -u TOOLREGISTRY_LIB -u LD_LIBRARY_PATH PATH="$clean_path")
quick=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)   # short runs: C1 alone, the serial collector
# One Maven run: the jar into the repository, then the project built against it.
(cd "$java_app" && export PATH="$clean_path" && unset TOOLREGISTRY_LIB LD_LIBRARY_PATH &&
  mvn_offline_first -q -B -Dmaven.repo.local="$m2" org.apache.maven.plugins:maven-install-plugin:3.1.4:install-file \
    -Dfile="$jar" -DpomFile="${jar%.jar}.pom" compile \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath -Dmdep.outputFile=classpath.txt)
grep -q "$m2/dev/toolregistry/toolregistry/$version/toolregistry-$version.jar" "$java_app/classpath.txt" ||
  { echo "dist: the Maven project did not resolve the jar from the local repository" >&2; exit 1; }
java_lib=$(cd "$java_app" && "${java_env[@]}" java "${quick[@]}" -Djna.tmpdir="$java_app/jna" -cp "target/classes:$(cat classpath.txt)" App)
echo "maven ok: discover answered from $java_lib"
case "$java_lib" in
  "$java_app/jna/"*) ;;
  *) echo "dist: the jar's package loaded a library from outside the jar: $java_lib" >&2; exit 1 ;;
esac
# The README's quickstart, exactly as README.md shows it: javac and java with the jar and JNA alone.
jna_jar=$(tr ':' '\n' <"$java_app/classpath.txt" | grep '/jna-[0-9.]*\.jar$')
python3 - README.md "$work/java-readme" <<'PY'
import os, re, sys
section = open(sys.argv[1], encoding="utf-8").read().split("## Quickstart: Java", 1)[1]
os.makedirs(sys.argv[2], exist_ok=True)
open(os.path.join(sys.argv[2], "Quickstart.java"), "w", encoding="utf-8").write(re.search(r"```java\n(.*?)```", section, re.S).group(1))
PY
"${java_env[@]}" javac "${quick[@]/#/-J}" -d "$work/java-readme" -cp "$jar:$jna_jar" "$work/java-readme/Quickstart.java"
quickstart=$("${java_env[@]}" java "${quick[@]}" -Djna.tmpdir="$work/java-readme/jna" -cp "$work/java-readme:$jar:$jna_jar" Quickstart)
echo "$quickstart"
grep -q '^hit convert_currency ' <<<"$quickstart" &&
  grep -q '^execute: \[{"role":"tool","tool_call_id":"call_1","content":"100 USD = 92.0 EUR"}\]$' <<<"$quickstart" &&
  grep -q '^executeAsync: \[{"role":"tool","tool_call_id":"call_1","content":"100 USD = 92.0 EUR"}\]$' <<<"$quickstart" &&
  grep -q '^status NOT_FOUND 5$' <<<"$quickstart" ||
  { echo "dist: the README's Java quickstart did not answer as expected" >&2; exit 1; }
echo "java ok: the jar from a local repository in a Maven project, and the README quickstart with javac"
echo "dist: 5 checks passed (tarball, wheel, npm tarball, debug link, Java jar)"

# ---- the program with the gateway (issue 44) -------------------------------------------------
# The MCP client (the official Python SDK), mcp-server-time and uv: the MCP parts' virtualenv.
mcpvenv="$target/mcp-venv"
mcp_venv "$mcpvenv"
gw="$work/gateway"
mkdir -p "$gw/xdg/data" "$gw/xdg/cache" "$gw/xdg/config"
# What every command below runs with: no cargo, no Rust, the user's folders replaced by temporary ones.
clean() {
  env -u CARGO -u RUSTUP_HOME -u TOOLREGISTRY_LIB -u LD_LIBRARY_PATH -u TOOLREGISTRY_MODEL_DIR \
    PATH="$clean_path" XDG_DATA_HOME="$gw/xdg/data" XDG_CACHE_HOME="$gw/xdg/cache" \
    XDG_CONFIG_HOME="$gw/xdg/config" "$@"
}
fail() { echo "dist (gateway): $*" >&2; exit 1; }

# The tarball's program: the gateway is in it; the library beside it has none of rmcp or tokio.
program="$prefix/bin/toolregistry"
[ -x "$program" ] || fail "the tarball lacks bin/toolregistry"
clean "$program" mcp --help | grep -q "import" || fail "the tarball's bin/toolregistry mcp --help"
needed=$(readelf -d "$program" | sed -n 's/.*Shared library: \[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
for lib in $needed; do
  case "$lib" in
    libc.so.*|libm.so.*|libgcc_s.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
    *) fail "bin/toolregistry needs $lib (expected glibc and libgcc_s only)" ;;
  esac
done
readelf -S --wide "$program" | grep -q '\.debug_info' && fail "bin/toolregistry carries debug info"
# Code compiled from a crate keeps its source paths (panic locations): rmcp's in the program, none in
# the library.
stack='(rmcp|tokio)-[0-9]+\.[0-9]+\.[0-9]+/src'
grep -q -a -E "$stack" "$program" || fail "bin/toolregistry has no rmcp or tokio: not the mcp build?"
grep -q -a -E "$stack" "$prefix/lib/libtoolregistry.so.$version" &&
  fail "the shipped library carries rmcp or tokio (it must stay the library without the mcp feature)"
echo "tarball ok: bin/toolregistry mcp --help; $(stat -c %s "$program") bytes stripped; needs: $needed"

# A Claude Desktop config as its documentation shows one: a server from PyPI with a literal
# secret in its env.
secret="sk-dist-literal-$$-do-not-print"
cat > "$gw/claude_desktop_config.json" <<JSON
{
  "mcpServers": {
    "time": {
      "command": "$mcpvenv/bin/mcp-server-time",
      "args": ["--local-timezone", "UTC"],
      "env": {"TIME_SERVICE_TOKEN": "$secret"}
    }
  }
}
JSON

# imported_run NAME PROGRAM...: import the config with PROGRAM, --check the result, rewrite the
# client's config, then an MCP client starts the gateway from the rewritten entry.
imported_run() {
  local name="$1"; shift
  local dir="$gw/$name"
  mkdir -p "$dir"
  cp "$gw/claude_desktop_config.json" "$dir/claude_desktop_config.json"
  local shown
  shown=$(clean "$@" mcp import "$dir/claude_desktop_config.json" 2>&1) || fail "$name: mcp import: $shown"
  grep -q '"time"' <<<"$shown" || fail "$name: mcp import printed no time server: $shown"
  grep -q -- "$secret" <<<"$shown" && fail "$name: mcp import printed the literal secret"
  local written
  written=$(clean "$@" mcp import "$dir/claude_desktop_config.json" --write "$dir/servers.json" \
    --rewrite ${command_arg:+--command "$command_arg"} 2>&1) || fail "$name: mcp import --rewrite: $written"
  grep -q -- "$secret" <<<"$written" && fail "$name: mcp import --write printed the literal secret"
  [ "$(stat -c %a "$dir/servers.json")" = 600 ] || fail "$name: servers.json is not mode 0600"
  grep -q -- "$secret" "$dir/servers.json" || fail "$name: servers.json lacks the server's env"
  [ -f "$dir/claude_desktop_config.json.bak" ] || fail "$name: no backup of the client's config"
  local check
  check=$(clean "$@" mcp --check --config "$dir/servers.json" --state "$dir/state.json" 2>&1) ||
    fail "$name: mcp --check: $check"
  grep -q "running  2 tools" <<<"$check" || fail "$name: mcp --check: $check"
  clean "$mcpvenv/bin/python" tests/mcp/dist_client.py "$dir/claude_desktop_config.json" toolregistry \
    "current time in a time zone" time-get_current_time '{"timezone": "UTC"}' '"timezone"' ||
    fail "$name: the MCP client through the rewritten entry"
  echo "$name ok: mcp --help, import (secret withheld), --check, rewrite, search and call through the entry"
}

# pip: the wheel's script on the fresh venv's PATH (the venv the wheel was installed into above).
[ -x "$work/venv/bin/toolregistry" ] || fail "pip did not install the toolregistry script"
clean toolregistry mcp --help | grep -q "import" || fail "wheel: toolregistry mcp --help"
cmp -s "$work/venv/bin/toolregistry" "$program" || fail "the wheel's program differs from the tarball's"
imported_run wheel toolregistry

# uvx from the wheel: a uv cache in $work, the machine's Python, nothing from the network.
uvx_run() {
  clean UV_CACHE_DIR="$gw/uv-cache" UV_TOOL_DIR="$gw/uv-tools" UV_PYTHON_DOWNLOADS=never \
    UV_NO_CONFIG=1 "$mcpvenv/bin/uvx" --offline --from "$PWD/${wheels[0]}" toolregistry "$@"
}
uvx_run mcp --help | grep -q "import" || fail "uvx --from the wheel: toolregistry mcp --help"
uvx_run mcp --check --config "$gw/wheel/servers.json" --state "$gw/uvx-state.json" |
  grep -q "running  2 tools" || fail "uvx --from the wheel: mcp --check"
echo "uvx ok: --from the wheel, mcp --help and --check"

# npm: the package's bin in the empty folder of the npm check above, through npx.
(cd "$app" && clean npx --no-install toolregistry mcp --help) | grep -q "import" ||
  fail "npx toolregistry mcp --help"
command_arg="$app/node_modules/.bin/toolregistry" imported_run npm "$app/node_modules/.bin/toolregistry"
# The launcher passes the exit code and the signals on.
code=0; (cd "$app" && clean npx --no-install toolregistry mcp --check --config "$gw/missing.json" 2>/dev/null) || code=$?
[ "$code" = 1 ] || fail "npx toolregistry: exit code $code for a missing config, expected 1"
clean "$mcpvenv/bin/python" - "$app/node_modules/.bin/toolregistry" "$gw/npm/servers.json" "$gw/npm-state.json" <<'PY' ||
import os, signal, subprocess, sys, time
launcher, config, state = sys.argv[1:]
p = subprocess.Popen([launcher, "mcp", "--config", config, "--state", state],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
def children(pid):
    out = []
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open(f"/proc/{d}/stat").read().rsplit(")", 1)[1].split()[1] == str(pid):
                out.append(int(d))
        except OSError:
            pass
    return out
deadline = time.time() + 20
while not children(p.pid) and time.time() < deadline:
    time.sleep(0.1)
native = children(p.pid)
assert native, "the launcher started no program"
time.sleep(1)
p.send_signal(signal.SIGTERM)
code = p.wait(timeout=20)
time.sleep(0.5)
alive = [c for c in native if os.path.exists(f"/proc/{c}") and open(f"/proc/{c}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
assert not alive, f"the program outlived the launcher's SIGTERM: {alive}"
assert code in (-signal.SIGTERM, 143, 0), f"the launcher exited {code} after SIGTERM"
print(f"npm launcher ok: SIGTERM forwarded, exit {code}")
PY
  fail "the npm launcher does not forward SIGTERM"
echo "dist (gateway): tarball, wheel (pip, uvx) and npm (npx) run the gateway"
# ---- end of the program with the gateway --------------------------------------------------------
