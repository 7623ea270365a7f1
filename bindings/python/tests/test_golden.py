"""The reference's recorded answers (../shared/golden), replayed through this binding.

Every scenario runs twice: through the plain API (each discover asked both through
``Registry.call("discover_tools")`` and through a ``Discoverer``) and through
``toolregistry_rs.compat`` (``ToolRegistry.enable_tool_discovery()``'s tool and a directly built
``ToolDiscoveryTool``). Both pin ``profile="reference"``. Names in order, scores to 1e-9,
namespace, deferred flag and schema presence must match.
"""

import json
import math

import pytest

import toolregistry_rs as tr
from toolregistry_rs import compat

from conftest import GOLDEN_DIR

FILES = sorted(GOLDEN_DIR.glob("*.json"))
REQUIRED = {"seed_examples.json", "cjk.json", "dynamics.json", "bfcl_defaults.json"}


def test_golden_vectors_present():
    names = {p.name for p in FILES}
    assert REQUIRED <= names, f"golden vectors missing in {GOLDEN_DIR} (set TOOLREGISTRY_GOLDEN_DIR)"
    assert len(FILES) >= 11


def compare(expect, got):
    """None when ``got`` is the recorded answer, else the first difference."""
    want_names = [h["name"] for h in expect]
    got_names = [h["name"] for h in got]
    if want_names != got_names:
        return f"names {got_names}, want {want_names}"
    for i, (w, g) in enumerate(zip(expect, got)):
        if not math.isclose(g["score"], w["score"], rel_tol=1e-9, abs_tol=0.0):
            return f"rank {i} {w['name']}: score {g['score']!r}, want {w['score']!r}"
        if g["namespace"] != w["namespace"] or g["deferred"] != w["deferred"]:
            got_flags = f"{g['namespace']!r}/{g['deferred']}"
            return f"rank {i} {w['name']}: namespace/deferred {got_flags}, want {w['namespace']!r}/{w['deferred']}"
        if ("schema" in g) != w["has_schema"]:
            return f"rank {i} {w['name']}: schema present {'schema' in g}, want {w['has_schema']}"
    return None


def discovery_options(step):
    return {k: step[k] for k in ("field_weights", "min_score_ratio", "max_df_ratio") if k in step}


class NativeReplay:
    """The plain API: Registry + discover_tools + a Discoverer, profile pinned to reference."""

    def __init__(self):
        self.registry = tr.Registry()
        self.discoverer = None

    def register(self, t):
        tool = {"name": t["name"], "description": t["description"], "parameters": t["parameters"]}
        if "namespace" in t:
            tool["namespace"] = t["namespace"]
        meta = {k: t[k] for k in ("defer", "tags", "search_hint") if k in t}
        if meta:
            tool["metadata"] = meta
        self.registry.register(tool)

    def unregister(self, name):
        self.registry.unregister(name)

    def set_enabled(self, name, enabled):
        self.registry.set_enabled(name, enabled)

    def set_metadata(self, name, meta):
        self.registry.set_metadata(name, **meta)

    def enable_discovery(self, options):
        self.registry.enable_discovery(profile="reference", **options)
        if self.discoverer:
            self.discoverer.close()
        self.discoverer = self.registry.discoverer(profile="reference", **options)

    def discover(self, query, top_k):
        answers = []
        for ask in (
            lambda: self.registry.call("discover_tools", {"query": query, "top_k": top_k}),
            lambda: self.discoverer.discover(query, top_k),
        ):
            try:
                answers.append(ask())
            except tr.ToolRegistryError as e:
                answers.append(e)
        return answers

    def refused(self, answer):
        return isinstance(answer, tr.ToolRegistryError) and answer.status == tr.Status.INVALID_ARGUMENT

    def close(self):
        self.discoverer.close()
        self.registry.close()


class CompatReplay:
    """toolregistry_rs.compat: ToolRegistry + enable_tool_discovery() + a direct ToolDiscoveryTool."""

    def __init__(self):
        self.registry = compat.ToolRegistry()
        self.tools = []

    def register(self, t):
        tags = set(t.get("tags", []))
        predefined = {tag.value for tag in compat.ToolTag}
        meta = compat.ToolMetadata(
            defer=t.get("defer", False),
            tags={compat.ToolTag(x) for x in tags & predefined},
            custom_tags=tags - predefined,
            search_hint=t.get("search_hint", ""),
        )
        tool = compat.Tool(
            name=t["name"], description=t["description"], parameters=t["parameters"], metadata=meta
        )
        self.registry.register(tool, namespace=t.get("namespace"))

    def unregister(self, name):
        assert self.registry.unregister(name)

    def set_enabled(self, name, enabled):
        (self.registry.enable if enabled else self.registry.disable)(name)

    def set_metadata(self, name, meta):
        fields = dict(meta)
        if "tags" in fields:
            fields["tags"] = set(fields["tags"])
            fields["custom_tags"] = set()
        self.registry.update_tool_metadata(name, **fields)

    def enable_discovery(self, options):
        self.registry.disable_tool_discovery()
        self.via_registry = self.registry.enable_tool_discovery(**options)
        self.direct = compat.ToolDiscoveryTool(self.registry, **options)
        self.tools += [self.direct]

    def discover(self, query, top_k):
        answers = []
        for tool in (self.via_registry, self.direct):
            try:
                answers.append(tool.discover(query, top_k=top_k))
            except ValueError as e:
                answers.append(e)
        return answers

    def refused(self, answer):
        return isinstance(answer, ValueError)

    def close(self):
        for t in self.tools:
            t.close()
        self.registry.close()


def replay(path, engine):
    steps = json.loads(path.read_text())["steps"]
    checked, failures = 0, []
    for i, step in enumerate(steps):
        op = step["op"]
        if op == "register":
            engine.register(step["tool"])
        elif op == "unregister":
            engine.unregister(step["name"])
        elif op in ("enable", "disable"):
            engine.set_enabled(step["name"], op == "enable")
        elif op == "set_metadata":
            engine.set_metadata(step["name"], step["metadata"])
        elif op == "enable_discovery":
            engine.enable_discovery(discovery_options(step))
        elif op == "discover":
            checked += 1
            for how, got in zip(("registry", "discoverer"), engine.discover(step["query"], step["top_k"])):
                if "expect" not in step:
                    why = None if engine.refused(got) else f"expected a refusal, got {got!r}"
                elif isinstance(got, Exception):
                    why = f"failed: {got!r}"
                else:
                    why = compare(step["expect"], got)
                if why:
                    failures.append(f"step {i} {how} query {step['query']!r}: {why}")
        else:
            raise AssertionError(f"unknown op {op}")
    engine.close()
    return checked, failures


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
@pytest.mark.parametrize("engine", [NativeReplay, CompatReplay], ids=["plain", "compat"])
def test_golden(path, engine):
    checked, failures = replay(path, engine())
    assert checked > 0, "no discover steps"
    assert not failures, f"{len(failures)} of {2 * checked} answers differ:\n" + "\n".join(failures[:10])


def test_replay_can_fail():
    """The comparison catches a changed score, order and schema flag (so the test is not vacuous)."""
    expect = [
        {"name": "a", "score": 2.0, "namespace": None, "deferred": False, "has_schema": False},
        {"name": "b", "score": 1.0, "namespace": None, "deferred": True, "has_schema": True},
    ]
    good = [
        {"name": "a", "score": 2.0, "namespace": None, "deferred": False},
        {"name": "b", "score": 1.0, "namespace": None, "deferred": True, "schema": {}},
    ]
    assert compare(expect, good) is None
    assert compare(expect, [good[1], good[0]])
    assert compare(expect, [dict(good[0], score=2.0 * (1 + 1e-6)), good[1]])
    assert compare(expect, [good[0], {k: v for k, v in good[1].items() if k != "schema"}])
    assert compare(expect, [good[0], dict(good[1], namespace="x")])
