"""The plain API: registration shapes, metadata, enabled state, schemas, summaries, discovery,
explain, and the life cycle of handles."""

import gc
import json
import weakref

import pytest

import toolregistry_rs as tr


def names(hits):
    return [h["name"] for h in hits]


def test_version():
    assert tr.version() == tr.__version__
    assert tr.version().count(".") == 2


def test_register_returns_registered_names():
    with tr.Registry() as r:
        assert r.register({"name": "a", "description": "x"}) == ["a"]
        assert r.register([{"name": "b", "description": "x", "namespace": "ns"}]) == ["ns-b"]
        assert r.register('{"type": "function", "function": {"name": "c", "description": "x"}}') == ["c"]
        assert r.register(b'{"name": "d", "description": "x", "input_schema": {"type": "object"}}') == ["d"]
        assert r.register(t for t in [{"name": "e", "description": "x"}]) == ["e"]  # any iterable
        assert r.register([]) == []


def test_exact_name_and_ranking(discoverer):
    hit = discoverer.discover("read_file")
    assert names(hit) == ["read_file"] and hit[0]["score"] == 1.0 and "schema" in hit[0]
    assert hit[0]["schema"]["function"]["parameters"]["properties"] == {"path": {"type": "string"}}
    assert names(discoverer.discover("READ-FILE")) == ["read_file"]  # tolerant exact match
    ranked = discoverer.discover("send an email message", top_k=3)
    assert ranked[0]["name"] == "send_email" and ranked[0]["deferred"] and "schema" in ranked[0]
    assert all(a["score"] >= b["score"] for a, b in zip(ranked, ranked[1:]))
    files = discoverer.discover("file on disk", top_k=1)
    assert len(files) == 1


def test_schema_only_for_deferred_hits(discoverer):
    for hit in discoverer.discover("file disk text", top_k=10):
        assert ("schema" in hit) == hit["deferred"], hit["name"]


def test_api_format(discoverer):
    hit = discoverer.discover("send_email", api_format="anthropic")[0]
    assert hit["schema"]["name"] == "send_email" and "input_schema" in hit["schema"]


def test_discover_json_is_the_same_answer(discoverer):
    raw = discoverer.discover_json("write text to a file", 5)
    assert isinstance(raw, bytes)
    assert json.loads(raw) == discoverer.discover("write text to a file", 5)


def test_namespace(registry, discoverer):
    hit = discoverer.discover("github-create_issue")[0]
    assert hit["namespace"] == "github" and hit["name"] == "github-create_issue"
    registry.set_enabled("github", False)
    assert not any(h["namespace"] == "github" for h in discoverer.discover("issue repository"))
    registry.set_enabled("github", True)
    assert "github-list_issues" in names(discoverer.discover("issue repository"))


def test_changes_are_seen_at_once(registry, discoverer):
    assert discoverer.discover("weather forecast") == []
    registry.register({"name": "get_weather", "description": "Weather forecast for a city."})
    assert names(discoverer.discover("weather forecast")) == ["get_weather"]
    registry.set_metadata("get_weather", search_hint="rain sunshine")
    assert names(discoverer.discover("rain")) == ["get_weather"]
    registry.set_enabled("get_weather", False)
    assert discoverer.discover("rain") == []
    assert discoverer.discover("get_weather") == []  # a disabled tool is not an exact match either
    registry.set_enabled("get_weather", True)
    registry.unregister("get_weather")
    assert discoverer.discover("rain") == []
    discoverer.rebuild_index()
    assert names(discoverer.discover("mail")) == ["send_email"]


def test_metadata_updates(registry, discoverer):
    registry.set_metadata("read_file", defer=True, tags=["archive"])
    hit = discoverer.discover("archive")[0]
    assert hit["name"] == "read_file" and hit["deferred"]
    registry.set_metadata("read_file", tags=[])
    assert discoverer.discover("archive") == []
    assert discoverer.discover("read_file")[0]["deferred"]  # untouched fields keep their values


def test_schemas_and_summaries(registry):
    all_names = [s["function"]["name"] for s in registry.get_schemas()]
    assert all_names == sorted(all_names) and len(all_names) == 5
    core = [s["function"]["name"] for s in registry.get_schemas(include_deferred=False)]
    assert core == ["github-list_issues", "read_file"]
    tagged = [
        s["function"]["name"]
        for s in registry.get_schemas(tags=["file_system"], exclude_tags=["destructive"])
    ]
    assert tagged == ["read_file"]
    assert registry.get_schemas(api_format="gemini")[0]["name"] == "github-create_issue"
    summaries = registry.deferred_summaries()
    assert [s["name"] for s in summaries] == ["send_email", "write_file", "github-create_issue"]
    assert summaries[0] == {
        "name": "send_email",
        "description": "Send an email to a recipient.",
        "namespace": None,
    }
    assert summaries[2]["namespace"] == "github"


def test_discover_tools_builtin(registry):
    registry.enable_discovery(profile="reference", min_score_ratio=0.0)
    schemas = registry.get_schemas(include_deferred=False)
    assert "discover_tools" in [s["function"]["name"] for s in schemas]
    hits = registry.call("discover_tools", {"query": "email", "top_k": 2})
    assert hits[0]["name"] == "send_email"
    assert registry.call("discover_tools", '{"query": "email"}') == registry.call(
        "discover_tools", {"query": "email"}
    )
    registry.unregister("discover_tools")
    with pytest.raises(tr.ToolRegistryError) as e:
        registry.call("discover_tools", {"query": "email"})
    assert e.value.status == tr.Status.NOT_FOUND


def test_registry_with_discovery_option():
    with tr.Registry(discovery={"profile": "reference"}) as r:
        r.register({"name": "send_email", "description": "Send an email."})
        assert names(r.call("discover_tools", {"query": "email"})) == ["send_email"]


def test_discoverer_options_change_answers(registry):
    with (
        registry.discoverer(profile="reference") as plain,
        registry.discoverer(profile="reference", min_score_ratio=0.0, max_df_ratio=0.0) as unfiltered,
        registry.discoverer(profile="reference", field_weights={"search_hint": 0.0}) as no_hint,
    ):
        assert len(unfiltered.discover("file", top_k=10)) >= len(plain.discover("file", top_k=10))
        # With the hint weighted 0 only BM25+'s delta floor is left of the hint's score.
        assert no_hint.discover("smtp")[0]["score"] < plain.discover("smtp")[0]["score"]


def test_profiles_answer(registry):
    with registry.discoverer(profile="enhanced") as d:
        assert d.discover("emailing")[0]["name"] == "send_email"  # stemming
        assert d.explain("emailing", "send_email")["profile"] == "enhanced"


def test_explain(discoverer):
    e = discoverer.explain("send an email", "send_email")
    assert e["profile"] == "reference" and e["tool"]["outcome"] == "ranked" and e["tool"]["rank"] == 1
    assert [t["token"] for t in e["tokens"]] == ["send", "an", "email"]
    assert e["tool"]["score"] == discoverer.discover("send an email")[0]["score"]
    assert discoverer.explain("send_email", "send_email")["tool"]["outcome"] == "exact_match"
    assert discoverer.explain("email", "read_file")["tool"]["outcome"] == "no_common_token"
    for term in e["tool"]["terms"]:
        assert term["query_weight"] == 1.0
        assert abs(term["score"] - term["idf"] * term["query_weight"] * term["tf_norm"]) < 1e-9
        # The reference profile has no background model: the catalog's IDF as it is.
        assert term["catalog_idf"] == term["idf"] > 0


def test_explain_weighs_a_repeated_query_word_less_in_enhanced():
    with tr.Registry() as r:
        r.register({"name": "send_email", "description": "Send an email message."})
        with r.discoverer(profile="enhanced") as d:
            terms = d.explain("email email send", "send_email")["tool"]["terms"]
    k1 = 1.5
    email = [t["query_weight"] for t in terms if t["token"] == "email"]
    assert len(email) == 2 and all(abs(w - (k1 + 1) / (2 + k1)) < 1e-9 for w in email)
    assert [t["query_weight"] for t in terms if t["token"] == "send"] == [1.0]
    for t in terms:
        assert abs(t["score"] - t["idf"] * t["query_weight"] * t["tf_norm"]) < 1e-9


def test_context_managers_close():
    with tr.Registry() as r:
        with r.discoverer() as d:
            pass
        assert d.closed and not r.closed
    assert r.closed
    r.close()  # idempotent
    assert "closed" in repr(r)


def test_unclosed_handles_are_freed_by_the_collector():
    r = tr.Registry()
    d = r.discoverer()
    finalizers = [r._handle._finalizer, d._handle._finalizer]
    assert all(f.alive for f in finalizers)
    ref = weakref.ref(r)
    del r, d
    gc.collect()
    assert ref() is None
    assert not any(f.alive for f in finalizers), "the safety net freed both handles"
