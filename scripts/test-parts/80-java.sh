#!/usr/bin/env bash
# The Java package (bindings/java, Maven): the core binding dev.toolregistry over the C ABI with
# JNA, the LangChain4j and Spring AI adapters, each module's JUnit 5 tests against the release
# library (TOOLREGISTRY_LIB), in one Maven run (-q -B, offline when ~/.m2 already holds every
# artifact, else online once); then the README's Java quickstart compiled with javac against the
# jar and JNA alone, and run. Needs a JDK >= 17 and Maven on PATH (this machine kind has them).
# The cross-language part (90) reuses the classes built here.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh
need_java_maven
target="${CARGO_TARGET_DIR:-target}"
[[ "$target" = /* ]] || target="$PWD/$target"
cargo build --release --lib --locked
lib="$target/release/libtoolregistry.so"

(cd bindings/java && mvn_offline_first -q -B package -Dtoolregistry.lib="$lib")
for report in bindings/java/*/target/surefire-reports/*.txt; do
  grep -h "Tests run" "$report"
done

# The README's quickstart, exactly as README.md shows it, with javac and java against the jar
# and JNA alone (TOOLREGISTRY_LIB: this jar is a development build without the library inside).
core=bindings/java/toolregistry/target
work="$target/java-readme"
rm -rf "$work"
mkdir -p "$work"
python3 - README.md "$work/Quickstart.java" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
section = text.split("## Quickstart: Java", 1)[1]
code = re.search(r"```java\n(.*?)```", section, re.S).group(1)
open(sys.argv[2], "w", encoding="utf-8").write(code)
PY
cp_jars="$core/toolregistry-0.1.0.jar:$(ls "$core"/lib/jna-*.jar)"
javac -d "$work" -cp "$cp_jars" "$work/Quickstart.java"
out=$(TOOLREGISTRY_LIB="$lib" java -Djna.tmpdir="$work/jna" -cp "$work:$cp_jars" Quickstart)
echo "$out"
grep -q '^hit convert_currency ' <<<"$out"
grep -q '^execute: \[{"role":"tool","tool_call_id":"call_1","content":"100 USD = 92.0 EUR"}\]' <<<"$out"
grep -q '^executeAsync: \[{"role":"tool","tool_call_id":"call_1","content":"100 USD = 92.0 EUR"}\]' <<<"$out"
grep -q '^status NOT_FOUND 5$' <<<"$out"
echo "80-java: README quickstart compiled with javac against the jar and JNA, and ran"
