#!/usr/bin/env bash
# The same queries through Rust, C, C++, Go, C#, Python, Node and Java: same names, order and scores (issue 4).
# Runs after the Go, C#, Python, Node and Java parts, which installed and built what this needs
# (and after 45's SDKs went into the Python part's virtualenv).
# after: 30-csharp 35-node 40-python 45-sdk-conformance 80-java
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
ensure_go 24
target="${CARGO_TARGET_DIR:-target}"
mkdir -p "$target/cross"
build_program
# The Rust side of the hybrid queries (a host embedder, which the CLI has no flag for), and the
# other examples (the benchmarks' programs), which scripts/test.sh's `cargo test --tests` leaves
# out: compiled here, they are checked while another part waits on one core.
cargo build --release --locked --examples
cc -std=c99 -Wall -Wextra -Werror -Iinclude tests/cross/discover.c -o "$target/cross/discover_c" \
  -L"$target/release" -l:libtoolregistry.a -lpthread -ldl -lm
c++ -std=c++17 -Wall -Wextra -Werror -Iinclude -Ibindings/cpp/include tests/cross/discover.cpp \
  -o "$target/cross/discover_cpp" -L"$target/release" -l:libtoolregistry.a -lpthread -ldl -lm
# The tool-call conformance corpus through C and C++ (tests/conformance/execute).
cc -std=c99 -Wall -Wextra -Werror -Iinclude -Itests/c tests/cross/execute.c tests/c/corpus.c tests/c/json.c \
  -o "$target/cross/execute_c" -L"$target/release" -l:libtoolregistry.a -lpthread -ldl -lm
c++ -std=c++17 -Wall -Wextra -Werror -Iinclude -Ibindings/cpp/include -Itests/cpp tests/cross/execute.cpp \
  -o "$target/cross/execute_cpp" -L"$target/release" -l:libtoolregistry.a -lpthread -ldl -lm
# The conversation corpus through C and C++ (tests/conformance/conversation): one line per case,
# "<case>\t<messages>\t<loaded>"; each program checks itself against the corpus here.
cc -std=c99 -Wall -Wextra -Werror -Iinclude -Itests/c tests/cross/conversation.c tests/c/conversation_corpus.c \
  tests/c/corpus.c tests/c/json.c -o "$target/cross/conversation_c" -L"$target/release" -l:libtoolregistry.a \
  -lpthread -ldl -lm
c++ -std=c++17 -Wall -Wextra -Werror -Iinclude -Ibindings/cpp/include -Itests/cpp tests/cross/conversation.cpp \
  -o "$target/cross/conversation_cpp" -L"$target/release" -l:libtoolregistry.a -lpthread -ldl -lm
conversation_corpus=tests/conformance/conversation
conversation_expected="$(for d in $(ls -d "$conversation_corpus"/*/ | sort); do
  printf '%s\t%s\t%s\n' "$(basename "$d")" "$(cat "$d/expected.json")" "$(cat "$d/loaded.json")"; done)"
for program in conversation_c conversation_cpp; do
  if [ "$("$target/cross/$program" "$conversation_corpus")" != "$conversation_expected" ]; then
    echo "$program $conversation_corpus differs from the corpus's expected.json / loaded.json" >&2
    diff <("$target/cross/$program" "$conversation_corpus") <(printf '%s\n' "$conversation_expected") >&2 || true
    exit 1
  fi
done
(cd bindings/go && go build -o "../../$target/cross/trdiscover" ./cmd/trdiscover)
(cd bindings/go && go build -o "../../$target/cross/trexecute" ./cmd/trexecute)
(cd bindings/go && go build -o "../../$target/cross/trconversation" ./cmd/trconversation)
if [ ! -f "$target/csharp/DiscoverCli.exe" ]; then
  echo "the C# part (30-csharp.sh) must run first: $target/csharp/DiscoverCli.exe is missing" >&2
  exit 1
fi
if [ ! -x "$target/python-venv/bin/python" ]; then
  echo "the Python part (40-python.sh) must run first: $target/python-venv is missing" >&2
  exit 1
fi
if [ ! -f bindings/node/dist/index.js ] || [ ! -d bindings/node/node_modules/koffi ]; then
  echo "the Node part (35-node.sh) must run first: bindings/node/dist or its node_modules is missing" >&2
  exit 1
fi
if [ ! -d bindings/java/toolregistry/target/test-classes ] || ! ls bindings/java/toolregistry/target/lib/jna-*.jar >/dev/null 2>&1; then
  echo "the Java part (80-java.sh) must run first: bindings/java/toolregistry/target is missing" >&2
  exit 1
fi
python3 scripts/cross_language.py data/bfcl/catalog.json
