#!/usr/bin/env bash
# C# binding (bindings/csharp): builds the library and the binding with Mono's mcs, then runs the
# console test program with mono. Installs Mono from Debian packages when it is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib/setup.sh

# Mono: the compiler, the runtime, and System.Runtime.Serialization (DataContractJsonSerializer).
need_commands mcs:mono-mcs mono:mono-runtime
if ! ls /usr/lib/mono/4.5/System.Runtime.Serialization.dll >/dev/null 2>&1; then
  apt_install libmono-system-runtime-serialization4.0-cil
fi
mono --version | head -n 1

cargo build --release --lib --locked
target="${CARGO_TARGET_DIR:-target}"
out="$target/csharp"
mkdir -p "$out"

# C# 7.2 at most, so the same source builds with mcs and any .NET SDK (netstandard2.0).
mcs -target:library -unsafe -langversion:7.2 -warn:4 -warnaserror -nologo \
  -doc:"$out/ToolRegistry.xml" -out:"$out/ToolRegistry.dll" \
  -r:System.Runtime.Serialization.dll -r:System.Xml.dll \
  bindings/csharp/src/*.cs
mcs -unsafe -langversion:7.2 -warn:4 -warnaserror -nologo \
  -out:"$out/ToolRegistry.Tests.exe" -r:"$out/ToolRegistry.dll" -r:System.Runtime.Serialization.dll \
  bindings/csharp/tests/*.cs

# DllImport("toolregistry") resolves to libtoolregistry.so next to the assemblies.
cp -L "$target/release/libtoolregistry.so" "$out/"
LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
  mono --debug "$out/ToolRegistry.Tests.exe" "${TOOLREGISTRY_GOLDEN_DIR:-../shared/golden}"

# The README's quickstart (bindings/csharp/examples/Quickstart.cs) must keep compiling and working.
mcs -langversion:7.2 -nologo -out:"$out/Quickstart.exe" -r:"$out/ToolRegistry.dll" bindings/csharp/examples/Quickstart.cs
quickstart="$(mono "$out/Quickstart.exe")"
echo "$quickstart"
grep -qx -- '- send_email: Send an email.' <<<"$quickstart"
grep -q '^send_email [0-9.]* {"type":"function"' <<<"$quickstart"
grep -q '^NotFound: ' <<<"$quickstart"
echo "quickstart ok"

# The async quickstart (bindings/csharp/examples/AsyncQuickstart.cs) too: both calls answered.
mcs -langversion:7.2 -warn:4 -warnaserror -nologo -out:"$out/AsyncQuickstart.exe" -r:"$out/ToolRegistry.dll" bindings/csharp/examples/AsyncQuickstart.cs
quickstart="$(LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono "$out/AsyncQuickstart.exe")"
echo "$quickstart"
grep -qF '{"role":"tool","tool_call_id":"a","content":"sunny, args {\"city\":\"Paris\"}"}' <<<"$quickstart"
grep -qF '"tool_call_id":"b"' <<<"$quickstart"
echo "async quickstart ok"

# The async benchmark (BENCHMARKS.md) must keep building; it is run by hand, never here.
mcs -langversion:7.2 -warn:4 -warnaserror -nologo -out:"$out/AsyncBench.exe" -r:"$out/ToolRegistry.dll" bindings/csharp/examples/AsyncBench.cs

# DiscoverCli prints one answer as rank/name/score lines for the cross-language comparison.
mcs -langversion:7.2 -nologo -out:"$out/DiscoverCli.exe" -r:"$out/ToolRegistry.dll" bindings/csharp/examples/DiscoverCli.cs
catalog="$(dirname "${TOOLREGISTRY_GOLDEN_DIR:-../shared/golden}")/eval/bfcl/catalog.json"
if [ -f "$catalog" ]; then
  answer="$(mono "$out/DiscoverCli.exe" "$catalog" "convert currency" 5)"
  echo "$answer"
  [ "$(wc -l <<<"$answer")" -eq 5 ]
fi

# ExecuteCli runs the tool-call conformance corpus through the binding and prints one
# "provider/case<TAB>messages" line per case for the cross-language comparison; each line must be
# the case's expected.json.
corpus=tests/conformance/execute
mcs -langversion:7.2 -warn:4 -warnaserror -nologo -out:"$out/ExecuteCli.exe" -r:"$out/ToolRegistry.dll" \
  bindings/csharp/examples/ExecuteCli.cs bindings/csharp/tests/ExecuteCorpus.cs bindings/csharp/tests/MiniJson.cs
cases="$(find "$corpus" -mindepth 2 -maxdepth 2 -type d | wc -l)"
# --steps: the same lines through ExecuteAsync (the two-step loop) with async hosts.
for steps in "" --steps; do
  executed="$(LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono "$out/ExecuteCli.exe" "$corpus" $steps)"
  [ "$(wc -l <<<"$executed")" -eq "$cases" ] || { echo "ExecuteCli $steps printed $(wc -l <<<"$executed") lines for $cases cases"; exit 1; }
  while IFS=$'\t' read -r name messages; do
    [ "$messages" = "$(cat "$corpus/$name/expected.json")" ] || { echo "ExecuteCli $steps: $name differs: $messages"; exit 1; }
  done <<<"$executed"
  echo "ExecuteCli $steps ok ($cases cases)"
done

# ConversationCli runs the conversation corpus through the binding and prints one
# "case<TAB>messages<TAB>loaded" line per case for the cross-language comparison; each line must
# be the case's expected.json and loaded.json.
corpus=tests/conformance/conversation
mcs -langversion:7.2 -warn:4 -warnaserror -nologo -out:"$out/ConversationCli.exe" -r:"$out/ToolRegistry.dll" \
  bindings/csharp/examples/ConversationCli.cs bindings/csharp/tests/ConversationCorpus.cs \
  bindings/csharp/tests/ExecuteCorpus.cs bindings/csharp/tests/MiniJson.cs
cases="$(find "$corpus" -mindepth 1 -maxdepth 1 -type d | wc -l)"
for steps in "" --steps; do
  conversed="$(LD_LIBRARY_PATH="$out${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono "$out/ConversationCli.exe" "$corpus" $steps)"
  [ "$(wc -l <<<"$conversed")" -eq "$cases" ] || { echo "ConversationCli $steps printed $(wc -l <<<"$conversed") lines for $cases cases"; exit 1; }
  while IFS=$'\t' read -r name messages loaded; do
    [ "$messages" = "$(cat "$corpus/$name/expected.json")" ] || { echo "ConversationCli $steps: $name messages differ: $messages"; exit 1; }
    [ "$loaded" = "$(cat "$corpus/$name/loaded.json")" ] || { echo "ConversationCli $steps: $name loaded differ: $loaded"; exit 1; }
  done <<<"$conversed"
  echo "ConversationCli $steps ok ($cases cases)"
done
