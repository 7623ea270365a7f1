"""toolregistry_rs.compat: Python functions as tools, metadata, enabled state, schemas, summaries
and ToolDiscoveryTool, checked against the reference toolregistry 0.19.0 side by side when it is
installed (the test part installs it), and against fixed expectations otherwise."""

import dataclasses
import enum
import warnings
from typing import Annotated, Any, Dict, List, Literal, Optional, Tuple, TypedDict, Union

import pytest

from toolregistry_rs import compat
from toolregistry_rs._schema import parameters_schema


class Unit(enum.Enum):
    C = "celsius"
    F = "fahrenheit"


class Mode(str, enum.Enum):
    FAST = "fast"
    SAFE = "safe"


class Point(TypedDict):
    x: float
    y: float


@dataclasses.dataclass
class Window:
    start: int
    end: int = 10


def get_weather(city: str, unit: Unit = Unit.C, days: int = 1) -> str:
    """Get the weather forecast for a city.

    Args:
        city: The city name.
    """
    return ""


def send_email(
    to: str, subject: str, body: str = "", cc: Optional[List[str]] = None, urgent: bool = False
) -> None:
    """Send an email to a recipient. Supports CC."""


def convert_currency(amount: float, source: Literal["USD", "EUR", "JPY"], target: str = "EUR") -> float:
    """Convert an amount from one currency to another."""
    return 0.0


def plot(
    points: List[Point],
    window: Window = None,
    mode: Mode = Mode.FAST,
    size: Tuple[int, int] = (4, 3),
    scale: Union[int, float] = 1,
    label: "str | None" = None,
    meta: Dict[str, Any] = None,
    *args,
    **kwargs,
):
    """Plot points. Everything else is optional."""


def bounded(
    n: Annotated[int, "ignored note"], tags: set = None, rest: tuple = (), anything=None, nothing: None = None
):
    pass


def method_like(self, x: int):
    """A method-shaped function."""


FUNCTIONS = [get_weather, send_email, convert_currency, plot, bounded, method_like]

try:
    import annotated_types as at

    def constrained(n: Annotated[int, at.Ge(1), at.Lt(10)], items: Annotated[List[str], at.MaxLen(3)] = None):
        """Constrained parameters."""

    FUNCTIONS.append(constrained)
except ImportError:  # pragma: no cover
    pass


def reference():
    return pytest.importorskip("toolregistry", minversion="0.19.0")


@pytest.mark.parametrize("func", FUNCTIONS, ids=lambda f: f.__name__)
def test_schema_matches_the_reference(func):
    tr_ref = reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = tr_ref.Tool.from_function(func)
    got = compat.Tool.from_function(func)
    assert got.parameters == want.parameters
    assert (got.name, got.description) == (want.name, want.description)


def test_schema_without_the_reference():
    assert parameters_schema(get_weather) == {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "days": {"type": "integer", "default": 1},
        },
        "required": ["city"],
    }
    assert parameters_schema(send_email)["properties"]["cc"] == {
        "type": "array",
        "items": {"type": "string"},
        "default": None,
    }
    schema = parameters_schema(plot)
    assert schema["additionalProperties"] is True
    assert schema["properties"]["points"]["items"]["properties"] == {
        "x": {"type": "number"},
        "y": {"type": "number"},
    }
    assert schema["properties"]["mode"] == {"enum": ["fast", "safe"], "default": "fast"}
    assert schema["properties"]["scale"] == {"anyOf": [{"type": "integer"}, {"type": "number"}], "default": 1}
    assert "self" not in parameters_schema(method_like)["properties"]


def test_names_and_lambdas():
    def getHTTPResponse():
        pass

    assert compat.Tool.from_function(getHTTPResponse).name == "get_http_response"
    assert compat.Tool.from_function(lambda: 0, name="anon").name == "anon"
    with pytest.raises(ValueError):
        compat.Tool.from_function(lambda: 0)


def make_registry(module, discovery=True):
    """The same small registry in the reference or in compat."""
    reg = module.ToolRegistry()
    Tool, ToolMetadata = module.Tool, module.ToolMetadata
    reg.register(
        Tool.from_function(get_weather, metadata=ToolMetadata(search_hint="rain sunshine temperature"))
    )
    reg.register(Tool.from_function(send_email, metadata=ToolMetadata(defer=True, custom_tags={"mail"})))
    reg.register(
        Tool.from_function(
            convert_currency, metadata=ToolMetadata(defer=True, search_hint="money exchange rates")
        ),
        namespace="finance",
    )
    reg.register(plot)
    reg.register(bounded, namespace="misc")
    if discovery:
        return reg, reg.enable_tool_discovery()
    return reg, None


QUERIES = [
    "weather in Paris",
    "send an email",
    "money",
    "exchange currency",
    "plot points",
    "finance-convert_currency",
    "GET_WEATHER",
    "mail",
    "nothing matches this",
    "rain",
]


def without_schema_order(hits):
    return [{k: v for k, v in h.items()} for h in hits]


def test_discovery_side_by_side_with_the_reference():
    tr_ref = reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_reg, ref_disc = make_registry(tr_ref)
    ours_reg, ours_disc = make_registry(compat)
    for q in QUERIES:
        want, got = ref_disc.discover(q, top_k=5), ours_disc.discover(q, top_k=5)
        assert [h["name"] for h in got] == [h["name"] for h in want], q
        for g, w in zip(got, want):
            assert g["score"] == pytest.approx(w["score"], rel=1e-9)
            assert (g["namespace"], g["deferred"], g["description"]) == (
                w["namespace"],
                w["deferred"],
                w["description"],
            )
            assert ("schema" in g) == ("schema" in w)
            if "schema" in w:
                assert g["schema"]["function"]["parameters"] == w["schema"]["function"]["parameters"]
    # the same changes on both sides
    for reg in (ref_reg, ours_reg):
        reg.disable("finance")
        reg.update_tool_metadata("plot", search_hint="money chart")
    for q in ["money", "chart", "finance-convert_currency"]:
        assert [h["name"] for h in ours_disc.discover(q)] == [h["name"] for h in ref_disc.discover(q)], q
    assert ours_reg.get_deferred_summaries() == ref_reg.get_deferred_summaries()
    ours_reg.enable("finance")
    ref_reg.enable("finance")
    assert ours_reg.get_deferred_summaries() == ref_reg.get_deferred_summaries()

    def names(schemas):
        return [s["function"]["name"] for s in schemas if s["function"]["name"] != "call_deferred"]

    assert names(ours_reg.get_schemas(include_deferred=False)) == names(
        ref_reg.get_schemas(include_deferred=False)
    )
    assert names(ours_reg.get_schemas(tags={"mail"})) == names(ref_reg.get_schemas(tags={"mail"}))
    assert ours_reg.list_tools() == ref_reg.list_tools()
    ours_reg.close()


def test_summaries_prefer_the_search_hint():
    reg, _ = make_registry(compat, discovery=False)
    assert reg.get_deferred_summaries() == [
        {"name": "send_email", "description": "Send an email to a recipient.", "namespace": None},
        {"name": "finance-convert_currency", "description": "money exchange rates", "namespace": "finance"},
    ]
    reg.close()


def test_enabled_state_follows_the_reference_rules():
    reg, disc = make_registry(compat)
    reg.disable("later_tool")  # not registered yet: applies when it is

    def later_tool():
        """A later tool about zebras."""

    reg.register(later_tool)
    assert not reg.is_enabled("later_tool") and disc.discover("zebras") == []
    reg.enable("later_tool")
    assert [h["name"] for h in disc.discover("zebras")] == ["later_tool"]
    reg.disable("misc-bounded")
    reg.disable("misc")
    reg.enable("misc")
    assert not reg.is_enabled("misc-bounded"), (
        "a tool disabled by name stays disabled when its namespace returns"
    )
    assert disc.discover("misc-bounded") == []
    assert reg.list_tools(include_disabled=True)[-1] == "later_tool"
    reg.close()


def test_update_tool_metadata():
    reg, disc = make_registry(compat)
    reg.update_tool_metadata("plot", defer=True, tags={compat.ToolTag.SLOW}, search_hint="graph")
    hit = disc.discover("graph")[0]
    assert hit["name"] == "plot" and hit["deferred"] and "schema" in hit
    assert [h["name"] for h in disc.discover("slow")] == ["plot"]
    assert reg.get_tool("plot").metadata.all_tags == {"slow"}
    with pytest.raises(KeyError):
        reg.update_tool_metadata("nope", defer=True)
    with pytest.raises(ValueError):
        reg.update_tool_metadata("plot", timeout=3)
    reg.close()


def test_get_schemas_options():
    reg, _ = make_registry(compat)
    assert [s["function"]["name"] for s in reg.get_schemas("plot")] == ["plot"]
    assert reg.get_schemas("send_email")[0]["function"]["name"] == "send_email"  # deferred, named
    assert reg.get_schemas("nope") == []
    in_order = [s["function"]["name"] for s in reg.get_schemas(sort=False)]
    assert in_order == [
        "get_weather",
        "send_email",
        "finance-convert_currency",
        "plot",
        "misc-bounded",
        "discover_tools",
        "call_deferred",
    ]
    assert reg.get_schemas("get_weather", api_format="anthropic")[0]["name"] == "get_weather"
    reg.disable_tool_discovery()
    assert not {"discover_tools", "call_deferred"} & {s["function"]["name"] for s in reg.get_schemas()}
    reg.close()


def test_register_replacement_warns():
    reg, _ = make_registry(compat, discovery=False)

    def get_weather(city: str) -> str:
        """Another weather tool."""

    with pytest.warns(UserWarning, match="already registered"):
        reg.register(get_weather)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg.register(get_weather, allow_replace=True)
    assert reg.get_tool("get_weather").description == "Another weather tool."
    with pytest.raises(TypeError):
        reg.register(42)
    reg.close()


def test_registers_reference_tools():
    tr_ref = reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tool = tr_ref.Tool.from_function(
            get_weather, metadata=tr_ref.ToolMetadata(defer=True, search_hint="rain")
        )
    reg = compat.ToolRegistry()
    reg.register(tool)
    disc = compat.ToolDiscoveryTool(reg)
    hit = disc.discover("rain")[0]
    assert hit["name"] == "get_weather" and hit["deferred"]
    reg.close()


@pytest.mark.parametrize(
    "kwargs",
    [{"min_score_ratio": 1.5}, {"max_df_ratio": -0.1}, {"min_score_ratio": True}, {"max_df_ratio": "0.5"}],
)
def test_tool_discovery_validates_ratios(kwargs):
    with compat.ToolRegistry() as reg:
        with pytest.raises(ValueError):
            compat.ToolDiscoveryTool(reg, **kwargs)


def test_discover_refusals_are_value_errors():
    reg, disc = make_registry(compat)
    for query, top_k in [("", 10), ("   ", 10), ("weather", 0)]:
        with pytest.raises(ValueError):
            disc.discover(query, top_k=top_k)
    disc.rebuild_index()
    assert disc.discover("weather")[0]["name"] == "get_weather"
    assert reg.enable_tool_discovery() is disc
    with pytest.warns(UserWarning, match="already enabled"):
        reg.enable_tool_discovery(min_score_ratio=0.0)
    reg.close()


def test_profile_is_pinned_to_reference():
    reg, disc = make_registry(compat)
    assert disc._engine_options()["profile"] == "reference"
    assert disc._discoverer.explain("weather", "get_weather")["profile"] == "reference"
    assert reg.native.call("discover_tools", {"query": "rain"}) == disc.discover("rain")
    reg.close()


def test_tool_discovery_over_a_plain_registry():
    import toolregistry_rs as tr

    with tr.Registry() as r:
        r.register({"name": "send_email", "description": "Send an email."})
        with compat.ToolDiscoveryTool(r) as d:
            assert d.discover("email")[0]["name"] == "send_email"
    with pytest.raises(TypeError):
        compat.ToolDiscoveryTool(object())


def test_functions_run_through_the_engine():
    def add(a: int, b: int = 2) -> int:
        """Add two integers."""
        return a + b

    def multiply(a: int, b: int) -> int:
        """Multiply two integers."""
        return a * b

    reg = compat.ToolRegistry()
    reg.register(add)
    reg.register(compat.Tool.from_function(multiply, metadata=compat.ToolMetadata(defer=True)))
    reg.enable_tool_discovery()
    calls = {
        "role": "assistant",
        "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1}'}},
            {
                "id": "2",
                "type": "function",
                "function": {
                    "name": "call_deferred",
                    "arguments": '{"_target_tool": "multiply", "a": 2, "b": 3}',
                },
            },
            {"id": "3", "type": "function", "function": {"name": "add", "arguments": '{"a": "x"}'}},
        ],
    }
    out = [m["content"] for m in reg.native.execute(calls)]
    assert out[:2] == ["3", "6"]
    assert out[2].startswith("Error:")  # the schema from the type hints is enforced
    reg.disable("add", reason="quota exceeded")
    assert "quota exceeded" in reg.native.execute(calls)[0]["content"]
    reg.close()
