"""toolregistry_rs.compat's ToolRegistry beyond discovery: constructor, registration from functions,
Tools and classes, namespaces, enabled state with reasons and by tags, status, schemas of one tool,
and the engine as the source of that state. Where the reference toolregistry 0.19.0 is installed
(the test part installs it), the same calls run on both and must agree."""

import json
import warnings

import pytest

from toolregistry_rs import compat
from toolregistry_rs.compat.tool import Tool, ToolMetadata, ToolTag
from toolregistry_rs.compat.tool_registry import ToolRegistry


def reference():
    return pytest.importorskip("toolregistry", minversion="0.19.0")


def area(width: float, height: float) -> float:
    """Area of a rectangle. Width times height."""
    return width * height


def volume(side: float) -> float:
    """Volume of a cube."""
    return side**3


class Geometry:
    @staticmethod
    def circle(radius: float) -> float:
        """Area of a circle."""
        return 3.0 * radius * radius

    @staticmethod
    def square(side: float) -> float:
        """Area of a square."""
        return side * side


class Greeter:
    def __init__(self, greeting: str = "Hello") -> None:
        self.greeting = greeting

    def hello(self, name: str) -> str:
        """Say hello."""
        return f"{self.greeting}, {name}!"

    def bye(self, name: str) -> str:
        """Say goodbye."""
        return f"Bye, {name}."

    @classmethod
    def make(cls) -> "Greeter":
        return cls()

    def _private(self) -> None:
        pass


def build(m, **kwargs):
    """The same registry in the reference (m = toolregistry) or in compat."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        reg = m.ToolRegistry(name="geo", **kwargs)
        reg.register(area)
        reg.register(volume, namespace="solid")
        reg.register_from_class(Geometry, namespace=True)
        reg.register(
            m.Tool.from_function(
                lambda path: path, name="wipe_disk", metadata=m.ToolMetadata(tags={m.ToolTag.DESTRUCTIVE})
            )
        )
        reg.register(m.Tool.from_function(lambda q: q, name="web_get", metadata=m.ToolMetadata(custom_tags={"net"})))
    return reg


def test_constructor_takes_the_reference_arguments():
    reg = ToolRegistry(name="mine", default_max_result_size=100, think_augment=False, name_sep="-")
    assert reg.name == "mine"
    assert ToolRegistry().name.startswith("reg_")
    with pytest.raises(ValueError, match="name_sep"):
        ToolRegistry(name_sep=".")
    with ToolRegistry(tool_discovery=True) as reg:
        assert reg._tool_discovery is not None
        assert reg.list_tools() == ["discover_tools", "call_deferred"]
        assert "discover_tools" in reg


def test_registration_names_namespaces_and_class_methods():
    reg = build(compat)
    assert reg.list_tools() == [
        "area",
        "solid-volume",
        "geometry-circle",
        "geometry-square",
        "wipe_disk",
        "web_get",
    ]
    tool = reg.get_tool("geometry-circle")
    assert (tool.namespace, tool.method_name) == ("geometry", "circle")
    assert tool.run({"radius": 2.0}) == 12.0
    # The engine registered the same names, namespaces included.
    assert [(s["name"], s["namespace"]) for s in reg.native.tools_status()] == sorted(
        [(n, reg.get_tool(n).namespace) for n in reg.list_tools()]
    )
    # Instances and classes with instance methods: bound methods, no classmethods or _private.
    reg.register(Greeter("Hi"), source="class", namespace="g")
    with pytest.warns(DeprecationWarning):
        reg.register_from_class(Greeter, namespace=True)
    assert reg.get_tool("g-hello").run({"name": "Ada"}) == "Hi, Ada!"
    assert reg.get_tool("greeter-bye").run({"name": "Ada"}) == "Bye, Ada."
    assert not [n for n in reg.list_tools() if n.endswith(("make", "_private"))]
    with pytest.raises(ValueError, match="namespace=True"):
        reg.register(area, namespace=True)
    with pytest.raises(TypeError, match="auto-detect"):
        reg.register(42)
    with pytest.raises(NotImplementedError):
        reg.register("http://localhost:1", source="mcp")
    reg.close()


def test_registration_agrees_with_the_reference():
    tr_ref = reference()
    ours, ref = build(compat), build(tr_ref)
    assert ours.list_tools() == ref.list_tools()
    for name in ref.list_tools():
        a, b = ours.get_tool(name), ref.get_tool(name)
        assert (a.name, a.namespace, a.method_name, a.description) == (b.name, b.namespace, b.method_name, b.description)
        assert a.parameters == b.parameters
    ours.close()


def test_from_function_names_like_the_reference():
    t = Tool.from_function(area, namespace="Calc", method_name="my_area")
    assert (t.name, t.namespace, t.method_name, t.qualified_name) == ("calc-area", "calc", "my_area", "calc-area")
    assert Tool.from_function(area, name="custom").method_name == "custom"
    t = Tool(name="ns-some_func", description="d", parameters={}, callable=area)
    assert t.method_name is None and t.parameters == {"type": "object", "properties": {}}
    moved = t.update_namespace("new_ns", force=True)
    assert (moved.name, moved.namespace, moved.method_name) == ("new_ns-some_func", "new_ns", "some_func")
    assert t.update_namespace("other") is t  # already qualified: unchanged without force
    assert t.requalify(None).name == "some_func"
    data = Tool.from_function(area, namespace="calc").to_dict()
    assert "callable" not in data and data["namespace"] == "calc" and data["method_name"] == "area"
    tr_ref = reference()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = tr_ref.Tool.from_function(area, namespace="Calc", method_name="my_area")
    got = Tool.from_function(area, namespace="Calc", method_name="my_area")
    assert (got.name, got.namespace, got.method_name) == (want.name, want.namespace, want.method_name)


def test_metadata_has_the_reference_fields_and_rules():
    tr_ref = reference()
    ref_fields = {f for f in tr_ref.ToolMetadata.__dataclass_fields__}
    assert ref_fields == set(ToolMetadata.__dataclass_fields__)
    m = ToolMetadata()
    assert (m.is_async, m.is_concurrency_safe, m.timeout, m.locality, m.execution_hints) == (False, True, None, "any", {})
    with pytest.raises(ValueError):
        ToolMetadata(locality="cloud")
    with pytest.raises(ValueError):
        ToolMetadata(read_only_hint="yes")
    assert ToolMetadata(tags={ToolTag.READ_ONLY}).execution_hints == {"read_only_hint": True, "destructive_hint": False}
    with pytest.warns(UserWarning, match="read_only_hint"):
        ToolMetadata(tags={ToolTag.READ_ONLY}, destructive_hint=True)
    with pytest.raises(TypeError):
        hash(m)

    async def fetch(url: str) -> str:
        """Fetch a page."""
        return url

    t = Tool.from_function(fetch, metadata=ToolMetadata(is_async=False, timeout=3.0))
    assert t.is_async and t.metadata.timeout == 3.0
    assert t.run({"url": "u"}) == "u"
    assert Tool(name="x", description="", parameters={}, callable=area, is_async=True).is_async


def test_enable_disable_reasons_follow_the_reference():
    reg = build(compat)
    reg.disable("geometry", reason="namespace off")
    reg.disable("geometry-circle", reason="circle off")
    assert reg.get_disable_reason("geometry-circle") == "circle off"
    assert reg.get_disable_reason("geometry-square") == "namespace off"
    reg.enable("geometry")
    assert not reg.is_enabled("geometry-circle") and reg.is_enabled("geometry-square")
    reg.disable("area")
    assert reg.get_disable_reason("area") == ""
    reg.enable("area")
    assert reg.get_disable_reason("area") is None
    # Unknown names: no error (the engine itself answers NOT_FOUND), and the disable applies
    # to a tool registered later under that name or namespace.
    reg.disable("later", reason="not yet")
    reg.enable("never_disabled")
    assert reg.is_enabled("nothing_here") and reg.get_disable_reason("nothing_here") is None
    reg.register(lambda: 1, name="later")
    assert reg.get_disable_reason("later") == "not yet"
    assert "later" not in [s["function"]["name"] for s in reg.get_schemas()]
    reg.close()


def test_state_is_the_engines():
    reg = build(compat)
    # Disabled through the engine directly: compat reads the engine's state and reason.
    reg.native.disable("area", "from the engine")
    assert not reg.is_enabled("area")
    assert reg.get_disable_reason("area") == "from the engine"
    assert "area" not in reg.list_tools()
    assert {s["name"]: s["reason"] for s in reg.get_tools_status()}["area"] == "from the engine"
    reg.close()


def test_disable_by_tags():
    reg = build(compat)
    assert reg.disable_by_tags(set()) == []
    assert reg.disable_by_tags({ToolTag.SLOW}) == []
    assert reg.disable_by_tags({ToolTag.DESTRUCTIVE, "net"}, match="all") == []
    reg.disable("web_get", reason="already")
    assert reg.disable_by_tags({ToolTag.DESTRUCTIVE, "net"}) == ["wipe_disk"]
    assert reg.get_disable_reason("wipe_disk") == "Disabled by tag filter"
    assert reg.get_disable_reason("web_get") == "already"
    reg.enable("web_get")
    assert reg.disable_by_tags({"net"}, reason="offline") == ["web_get"]
    assert reg.get_disable_reason("web_get") == "offline"
    reg.close()


def test_tools_status_and_available_tools_agree_with_the_reference():
    tr_ref = reference()
    ours, ref = build(compat, tool_discovery=True), build(tr_ref, tool_discovery=True)
    for reg in (ours, ref):
        reg.disable("geometry", reason="ns")
        reg.disable("geometry-square", reason="sq")
        reg.disable_by_tags({"destructive"})
    assert ours.get_tools_status() == ref.get_tools_status()
    with pytest.warns(DeprecationWarning):
        assert ours.get_available_tools() == ours.list_tools()
    assert ours.list_tools() == ref.list_tools()
    ours.close()


def test_get_tool_and_schemas_of_the_builtins_and_of_disabled_tools():
    reg = build(compat, tool_discovery=True)
    tool = reg.get_tool("discover_tools")
    assert tool is not None and set(tool.parameters["properties"]) >= {"query", "top_k"}
    assert [h["name"] for h in tool.run({"query": "circle area"})][:1] == ["geometry-circle"]
    assert reg.get_tool("call_deferred") is not None
    reg.disable("area")
    for fmt, name_of in [
        ("openai-chat", lambda s: s["function"]["name"]),
        ("openai-responses", lambda s: s["name"]),
        ("anthropic", lambda s: s["name"]),
        ("gemini", lambda s: s["name"]),
    ]:
        assert [name_of(s) for s in reg.get_schemas(tool_name="area", api_format=fmt)] == ["area"]
    assert reg.get_schemas(tool_name="missing") == []
    with pytest.raises(ValueError, match="disable_tool_discovery"):
        reg.disable("discover_tools")
    reg.disable_tool_discovery()
    assert reg.get_tool("discover_tools") is None and "call_deferred" not in reg.list_tools()
    reg.close()


def test_tool_get_schema_in_every_format_matches_the_reference():
    tr_ref = reference()
    ours = Tool.from_function(area)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = tr_ref.Tool.from_function(area)
    for fmt in ("openai-chat", "openai-responses", "anthropic", "gemini"):
        assert ours.get_schema(fmt) == ref.get_schema(fmt), fmt
    with pytest.warns(DeprecationWarning):
        assert ours.get_schema("openai") == ref.get_schema("openai-chat")
    with pytest.raises(ValueError, match="Unsupported API format"):
        ours.get_schema("cohere")
    with ToolRegistry() as reg, pytest.raises(ValueError, match="Unsupported API format"):
        reg.get_schemas(api_format="cohere")


def test_think_augment_adds_the_reason_property():
    reg = ToolRegistry(think_augment=True)
    reg.register(area)
    props = reg.get_schemas()[0]["function"]["parameters"]["properties"]
    assert "toolcall_reason" in props
    reg.update_tool_metadata("area", think_augment=False)
    assert "toolcall_reason" not in reg.get_schemas()[0]["function"]["parameters"]["properties"]
    with pytest.raises(ValueError, match="not allowed"):
        reg.update_tool_metadata("area", timeout=3)
    reg.close()


def test_json_round_trip_of_status():
    reg = build(compat)
    json.dumps(reg.get_tools_status())
    reg.close()


def test_disables_survive_replacement_and_re_registration_like_the_reference():
    tr_ref = reference()
    got = []
    for m in (compat, tr_ref):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reg = m.ToolRegistry()
            reg.register(area)
            reg.disable("area", "kept")
            reg.register(area, allow_replace=True)
            reg.register(volume, namespace="ns")
            reg.disable("ns", "namespace kept")
            reg._unregister("ns-volume")
            reg.register(volume, namespace="ns")
        got.append([(n, reg.is_enabled(n), reg.get_disable_reason(n)) for n in reg.list_tools(include_disabled=True)])
    assert got[0] == got[1] == [("area", False, "kept"), ("ns-volume", False, "namespace kept")]


def test_call_deferred_runs_in_the_engine_with_the_references_errors():
    reg = ToolRegistry()
    reg.register(Tool.from_function(area, metadata=ToolMetadata(defer=True)), namespace="geo")
    reg.register(volume)
    discovery = reg.enable_tool_discovery()
    assert discovery.call_deferred(_target_tool="geo-area", width=2.0, height=3.0) == 6.0
    assert discovery.call_deferred(_target_tool="geo_area", width=1.0, height=3.0) == 3.0  # normalized name
    with pytest.raises(KeyError, match="Did you mean: geo-area"):
        discovery.call_deferred(_target_tool="geo_areax")
    with pytest.raises(ValueError, match="'volume' is not a deferred tool"):
        discovery.call_deferred(_target_tool="volume", side=1.0)
    with pytest.raises(compat_errors()):
        discovery.call_deferred(_target_tool="geo-area", width="wide", height=1.0)
    assert reg.get_tool("call_deferred").parameters.get("additionalProperties") is True
    assert reg.get_tool("discover_tools").execution_hints["read_only_hint"] is True
    with pytest.warns(UserWarning, match=r"ignored: field_weights, min_score_ratio=0\.0"):
        reg.enable_tool_discovery(field_weights={"name": 2.0}, min_score_ratio=0.0)
    reg.close()


def compat_errors():
    from toolregistry_rs import ToolRegistryError

    return ToolRegistryError


def test_validate_parameters_is_the_engines_check():
    tool = Tool.from_function(area)
    assert tool.validate_parameters({"width": 2.0, "height": 1.5, "toolcall_reason": "why", "extra": 1}) == {
        "width": 2.0,
        "height": 1.5,
    }
    with pytest.raises(ValueError, match="height"):
        tool.validate_parameters({"width": 2.0})
    with pytest.raises(ValueError, match="number"):
        tool.run({"width": "wide", "height": 1.0})
    assert tool.run({"width": 2.0, "height": 2.0}) == 4.0
