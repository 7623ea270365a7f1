#!/usr/bin/env python3
"""How much of a discover through ctypes is the host's cache state, not the engine.

Times `discover_tools` through the C ABI (ctypes, JSON in and out) on one synthetic catalog in
three ways: each query once (what `bench/compare.py` reports), the same query ten times in a row
(the tenth call, with the engine's code and data warm in the caches), and a ctypes call that does
nothing (`tr_string_free(NULL)`), so the three can be compared side by side in one run.

    cargo build --release --lib && cargo run --release --example bench_gen -- build/bench
    python3 bench/ctypes_warmth.py build/bench/catalog_1000.json build/bench/queries_1000.json [enhanced|reference]
"""
import ctypes
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main():
    catalog, queries = sys.argv[1], sys.argv[2]
    profile = sys.argv[3] if len(sys.argv) > 3 else "enhanced"
    lib = ctypes.CDLL(str(ROOT / "target" / "release" / "libtoolregistry.so"))
    P, S, PP = ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)
    lib.tr_registry_new.argtypes = [S, PP, PP]
    lib.tr_registry_register.argtypes = [P, S, PP, PP]
    lib.tr_registry_enable_discovery.argtypes = [P, S, PP]
    lib.tr_registry_call.argtypes = [P, S, S, PP, PP]
    lib.tr_string_free.argtypes = [P]
    reg, out, err = P(), P(), P()
    for status in (
        lib.tr_registry_new(None, ctypes.byref(reg), ctypes.byref(err)),
        lib.tr_registry_register(reg, Path(catalog).read_bytes(), ctypes.byref(out), ctypes.byref(err)),
        lib.tr_registry_enable_discovery(reg, json.dumps({"profile": profile}).encode(), ctypes.byref(err)),
    ):
        if status != 0:
            sys.exit(f"status {status}: {ctypes.string_at(err.value).decode()}")
    lib.tr_string_free(out)
    args = [json.dumps({"query": q, "top_k": 10}).encode() for q in json.loads(Path(queries).read_text())]
    call, free, clock = lib.tr_registry_call, lib.tr_string_free, time.perf_counter_ns
    o, e = P(), P()
    bo, be = ctypes.byref(o), ctypes.byref(e)
    for a in args:  # every answer rendered once, as compare.py's warm-up does
        if call(reg, b"discover_tools", a, bo, be) != 0:
            sys.exit(f"discover failed: {ctypes.string_at(e.value).decode()}")
        free(o)
    first, tenth, noop = [], [], []
    for a in args:
        for i in range(10):
            t = clock()
            call(reg, b"discover_tools", a, bo, be)
            d = clock() - t
            free(o)
            if i == 0:
                first.append(d)
            elif i == 9:
                tenth.append(d)
        t = clock()
        free(None)
        noop.append(clock() - t)
    p50 = lambda xs: sorted(xs)[len(xs) // 2] / 1000
    print(json.dumps({
        "catalog": catalog, "profile": profile, "queries": len(args),
        "each_query_once_p50_us": round(p50(first), 2),
        "tenth_repeat_p50_us": round(p50(tenth), 2),
        "noop_ctypes_call_p50_us": round(p50(noop), 2),
    }))


if __name__ == "__main__":
    main()
