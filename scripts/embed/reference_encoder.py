#!/usr/bin/env python3
"""An independent forward pass of a BERT or MPNet sentence-transformers model in numpy, to check
the library's encoder: `toolregistry embed --ids` prints each text's token ids and vector; this script
tokenizes the same texts with the `tokenizers` package, runs the model from model.safetensors
with numpy (float64), mean-pools, normalizes, and compares. Exit status 1 when a token sequence
differs or a cosine is below --min-cosine.

usage: reference_encoder.py MODEL_DIR TOOLREGISTRY_BINARY [--min-cosine 0.999]
"""
import json
import math
import struct
import subprocess
import sys

import numpy as np
from tokenizers import Tokenizer

TEXTS = [
    "convert currency",
    "What's the weather like in Paris tomorrow?",
    "Bitcoin price in euros",
    "save it to /root/notes.md",
    "send_email. Send an email to a recipient. Parameters: to, subject, body",
    "Buses 3 BuyBusTicket. Buy tickets for a bus journey. Parameters: from_city, to_city",
    "天气预报 北京",
    "Ünïcödé àccents and emoji 🚀 handled",
    "a",
    "find a good guitar " * 90,  # past 256 tokens: truncated
]


def load(model_dir):
    with open(f"{model_dir}/model.safetensors", "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    prefix = next(p for p in ("", "bert.", "mpnet.", "model.") if f"{p}embeddings.word_embeddings.weight" in header)
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        a, b = info["data_offsets"]
        tensors[name[len(prefix):]] = np.frombuffer(data[a:b], dtype="<f4").reshape(info["shape"]).astype(np.float64)
    return tensors


def layer_norm(x, g, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * g + b


def gelu(x):
    erf = np.vectorize(math.erf)
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


def mpnet_bucket(rel, buckets):
    """T5's bidirectional bucket of a key `rel` positions after its query, by integer arithmetic:
    exact below a quarter of the buckets, then one more bucket each time the distance grows by
    sqrt(2) (a quarter of the buckets span the distances up to 128), keys after the query in the
    upper half."""
    half = buckets // 2
    exact = half // 2
    base = half if rel > 0 else 0
    n = abs(rel)
    if n < exact:
        return base + n
    # The largest k with exact * (128 / exact) ** (k / (half - exact)) <= n, i.e.
    # (n / exact) ** (half - exact) >= (128 / exact) ** k, compared as integers.
    k = max(k for k in range(half - exact) if n ** (half - exact) * exact ** k >= 128 ** k * exact ** (half - exact))
    return base + exact + k


def hidden_states(t, cfg, ids, gelu=gelu):
    """The last layer's vector of each token of `ids` (an array of len(ids) rows); `gelu` may be
    swapped for a faster one (bench/views.py)."""
    h, heads = cfg["hidden_size"], cfg["num_attention_heads"]
    d = h // heads
    eps = cfg.get("layer_norm_eps", 1e-12)
    n = len(ids)
    mpnet = cfg.get("model_type") == "mpnet"
    if mpnet:
        # RoBERTa-style positions: after the padding id, padding tokens at the padding id.
        pad = cfg.get("pad_token_id", 1)
        mask = np.array([i != pad for i in ids], dtype=np.int64)
        pos = np.cumsum(mask) * mask + pad
        x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][pos]
        buckets = cfg.get("relative_attention_num_buckets", 32)
        rel = np.array([[mpnet_bucket(j - i, buckets) for j in range(n)] for i in range(n)])
        bias = t["encoder.relative_attention_bias.weight"][rel].transpose(2, 0, 1)  # heads, n, n
        names = ("attention.attn.q", "attention.attn.k", "attention.attn.v", "attention.attn.o", "attention.LayerNorm")
    else:
        x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:n] + t["embeddings.token_type_embeddings.weight"][0]
        bias = 0.0
        names = ("attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense", "attention.output.LayerNorm")
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    for l in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{l}."
        lin = lambda v, name: v @ t[p + name + ".weight"].T + t[p + name + ".bias"]
        q = lin(x, names[0]).reshape(n, heads, d).transpose(1, 0, 2)
        k = lin(x, names[1]).reshape(n, heads, d).transpose(1, 0, 2)
        v = lin(x, names[2]).reshape(n, heads, d).transpose(1, 0, 2)
        s = q @ k.transpose(0, 2, 1) / math.sqrt(d) + bias
        s = np.exp(s - s.max(-1, keepdims=True))
        s /= s.sum(-1, keepdims=True)
        ctx = (s @ v).transpose(1, 0, 2).reshape(n, h)
        x = layer_norm(x + lin(ctx, names[3]), t[p + names[4] + ".weight"], t[p + names[4] + ".bias"], eps)
        up = gelu(lin(x, "intermediate.dense"))
        x = layer_norm(x + lin(up, "output.dense"), t[p + "output.LayerNorm.weight"], t[p + "output.LayerNorm.bias"], eps)
    return x


def encode(t, cfg, ids):
    v = hidden_states(t, cfg, ids).mean(0)
    return v / np.linalg.norm(v)


def main():
    args = sys.argv[1:]
    min_cos = 0.999
    if "--min-cosine" in args:
        i = args.index("--min-cosine")
        min_cos = float(args[i + 1])
        del args[i:i + 2]
    model_dir, binary = args
    cfg = json.load(open(f"{model_dir}/config.json"))
    max_len = json.load(open(f"{model_dir}/sentence_bert_config.json")).get("max_seq_length", 512)
    tok = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tok.no_padding()
    tok.enable_truncation(max_len)
    t = load(model_dir)
    out = subprocess.run([binary, "embed", "--ids", "--model-dir", model_dir], input="\n".join(TEXTS) + "\n",
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(out) == len(TEXTS), f"{len(out)} vectors for {len(TEXTS)} texts"
    worst, failed = 1.0, 0
    for text, line in zip(TEXTS, out):
        got = json.loads(line)
        ids = tok.encode(text).ids
        if got["ids"] != ids:
            print(f"FAIL token ids differ for {text[:40]!r}: {got['ids'][:12]} vs {ids[:12]}")
            failed += 1
            continue
        want = encode(t, cfg, ids)
        cos = float(np.dot(want, np.array(got["vector"])) / np.linalg.norm(got["vector"]))
        worst = min(worst, cos)
        ok = cos >= min_cos
        failed += not ok
        print(f"{'ok  ' if ok else 'FAIL'} cosine {cos:.9f}  {len(ids):3d} tokens  {text[:50]!r}")
    print(f"worst cosine {worst:.6f} (need >= {min_cos})")
    print(f"{len(TEXTS) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
