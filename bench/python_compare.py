#!/usr/bin/env python3
"""The Python binding beside the Python reference, in one process and one run.

    python3 bench/python_compare.py [--sizes 1000,10000] [--out FILE]

Creates its own virtualenv (bench/.venv-python) with the reference toolregistry==0.19.0 from PyPI
and this repository's Python binding (`pip install bindings/python`, which runs cargo), writes the
generated workload to build/bench/ (`bench_gen`, fixed seed; see bench/workload.rs and
BENCHMARKS.md), then for each catalog size builds three engines on the same tools:

  - reference: toolregistry.ToolRegistry + enable_tool_discovery(), ToolDiscoveryTool.discover();
  - ours (API): toolregistry_rs.Registry + a Discoverer with profile "reference", discover();
  - ours (compat): toolregistry_rs.compat.ToolRegistry + enable_tool_discovery(), discover().

Each returns a list of Python dicts (ours decodes the library's JSON answer), top_k 10. The
timings interleave the engines query by query, so machine noise hits all of them alike, with
Python's cyclic garbage collector off while timing (as timeit does):

  - discover latency (p50/p95) over the workload's queries;
  - register one new tool, then one discover for it (the reference rebuilds its whole index at
    that discover; ours updates the index incrementally), median.

Before timing, the first 100 answers of each engine are compared with the reference's (names in
order, scores to 1e-9), so all three do the same work.
"""

import argparse
import gc
import json
import math
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "bench" / ".venv-python"
DATA = ROOT / "build" / "bench"
sys.path.insert(0, str(ROOT / "bench"))
import compare as base  # noqa: E402  (workload helpers and the reference engine of bench/compare.py)

PARITY_QUERIES = 100


def ensure_venv():
    """Re-executes this script inside bench/.venv-python, creating it and installing the binding."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "toolregistry==0.19.0"], check=True)
    # Always reinstall the binding, so the run measures this checkout's library.
    subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "-q",
            "--force-reinstall",
            "--no-deps",
            str(ROOT / "bindings" / "python"),
        ],
        check=True,
    )
    os.execv(str(python), [str(python), *sys.argv])


class OursAPI:
    """toolregistry_rs.Registry + Discoverer (profile reference): dicts in, dicts out."""

    def __init__(self, catalog):
        import toolregistry_rs as tr

        self.tr = tr
        self.catalog = catalog

    def build(self):
        self.reg = self.tr.Registry()
        self.reg.register(self.catalog)
        self.disc = self.reg.discoverer(profile="reference")

    def discover(self, q):
        return self.disc.discover(q, 10)

    def register_one(self, tool, query):
        t = time.perf_counter()
        self.reg.register(tool)
        self.discover(query)
        elapsed = time.perf_counter() - t
        self.reg.unregister(base.registered_name(tool))
        return elapsed


class OursCompat:
    """toolregistry_rs.compat: the reference's calls, on the engine."""

    def __init__(self, catalog):
        from toolregistry_rs import compat

        self.compat = compat
        self.catalog = catalog

    def _tool(self, tool):
        c = self.compat
        name, desc, params, ns, defer, tags, hint = base.tool_parts(tool)
        predefined = {t.value for t in c.ToolTag}
        meta = c.ToolMetadata(
            defer=defer,
            tags={c.ToolTag(t) for t in tags if t in predefined},
            custom_tags={t for t in tags if t not in predefined},
            search_hint=hint,
        )
        return c.Tool(name=name, description=desc, parameters=params, metadata=meta), ns

    def build(self):
        self.reg = self.compat.ToolRegistry()
        for t in self.catalog:
            tool, ns = self._tool(t)
            self.reg.register(tool, namespace=ns)
        self.disc = self.reg.enable_tool_discovery()

    def discover(self, q):
        return self.disc.discover(q, top_k=10)

    def register_one(self, tool, query):
        t = time.perf_counter()
        obj, ns = self._tool(tool)
        self.reg.register(obj, namespace=ns)
        self.discover(query)
        elapsed = time.perf_counter() - t
        self.reg.unregister(base.registered_name(tool))
        return elapsed


class Reference(base.Reference):
    def __init__(self, catalog):
        from toolregistry import ToolRegistry  # noqa: F401  (import cost outside the timings)

        self.catalog = catalog


ENGINES = {"reference": Reference, "ours (API)": OursAPI, "ours (compat)": OursCompat}


def same_answer(want, got):
    return [h["name"] for h in want] == [h["name"] for h in got] and all(
        math.isclose(a["score"], b["score"], rel_tol=1e-9) for a, b in zip(want, got)
    )


def measure(n, ours_passes, ref_queries, ref_inc, ours_inc):
    catalog = json.loads((DATA / f"catalog_{n}.json").read_text())
    queries = json.loads((DATA / f"queries_{n}.json").read_text())
    extras = json.loads((DATA / f"extras_{n}.json").read_text())
    engines = {}
    build = {}
    for label, cls in ENGINES.items():
        e = cls(catalog)
        t = time.perf_counter()
        e.build()
        build[label] = time.perf_counter() - t
        engines[label] = e
    ref = engines["reference"]
    if ref.disc._index_dirty:
        ref.disc.rebuild_index()
    parity = {}
    for label, e in engines.items():
        parity[label] = sum(same_answer(ref.discover(q), e.discover(q)) for q in queries[:PARITY_QUERIES])

    # Discover: the engines interleaved query by query. The cyclic GC is off while timing (as in
    # timeit), so one engine's garbage is not collected in another's timed call.
    gc.collect()
    gc.disable()
    lat = {label: [] for label in engines}
    for q in queries[:ref_queries]:
        for label, e in engines.items():
            for _ in range(1 if label == "reference" else ours_passes):
                t = time.perf_counter()
                e.discover(q)
                lat[label].append((time.perf_counter() - t) * 1e6)
    for label in engines:
        lat[label].sort()

    # Register one new tool, then discover it: interleaved too.
    inc = {label: [] for label in engines}
    for extra in extras[: max(ref_inc, ours_inc)]:
        for label, e in engines.items():
            if len(inc[label]) < (ref_inc if label == "reference" else ours_inc):
                gc.collect()
                inc[label].append(e.register_one(extra["tool"], extra["query"]) * 1e6)
    gc.enable()
    return {
        label: {
            "p50": base.percentile(lat[label], 50),
            "p95": base.percentile(lat[label], 95),
            "discovers": len(lat[label]),
            "inc": statistics.median(inc[label]),
            "inc_samples": len(inc[label]),
            "build": build[label],
            "parity": parity[label],
        }
        for label in engines
    }


def report(results, out):
    w = out.append
    labels = list(ENGINES)
    w("#### Discover latency, top_k 10, answers as Python dicts (p50 / p95)\n")
    w(
        "| N | reference | ours (API) | ours (compat) | reference / API (p50) | reference / compat (p50) | discovers timed (ref / API / compat) | same answers as the reference (first 100) |"
    )
    w("|---|---|---|---|---|---|---|---|")
    for n, r in results.items():
        cells = [f"{base.fmt_us(r[e]['p50'])} / {base.fmt_us(r[e]['p95'])}" for e in labels]
        ref = r["reference"]["p50"]
        w(
            f"| {n:,} | {' | '.join(cells)} | **{base.fmt_ratio(ref, r['ours (API)']['p50'])}** | "
            f"**{base.fmt_ratio(ref, r['ours (compat)']['p50'])}** | "
            f"{' / '.join(str(r[e]['discovers']) for e in labels)} | "
            f"{r['ours (API)']['parity']}/{PARITY_QUERIES}, {r['ours (compat)']['parity']}/{PARITY_QUERIES} |"
        )
    w("\n#### Register one new tool, then one discover (median)\n")
    w(
        "| N | reference (index rebuild) | ours (API) | ours (compat) | reference / API | reference / compat | samples (ref / API / compat) |"
    )
    w("|---|---|---|---|---|---|---|")
    for n, r in results.items():
        ref = r["reference"]["inc"]
        w(
            f"| {n:,} | {' | '.join(base.fmt_us(r[e]['inc']) for e in labels)} | "
            f"**{base.fmt_ratio(ref, r['ours (API)']['inc'])}** | **{base.fmt_ratio(ref, r['ours (compat)']['inc'])}** | "
            f"{' / '.join(str(r[e]['inc_samples']) for e in labels)} |"
        )
    w("\n#### Build: register every tool and enable discovery (one build each)\n")
    w("| N | reference | ours (API) | ours (compat) | reference / API | reference / compat |")
    w("|---|---|---|---|---|---|")
    for n, r in results.items():
        ref = r["reference"]["build"]
        w(
            f"| {n:,} | {' | '.join(base.fmt_s(r[e]['build']) for e in labels)} | "
            f"**{base.fmt_ratio(ref, r['ours (API)']['build'])}** | **{base.fmt_ratio(ref, r['ours (compat)']['build'])}** |"
        )


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000")
    ap.add_argument("--out", help="also write the tables to this file")
    args = ap.parse_args()
    ensure_venv()
    import logging

    logging.disable(logging.CRITICAL)  # the reference logs a warning per empty answer
    warnings.simplefilter("ignore")
    sizes = [int(s) for s in args.sizes.split(",") if s]
    subprocess.run(["cargo", "build", "--release", "--example", "bench_gen"], cwd=ROOT, check=True)
    missing = [n for n in sizes if not (DATA / f"catalog_{n}.json").exists()]
    if missing:
        subprocess.run(
            [str(ROOT / "target/release/examples/bench_gen"), str(DATA), *map(str, missing)], check=True
        )
    started = time.time()
    machine = base.machine()
    results = {}
    for n in sizes:
        print(f"  N={n} ...", file=sys.stderr, flush=True)
        # The reference is slow at 10k (8 ms a discover, 1.5 s a register-one): fewer samples.
        ref_queries, ref_inc = (500, 5) if n >= 10_000 else (500, 20)
        results[n] = measure(n, ours_passes=5, ref_queries=ref_queries, ref_inc=ref_inc, ours_inc=20)
    out = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))} on {machine}; command: "
        f"`python3 bench/python_compare.py --sizes {args.sizes}` ({(time.time() - started) / 60:.1f} min).\n"
    ]
    report(results, out)
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)


if __name__ == "__main__":
    main()
