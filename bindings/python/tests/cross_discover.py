#!/usr/bin/env python3
"""Answers one query over a catalog through the Python binding and prints the answer as JSON.

Usage: cross_discover.py CATALOG.json QUERY TOP_K [PROFILE]  (scripts/cross_language.py runs it)

Like tests/cross/discover.c: register the whole catalog, a Discoverer with the profile, one
discover. The answer is what a Python caller gets (decoded dicts), encoded again with json, which
round-trips every float exactly.
"""

import json
import sys

import toolregistry_rs as tr


def main(argv):
    if len(argv) < 4:
        print("usage: cross_discover.py CATALOG.json QUERY TOP_K [PROFILE]", file=sys.stderr)
        return 2
    with open(argv[1], "rb") as f:
        catalog = f.read()
    profile = argv[4] if len(argv) > 4 else "reference"
    try:
        with tr.Registry() as registry:
            registry.register(catalog)
            with registry.discoverer(profile=profile) as d:
                answer = d.discover(argv[2], int(argv[3]))
    except tr.ToolRegistryError as e:
        print(f"cross_discover.py: {e.status_name}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
