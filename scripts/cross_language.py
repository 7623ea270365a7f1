#!/usr/bin/env python3
"""Asks the same queries through Rust, C, C++, Go, C# and Python, prints the answers side by side, and fails
unless all six give the same names, in the same order, with the same scores (bit for bit), the same
namespace and deferred flag.

Usage: scripts/cross_language.py CATALOG.json  (the programs are built by scripts/test-parts/90-cross-language.sh)
"""
import json
import os
import subprocess
import sys

QUERIES = [
    ("convert currency", 5, "reference"),
    ("get the weather forecast for a city", 8, "reference"),
    ("calculate the area of a triangle", 5, "enhanced"),
    ("get_weather", 3, "reference"),
    ("天气 查询 weather", 5, "reference"),
]


def programs(catalog):
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    cross = os.path.join(target, "cross")
    env_cs = dict(os.environ, LD_LIBRARY_PATH=os.path.join(target, "csharp"))
    return {
        "rust": lambda q, k, p: (
            [os.path.join(target, "release", "toolregistry"), "discover", "--json", "--catalog", catalog,
             "--top-k", str(k), "--options", json.dumps({"profile": p}), q], None),
        "c": lambda q, k, p: ([os.path.join(cross, "discover_c"), catalog, q, str(k), p], None),
        "c++": lambda q, k, p: ([os.path.join(cross, "discover_cpp"), catalog, q, str(k), p], None),
        "go": lambda q, k, p: ([os.path.join(cross, "trdiscover"), "-catalog", catalog, "-top-k", str(k),
                                "-profile", p, q], None),
        "c#": lambda q, k, p: (["mono", os.path.join(target, "csharp", "DiscoverCli.exe"), "--json", catalog, q,
                                str(k), p], env_cs),
        "python": lambda q, k, p: ([os.path.join(target, "python-venv", "bin", "python"),
                                    os.path.join("bindings", "python", "tests", "cross_discover.py"), catalog, q, str(k), p],
                                   None),
    }


def normalized(answer):
    return [(h["name"], float(h["score"]), h.get("namespace"), bool(h["deferred"])) for h in answer]


CORPUS = os.path.join("tests", "conformance", "execute")


def execute_programs():
    """Each language's program that runs the tool-call conformance corpus (tests/conformance/)."""
    target = os.environ.get("CARGO_TARGET_DIR", "target")
    cross = os.path.join(target, "cross")
    env_cs = dict(os.environ, LD_LIBRARY_PATH=os.path.join(target, "csharp"))
    return {
        "c": ([os.path.join(cross, "execute_c"), CORPUS], None),
        "c++": ([os.path.join(cross, "execute_cpp"), CORPUS], None),
        "go": ([os.path.join(cross, "trexecute"), CORPUS], None),
        "c#": (["mono", os.path.join(target, "csharp", "ExecuteCli.exe"), CORPUS], env_cs),
        "python": ([os.path.join(target, "python-venv", "bin", "python"),
                    os.path.join("bindings", "python", "tests", "cross_execute.py"), CORPUS], None),
    }


def check_execute():
    """Every language's messages for every corpus case, byte for byte, against the hand-written
    expected.json (which `cargo test --test conformance` holds the Rust API and C ABI to)."""
    expected = {}
    for provider in sorted(os.listdir(CORPUS)):
        if not os.path.isdir(os.path.join(CORPUS, provider)):
            continue
        for case in sorted(os.listdir(os.path.join(CORPUS, provider))):
            with open(os.path.join(CORPUS, provider, case, "expected.json"), encoding="utf-8") as f:
                expected[f"{provider}/{case}"] = f.read().rstrip("\n")
    failures = 0
    for language, (argv, env) in execute_programs().items():
        out = subprocess.run(argv, capture_output=True, env=env)
        if out.returncode != 0:
            print(f"execute {language}: exit {out.returncode}: {out.stderr.decode(errors='replace').strip()}")
            failures += 1
            continue
        got = dict(line.split("\t", 1) for line in out.stdout.decode("utf-8").splitlines() if line)
        wrong = [case for case in expected if got.get(case) != expected[case]]
        extra = sorted(set(got) - set(expected))
        print(f"execute {language}: {len(expected) - len(wrong)}/{len(expected)} cases byte-identical"
              + (f"; differ: {', '.join(wrong[:5])}" if wrong else "") + (f"; unknown: {extra[:3]}" if extra else ""))
        if wrong or extra:
            failures += 1
    return len(execute_programs()), failures


def main():
    catalog = sys.argv[1]
    failures = 0
    for query, top_k, profile in QUERIES:
        answers = {}
        for language, command in programs(catalog).items():
            argv, env = command(query, top_k, profile)
            out = subprocess.run(argv, capture_output=True, text=True, env=env)
            if out.returncode != 0:
                print(f"{language}: exit {out.returncode}: {out.stderr.strip()}")
                failures += 1
                continue
            answers[language] = normalized(json.loads(out.stdout))
        print(f"\nquery {query!r} top_k={top_k} profile={profile}")
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
            if answer != reference:
                print(f"  MISMATCH: {lang} differs from rust")
                failures += 1
        if not reference:
            print("  no answer from rust")
            failures += 1
    checks = len(QUERIES) * len(programs(catalog))
    print()
    exec_checks, exec_failures = check_execute()
    checks += exec_checks
    failures += exec_failures
    print(f"\ncross-language: {checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
