"""JSON Schema of a Python function's parameters, as the reference toolregistry 0.19.0 makes it.

Mirrors ``toolregistry.Tool.from_function``: its type walker (``_vendor/validate.json_schema``),
then the same post-processing (``oneOf`` unions made ``anyOf``; a nullable top-level property
reduced to its non-null type; ``title`` and ``nullable`` stripped). Supported annotations: ``str``,
``int``, ``float``, ``bool``, ``bytes``, ``None``, ``Any``, ``list[X]``, ``dict[K, V]``,
``tuple[...]``, ``set[X]``/``frozenset[X]``, ``Optional``/``Union``/``X | Y``, ``Literal``,
``Enum`` subclasses (their values), ``Annotated`` with constraints (``annotated_types``-style
``ge``/``gt``/``le``/``lt``/``min_length``/``max_length`` attributes, or objects with a
``description``), ``TypedDict`` and dataclasses. Anything else becomes an unconstrained schema.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from enum import Enum
from typing import Any, Callable, Dict, List, Tuple

try:  # Python 3.10+
    from types import UnionType as _UnionType
except ImportError:  # pragma: no cover
    _UnionType = None  # type: ignore[assignment,misc]

_UNION_ORIGINS = tuple(o for o in (typing.Union, _UnionType) if o is not None)
_PY_TO_JSON = {str: "string", int: "integer", float: "number", bool: "boolean", bytes: "string"}
#: The constraint attributes the reference translates, with the JSON Schema keyword of each
#: (strings, then arrays, for the length ones).
_CONSTRAINTS = {
    "ge": ("minimum", "minimum"),
    "gt": ("exclusiveMinimum", "exclusiveMinimum"),
    "le": ("maximum", "maximum"),
    "lt": ("exclusiveMaximum", "exclusiveMaximum"),
    "min_length": ("minLength", "minItems"),
    "max_length": ("maxLength", "maxItems"),
}
_JSON_DEFAULT_TYPES = (str, int, float, bool, type(None), list, dict)
_STRIP = {"title", "nullable"}


def parameters_schema(func: Callable[..., Any]) -> Dict[str, Any]:
    """The ``parameters`` JSON Schema the reference generates for ``func``."""
    try:
        signature = inspect.signature(func)
    except (TypeError, ValueError):
        return {"type": "object", "properties": {}}
    try:
        hints = typing.get_type_hints(func, include_extras=True)
    except Exception:
        hints = {}
    properties: Dict[str, Any] = {}
    required: List[str] = []
    var_keyword = False
    for param in signature.parameters.values():
        if param.name == "self" or param.kind == param.VAR_POSITIONAL:
            continue
        if param.kind == param.VAR_KEYWORD:
            var_keyword = True
            continue
        if param.annotation is param.empty:
            annotation: Any = Any
        elif param.annotation is None:
            annotation = None
        else:
            annotation = hints.get(param.name, param.annotation)
            if isinstance(annotation, str):
                annotation = Any
        annotation = _resolve_enum(_bare_tuple(annotation))
        if param.default is not param.empty and param.annotation is param.empty:
            annotation = Any  # the reference's ``Any | None`` renders as {}
        prop = _type_schema(annotation)
        if param.default is param.empty:
            required.append(param.name)
        elif isinstance(param.default, _JSON_DEFAULT_TYPES):
            prop["default"] = param.default
        properties[param.name] = prop
    schema: Dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    if var_keyword:
        schema["additionalProperties"] = True
    schema = _any_of_unions(schema)
    _simplify_nullable(schema)
    return _flatten(schema)


def _bare_tuple(tp: Any) -> Any:
    """A bare ``tuple`` is a variable-length array, also inside unions (as the reference)."""
    if tp is tuple:
        return Tuple[Any, ...]
    if typing.get_origin(tp) in _UNION_ORIGINS:
        return typing.Union[tuple(_bare_tuple(a) for a in typing.get_args(tp))]
    return tp


def _resolve_enum(tp: Any) -> Any:
    """An Enum subclass is the Literal of its values, also inside unions."""
    if typing.get_origin(tp) in _UNION_ORIGINS:
        return typing.Union[tuple(_resolve_enum(a) for a in typing.get_args(tp))]
    if isinstance(tp, type) and issubclass(tp, Enum):
        return typing.Literal[tuple(e.value for e in tp)]
    return tp


def _type_schema(tp: Any) -> Dict[str, Any]:
    if tp is Any:
        return {}
    if tp is None or tp is type(None):
        return {"type": "null"}
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return _annotated(args[0], args[1:])
    if origin is typing.Literal:
        return {"enum": list(args)}
    if origin in _UNION_ORIGINS:
        return _union(args)
    if origin is list:
        return {"type": "array", **({"items": _type_schema(args[0])} if args else {})}
    if origin is dict:
        schema: Dict[str, Any] = {"type": "object"}
        if len(args) == 2:
            schema["additionalProperties"] = _type_schema(args[1])
        return schema
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return {"type": "array", "items": _type_schema(args[0])}
        if args:
            return {
                "type": "array",
                "prefixItems": [_type_schema(a) for a in args],
                "minItems": len(args),
                "maxItems": len(args),
            }
        return {"type": "array"}
    if origin in (set, frozenset):
        return {"type": "array", "uniqueItems": True, **({"items": _type_schema(args[0])} if args else {})}
    if typing.is_typeddict(tp) if hasattr(typing, "is_typeddict") else False:
        required: frozenset[str] = frozenset(getattr(tp, "__required_keys__", ()))
        hints = typing.get_type_hints(tp)
        return _struct({k: (v, k in required) for k, v in hints.items()}, {})
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        fields = {}
        defaults = {}
        hints = typing.get_type_hints(tp)
        for f in dataclasses.fields(tp):
            has_default = f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING
            fields[f.name] = (hints.get(f.name, Any), not has_default)
            if f.default is not dataclasses.MISSING:
                defaults[f.name] = f.default
        return _struct(fields, defaults)
    if isinstance(tp, type) and tp in _PY_TO_JSON:
        return {"type": _PY_TO_JSON[tp]}
    return {}


def _annotated(base: Any, metadata: Tuple[Any, ...]) -> Dict[str, Any]:
    schema = _type_schema(base)
    is_array = schema.get("type") == "array"
    for item in metadata:
        if callable(getattr(item, "schema_kw", None)):  # the reference's own Ge, Doc, MaxLen, ...
            kw = item.schema_kw_array() if is_array and hasattr(item, "schema_kw_array") else item.schema_kw()
            schema.update(kw)
            continue
        for kw in _constraint_keywords(item):
            key, array_key, value = kw
            schema[array_key if is_array else key] = value
    return schema


def _constraint_keywords(item: Any) -> List[Tuple[str, str, Any]]:
    """The JSON Schema keywords of one ``Annotated`` item (annotated_types / pydantic style)."""
    found = []
    for attr, (key, array_key) in _CONSTRAINTS.items():
        value = getattr(item, attr, None)
        if value is not None and not callable(value):
            found.append((key, array_key, value))
    if found:
        return found
    description = getattr(item, "description", None)
    if isinstance(description, str) and description and hasattr(item, "metadata"):
        found.append(("description", "description", description))
        for inner in getattr(item, "metadata", []) or []:
            found.extend(_constraint_keywords(inner))
    elif type(item).__name__ == "Doc" and isinstance(getattr(item, "documentation", None), str):
        found.append(("description", "description", item.documentation))
    return found


def _union(args: Tuple[Any, ...]) -> Dict[str, Any]:
    non_none = [a for a in args if a is not type(None)]
    if len(non_none) == 1 and len(non_none) < len(args):
        schema = _type_schema(non_none[0])
        if "type" in schema:
            current = schema["type"]
            if isinstance(current, list):
                if "null" not in current:
                    schema["type"] = [*current, "null"]
            else:
                schema["type"] = [current, "null"]
            return schema
        return {"oneOf": [schema, {"type": "null"}]}
    return {"oneOf": [_type_schema(a) for a in args]}


def _struct(fields: Dict[str, Tuple[Any, bool]], defaults: Dict[str, Any]) -> Dict[str, Any]:
    properties: Dict[str, Any] = {}
    required: List[str] = []
    for name, (tp, is_required) in fields.items():
        properties[name] = _type_schema(tp)
        if is_required:
            required.append(name)
        if name in defaults and isinstance(defaults[name], _JSON_DEFAULT_TYPES):
            properties[name]["default"] = defaults[name]
    schema: Dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


_MAP_KEYS = ("properties", "patternProperties", "dependentSchemas", "$defs")
_CHILD_KEYS = (
    "items",
    "additionalProperties",
    "additionalItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "propertyNames",
    "anyOf",
    "oneOf",
    "allOf",
    "prefixItems",
)


def _any_of_unions(schema: Dict[str, Any]) -> Dict[str, Any]:
    """Python unions are inclusive: ``oneOf`` becomes ``anyOf`` (the reference does the same)."""
    result = dict(schema)
    for key in _MAP_KEYS:
        if isinstance(result.get(key), dict):
            result[key] = {k: _any_of_unions(v) for k, v in result[key].items()}
    for key in _CHILD_KEYS:
        value = result.get(key)
        if isinstance(value, dict):
            result[key] = _any_of_unions(value)
        elif isinstance(value, list):
            result[key] = [_any_of_unions(v) if isinstance(v, dict) else v for v in value]
    if "oneOf" in result and "anyOf" not in result:
        result["anyOf"] = result.pop("oneOf")
    return result


def _simplify_nullable(schema: Dict[str, Any]) -> None:
    """A top-level property's ``null`` alternative is dropped (``type: [T, "null"]`` -> ``T``)."""
    for prop in (schema.get("properties") or {}).values():
        any_of = prop.get("anyOf")
        if isinstance(any_of, list):
            non_null = [v for v in any_of if v != {"type": "null"}]
            if len(non_null) < len(any_of):
                if len(non_null) == 1:
                    del prop["anyOf"]
                    prop.update(non_null[0])
                else:
                    prop["anyOf"] = non_null
        types = prop.get("type")
        if isinstance(types, list) and "null" in types:
            rest = [t for t in types if t != "null"]
            if len(rest) == 1:
                prop["type"] = rest[0]
            elif rest:
                prop["type"] = rest


def _flatten(schema: Dict[str, Any], in_map: bool = False) -> Dict[str, Any]:
    """The reference's ``flatten_schema`` on what the walker emits: unions simplified, keys stripped."""
    result: Dict[str, Any] = {}
    for key, value in schema.items():
        if not in_map and key in _STRIP:
            continue
        if isinstance(value, dict):
            result[key] = _flatten(value, in_map=key in _MAP_KEYS)
        elif isinstance(value, list):
            result[key] = [_flatten(v) if isinstance(v, dict) else v for v in value]
        else:
            result[key] = value
    if not in_map:
        for keyword in ("anyOf", "oneOf"):
            variants = result.get(keyword)
            if isinstance(variants, list):
                non_null = [v for v in variants if not (isinstance(v, dict) and v.get("type") == "null")]
                base = {k: v for k, v in result.items() if k not in ("anyOf", "oneOf")}
                if len(non_null) == 1:
                    base = {**base, **non_null[0]}
                elif len(non_null) > 1:
                    base[keyword] = non_null
                return base  # ``nullable`` would be set here, and is stripped
    return result
