"""OpenAI strict mode through the binding: ``get_strict_schemas``, ``get_schemas(strict=True)``
and ``discover(strict=True)``, the warnings for a schema that cannot be strict, and the refusal for
formats without a strict mode."""

import json

import pytest

import toolregistry_rs as tr

#: One tool strict mode can take (its optional ``body`` becomes required and nullable) and one it
#: cannot (a free-form object); both deferred, so discover returns their schemas.
STRICT_TOOLS = [
    {
        "name": "send_email",
        "description": "Send an email to a recipient.",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "string"}, "body": {"type": "string"}},
            "required": ["to"],
        },
        "metadata": {"defer": True},
    },
    {
        "name": "set_config",
        "description": "Store configuration settings.",
        "parameters": {"type": "object", "properties": {"settings": {"type": "object"}}},
        "metadata": {"defer": True},
    },
]

SET_CONFIG_REASON = 'settings: an object without "properties" takes arbitrary keys'
OPENAI = ["openai-chat", "openai-responses"]


@pytest.fixture
def strict_registry():
    with tr.Registry() as r:
        r.register(STRICT_TOOLS)
        yield r


def function(schema, api_format):
    """The function object of an OpenAI schema (chat nests it, responses does not)."""
    return schema["function"] if api_format == "openai-chat" else schema


def assert_strict(f):
    assert f["strict"] is True
    params = f["parameters"]
    assert params["additionalProperties"] is False
    assert params["required"] == ["to", "body"]
    assert params["properties"]["body"]["type"] == ["string", "null"]


def assert_not_strict(f):
    assert f.get("strict") in (None, False)
    assert "additionalProperties" not in f["parameters"]


@pytest.mark.parametrize("api_format", OPENAI)
def test_get_strict_schemas(strict_registry, api_format):
    answer = strict_registry.get_strict_schemas(api_format=api_format)
    assert set(answer) == {"tools", "warnings"}
    tools = [function(s, api_format) for s in answer["tools"]]
    # The tool that cannot be strict is still sent, non-strict, and named in the warnings.
    assert [f["name"] for f in tools] == ["send_email", "set_config"]
    assert_strict(tools[0])
    assert_not_strict(tools[1])
    assert answer["warnings"] == [{"name": "set_config", "reason": SET_CONFIG_REASON}]

    # get_schemas(strict=True): the same tools; without strict, nothing made strict.
    assert strict_registry.get_schemas(api_format=api_format, strict=True) == answer["tools"]
    plain = strict_registry.get_schemas(api_format=api_format)
    assert function(plain[0], api_format)["parameters"]["required"] == ["to"]
    assert_not_strict(function(plain[0], api_format))
    # The filters still apply.
    assert strict_registry.get_strict_schemas(include_deferred=False) == {"tools": [], "warnings": []}


def test_get_strict_schemas_without_warnings(strict_registry):
    strict_registry.unregister("set_config")
    answer = strict_registry.get_strict_schemas()
    assert answer["warnings"] == []
    assert [s["function"]["name"] for s in answer["tools"]] == ["send_email"]


@pytest.mark.parametrize("api_format", OPENAI)
def test_discover_strict(strict_registry, api_format):
    with strict_registry.discoverer() as d:
        [hit] = d.discover("send_email", api_format=api_format, strict=True)
        assert_strict(function(hit["schema"], api_format))
        assert "warning" not in hit

        [hit] = d.discover("set_config", api_format=api_format, strict=True)
        assert hit["warning"] == SET_CONFIG_REASON
        assert_not_strict(function(hit["schema"], api_format))

        # The raw answer carries the same warning; without strict there is none.
        raw = json.loads(d.discover_json("set_config", api_format=api_format, strict=True))
        assert raw[0]["warning"] == SET_CONFIG_REASON
        [hit] = d.discover("set_config", api_format=api_format)
        assert "warning" not in hit
        [hit] = d.discover("send_email", api_format=api_format)
        assert function(hit["schema"], api_format)["parameters"]["required"] == ["to"]


@pytest.mark.parametrize("api_format", ["anthropic", "gemini"])
def test_strict_refused_outside_openai(strict_registry, api_format):
    for call in (strict_registry.get_strict_schemas, lambda **kw: strict_registry.get_schemas(strict=True, **kw)):
        with pytest.raises(tr.ToolRegistryError) as info:
            call(api_format=api_format)
        assert info.value.status == tr.Status.INVALID_ARGUMENT
        assert "strict" in info.value.message
    with strict_registry.discoverer() as d:
        with pytest.raises(tr.ToolRegistryError) as info:
            d.discover("send email", api_format=api_format, strict=True)
        assert info.value.status == tr.Status.INVALID_ARGUMENT
        # The same format without strict answers.
        assert d.discover("send email", api_format=api_format)


@pytest.mark.parametrize("api_format", OPENAI)
def test_strict_schemas_by_name_keep_the_order_asked(strict_registry, api_format):
    strict_registry.register(
        {
            "name": "store_blob",
            "description": "Store a value of any kind.",
            "parameters": {"type": "object", "properties": {"data": {}}},
        }
    )
    strict_registry.set_enabled("send_email", False)
    order = ["store_blob", "send_email", "set_config"]
    answer = strict_registry.get_strict_schemas(api_format=api_format, names=order)
    tools = [function(s, api_format) for s in answer["tools"]]
    # Those tools in that order, the disabled one too; the warnings in that order as well.
    assert [f["name"] for f in tools] == order
    assert_strict(tools[1])
    assert_not_strict(tools[0])
    assert_not_strict(tools[2])
    assert [w["name"] for w in answer["warnings"]] == ["store_blob", "set_config"]
    assert answer["warnings"][1]["reason"] == SET_CONFIG_REASON
    # get_schemas by name: the same tools with strict, the plain ones without.
    assert strict_registry.get_schemas(api_format=api_format, names=order, strict=True) == answer["tools"]
    plain = [function(s, api_format) for s in strict_registry.get_schemas(api_format=api_format, names=order)]
    assert [f["name"] for f in plain] == order
    assert_not_strict(plain[1])


def test_schemas_by_name_refuse_unknown_names_and_a_bare_string(strict_registry):
    with pytest.raises(tr.ToolRegistryError) as info:
        strict_registry.get_strict_schemas(names=["send_email", "nope"])
    assert info.value.status == tr.Status.NOT_FOUND
    assert "nope" in info.value.message
    with pytest.raises(TypeError):
        strict_registry.get_schemas(names="send_email")
