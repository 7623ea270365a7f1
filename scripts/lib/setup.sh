# Sourced by the test parts: installs what a fresh machine lacks, from Debian packages and the Go
# module proxy (the registries CI can reach), as root or through sudo, and gives the part folders
# of its own for what the user's data and cache folders would hold.

# The suite's own user folders. The library's CLI keeps vector caches under $XDG_CACHE_HOME and
# `toolregistry mcp` its trust pins under $XDG_DATA_HOME: a test that used the user's would read
# pins from their own use of the gateway (a "changed" tool quarantined, a test failed) and leave
# the suite's servers and caches behind. Every part that sources this file gets folders of its own,
# removed when it exits. Package managers' download caches (Go's build cache, pip, uv) stay where
# the user keeps them: they are the user's caches, not this project's state, and a fresh folder
# would make every part download and compile again. TOOLREGISTRY_MODEL_DIR would turn the default
# ranking into hybrid and TOOLREGISTRY_LIB load another library: parts that want them set them.
user_cache_home="${XDG_CACHE_HOME:-${HOME:-/root}/.cache}"
if [ -z "${GOCACHE:-}" ] && command -v go >/dev/null 2>&1; then
  GOCACHE="$(go env GOCACHE 2>/dev/null || true)"
fi
export GOCACHE="${GOCACHE:-$user_cache_home/go-build}" PIP_CACHE_DIR="${PIP_CACHE_DIR:-$user_cache_home/pip}" \
  UV_CACHE_DIR="${UV_CACHE_DIR:-$user_cache_home/uv}"
unset user_cache_home
TEST_USER_HOME="$(mktemp -d "${TMPDIR:-/tmp}/toolregistry-test.XXXXXX")"
export XDG_DATA_HOME="$TEST_USER_HOME/data" XDG_CACHE_HOME="$TEST_USER_HOME/cache" \
  XDG_STATE_HOME="$TEST_USER_HOME/state"
mkdir -p "$XDG_DATA_HOME" "$XDG_CACHE_HOME" "$XDG_STATE_HOME"
unset TOOLREGISTRY_MODEL_DIR TOOLREGISTRY_LIB
trap 'rm -rf "$TEST_USER_HOME"' EXIT

# apt_install PACKAGE...: installs the packages, quietly, without recommends.
apt_install() {
  [ $# -gt 0 ] || return 0
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "installing $*"
  # Two parts may install at once (scripts/test.sh runs two at a time, and 10/11 need the same
  # tools): one install at a time through a lock file (flock, util-linux), and apt itself waits
  # for dpkg's lock rather than fail on it.
  local serial=()
  command -v flock >/dev/null 2>&1 && serial=(flock "${TMPDIR:-/tmp}/toolregistry-apt.lock")
  "${serial[@]}" $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive "${serial[@]}" $sudo apt-get -o DPkg::Lock::Timeout=600 install \
    -y -qq --no-install-recommends "$@" >/dev/null
}

# build_program: the command-line program with the MCP gateway (cli/, feature `mcp`) at
# ${CARGO_TARGET_DIR:-target}/release/toolregistry; nothing to compile after scripts/test.sh's
# `cargo test`. Every part that runs the program builds it this way: a build without the feature
# would put the plain program at the same path under a part running at the same time.
build_program() {
  cargo build --release --locked -p toolregistry-cli --features mcp
}

# need_commands CMD:PACKAGE...: installs the package of every command that is missing.
need_commands() {
  local pair packages=()
  for pair in "$@"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || packages+=("${pair#*:}")
  done
  apt_install "${packages[@]}"
}

# ensure_go MIN_MINOR: puts a Go >= 1.MIN_MINOR on PATH. The machine's own Go when it is recent
# enough; otherwise the official toolchain from the Go module proxy, kept in target/go-toolchain
# (Debian's golang-go is too old before trixie, and go.dev downloads may be unreachable).
ensure_go() {
  local min="$1" have=""
  if command -v go >/dev/null 2>&1; then
    have=$(go env GOVERSION 2>/dev/null | sed -n 's/^go1\.\([0-9]*\).*/\1/p')
  fi
  if [ -n "$have" ] && [ "$have" -ge "$min" ]; then
    return 0
  fi
  local version="1.$min.0" target="${CARGO_TARGET_DIR:-target}"
  [[ "$target" = /* ]] || target="$PWD/$target"
  local dir="$target/go-toolchain"
  if [ ! -x "$dir/go/bin/go" ]; then
    need_commands curl:curl unzip:unzip
    local zip="$dir.zip"
    mkdir -p "$dir"
    echo "fetching Go $version from proxy.golang.org"
    curl -fsSL -o "$zip" \
      "https://proxy.golang.org/golang.org/toolchain/@v/v0.0.1-go$version.linux-amd64.zip"
    # The module zip holds the Go tree under golang.org/toolchain@v0.0.1-go$version.linux-amd64/.
    rm -rf "$dir/unpacked" && unzip -q "$zip" -d "$dir/unpacked" && rm -f "$zip"
    mv "$dir/unpacked"/golang.org/toolchain@*/ "$dir/go" && rm -rf "$dir/unpacked"
    chmod +x "$dir/go/bin/"* "$dir/go/pkg/tool/"*/* 2>/dev/null || true
  fi
  export PATH="$dir/go/bin:$PATH" GOTOOLCHAIN=local
}

# mvn_offline_first ARGS...: runs Maven offline (no network round trips once ~/.m2 holds every
# artifact); again online only when the offline run failed for want of an artifact, never to
# retry a build or tests that failed.
mvn_offline_first() {
  local log
  log=$(mktemp)
  # Maven's own JVM: a short run, so the C1 compiler alone and the serial collector (about a
  # fifth less wall time here); a caller's MAVEN_OPTS come after and win.
  local MAVEN_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC ${MAVEN_OPTS:-}"
  export MAVEN_OPTS
  if mvn -o "$@" >"$log" 2>&1; then
    cat "$log"; rm -f "$log"; return 0
  fi
  if grep -qE "in offline mode|has not been downloaded|offline mode and the artifact|No plugin found for prefix" "$log"; then
    rm -f "$log"
    echo "mvn: resolving from Maven Central (first run)"
    mvn "$@"
    return
  fi
  cat "$log"; rm -f "$log"; return 1
}

# need_java_maven: a JDK >= 17 and Maven, installed from Debian packages when missing.
need_java_maven() {
  local major
  need_commands java:openjdk-17-jdk-headless javac:openjdk-17-jdk-headless mvn:maven
  major=$(javac -version 2>&1 | sed -n 's/^javac \([0-9]*\).*/\1/p')
  if [ -z "$major" ] || [ "$major" -lt 17 ]; then
    echo "the Java package needs JDK >= 17, this is $(javac -version 2>&1)" >&2
    return 1
  fi
}

# What the parts install, in one place: scripts/lib/prefetch.sh installs the same while the crate
# compiles, and a part finds it done. Each makes VENV (or DIR) when missing and is a no-op when
# everything is there. Uses $python (default python3) for a new virtualenv.
# mcp_venv VENV: the MCP parts' client (the official MCP Python SDK), the mcp-server-time server
# the gateway fronts in them, and uv (70-dist runs the wheel through uvx).
mcp_venv() {
  [ -x "$1/bin/python" ] || "${python:-python3}" -m venv "$1"
  "$1/bin/python" -m pip install --quiet --disable-pip-version-check "mcp==2.3.0" \
    "mcp-server-time==2026.10.19" "uv==0.13.8"
}

# model_venv VENV: numpy and tokenizers, for the independent forward pass of 46-model.
model_venv() {
  [ -x "$1/bin/python" ] || "${python:-python3}" -m venv "$1"
  "$1/bin/python" -m pip install --quiet --disable-pip-version-check "numpy==2.4.6" "tokenizers==0.23.3"
}

# mcp_npm DIR: the official MCP TypeScript SDK, for 61-mcp-http's client.
mcp_npm() {
  need_commands node:nodejs npm:npm
  mkdir -p "$1"
  [ -f "$1/package.json" ] || echo '{"name": "mcp-npm", "private": true, "type": "module"}' > "$1/package.json"
  [ -d "$1/node_modules/@modelcontextprotocol/sdk" ] ||
    npm install --prefix "$1" --no-audit --no-fund --silent "@modelcontextprotocol/sdk@1.32.2"
}
