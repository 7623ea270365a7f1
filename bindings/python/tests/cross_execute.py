#!/usr/bin/env python3
"""Runs the tool-call conformance corpus through the Python binding and prints one line per case:
`<provider>/<case>\t<messages JSON>` (the bytes the library answered), sorted by case.

Usage: cross_execute.py CORPUS_DIR [--steps]  (scripts/cross_language.py runs it, like
tests/cross/execute.c). ``--steps`` runs each case through ``aexecute`` (prepare, the scripted
hosts on an asyncio loop, finish) instead of execute.
"""

import asyncio
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_execute  # noqa: E402  (the fixture registry and scripted hosts)

import toolregistry_rs as tr  # noqa: E402


def main(argv):
    steps = argv[2:] == ["--steps"]
    corpus = Path(argv[1])
    test_execute.CORPUS = corpus
    cases = sorted(p.parent for p in corpus.glob("*/*/calls.json"))
    with test_execute.fixture_registry() as r:
        for case in cases:
            options = case / "options.json"
            if steps:
                kwargs = json.loads(options.read_text()) if options.exists() else {}
                answer = asyncio.run(r.aexecute_json((case / "calls.json").read_bytes(), **kwargs))
            else:
                answer = r._out(
                    tr._registry._lib.tr_registry_execute,
                    (case / "calls.json").read_bytes(),
                    json.dumps(json.loads(options.read_text())).encode() if options.exists() else None,
                )
            sys.stdout.write(f"{case.parent.name}/{case.name}\t{answer.decode()}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
