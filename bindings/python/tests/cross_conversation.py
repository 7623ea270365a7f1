#!/usr/bin/env python3
"""Runs the conversation conformance corpus through the Python binding and prints one line per case:
`<case>\t<messages JSON>\t<loaded JSON>` (the bytes the library answered), sorted by case name.

Each case gets a fresh registry built from the corpus' fixture.json and a conversation with the
case's options.json; the registry handle is closed before the calls run (the conversation outlives
it), then the case's calls.json is executed and the loaded tools are read.

Usage: cross_conversation.py CORPUS_DIR [--steps]  (e.g. tests/conformance/conversation);
``--steps`` runs the calls through ``Conversation.aexecute`` (the two steps) instead of execute.
"""

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import test_conversation  # noqa: E402  (the fixture registry and the case runner)


async def run_steps(case, corpus):
    """run_case through aexecute: a fresh registry, closed before the calls run."""
    r = test_conversation.fixture_registry(corpus)
    with r.conversation((case / "options.json").read_bytes()) as c:
        r.close()
        messages = await c.aexecute_json((case / "calls.json").read_bytes())
        return messages, c.loaded_json()


def main(argv):
    steps = argv[2:] == ["--steps"]
    if len(argv) != 2 and not steps:
        sys.stderr.write("usage: cross_conversation.py CORPUS_DIR [--steps]\n")
        return 2
    corpus = Path(argv[1])
    cases = test_conversation.cases(corpus)
    if not cases:
        sys.stderr.write(f"no cases under {corpus}\n")
        return 1
    for case in cases:
        if steps:
            messages, loaded = asyncio.run(run_steps(case, corpus))
        else:
            messages, loaded, _tools = test_conversation.run_case(case, corpus)
        sys.stdout.write(f"{case.name}\t{messages.decode()}\t{loaded.decode()}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
