#!/usr/bin/env python3
"""Other ways to give the meaning side a tool, measured offline against today's single vector.

    cargo build --release --example fusion_dump
    target/release/examples/fusion_dump ../shared/eval/SET MODEL_DIR OUT_DIR     # each set
    python3 bench/views.py MODEL_DIR OUT_DIR [OUT_DIR ...]

For each OUT_DIR (what `bench/fusion_dump.rs` wrote), MRR@10 of a copy of hybrid's fusion (each
side's z-score over its own list, the mean of the two; without phrases and intents, and the
lexical side's distribution cut to its best 100, so the base sits within 0.01 of `toolregistry
eval`), and of the same fusion with the cosine replaced by:

- views: the cosine to the normalized mean of three vectors of the tool, its name read as words
  (`name_words.json`), the rest of its embedded text, and the whole text (the name and the rest
  embedded by `fusion_dump`'s second form);
- late: the mean of the cosine and a late-interaction score, each standardized over the catalog:
  every query token's best cosine among the tool's token vectors (the encoder's last layer,
  computed by scripts/embed/reference_encoder.py's numpy forward pass), averaged over the query's
  tokens, as BERTScore's recall does.

EVALUATION.md (the hybrid profile) has the four public sets. Needs numpy, scipy and tokenizers.
"""

import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

try:
    import numpy as np
    from scipy.special import erf
    from tokenizers import Tokenizer
except ImportError:
    sys.exit("bench/views.py needs numpy, scipy and tokenizers: pip install numpy scipy tokenizers")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts" / "embed"))
import reference_encoder as ref  # noqa: E402

CANDIDATES = 100
DUMP = os.environ.get("FUSION_DUMP", str(ROOT / "target" / "release" / "examples" / "fusion_dump"))


def mrr10(ranked, relevant) -> float:
    for i, name in enumerate(ranked[:10]):
        if name in relevant:
            return 1.0 / (i + 1)
    return 0.0


def fuse(hits, cos, names, slot):
    """Hybrid's z-score fusion of one query: `hits` the lexical best (name, score), `cos` every
    tool's cosine; a tool missing from a list takes its own score there, never above that list's
    lowest candidate (a tool sharing no word: the z-score of 0)."""
    lex = hits[:CANDIDATES]
    scores = np.array([s for _, s in lex] + [0.0])
    lmean, lsd = scores.mean(), scores.std() or 1.0
    lex_z = {n: (s - lmean) / lsd for n, s in lex}
    lex_none = min([(0.0 - lmean) / lsd] + list(lex_z.values()))
    best = np.argsort(-cos)[:CANDIDATES]
    smean, ssd = cos[best].mean(), cos[best].std() or 1.0
    sem_z = {names[i]: (cos[i] - smean) / ssd for i in best}
    sem_floor = min(sem_z.values())
    fused = []
    for n in set(lex_z) | set(sem_z):
        s = sem_z.get(n, min((cos[slot[n]] - smean) / ssd, sem_floor))
        fused.append(((lex_z.get(n, lex_none) + s) / 2, n))
    fused.sort(key=lambda f: (-f[0], slot[f[1]]))
    return [n for _, n in fused]


def gelu(x):
    """The exact GELU, vectorized (the reference's math.erf per element is too slow for catalogs)."""
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


class Encoder:
    """MiniLM's token vectors (the last layer) by the reference numpy forward pass, in float32."""

    def __init__(self, model: Path):
        self.cfg = json.loads((model / "config.json").read_text())
        self.tok = Tokenizer.from_file(str(model / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.enable_truncation(json.loads((model / "sentence_bert_config.json").read_text()).get("max_seq_length", 512))
        self.t = {k: v.astype(np.float32) for k, v in ref.load(str(model)).items()}

    def tokens(self, text: str):
        """The token vectors of one text, normalized, without [CLS] and [SEP]."""
        x = ref.hidden_states(self.t, self.cfg, self.tok.encode(text).ids, gelu=gelu)
        x = x[1:-1] if len(x) > 2 else x
        return x / np.linalg.norm(x, axis=1, keepdims=True)


def embed(model: Path, texts) -> np.ndarray:
    """Sentence vectors of `texts` by the library's own encoder (`fusion_dump`'s second form)."""
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "texts.json").write_text(json.dumps(texts))
        subprocess.run([DUMP, "x", str(model), tmp, str(Path(tmp) / "texts.json"), "v.f32"], check=True)
        return np.fromfile(Path(tmp) / "v.f32", dtype="<f4").reshape(len(texts), -1)


def late(encoder: Encoder, queries, texts) -> np.ndarray:
    """Late-interaction score of every query against every tool."""
    tool_vecs = [encoder.tokens(t) for t in texts]
    starts = np.cumsum([0] + [len(v) for v in tool_vecs[:-1]])
    tools = np.concatenate(tool_vecs)
    out = np.empty((len(queries), len(texts)))
    for i, q in enumerate(queries):
        best = np.maximum.reduceat(encoder.tokens(q) @ tools.T, starts, axis=1)
        out[i] = best.mean(axis=0)
    return out


def standardized(m: np.ndarray) -> np.ndarray:
    return (m - m.mean(axis=1, keepdims=True)) / m.std(axis=1, keepdims=True)


def main() -> None:
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    model = Path(sys.argv[1])
    encoder = Encoder(model)
    for out in map(Path, sys.argv[2:]):
        names = json.loads((out / "tools.json").read_text())
        texts = json.loads((out / "texts.json").read_text())
        rows = [json.loads(line) for line in (out / "lexical.jsonl").open()]
        tools = np.fromfile(out / "tools.f32", dtype="<f4").reshape(len(names), -1)
        queries = np.fromfile(out / "queries.f32", dtype="<f4").reshape(len(rows), -1)
        words = json.loads((out / "name_words.json").read_text())
        rest = [t[len(w):].removeprefix(". ").strip() or w for t, w in zip(texts, words)]
        views = tools + embed(model, words) + embed(model, rest)
        views /= np.linalg.norm(views, axis=1, keepdims=True)
        cosine = queries @ tools.T
        variants = {
            "base": cosine,
            "views": queries @ views.T,
            "late": (standardized(cosine) + standardized(late(encoder, [r["query"] for r in rows], texts))) / 2,
        }
        slot = {n: i for i, n in enumerate(names)}
        mrr = {k: np.mean([mrr10(fuse(r["hits"], c, names, slot), set(r["relevant"])) for r, c in zip(rows, m)]) for k, m in variants.items()}
        print(out.name, " ".join(f"{k} {v:.4f} ({v - mrr['base']:+.4f})" for k, v in mrr.items()))


if __name__ == "__main__":
    main()
