#!/usr/bin/env python3
"""When words and meaning disagree on a query's best tool, which of the two is right?

    cargo run --release --example fusion_dump -- ../shared/eval/SET MODEL_DIR OUT_DIR
    python3 bench/sides.py OUT_DIR [OUT_DIR ...]

Reads what `bench/fusion_dump.rs` wrote (the `enhanced` best hits per query, every tool's and
query's vector) and counts, over the queries whose two bests differ (the `enhanced` best against
the nearest tool by cosine), how often the words' best is a labelled tool, the meaning's, both
(a multi-tool query) or neither. A fusion's weight between the two sides only matters on these
queries; EVALUATION.md (issue 50) has the four public sets. Needs numpy (`pip install numpy`).
"""

import json
import sys
from pathlib import Path

try:
    import numpy as np
except ImportError:
    sys.exit("bench/sides.py needs numpy: pip install numpy")


# (words' best is labelled, meaning's best is labelled) -> its count; neither otherwise.
VERDICT = {(True, True): "both", (True, False): "words", (False, True): "meaning"}


def sides(out: Path) -> dict:
    names = json.loads((out / "tools.json").read_text())
    queries = [json.loads(line) for line in (out / "lexical.jsonl").open()]
    tools = np.fromfile(out / "tools.f32", dtype="<f4").reshape(len(names), -1)
    vectors = np.fromfile(out / "queries.f32", dtype="<f4").reshape(len(queries), -1)
    nearest = (vectors @ tools.T).argmax(axis=1)
    counts = {"queries": len(queries), "differ": 0, "words": 0, "meaning": 0, "both": 0, "neither": 0}
    for q, near in zip(queries, nearest):
        words = q["hits"][0][0] if q["hits"] else None
        meaning = names[near]
        if words == meaning:
            continue
        counts["differ"] += 1
        relevant = set(q["relevant"])
        counts[VERDICT.get((words in relevant, meaning in relevant), "neither")] += 1
    return counts


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    print("set | queries | bests differ | words right | meaning right | both | neither")
    for arg in sys.argv[1:]:
        c = sides(Path(arg))
        print(
            f"{Path(arg).name} | {c['queries']} | {c['differ']} | {c['words']} | "
            f"{c['meaning']} | {c['both']} | {c['neither']}"
        )


if __name__ == "__main__":
    main()
