"""The discover token budget (``max_tokens``) through the binding: the answer stays within it, the
top hit is always there, hits are cut to name + summary before they are dropped, and a generous
budget changes nothing."""

import json

import pytest

import toolregistry_rs as tr

VERBS = ["Send", "Reply to", "Forward", "Draft", "Archive", "Search", "Label", "Schedule"]
QUERY = "email message"

#: Eight deferred mail tools (so every hit carries its schema), each described in two sentences so
#: that a hit cut to name + summary is told apart by its description.
BUDGET_TOOLS = [
    {
        "name": verb.replace(" to", "").lower() + "_email",
        "description": verb
        + " an email message. The mail account configured for the agent is used, and the answer says what the server did.",
        "parameters": {
            "type": "object",
            "properties": {
                "to": {"type": "string", "description": "Address of the recipient of the message"},
                "subject": {"type": "string", "description": "Subject line of the message"},
                "body": {"type": "string", "description": "Text of the message, plain or Markdown"},
                "cc": {"type": "array", "items": {"type": "string"}, "description": "Addresses to copy"},
            },
            "required": ["to"],
        },
        "metadata": {"defer": True},
    }
    for verb in VERBS
]


@pytest.fixture
def discoverer():
    with tr.Registry() as r:
        r.register(BUDGET_TOOLS)
        with r.discoverer() as d:
            yield d


def first_sentence(description):
    return description[: description.index(". ") + 1]


def test_every_budget_stays_within_and_keeps_the_top_hit(discoverer):
    full = discoverer.discover_json(QUERY)
    everything = json.loads(full)
    assert len(everything) >= 4
    assert all("schema" in h for h in everything)
    whole = (len(full) + 3) // 4
    saw_mixed = False
    for n in range(1, whole + 1):
        answer = discoverer.discover_json(QUERY, max_tokens=n)
        hits = json.loads(answer)
        assert hits and hits[0]["name"] == everything[0]["name"], n
        if len(answer) > 4 * n:
            # Only the top hit, cut, may go past the budget.
            assert len(hits) == 1 and "schema" not in hits[0], (n, answer)
        with_schema = 0
        while with_schema < len(hits) and "schema" in hits[with_schema]:
            with_schema += 1
        for i, hit in enumerate(hits):
            assert hit["name"] == everything[i]["name"], n
            if i < with_schema:
                assert hit == everything[i], n
            else:
                assert "schema" not in hit, (n, hit)
                assert hit["description"] == first_sentence(everything[i]["description"]), (n, hit)
        saw_mixed |= 0 < with_schema < len(hits)
        if n == whole:
            assert answer == full
    assert saw_mixed, "no budget gave full hits followed by cut ones"


def test_the_top_hit_comes_cut_when_its_schema_is_too_big(discoverer):
    top = discoverer.discover(QUERY)[0]
    assert discoverer.discover(QUERY, max_tokens=1) == [
        {
            "name": top["name"],
            "description": first_sentence(top["description"]),
            "score": top["score"],
            "namespace": None,
            "deferred": True,
        }
    ]
    exact = discoverer.discover("send_email", max_tokens=10)
    assert [h["name"] for h in exact] == ["send_email"] and "schema" not in exact[0]


@pytest.mark.parametrize(
    "fields",
    [{}, {"top_k": 3}, {"api_format": "anthropic"}, {"strict": True}, {"options": {"deferred": True}}],
)
def test_a_generous_budget_gives_the_same_hits_as_none(discoverer, fields):
    none = discoverer.discover_json(QUERY, **fields)
    assert discoverer.discover_json(QUERY, max_tokens=1_000_000, **fields) == none
    assert discoverer.discover(QUERY, max_tokens=1_000_000, **fields) == json.loads(none)


def test_the_keyword_and_options_agree(discoverer):
    assert discoverer.discover_json(QUERY, max_tokens=200) == discoverer.discover_json(
        QUERY, options={"max_tokens": 200}
    )
    assert discoverer.discover_json(QUERY, max_tokens=None) == discoverer.discover_json(QUERY)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_a_budget_below_one_or_not_an_integer_is_refused(discoverer, bad):
    with pytest.raises(tr.ToolRegistryError) as e:
        discoverer.discover(QUERY, max_tokens=bad)
    assert e.value.status == tr.Status.INVALID_ARGUMENT
    assert "max_tokens" in str(e.value)
