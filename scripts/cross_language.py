#!/usr/bin/env python3
"""Asks the same queries through Rust, C, C++, Go, C#, Python, Node and Java, prints the answers side by side, and fails
unless all eight give the same names, in the same order, with the same scores (bit for bit), the same
namespace, deferred flag, intent (the need of a query holding several that the hit answers) and
brought_in (why a hit was brought in by a tool it is used with: the USAGE queries record the same
tasks in every language first). The `hybrid` queries use a fake embedder that each language
implements alike (tests/cross/discover.rs for Rust, which the CLI cannot load).

Usage: scripts/cross_language.py CATALOG.json  (the programs are built by scripts/test-parts/90-cross-language.sh)
"""
import json
import os
import subprocess
import sys

# A query holding two needs (issue 42): the hits carry the need each answers ("intent"), which
# the reference profile never does.
TWO_NEEDS = "convert 100 dollars to euros and then tell me the weather in Paris"

QUERIES = [
    ("convert currency", 5, "reference"),
    ("get the weather forecast for a city", 8, "reference"),
    ("calculate the area of a triangle", 5, "enhanced"),
    ("get_weather", 3, "reference"),
    ("天气 查询 weather", 5, "reference"),
    (TWO_NEEDS, 8, "enhanced"),
    # "hybrid": every program gives its registry the same fake embedder (dim 64, FNV-1a word
    # buckets, implemented in each language) and waits for the catalog's vectors.
    ("get the weather forecast for a city", 8, "hybrid"),
    ("convert an amount of money between currencies", 10, "hybrid"),
    ("天气 查询 weather", 5, "hybrid"),
    (TWO_NEEDS, 8, "hybrid"),
]

# Queries with recorded usage (issue 52): every program records the same tasks (one JSON array of
# names a line, through its binding's record_usage) before the query, and the answer must bring a
# partner in, with the same reason in every language. A travel habit: finding a bus goes with the
# destination's weather in 12 tasks, with nothing in 3; 10 other tasks set alarms. The query ranks
# the weather tool nowhere near its first 8 places; the habit brings it in.
USAGE_TASKS = "\n".join(
    ['["Buses_3_FindBus", "Weather_1_GetWeather"]'] * 12
    + ['["Buses_3_FindBus"]'] * 3
    + ['["Alarm_1_AddAlarm", "Alarm_1_GetAlarms"]'] * 10
)
USAGE_QUERIES = [
    ("find a bus from Boston to New York for two people", 8, "enhanced", USAGE_TASKS),
    ("find a bus from Boston to New York for two people", 8, "hybrid", USAGE_TASKS),
]


def node_env():
    """The Node binding loads the release library (built by the Node part, dist/ compiled there)."""
    target = os.path.abspath(os.environ.get("CARGO_TARGET_DIR", "target"))
    return dict(os.environ, TOOLREGISTRY_LIB=os.path.join(target, "release", "libtoolregistry.so"))


NODE_TESTS = os.path.join("bindings", "node", "test")


def java(main, *args):
    """A Java cross-language program (bindings/java/toolregistry/src/test/java/dev/toolregistry/Cross*.java,
    compiled by the Java part) on the release library; JNA unpacks its own part under target/."""
    target = os.path.abspath(os.environ.get("CARGO_TARGET_DIR", "target"))
    core = os.path.join("bindings", "java", "toolregistry", "target")
    lib = os.path.join(core, "lib")
    jars = [os.path.join(lib, f) for f in sorted(os.listdir(lib)) if f.endswith(".jar")] if os.path.isdir(lib) else []
    classpath = os.pathsep.join([os.path.join(core, "classes"), os.path.join(core, "test-classes")] + jars)
    # Short runs: the C1 compiler alone and the serial collector start and finish sooner.
    argv = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Djna.tmpdir=" + os.path.join(target, "java-cross-jna"), "-cp", classpath,
            "dev.toolregistry." + main] + [str(a) for a in args]
    return argv, dict(os.environ, TOOLREGISTRY_LIB=os.path.join(target, "release", "libtoolregistry.so"))


def programs(catalog):
    """Each language's discover program: (query, top_k, profile, usage tasks or "") -> (argv, env)."""
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    cross = os.path.join(target, "cross")
    env_cs = dict(os.environ, LD_LIBRARY_PATH=os.path.join(target, "csharp"))
    cross_discover = os.path.join(target, "release", "examples", "cross_discover")
    with_usage = lambda u: [u] if u else []  # noqa: E731 (the programs' optional last argument)
    return {
        "rust": lambda q, k, p, u: (
            [cross_discover, catalog, q, str(k), "--usage", u, "--profile", p] if u else
            [cross_discover, catalog, q, str(k)] if p == "hybrid" else
            [os.path.join(target, "release", "toolregistry"), "discover", "--json", "--catalog", catalog,
             "--top-k", str(k), "--options", json.dumps({"profile": p}), q], None),
        "c": lambda q, k, p, u: ([os.path.join(cross, "discover_c"), catalog, q, str(k), p] + with_usage(u), None),
        "c++": lambda q, k, p, u: ([os.path.join(cross, "discover_cpp"), catalog, q, str(k), p] + with_usage(u), None),
        "go": lambda q, k, p, u: ([os.path.join(cross, "trdiscover"), "-catalog", catalog, "-top-k", str(k),
                                   "-profile", p, "-usage", u, q], None),
        "c#": lambda q, k, p, u: (["mono", os.path.join(target, "csharp", "DiscoverCli.exe"), "--json", catalog, q,
                                   str(k), p] + with_usage(u), env_cs),
        "python": lambda q, k, p, u: ([os.path.join(target, "python-venv", "bin", "python"),
                                       os.path.join("bindings", "python", "tests", "cross_discover.py"), catalog, q,
                                       str(k), p] + with_usage(u), None),
        "node": lambda q, k, p, u: (["node", os.path.join(NODE_TESTS, "cross_discover.mjs"), catalog, q, str(k), p]
                                    + with_usage(u), node_env()),
        "java": lambda q, k, p, u: java("CrossDiscover", catalog, q, k, p, *with_usage(u)),
    }


# Languages whose cross program embeds the query itself and gives the library its vector (the
# discover option query_vector, the pull model) instead of the library calling the embedder: for
# `hybrid` they are compared with Rust doing the same (cross_discover --query-vector). The two
# Rust answers agree for a query of one need; for a query holding several, the library has no
# vector for each need when the host gives only the query's, and ranks the needs by words alone.
PULL_LANGUAGES = ("node",)


def rust_query_vector(catalog, query, top_k, usage=""):
    """The Rust side of a `hybrid` query with the query's vector given by the host."""
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    argv = [os.path.join(target, "release", "examples", "cross_discover"), catalog, query, str(top_k), "--query-vector"]
    return argv + (["--usage", usage] if usage else [])


def normalized(answer):
    return [(h["name"], float(h["score"]), h.get("namespace"), bool(h["deferred"]), h.get("intent"),
             h.get("brought_in")) for h in answer]


# explain: the Rust CLI and the Node and Java bindings (query, tool, top_k, profile); the same JSON
# document, every float bit for bit.
EXPLAIN = [
    ("convert currency", "convert_currency", 10, "reference"),
    ("get the weather forecast for a city", "get_weather", 8, "enhanced"),
    ("天气 查询 weather", "get_weather", 5, "reference"),
    (TWO_NEEDS, "api.weather", 8, "enhanced"),
]


def check_explain(catalog):
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    failures = 0
    for query, tool, top_k, profile in EXPLAIN:
        answers = {}
        for language, argv, env in (
            ("rust", [os.path.join(target, "release", "toolregistry"), "explain", "--json", "--catalog", catalog,
                      "--top-k", str(top_k), "--profile", profile, "--tool", tool, query], None),
            ("node", ["node", os.path.join(NODE_TESTS, "cross_explain.mjs"), catalog, query, tool, str(top_k), profile],
             node_env()),
            ("java",) + java("CrossExplain", catalog, query, tool, top_k, profile),
        ):
            out = subprocess.run(argv, capture_output=True, text=True, env=env)
            if out.returncode != 0:
                print(f"explain {language}: exit {out.returncode}: {out.stderr.strip()}")
                failures += 1
                continue
            answers[language] = json.loads(out.stdout)
        same = len(answers) == 3 and answers["rust"] == answers["node"] == answers["java"]
        print(f"explain {query!r} {tool} top_k={top_k} {profile}: "
              + ("rust, node and java identical" if same else "MISMATCH or missing"))
        if not same:
            failures += 1
        elif query == TWO_NEEDS and (len(answers["rust"]["intents"]) < 2 or not answers["rust"]["tool"]["intent"]):
            print("  MISSING: the two-need query's explanation names fewer than two needs or no need for the tool")
            failures += 1
    return len(EXPLAIN), failures


EXECUTE = os.path.join("tests", "conformance", "execute")
CONVERSATION = os.path.join("tests", "conformance", "conversation")


def corpus_programs(corpus, kind):
    """Each language's program that runs a conformance corpus (tests/conformance/): `kind` is
    "execute" (tool calls) or "conversation"."""
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    cross = os.path.join(target, "cross")
    env_cs = dict(os.environ, LD_LIBRARY_PATH=os.path.join(target, "csharp"))
    python = os.path.join(target, "python-venv", "bin", "python")
    names = {
        "execute": ("execute_c", "execute_cpp", "trexecute", "ExecuteCli.exe", "cross_execute.py",
                    "cross_execute.mjs", "CrossExecute"),
        "conversation": ("conversation_c", "conversation_cpp", "trconversation", "ConversationCli.exe",
                         "cross_conversation.py", "cross_conversation.mjs", "CrossConversation"),
    }[kind]
    programs = {
        "c": ([os.path.join(cross, names[0]), corpus], None),
        "c++": ([os.path.join(cross, names[1]), corpus], None),
        "go": ([os.path.join(cross, names[2]), corpus], None),
        "c#": (["mono", os.path.join(target, "csharp", names[3]), corpus], env_cs),
        "python": ([python, os.path.join("bindings", "python", "tests", names[4]), corpus], None),
        "node": (["node", os.path.join(NODE_TESTS, names[5]), os.path.abspath(corpus)], node_env()),
        "java": java(names[6], os.path.abspath(corpus)),
    }
    return {lang: cmd for lang, cmd in programs.items() if lang in CORPUS_LANGUAGES[kind]}


# Which languages run which corpus (every binding runs both once its conversation type exists).
CORPUS_LANGUAGES = {
    "execute": ("c", "c++", "go", "c#", "python", "node", "java"),
    "conversation": ("c", "c++", "go", "c#", "python", "node", "java"),
}

# Which languages' corpus programs also take `--steps`: the calls run through the two-step loop
# (prepare, the host's own run of the calls, finish: the async APIs) instead of execute, and must
# print the same bytes. (Node has no other way: its execute is always the two steps. Java's
# `--steps` is executeAsync with async host functions.)
STEPS_LANGUAGES = {
    "execute": ("c", "c++", "go", "c#", "python", "java"),
    "conversation": ("c", "go", "c#", "python", "java"),
}


def expected_lines(corpus, kind):
    """What every program must print, from the hand-written files (which `cargo test` holds the
    Rust API and the C ABI to): `case<TAB>messages` (execute: `provider/case`), and for
    conversations `<TAB>loaded` too."""
    out = {}
    for root, dirs, files in os.walk(corpus):
        if "expected.json" not in files:
            continue
        case = os.path.relpath(root, corpus)

        def read(name):
            with open(os.path.join(root, name), encoding="utf-8") as f:
                return f.read().rstrip("\n")

        line = read("expected.json")
        if kind == "conversation":
            line += "\t" + read("loaded.json")
        out[case] = line
    return out


def check_corpus(corpus, kind):
    """Every language's answers for every case of a corpus, byte for byte, through execute and,
    where the binding has it, through the two steps."""
    expected = expected_lines(corpus, kind)
    failures = 0
    runs = [(language, argv, env) for language, (argv, env) in corpus_programs(corpus, kind).items()]
    runs += [(f"{language} (two steps)", argv + ["--steps"], env)
             for language, (argv, env) in corpus_programs(corpus, kind).items()
             if language in STEPS_LANGUAGES[kind]]
    for language, argv, env in runs:
        out = subprocess.run(argv, capture_output=True, env=env)
        if out.returncode != 0:
            print(f"{kind} {language}: exit {out.returncode}: {out.stderr.decode(errors='replace').strip()}")
            failures += 1
            continue
        got = dict(line.split("\t", 1) for line in out.stdout.decode("utf-8").splitlines() if line)
        wrong = [case for case in expected if got.get(case) != expected[case]]
        extra = sorted(set(got) - set(expected))
        print(f"{kind} {language}: {len(expected) - len(wrong)}/{len(expected)} cases byte-identical"
              + (f"; differ: {', '.join(wrong[:5])}" if wrong else "") + (f"; unknown: {extra[:3]}" if extra else ""))
        if wrong or extra:
            failures += 1
    return len(runs), failures


def main():
    catalog = sys.argv[1]
    failures = 0
    for query, top_k, profile, usage in [q + ("",) for q in QUERIES] + USAGE_QUERIES:
        answers = {}
        for language, command in programs(catalog).items():
            argv, env = command(query, top_k, profile, usage)
            out = subprocess.run(argv, capture_output=True, text=True, env=env)
            if out.returncode != 0:
                print(f"{language}: exit {out.returncode}: {out.stderr.strip()}")
                failures += 1
                continue
            answers[language] = normalized(json.loads(out.stdout))
        pulled = None
        if profile == "hybrid":
            out = subprocess.run(rust_query_vector(catalog, query, top_k, usage), capture_output=True, text=True)
            if out.returncode != 0:
                print(f"rust (query vector): exit {out.returncode}: {out.stderr.strip()}")
                failures += 1
            else:
                pulled = normalized(json.loads(out.stdout))
        print(f"\nquery {query!r} top_k={top_k} profile={profile}" + (" with usage" if usage else ""))
        languages = list(answers)
        print("  rank  " + "  ".join(f"{lang:<38}" for lang in languages))
        for rank in range(max((len(a) for a in answers.values()), default=0)):
            cells = []
            for lang in languages:
                hit = answers[lang][rank] if rank < len(answers[lang]) else None
                cells.append(f"{hit[0][:22]:<22} {hit[1]:<15.12g}" if hit else " " * 38)
            print(f"  {rank + 1:>4}  " + "  ".join(cells))
        reference = answers.get("rust")
        for lang, answer in answers.items():
            if profile == "hybrid" and lang in PULL_LANGUAGES:
                if answer != pulled:
                    print(f"  MISMATCH: {lang} differs from rust given the query's vector")
                    failures += 1
            elif answer != reference:
                print(f"  MISMATCH: {lang} differs from rust")
                failures += 1
        if pulled is not None and reference and pulled != reference:
            if any(hit[4] for hit in reference):
                print(f"  note: given only the query's vector (the pull model: {', '.join(PULL_LANGUAGES)}), rust "
                      "ranks otherwise: the query's needs have no vectors of their own")
            else:
                print("  MISMATCH: rust given the query's vector differs from rust embedding it (one need)")
                failures += 1
        if not reference:
            print("  no answer from rust")
            failures += 1
        elif query == TWO_NEEDS and profile != "reference":
            # Else the intents would be compared vacuously: every language's None.
            needs = sorted({hit[4] for hit in reference if hit[4]})
            print(f"  intents: {needs}")
            if len(needs) < 2:
                print("  MISSING: the two-need query's hits name fewer than two needs")
                failures += 1
        if reference and usage:
            # Else brought_in would be compared vacuously: every language's None.
            brought = [(hit[0], hit[5]) for hit in reference if hit[5]]
            print(f"  brought in: {brought}")
            if not brought:
                print("  MISSING: the recorded usage brought no partner in")
                failures += 1
    queries = QUERIES + [q[:3] for q in USAGE_QUERIES]
    checks = len(queries) * len(programs(catalog)) + sum(1 for _, _, profile in queries if profile == "hybrid")
    print()
    more_checks, more_failures = check_explain(catalog)
    checks += more_checks
    failures += more_failures
    for corpus, kind in ((EXECUTE, "execute"), (CONVERSATION, "conversation")):
        more_checks, more_failures = check_corpus(corpus, kind)
        checks += more_checks
        failures += more_failures
    print(f"\ncross-language: {checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
