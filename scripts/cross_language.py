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
    print(f"\ncross-language: {checks - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
