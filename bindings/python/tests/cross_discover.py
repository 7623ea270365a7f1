#!/usr/bin/env python3
"""Answers one query over a catalog through the Python binding and prints the answer as JSON.

Usage: cross_discover.py CATALOG.json QUERY TOP_K [PROFILE [USAGE]]  (scripts/cross_language.py runs it)
With PROFILE "hybrid" the registry gets the fake embedder every language implements alike. USAGE
holds tasks recorded before the query, one JSON array of tool names a line.

Like tests/cross/discover.c: register the whole catalog, a Discoverer with the profile, one
discover. The answer is what a Python caller gets (decoded dicts), encoded again with json, which
round-trips every float exactly.
"""

import json
import re
import sys

import toolregistry_rs as tr


def fnv1a(data):
    h = 0x811C9DC5
    for b in data:
        h = ((h ^ b) * 0x01000193) & 0xFFFFFFFF
    return h


def fake_embed(texts):
    """The fake embedder every language implements alike (see tests/cross/discover.c)."""
    out = []
    for text in texts:
        v = [0.0] * 64
        words = [w for w in re.split(r"[^A-Za-z0-9]+", text) if w]
        for w in words:
            v[fnv1a(w.lower().encode()) % 64] += 1.0
        if not words:
            v[0] = 1.0
        out.append(v)
    return out


def main(argv):
    if len(argv) < 4:
        print("usage: cross_discover.py CATALOG.json QUERY TOP_K [PROFILE [USAGE]]", file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        catalog = f.read()
    profile = argv[4] if len(argv) > 4 else "reference"
    try:
        with tr.Registry() as registry:
            registry.register(catalog)
            if profile == "hybrid":
                registry.set_embedder(fake_embed, 64)
                if not registry.wait_embeddings(120):
                    raise SystemExit("cross_discover.py: embedding timed out")
            for task in (argv[5] if len(argv) > 5 else "").split("\n"):
                if task:
                    registry.record_usage(json.loads(task))
            with registry.discoverer(profile=profile) as d:
                answer = d.discover(argv[2], int(argv[3]))
    except tr.ToolRegistryError as e:
        print(f"cross_discover.py: {e.status_name}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
