#!/usr/bin/env python3
"""Writes seed corpora for the fuzz targets into fuzz/seeds/<target>/ (generated, not committed).

Sources: the golden scenarios (../shared/golden) and the evaluation catalogs and queries
(../shared/eval). Tools are written in every accepted shape; options come from the golden
enable_discovery steps; queries from the evaluation query files.
"""
import hashlib
import json
import os
import pathlib
import random
import sys

ROOT = pathlib.Path(__file__).resolve().parent
SHARED = pathlib.Path(os.environ.get("TOOLREGISTRY_SHARED", ROOT.parent.parent / "shared"))
OUT = ROOT / "seeds"
PER_SOURCE = 150  # enough variety for libFuzzer; keeps the seed set small
rng = random.Random(6)


def write(target, data):
    if isinstance(data, str):
        data = data.encode()
    d = OUT / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)


def shapes(tool):
    name, desc = tool.get("name", "t"), tool.get("description", "")
    params = tool.get("parameters", {"type": "object", "properties": {}})
    extra = {k: tool[k] for k in ("namespace",) if k in tool}
    meta = {k: tool[k] for k in ("defer", "tags", "search_hint") if k in tool}
    if meta:
        extra["metadata"] = meta
    yield {"name": name, "description": desc, "parameters": params, **extra}
    yield {"type": "function", "function": {"name": name, "description": desc, "parameters": params}, **extra}
    yield {"type": "function", "name": name, "description": desc, "parameters": params, **extra}
    yield {"name": name, "description": desc, "input_schema": params, **extra}
    yield {"name": name, "description": desc, "inputSchema": params, **extra}


def main():
    golden = sorted((SHARED / "golden").glob("*.json"))
    catalogs = sorted((SHARED / "eval").glob("*/catalog.json"))
    if not golden or not catalogs:
        sys.exit(f"seeds.py: no golden files or catalogs under {SHARED}")
    tools, options, metadata, queries = [], [], [], []
    for path in golden:
        for step in json.loads(path.read_text())["steps"]:
            op = step["op"]
            if op == "register":
                tools.append(step["tool"])
            elif op == "enable_discovery":
                options.append({k: v for k, v in step.items() if k != "op"})
            elif op == "set_metadata":
                metadata.append(step["metadata"])
            elif op == "discover":
                queries.append((step["query"], step["top_k"]))
    for path in catalogs:
        items = json.loads(path.read_text())
        tools += rng.sample(items, min(PER_SOURCE, len(items)))
        qfile = path.parent / "queries.jsonl"
        lines = [json.loads(l) for l in qfile.read_text().splitlines() if l.strip()]
        queries += [(q["query"], 10) for q in rng.sample(lines, min(PER_SOURCE, len(lines)))]

    picked = rng.sample(tools, min(4 * PER_SOURCE, len(tools)))
    for i, tool in enumerate(picked):
        variants = list(shapes(tool))
        write("register", json.dumps(variants[i % len(variants)], ensure_ascii=(i % 2 == 0)))
        write("analyzer", tool.get("description", ""))
    for i in range(0, len(picked) - 3, 3):
        write("register", json.dumps([list(shapes(t))[(i + j) % 5] for j, t in enumerate(picked[i:i + 3])]))
    write("register", json.dumps({"tools": [list(shapes(picked[0]))[4]]}))
    for m in metadata + [{"defer": True}, {"tags": ["network", "x"]}, {"search_hint": "mail"}, {}]:
        for pick in (b"\x00", b"\x03", b"\x07", b"\xff"):
            write("metadata", pick + json.dumps(m, ensure_ascii=False).encode())
    for o in options + [{}, {"k1": 1.2, "b": 0.5, "delta": 0.0}, {"field_weights": {"name": 0}}]:
        write("discovery_options", json.dumps(o))
    for o in [{}, {"include_deferred": False}, {"api_format": "gemini", "tags": ["network"]},
              {"api_format": "anthropic", "exclude_tags": ["destructive"]}, {"api_format": "openai-responses"},
              {"api_format": "openai-responses", "strict": True}, {"strict": True, "include_deferred": False}]:
        write("schema_options", json.dumps(o))
    formats = ["openai-chat", "openai-responses", "anthropic", "gemini"]
    for i, (q, k) in enumerate(queries):
        args = {"query": q, "top_k": k}
        if i % 4 == 0:
            args["api_format"] = formats[i % len(formats)]
        if i % 3 == 0:
            write("discover_args", json.dumps(args, ensure_ascii=(i % 2 == 0)))
        write("analyzer", q)
    # Tool-call batches: the hand-written conformance corpus, under each options byte.
    corpus = ROOT.parent / "tests" / "conformance" / "execute"
    for i, calls in enumerate(sorted(corpus.glob("*/*/calls.json"))):
        write("execute", bytes([i % 6]) + json.dumps(json.loads(calls.read_text())).encode())
    # Conversations: the conversation corpus' calls, then a names list to reveal.
    conv = ROOT.parent / "tests" / "conformance" / "conversation"
    for i, calls in enumerate(sorted(list(conv.glob("*/calls.json")) + list(corpus.glob("*/*/calls.json")))):
        body = json.dumps(json.loads(calls.read_text())).encode()
        write("conversation", bytes([i % 10]) + body + b'\n["send_email"]')
    # Usage: a task per first line (the golden tools' names, unknown names, repeats, an empty
    # task, wrong types), then bytes the target reads as operations.
    names = [t.get("name") or t.get("function", {}).get("name") for t in picked[:8]]
    names = [n for n in names if isinstance(n, str)]
    fixture = ["read_file", "send_email", "convert_currency", "github-list_issues", "delete-user"]
    for i, task in enumerate([fixture[:2], fixture[1:4], fixture + ["no_such_tool"], [fixture[0]] * 3,
                              [], names, ["", "x" * 2000], [1, None], {"tools": fixture}]):
        write("usage", json.dumps(task).encode() + b"\n" + bytes(range(i, i + 24)))
    counts = {d.name: len(list(d.iterdir())) for d in sorted(OUT.iterdir())}
    print("seeds:", ", ".join(f"{k} {v}" for k, v in counts.items()))


if __name__ == "__main__":
    main()
