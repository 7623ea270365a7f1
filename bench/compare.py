#!/usr/bin/env python3
"""Side-by-side benchmark: the reference engine, tantivy and this library, on the same workload.

    python3 bench/compare.py [--sizes 100,1000,10000,100000] [--no-bfcl] [--out FILE]

Creates its own virtualenv (bench/.venv) with toolregistry==0.19.0 (the reference) and tantivy from
PyPI, builds the library and the workload generator (`cargo build --release`), writes the generated
catalogs to build/bench/ (`bench_gen`, fixed seed), then measures, for each catalog:

  - discover latency p50/p95/p99 with top_k 10, after a warm-up pass;
  - build: register every tool and enable discovery (for tantivy: add, commit, reload);
  - register one new tool, then one discover; unregister it, then one discover (medians);
  - peak RSS (VmHWM) after build;
  - discover throughput with 1 and 2 threads.

Each engine runs in its own worker process (so peak RSS is its own), one after another in this run.

What a discover timing covers: each engine's `prepare(q)` turns a query string into the engine's
argument once, before any timing, and only `run(prepared)` is timed (latency and throughput), so the
harness's own Python work is not charged to an engine. For this library that pre-work is
`json.dumps({"query": q, "top_k": 10}).encode()` (≈ 3.4 µs per query in CPython on this machine,
17–22% of a 1k discover as first measured, when it sat inside the timed region); the timed call
still passes those JSON bytes through `tr_registry_call` and copies the JSON answer out with
`ctypes.string_at` and frees it. For tantivy it is the query sanitising (`\w+` words joined by
spaces); `parse_query` and the search stay timed. The reference takes the string as is. In the
change measures (register one / unregister one, then discover), this library's JSON texts (the
tool, its name, the query's arguments) are also made before the clock starts: `json.dumps` of one
tool takes 12-25 µs as one cold call, as long as a 1k discover, and was timed until 2026-12-01.
The reference's `Tool` object and tantivy's document are still built inside the timing, as part
of their registration.
This library is measured with each ranking profile (`ours-reference`, `ours-enhanced`; the
`discover_tools` built-in enabled with `{"profile": P}`) through its C ABI via ctypes on
target/release/libtoolregistry.so: JSON
arguments in (`tr_registry_call(r, "discover_tools", {"query", "top_k": 10})`), JSON text out. Its peak
RSS is also measured by the native program `bench_mem`, without a Python interpreter around it.

Prints the targets of issue 13 with met / missed for both profiles, a growth table (discover p50,
register-one and peak RSS against N, with fitted exponents), then one markdown table per measure, with ratios (other engine / this library: above 1 means this
library is faster or smaller). Slow engines get fewer samples at large N; the tables say how many.
"""

import argparse
import ctypes
import json
import math
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VENV = ROOT / "bench" / ".venv"
DATA = ROOT / "build" / "bench"
BFCL = ROOT.parent / "shared" / "eval" / "bfcl"
PACKAGES = ["toolregistry==0.19.0", "tantivy==0.27.0"]
FIELDS = ["name", "description", "tags", "params", "search_hint"]
BOOSTS = {"name": 3.0, "description": 2.0, "tags": 1.5, "params": 1.0, "search_hint": 2.0}
ENGINES = ["reference", "tantivy", "ours-reference", "ours-enhanced"]
PROFILES = ["reference", "enhanced"]


# ---------------------------------------------------------------------------------------------
# setup (parent process)


def ensure_venv():
    """Re-executes this script inside bench/.venv, creating it first if needed."""
    python = VENV / "bin" / "python"
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *PACKAGES], check=True)
    os.execv(str(python), [str(python), *sys.argv])


def build_and_generate(sizes):
    subprocess.run(
        ["cargo", "build", "--release", "--lib", "--example", "bench_gen", "--example", "bench_mem",
         "--example", "bench_change"],
        cwd=ROOT,
        check=True,
    )
    missing = [n for n in sizes if not (DATA / f"catalog_{n}.json").exists()]
    if missing:
        subprocess.run(
            [str(ROOT / "target/release/examples/bench_gen"), str(DATA), *map(str, missing)],
            cwd=ROOT,
            check=True,
        )


def machine():
    cpu = "?"
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem_kb = int(re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text()).group(1))
    kernel = os.uname().release
    load = " / ".join(Path("/proc/loadavg").read_text().split()[:3])
    return (f"{os.cpu_count()} CPUs ({cpu}), {mem_kb / 1048576:.1f} GiB RAM, Linux {kernel}, "
            f"Python {sys.version.split()[0]}, load average {load}")


# ---------------------------------------------------------------------------------------------
# measurement helpers (worker process)


def status_bytes(key):
    text = Path("/proc/self/status").read_text()
    return int(re.search(rf"{key}:\s+(\d+) kB", text).group(1)) * 1024


def percentile(sorted_xs, p):
    return sorted_xs[round(p / 100 * (len(sorted_xs) - 1))]


def latencies(run, queries, passes, warmup):
    for q in queries[:warmup]:
        run(q)
    out = []
    for _ in range(passes):
        for q in queries:
            t = time.perf_counter()
            run(q)
            out.append((time.perf_counter() - t) * 1e6)
    out.sort()
    return out


def throughput(run, queries, threads, seconds):
    """Discovers per second with `threads` threads, each cycling through the queries until the deadline."""
    counts = [0] * threads
    deadline = time.perf_counter() + seconds

    def worker(k):
        i = k * 97
        while time.perf_counter() < deadline:
            run(queries[i % len(queries)])
            i += 1
            counts[k] += 1

    t = time.perf_counter()
    ts = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for th in ts:
        th.start()
    for th in ts:
        th.join()
    return sum(counts) / (time.perf_counter() - t)


def registered_name(tool):
    ns = tool.get("namespace")
    return f"{ns}-{tool['name']}" if ns else tool["name"]


def tool_parts(tool):
    """(name, description, parameters, namespace, defer, tags, search_hint) of a flat or OpenAI tool."""
    d = tool.get("function", tool)
    meta = tool.get("metadata") or {}
    params = d.get("parameters") or d.get("input_schema") or d.get("inputSchema") or {"type": "object", "properties": {}}
    return (
        d["name"],
        d.get("description") or "",
        params,
        tool.get("namespace"),
        bool(meta.get("defer", False)),
        list(meta.get("tags") or []),
        meta.get("search_hint") or "",
    )


# ---------------------------------------------------------------------------------------------
# engines: each has build(), prepare(q) (untimed pre-work), run(prepared) (one timed discover),
# discover(q) = run(prepare(q)), register_one(tool, query) -> (seconds to register it and
# discover, seconds to unregister it and discover)


class Reference:
    """toolregistry 0.19.0: ToolRegistry + enable_tool_discovery() + ToolDiscoveryTool.discover()."""

    def __init__(self, catalog_text):
        from toolregistry import ToolRegistry  # noqa: F401  (import cost outside the timings)

        self.catalog = json.loads(catalog_text)

    def _tool(self, tool):
        from toolregistry.tool import Tool, ToolMetadata, ToolTag

        name, desc, params, ns, defer, tags, hint = tool_parts(tool)
        predefined = {t.value for t in ToolTag}
        meta = ToolMetadata(
            defer=defer,
            tags={ToolTag(t) for t in tags if t in predefined},
            custom_tags={t for t in tags if t not in predefined},
            search_hint=hint,
        )
        return Tool(name=name, description=desc, parameters=params, callable=lambda **kw: None, metadata=meta), ns

    def build(self):
        import warnings

        from toolregistry import ToolRegistry

        warnings.simplefilter("ignore")
        self.reg = ToolRegistry()
        for t in self.catalog:
            tool, ns = self._tool(t)
            self.reg.register(tool, namespace=ns)
        self.disc = self.reg.enable_tool_discovery()
        if self.disc._index_dirty:
            self.disc.rebuild_index()

    def prepare(self, q):
        return q

    def run(self, q):
        return self.disc.discover(q, top_k=10)

    def discover(self, q):
        return self.run(self.prepare(q))

    def register_one(self, tool, query):
        t = time.perf_counter()
        obj, ns = self._tool(tool)
        self.reg.register(obj, namespace=ns)
        self.discover(query)
        elapsed = time.perf_counter() - t
        t = time.perf_counter()
        self.reg._unregister(registered_name(tool))
        self.discover(query)
        return elapsed, time.perf_counter() - t


class Tantivy:
    """tantivy (Python binding): five text fields, query-time boosts as the reference's weights."""

    def __init__(self, catalog_text):
        import tantivy  # noqa: F401

        self.catalog = json.loads(catalog_text)

    @staticmethod
    def _doc(tool):
        import tantivy

        name, desc, params, ns, defer, tags, hint = tool_parts(tool)
        full = f"{ns}-{name}" if ns else name
        props = params.get("properties") or {} if isinstance(params, dict) else {}
        return tantivy.Document(
            id=full,
            name=re.sub(r"[_-]+", " ", full),
            description=desc,
            tags=" ".join(tags),
            params=" ".join(props.keys()),
            search_hint=hint,
        )

    def build(self):
        import tantivy

        sb = tantivy.SchemaBuilder()
        sb.add_text_field("id", stored=True, tokenizer_name="raw")
        for f in FIELDS:
            sb.add_text_field(f, stored=False)
        self.index = tantivy.Index(sb.build())
        self.writer = self.index.writer(heap_size=50_000_000, num_threads=1)
        for t in self.catalog:
            self.writer.add_document(self._doc(t))
        self.writer.commit()
        self.index.reload()
        self.searcher = self.index.searcher()

    def prepare(self, q):
        return " ".join(re.findall(r"\w+", q))

    def discover(self, q):
        return self.run(self.prepare(q))

    def run(self, text):
        if not text:
            return []
        query = self.index.parse_query(text, FIELDS, field_boosts=BOOSTS)
        hits = self.searcher.search(query, 10).hits
        return [self.searcher.doc(addr)["id"][0] for _, addr in hits]

    def register_one(self, tool, query):
        t = time.perf_counter()
        self.writer.add_document(self._doc(tool))
        self.writer.commit()
        self.index.reload()
        self.searcher = self.index.searcher()
        self.discover(query)
        elapsed = time.perf_counter() - t
        t = time.perf_counter()
        self.writer.delete_documents_by_term("id", registered_name(tool))
        self.writer.commit()
        self.index.reload()
        self.searcher = self.index.searcher()
        self.discover(query)
        return elapsed, time.perf_counter() - t


class Ours:
    """This library through its C ABI (ctypes): JSON in, JSON text out."""

    def __init__(self, catalog_text, profile="reference"):
        self.options = json.dumps({"profile": profile}).encode()
        lib = ctypes.CDLL(str(ROOT / "target" / "release" / "libtoolregistry.so"))
        P, S = ctypes.c_void_p, ctypes.c_char_p
        PP = ctypes.POINTER(ctypes.c_void_p)
        lib.tr_registry_new.argtypes = [S, PP, PP]
        lib.tr_registry_register.argtypes = [P, S, PP, PP]
        lib.tr_registry_unregister.argtypes = [P, S, PP]
        lib.tr_registry_enable_discovery.argtypes = [P, S, PP]
        lib.tr_registry_call.argtypes = [P, S, S, PP, PP]
        lib.tr_registry_free.argtypes = [P]
        lib.tr_string_free.argtypes = [P]
        for f in ("tr_registry_new", "tr_registry_register", "tr_registry_unregister",
                  "tr_registry_enable_discovery", "tr_registry_call"):
            getattr(lib, f).restype = ctypes.c_int32
        self.lib = lib
        self.catalog = catalog_text.encode()
        self.reg = None

    def _check(self, status, err):
        if status != 0:
            msg = ctypes.string_at(err.value).decode() if err.value else ""
            self.lib.tr_string_free(err)
            raise RuntimeError(f"status {status}: {msg}")

    def build(self):
        lib, err, out = self.lib, ctypes.c_void_p(), ctypes.c_void_p()
        if self.reg is not None:
            lib.tr_registry_free(self.reg)
        reg = ctypes.c_void_p()
        self._check(lib.tr_registry_new(None, ctypes.byref(reg), ctypes.byref(err)), err)
        self._check(lib.tr_registry_register(reg, self.catalog, ctypes.byref(out), ctypes.byref(err)), err)
        lib.tr_string_free(out)
        self._check(lib.tr_registry_enable_discovery(reg, self.options, ctypes.byref(err)), err)
        self.reg = reg

    def prepare(self, q):
        return json.dumps({"query": q, "top_k": 10}).encode()

    def discover(self, q):
        return self.run(self.prepare(q))

    def run(self, args):
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        self._check(self.lib.tr_registry_call(self.reg, b"discover_tools", args, ctypes.byref(out), ctypes.byref(err)), err)
        answer = ctypes.string_at(out.value)
        self.lib.tr_string_free(out)
        return answer

    def register_one(self, tool, query):
        out, err = ctypes.c_void_p(), ctypes.c_void_p()
        # The JSON texts are made before the clock starts, as `prepare` makes a discover's: a
        # host hands the library JSON it has, and Python's `json.dumps` of a tool (12-25 µs cold)
        # would otherwise be timed as part of one change.
        text, name, args = json.dumps(tool).encode(), registered_name(tool).encode(), self.prepare(query)
        t = time.perf_counter()
        self._check(self.lib.tr_registry_register(self.reg, text, ctypes.byref(out), ctypes.byref(err)), err)
        self.lib.tr_string_free(out)
        self.run(args)
        elapsed = time.perf_counter() - t
        t = time.perf_counter()
        self._check(self.lib.tr_registry_unregister(self.reg, name, ctypes.byref(err)), err)
        self.run(args)
        return elapsed, time.perf_counter() - t


def sampling(engine, n):
    """(queries timed, passes, register-one samples, builds) per engine and size: the slow engines get fewer."""
    if engine == "reference":
        if n >= 100_000:
            return 100, 1, 3, 1
        if n >= 10_000:
            return 500, 1, 5, 1
        return 500, 1, 20, 3
    passes = 3 if n >= 10_000 else 5
    return 500, passes, 20, 3 if n >= 100_000 else 5


PARITY_QUERIES = 100


def check_parity(reference, catalog_text, queries):
    """[identical, compared]: queries whose answer (names in order, scores to 1e-9) is the reference's."""
    ours = Ours(catalog_text)
    ours.build()
    same = 0
    for q in queries:
        want = reference.discover(q)
        got = json.loads(ours.discover(q))
        if [h["name"] for h in want] == [h["name"] for h in got] and all(
            math.isclose(a["score"], b["score"], rel_tol=1e-9) for a, b in zip(want, got)
        ):
            same += 1
        else:
            print(f"parity: {q!r}: reference {[h['name'] for h in want]} ours {[h['name'] for h in got]}", file=sys.stderr)
    return [same, len(queries)]


def worker(args):
    import logging

    logging.disable(logging.CRITICAL)  # the reference logs a warning per empty answer
    catalog_text = Path(args.catalog).read_text()
    queries = json.loads(Path(args.queries).read_text())
    extras = json.loads(Path(args.extras).read_text())
    n = args.n
    nq, passes, ninc, nbuild = sampling(args.worker, n)
    baseline = status_bytes("VmRSS")
    if args.worker.startswith("ours-"):
        eng = Ours(catalog_text, args.worker.removeprefix("ours-"))
    else:
        eng = {"reference": Reference, "tantivy": Tantivy}[args.worker](catalog_text)
    del catalog_text
    loaded = status_bytes("VmRSS")
    builds = []
    peak = None
    for i in range(nbuild):
        t = time.perf_counter()
        eng.build()
        builds.append(time.perf_counter() - t)
        if i == 0:
            peak = status_bytes("VmHWM")
    qs = queries[:nq]
    prepared = [eng.prepare(q) for q in queries]
    lat = latencies(eng.run, prepared[:nq], passes, warmup=min(len(qs), 50 if args.worker == "reference" else len(qs)))
    changes = [eng.register_one(e["tool"], e["query"]) for e in extras[:ninc]]
    inc = [c[0] for c in changes]
    dec = [c[1] for c in changes]
    eng.discover(queries[0])  # the reference rebuilds its index here after the last unregister
    tp_seconds = 3.0 if args.worker == "reference" and n >= 10_000 else 1.0
    tp1 = throughput(eng.run, prepared, 1, tp_seconds)
    tp2 = throughput(eng.run, prepared, 2, tp_seconds)
    parity = None
    if args.worker == "reference":
        parity = check_parity(eng, Path(args.catalog).read_text(), queries[:PARITY_QUERIES])
    print(json.dumps({
        "engine": args.worker, "n": n, "queries": len(qs), "passes": passes, "parity": parity,
        "p50": percentile(lat, 50), "p95": percentile(lat, 95), "p99": percentile(lat, 99),
        "build_s": statistics.median(builds), "builds": nbuild,
        "inc_us": statistics.median(inc) * 1e6, "inc_samples": len(inc),
        "dec_us": statistics.median(dec) * 1e6,
        "baseline_rss": baseline, "loaded_rss": loaded, "peak_rss": peak,
        "tp1": tp1, "tp2": tp2,
    }))


# ---------------------------------------------------------------------------------------------
# report (parent process)


def run_worker(engine, label, n, catalog, queries, extras):
    cmd = [sys.executable, __file__, "--worker", engine, "--n", str(n),
           "--catalog", str(catalog), "--queries", str(queries), "--extras", str(extras)]
    print(f"  {engine} N={label} ...", file=sys.stderr, flush=True)
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, text=True, cwd=ROOT).stdout
    return json.loads(out.strip().splitlines()[-1])


def native_mem(catalog, profile):
    out = subprocess.run([str(ROOT / "target/release/examples/bench_mem"), str(catalog), "--profile", profile],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def default_profile(catalog):
    """The profile `DiscoveryOptions::default()` picks (bench_mem reports it when given none)."""
    return json.loads(subprocess.run([str(ROOT / "target/release/examples/bench_mem"), str(catalog)],
                                     check=True, capture_output=True, text=True).stdout)["profile"]


def fmt_us(x):
    return f"{x:,.0f} µs" if x >= 100 else f"{x:.1f} µs"


def fmt_ratio(other, ours):
    return f"{other / ours:,.0f}×" if other / ours >= 10 else f"{other / ours:.2f}×"


def fmt_s(s):
    return f"{s:.2f} s" if s >= 1 else f"{s * 1e3:,.1f} ms"


def exponent(points):
    """Least-squares slope of log(latency) against log(N)."""
    xs = [math.log(n) for n, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


OURS = ["ours-reference", "ours-enhanced"]


def verdict(ok):
    return "met" if ok else "**missed**"


def targets(results, mems, labels, default, w):
    """Issue 13's targets, with met / missed for both profiles."""
    def r(engine, label):
        return results[(engine, label)]

    w("### Targets (issue 13; C ABI through ctypes, JSON in and out)\n")
    w("| measure | N | target | ours, reference profile | ours, enhanced profile |")
    w("|---|---|---|---|---|")
    p50_cap = {"1000": 6, "10000": 15, "100000": 60}
    for L in labels:
        if L in p50_cap:
            cap = p50_cap[L]
            cells = []
            for e in OURS:
                o = r(e, L)
                text = f"{fmt_us(o['p50'])}: {verdict(o['p50'] <= cap)}"
                if L == "10000":
                    ratio = r("reference", L)["p50"] / o["p50"]
                    text += f"; {ratio:,.0f}× the reference: {verdict(ratio >= 400)}"
                cells.append(text)
            extra = ", and ≥ 400× the reference" if L == "10000" else ""
            w(f"| discover p50 | {L} | ≤ {cap} µs{extra} | {cells[0]} | {cells[1]} |")
    for L, cap, ratio_target in (("10000", 0.030, 50), ("100000", 0.400, None)):
        if L not in labels:
            continue
        cells = []
        for e in OURS:
            o = r(e, L)
            text = f"{fmt_s(o['build_s'])}: {verdict(o['build_s'] <= cap)}"
            if ratio_target:
                ratio = r("reference", L)["build_s"] / o["build_s"]
                text += f"; {ratio:,.0f}× the reference: {verdict(ratio >= ratio_target)}"
            cells.append(text)
        extra = f", and ≥ {ratio_target}× the reference" if ratio_target else ""
        w(f"| build (register all + enable discovery) | {L} | ≤ {cap * 1e3:.0f} ms{extra} | {cells[0]} | {cells[1]} |")
    for key, what in (("inc_us", "register one tool, then discover"), ("dec_us", "unregister one tool, then discover")):
        for L in labels:
            if L not in p50_cap:
                continue
            cells = []
            for e in OURS:
                o = r(e, L)
                ratio = o[key] / o["p50"]
                cells.append(f"{fmt_us(o[key])} = {ratio:.2f}× p50: {verdict(ratio <= 2)}")
            w(f"| {what} | {L} | ≤ 2× one discover (p50) | {cells[0]} | {cells[1]} |")
    if "100000" in labels:
        cells = []
        for prof in PROFILES:
            m = mems[(prof, "100000")]
            cap = 2.5 * m["json_bytes"] + 20e6
            mark = " (default)" if prof == default else ""
            cells.append(f"{m['peak_rss'] / 1e6:,.1f} MB of {cap / 1e6:,.1f} MB{mark}: {verdict(m['peak_rss'] <= cap)}")
        w(f"| peak RSS holding the catalog (native `bench_mem`) | 100000 | ≤ 2.5 × catalog JSON + 20 MB with the default profile ({default}) | {cells[0]} | {cells[1]} |")
    w("")


def growth(results, mems, labels, w):
    """Discover p50, register-one and peak RSS against N, with least-squares exponents."""
    numeric = [L for L in labels if L.isdigit() and int(L) >= 1000]
    if len(numeric) < 2:
        return
    w("### Growth with N (least-squares exponent k of y ∝ N^k over N = " + ", ".join(numeric) + ")\n")
    w("| engine | measure | " + " | ".join(f"N = {L}" for L in numeric) + " | k |")
    w("|---|---|" + "---|" * len(numeric) + "---|")
    for e in ENGINES:
        for key, what, fmt in (("p50", "discover p50", fmt_us), ("inc_us", "register one + discover", fmt_us),
                               ("dec_us", "unregister one + discover", fmt_us)):
            ys = [results[(e, L)][key] for L in numeric]
            k = exponent([(int(L), y) for L, y in zip(numeric, ys)])
            w(f"| {e} | {what} | " + " | ".join(fmt(y) for y in ys) + f" | {k:.2f} |")
        ys = [results[(e, L)]["peak_rss"] for L in numeric]
        k = exponent([(int(L), y) for L, y in zip(numeric, ys)])
        w(f"| {e} | peak RSS (worker process) | " + " | ".join(f"{y / 1e6:,.1f} MB" for y in ys) + f" | {k:.2f} |")
    for prof in PROFILES:
        ys = [mems[(prof, L)]["peak_rss"] for L in numeric]
        k = exponent([(int(L), y) for L, y in zip(numeric, ys)])
        w(f"| ours-{prof} | peak RSS (native `bench_mem`) | " + " | ".join(f"{y / 1e6:,.1f} MB" for y in ys) + f" | {k:.2f} |")
    w("")


def report(results, mems, labels, out, default):
    w = out.append
    def r(engine, label):
        return results[(engine, label)]

    targets(results, mems, labels, default, w)
    growth(results, mems, labels, w)
    w("### Discover latency, top_k 10 (p50 / p95 / p99; ours through the C ABI with JSON in and out)\n")
    w("| N | reference | tantivy | ours, reference | ours, enhanced | reference / ours (p50, ref. / enh.) | tantivy / ours (p50, ref. / enh.) | queries timed (ref / tantivy / each ours) |")
    w("|---|---|---|---|---|---|---|---|")
    for L in labels:
        a, t, o, h = r("reference", L), r("tantivy", L), r("ours-reference", L), r("ours-enhanced", L)
        cell = lambda x: f"{fmt_us(x['p50'])} / {fmt_us(x['p95'])} / {fmt_us(x['p99'])}"
        w(f"| {L} | {cell(a)} | {cell(t)} | {cell(o)} | {cell(h)} | **{fmt_ratio(a['p50'], o['p50'])}** / **{fmt_ratio(a['p50'], h['p50'])}** | "
          f"**{fmt_ratio(t['p50'], o['p50'])}** / **{fmt_ratio(t['p50'], h['p50'])}** | "
          f"{a['queries'] * a['passes']} / {t['queries'] * t['passes']} / {o['queries'] * o['passes']} |")
    w("")
    w("Same answers as the reference (ours with the reference profile; names in order, scores to 1e-9), first "
      f"{PARITY_QUERIES} queries of each catalog: "
      + ", ".join(f"{L}: {r('reference', L)['parity'][0]}/{r('reference', L)['parity'][1]}" for L in labels) + ".")
    w("\n### Build: register every tool and enable discovery (median)\n")
    w("| N | reference | tantivy | ours, reference | ours, enhanced | reference / ours (ref. / enh.) | tantivy / ours (ref. / enh.) |")
    w("|---|---|---|---|---|---|---|")
    for L in labels:
        a, t, o, h = r("reference", L), r("tantivy", L), r("ours-reference", L), r("ours-enhanced", L)
        w(f"| {L} | {fmt_s(a['build_s'])} | {fmt_s(t['build_s'])} | {fmt_s(o['build_s'])} | {fmt_s(h['build_s'])} | "
          f"**{fmt_ratio(a['build_s'], o['build_s'])}** / **{fmt_ratio(a['build_s'], h['build_s'])}** | "
          f"**{fmt_ratio(t['build_s'], o['build_s'])}** / **{fmt_ratio(t['build_s'], h['build_s'])}** |")
    w("\n### One change, then one discover (median): register a new tool / unregister it\n")
    w("| N | reference (index rebuild) | tantivy (commit + reload) | ours, reference | ours, enhanced | samples (ref / tantivy / each ours) |")
    w("|---|---|---|---|---|---|")
    for L in labels:
        a, t, o, h = r("reference", L), r("tantivy", L), r("ours-reference", L), r("ours-enhanced", L)
        pair = lambda x: f"{fmt_us(x['inc_us'])} / {fmt_us(x['dec_us'])}"
        w(f"| {L} | {pair(a)} | {pair(t)} | {pair(o)} | {pair(h)} | {a['inc_samples']} / {t['inc_samples']} / {o['inc_samples']} |")
    w("\n### Peak RSS after build (VmHWM, MB = 10^6 bytes)\n")
    w("Python workers include the interpreter and the loaded catalog (reference and tantivy hold it parsed, "
      "ours holds the JSON text); `bench_mem` is the native program with nothing else in it (it holds the catalog "
      "text while registering, as a host does).\n")
    w("| N | catalog JSON | reference | tantivy | ours, reference (ctypes / native) | ours, enhanced (ctypes / native) | target 2.5 × JSON + 20 MB |")
    w("|---|---|---|---|---|---|---|")
    mb = lambda b: f"{b / 1e6:,.1f}"
    for L in labels:
        a, t = r("reference", L), r("tantivy", L)
        m = mems[("reference", L)]
        target = 2.5 * m["json_bytes"] + 20e6
        cells = [f"{mb(r('ours-' + p, L)['peak_rss'])} / {mb(mems[(p, L)]['peak_rss'])}" for p in PROFILES]
        w(f"| {L} | {mb(m['json_bytes'])} | {mb(a['peak_rss'])} | {mb(t['peak_rss'])} | {cells[0]} | {cells[1]} | {mb(target)} |")
    w("\n### Discover throughput (discovers per second; threads share one registry)\n")
    w("| N | reference 1 / 2 threads | tantivy 1 / 2 threads | ours, reference 1 / 2 threads | ours, enhanced 1 / 2 threads |")
    w("|---|---|---|---|---|")
    for L in labels:
        cells = [f"{r(e, L)['tp1']:,.0f} / {r(e, L)['tp2']:,.0f}" for e in ENGINES]
        w(f"| {L} | " + " | ".join(cells) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="100,1000,10000,100000")
    ap.add_argument("--no-bfcl", action="store_true", help="skip the real BFCL catalog")
    ap.add_argument("--engines", default=",".join(ENGINES), help=argparse.SUPPRESS)
    ap.add_argument("--out", help="also write the tables to this file")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--catalog", help=argparse.SUPPRESS)
    ap.add_argument("--queries", help=argparse.SUPPRESS)
    ap.add_argument("--extras", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args)
        return
    ensure_venv()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    build_and_generate(sizes)
    cases = [(str(n), n, DATA / f"catalog_{n}.json", DATA / f"queries_{n}.json", DATA / f"extras_{n}.json") for n in sizes]
    if not args.no_bfcl and (BFCL / "catalog.json").exists():
        qfile = DATA / "queries_bfcl.json"
        qs = [json.loads(l)["query"] for l in (BFCL / "queries.jsonl").read_text().splitlines() if l.strip()]
        qfile.write_text(json.dumps(qs))
        if not (DATA / "extras_100.json").exists():
            subprocess.run([str(ROOT / "target/release/examples/bench_gen"), str(DATA), "100"], check=True)
        ncat = len(json.loads((BFCL / "catalog.json").read_text()))
        cases.append(("bfcl", ncat, BFCL / "catalog.json", qfile, DATA / "extras_100.json"))
    engines = args.engines.split(",")
    results, mems = {}, {}
    started = time.time()
    machine_at_start = machine()
    print(f"machine: {machine_at_start}", file=sys.stderr)
    for label, n, cat, qs, ex in cases:
        for e in engines:
            results[(e, label)] = run_worker(e, label, n, cat, qs, ex)
        for prof in PROFILES:
            mems[(prof, label)] = native_mem(cat, prof)
    out = [
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(started))} on {machine_at_start} (at the end: {machine()}); "
        f"command: `python3 bench/compare.py --sizes {args.sizes}{' --no-bfcl' if args.no_bfcl else ''}` "
        f"({(time.time() - started) / 60:.1f} min). `bfcl` is the real catalog (N = {cases[-1][1] if cases[-1][0] == 'bfcl' else '-'}, its first 500 queries timed).\n"
    ]
    report(results, mems, [c[0] for c in cases], out, default_profile(cases[0][2]))
    text = "\n".join(out) + "\n"
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    (DATA / "compare_results.json").write_text(json.dumps({f"{e}/{l}": v for (e, l), v in results.items()} | {f"mem-{p}/{l}": v for (p, l), v in mems.items()}, indent=1))


if __name__ == "__main__":
    main()
