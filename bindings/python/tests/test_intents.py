"""Intents through the binding (issue 42): a query holding two needs gets a tool for each, each hit
names its need, ``intents=False`` ranks the query as one need, ``explain`` lists the needs and the
tool's, and the compat layer keeps the reference's hit shape (its reference profile never splits)."""

import pytest

import toolregistry_rs as tr
from toolregistry_rs.compat import ToolDiscoveryTool

TWO_NEEDS = "convert 100 dollars to euros and then tell me the weather in Paris"
CURRENCY_NEED = "convert 100 dollars to euros"
WEATHER_NEED = "tell me the weather in Paris"
ONE_NEED = "convert dollars to euros"

#: The catalog of tests/it/intents.rs: five currency tools that crowd a whole-query ranking of
#: TWO_NEEDS, one weather tool, and unrelated tools so that the query's words are rare.
TOOLS = [
    {"name": "convert_currency", "description": "Convert an amount of money from one currency to another, such as dollars to euros."},
    {"name": "currency_rates", "description": "Exchange rates between currencies: dollars, euros, pounds and yen."},
    {"name": "money_exchange", "description": "Exchange money: convert dollars into euros or any currency."},
    {"name": "forex_quote", "description": "Live forex quote to convert currency amounts, dollars and euros."},
    {"name": "currency_history", "description": "Historical currency exchange rates for dollars, euros and more."},
    {"name": "weather_forecast", "description": "The current weather and forecast for a city."},
] + [
    {"name": f"manage_{thing}", "description": f"Create, list and delete a {thing}."}
    for thing in (
        "email file calendar invoice ticket photo song recipe contact note repository printer database"
        " playlist package meeting document spreadsheet"
    ).split()
]


@pytest.fixture
def registry():
    with tr.Registry() as r:
        r.register(TOOLS)
        yield r


@pytest.mark.parametrize("intents", [None, True])
def test_two_needs_each_hit_names_its_need(registry, intents):
    with registry.discoverer(intents=intents) as d:
        hits = d.discover(TWO_NEEDS, top_k=3)
    by_name = {h["name"]: h for h in hits}
    assert "weather_forecast" in by_name, hits
    assert by_name["weather_forecast"]["intent"] == WEATHER_NEED
    assert hits[0]["intent"] == CURRENCY_NEED, hits


def test_one_need_hits_name_none(registry):
    with registry.discoverer() as d:
        hits = d.discover(ONE_NEED, top_k=5)
    assert hits[0]["name"] == "convert_currency"
    assert all("intent" not in h for h in hits), hits


def test_intents_false_ranks_the_query_as_one_need(registry):
    with registry.discoverer(intents=False) as d:
        hits = d.discover(TWO_NEEDS, top_k=3)
        explained = d.explain(TWO_NEEDS, "weather_forecast", top_k=3)
    assert hits and all("intent" not in h for h in hits), hits
    # The currency tools crowd the first places of the whole query's ranking.
    assert "weather_forecast" not in [h["name"] for h in hits]
    assert explained["intents"] == []
    assert explained["tool"]["intent"] is None


def test_intents_option_reaches_discover_tools():
    with tr.Registry(discovery={"intents": False}) as off, tr.Registry() as on:
        for r in (off, on):
            r.register(TOOLS)
        on.enable_discovery(intents=True)
        answer_on = on.call("discover_tools", {"query": TWO_NEEDS, "top_k": 3})
        assert WEATHER_NEED in [h.get("intent") for h in answer_on], answer_on
        assert all("intent" not in h for h in off.call("discover_tools", {"query": TWO_NEEDS, "top_k": 3}))
        on.enable_discovery(intents=False)
        assert all("intent" not in h for h in on.call("discover_tools", {"query": TWO_NEEDS, "top_k": 3}))


def test_explain_lists_the_needs_and_the_tools_need(registry):
    with registry.discoverer() as d:
        e = d.explain(TWO_NEEDS, "weather_forecast", top_k=3)
        one = d.explain(ONE_NEED, "convert_currency", top_k=5)
    assert [i["text"] for i in e["intents"]] == [CURRENCY_NEED, WEATHER_NEED]
    assert e["tool"]["intent"] == WEATHER_NEED
    assert e["tool"]["outcome"] == "ranked"
    # The weather need's own ranking has the tool first; the currency need's does not hold it.
    assert e["intents"][1] == {"text": WEATHER_NEED, "relative_score": 1.0, "rank": 1}
    assert e["intents"][0] == {"text": CURRENCY_NEED, "relative_score": None, "rank": None}
    assert one["intents"] == [] and one["tool"]["intent"] is None


def test_compat_keeps_the_reference_hit_shape(registry):
    """The reference toolregistry 0.19.0 has no intents: compat pins its profile, which never
    splits, so a two-need query's hits keep exactly the reference's keys."""
    with ToolDiscoveryTool(registry) as tool:
        hits = tool.discover(TWO_NEEDS, top_k=3)
    assert hits
    assert all(set(h) == {"name", "description", "score", "namespace", "deferred"} for h in hits), hits
