#!/usr/bin/env bash
# The Java package (bindings/java, Maven): the core binding dev.toolregistry over the C ABI with
# JNA, the LangChain4j and Spring AI adapters, each module's JUnit 5 tests against the release
# library (TOOLREGISTRY_LIB), in one Maven run (-q -B, offline when ~/.m2 already holds every
# artifact, else online once). Needs a JDK >= 17 and Maven on PATH (this machine kind has them).
# The cross-language part (90) reuses the classes built here; the README's Java quickstart is
# compiled with javac against the released jar and JNA alone in 70-dist.
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
