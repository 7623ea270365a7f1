#!/usr/bin/env python3
"""Record the reference's cleaned schemas for tests/it/schema_clean.rs.

Runs the installed reference, toolregistry 0.19.0 (with llm-rosetta 0.13), on a corpus: every
distinct parameters schema of the public eval catalogs (../shared/eval/*/catalog.json) plus the
hand-written cases in hand_cases.json (`$ref`/`$defs`, `allOf`, nullable unions, cycles, `const`,
`examples`, ...). For each case and api format it writes the reference's `get_schemas` answer to
tests/schema/golden.json, which is committed so the test needs no Python. To keep the file small it
holds each case's flattened parameters once (`flattened`, left out when equal to the input) and its
Gemini parameters (`gemini`); this script checks that the reference's answers are exactly those
parameters in each format's wrapper, which the test rebuilds. Catalog cases name their tool
(`catalog`: [dataset, index]) instead of repeating it.

The reference's Gemini pass (llm-rosetta) caches its result under a key that ignores key order, so
its answer for a schema can depend on what was converted before; the cache is cleared before each
case, which records each schema's own answer.

Deliberate differences (README, "Schemas"). Flattening: a property-name map is never pruned as if
it were a schema (engine_walk_sanitize). Gemini: property names are never stripped, a keyword that
Gemini's Schema object lacks (`patternProperties`, `multipleOf`, `not`, ...) is dropped, a type
list `[T, "null"]` becomes `T` + `nullable`, and `enum` holds strings only (`null` dropped for
`nullable`, other values as JSON text with `"format": "enum"`). This script carries its own copy of the reference's Gemini
pass (llm-rosetta's sanitize_schema and _normalize_schema_types) with the engine's changes behind a
switch; with the switch off the copy must reproduce the reference's answer for every case (checked
below), and with it on it gives the expected answer. Where the engine's answer differs, the file
keeps the reference's too (`flattened_reference`, `gemini_reference`).

Usage: python3 tests/schema/record.py   (from the crate root; rewrites tests/schema/golden.json)
"""

import copy
import json
import os
import sys
import warnings

import toolregistry
from toolregistry._vendor import jsonschema
from llm_rosetta.converters.base.helpers.cache import clear_all_caches
from toolregistry import Tool, ToolRegistry

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EVAL = os.path.join(ROOT, "..", "shared", "eval")
FORMATS = ["openai-chat", "openai-responses", "anthropic", "gemini"]


def corpus():
    """(source, description, parameters) for each distinct schema, catalogs first."""
    seen = set()
    cases = []
    for dataset in ["bfcl", "metatool", "apibench"]:
        with open(os.path.join(EVAL, dataset, "catalog.json"), encoding="utf-8") as f:
            catalog = json.load(f)
        for i, tool in enumerate(catalog):
            params = tool.get("parameters")
            key = json.dumps(params, sort_keys=False)
            if key in seen:
                continue
            seen.add(key)
            cases.append(((dataset, i), tool.get("description", ""), params))
    with open(os.path.join(HERE, "hand_cases.json"), encoding="utf-8") as f:
        for case in json.load(f):
            cases.append((case["name"], case.get("description", ""), case["parameters"]))
    return cases


# ---- Gemini: the reference's pass (llm-rosetta 0.13), with the engine's changes ----

GEMINI_STRIP = {
    "propertyNames", "const", "$schema", "$comment", "$id", "$anchor", "$dynamicAnchor",
    "$dynamicRef", "ref", "contentEncoding", "contentMediaType", "contentSchema", "deprecated",
    "readOnly", "writeOnly", "examples", "exclusiveMinimum", "exclusiveMaximum",
    "additionalProperties", "title", "$ref", "$defs", "definitions",
}
PROPERTY_MAPS = {"properties", "patternProperties", "dependentSchemas"}


# The fields of Gemini's Schema object (plus the unions the pass itself flattens afterwards).
GEMINI_FIELDS = {
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
    "oneOf", "allOf",
}


def gemini_sanitize(schema, engine, in_map=False, schema_pos=True):
    result = {}
    for key, value in schema.items():
        if not (engine and in_map) and key in GEMINI_STRIP:
            continue
        if engine and schema_pos and not in_map and key not in GEMINI_FIELDS:
            continue
        names = engine and key in PROPERTY_MAPS and not in_map
        if isinstance(value, dict):
            result[key] = gemini_sanitize(value, engine, names, in_map or key == "items")
        elif isinstance(value, list):
            union = key in ("anyOf", "oneOf", "allOf") and not in_map
            result[key] = [gemini_sanitize(v, engine, False, union) if isinstance(v, dict) else v
                           for v in value]
        else:
            result[key] = value
    if engine and in_map:
        return result
    if result.keys() & {"anyOf", "oneOf", "allOf"}:
        result = flatten_combination(result)
    if isinstance(result.get("required"), list) and isinstance(result.get("properties"), dict):
        valid = [r for r in result["required"] if r in result["properties"]]
        if valid:
            result["required"] = valid
        else:
            del result["required"]
    if engine and schema_pos:
        strings_only_enum(result)
    return result


def strings_only_enum(schema):
    """The engine's third change: Gemini's `enum` is a list of strings (google-genai
    `Schema.enum: list[str]`). `null` leaves it for `nullable`; other values become their JSON
    text, marked `"format": "enum"` (the Schema's documented non-string enum)."""
    values = schema.get("enum")
    if not isinstance(values, list) or all(isinstance(v, str) for v in values):
        return
    kept = [v for v in values if v is not None]
    converted = any(not isinstance(v, str) for v in kept)
    strings = [v if isinstance(v, str) else json.dumps(v, separators=(",", ":"), ensure_ascii=False)
               for v in kept]
    if strings:
        schema["enum"] = strings
    else:
        del schema["enum"]
    if converted:
        schema["format"] = "enum"
    if len(kept) < len(values):
        schema["nullable"] = True


def flatten_combination(schema):
    for keyword in ("anyOf", "oneOf"):
        variants = schema.get(keyword)
        if not isinstance(variants, list):
            continue
        non_null = [v for v in variants if v.get("type") != "null"]
        base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf", "allOf")}
        if non_null:
            overlay(base, non_null[0])
        if len(non_null) < len(variants):
            base["nullable"] = True
        return base
    all_of = schema.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and isinstance(all_of[0], dict):
        base = {k: v for k, v in schema.items() if k != "allOf"}
        overlay(base, all_of[0])
        return base
    return schema


def overlay(base, over):
    for key, value in over.items():
        if key == "properties" and isinstance(base.get(key), dict) and isinstance(value, dict):
            base[key] = {**base[key], **value}
        else:
            base[key] = value


def upper_types(schema, engine):
    if not isinstance(schema, dict):
        return schema
    result = {}
    nullable = False
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            result[key] = value.upper()
        elif key == "type" and engine and isinstance(value, list) and all(isinstance(t, str) for t in value):
            non_null = [t for t in value if t != "null"]
            if len(non_null) == 1 and len(value) in (1, 2):
                result[key] = non_null[0].upper()
                nullable = nullable or len(value) == 2
            else:
                result[key] = value
        elif key == "properties" and isinstance(value, dict):
            result[key] = {k: upper_types(v, engine) for k, v in value.items()}
        elif key == "items":
            result[key] = upper_types(value, engine)
        elif key in ("anyOf", "oneOf", "allOf") and isinstance(value, list):
            result[key] = [upper_types(v, engine) for v in value]
        else:
            result[key] = value
    if nullable:
        result["nullable"] = True
    return result


def gemini(tool, engine):
    params = copy.deepcopy(tool.parameters)
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": upper_types(gemini_sanitize(params, engine), engine),
    }


def check_wrappers(source, got, name, description, flat):
    """The reference wraps the same flattened parameters in each format's shape (so the file
    keeps the parameters once and the test rebuilds each format's answer around them)."""
    expected = {
        "openai-chat": {"type": "function", "function": {
            "name": name, "description": description, "parameters": flat}},
        "openai-responses": {"type": "function", "name": name, "description": description,
                             "parameters": flat, "strict": False},
        "anthropic": {"name": name, "description": description, "input_schema": flat},
    }
    for f, want in expected.items():
        if json.dumps(got[f]) != json.dumps(want):
            sys.exit(f"{source} {f}: unexpected shape {json.dumps(got[f])}")
    g = got["gemini"]
    if list(g) != ["name", "description", "parameters"] or g["name"] != name or g["description"] != description:
        sys.exit(f"{source} gemini: unexpected shape {json.dumps(g)}")


def engine_walk_sanitize(schema, strip, *, _in_property_map=False):
    """The reference's `_walk_sanitize` with the engine's one change: a property-name map is
    never pruned (the reference turns the schema of a parameter called `required` into a list of
    names when a parameter called `properties` sits beside it)."""
    result = {}
    for key, value in schema.items():
        if not _in_property_map and key in strip:
            continue
        if isinstance(value, dict):
            result[key] = engine_walk_sanitize(
                value, strip, _in_property_map=key in jsonschema._PROPERTY_MAP_KEYS)
        elif isinstance(value, list):
            result[key] = [engine_walk_sanitize(item, strip) if isinstance(item, dict) else item
                           for item in value]
        else:
            result[key] = value
    if not _in_property_map and "required" in result and "properties" in result:
        props = result["properties"]
        pruned = [r for r in result["required"] if r in props]
        if pruned:
            result["required"] = pruned
        else:
            del result["required"]
    return result


def engine_flattened(description, params):
    """The parameters as the engine flattens them: the reference's pipeline with
    `engine_walk_sanitize` in place of `_walk_sanitize`."""
    original = jsonschema._walk_sanitize
    jsonschema._walk_sanitize = engine_walk_sanitize
    try:
        return Tool(name="x", description=description, parameters=copy.deepcopy(params),
                    callable=lambda **kw: None)
    finally:
        jsonschema._walk_sanitize = original


def main():
    warnings.simplefilter("ignore")
    cases = corpus()
    registry = ToolRegistry()
    out = []
    differs = 0
    for n, (source, description, params) in enumerate(cases):
        name = f"c{n:05d}"
        tool = Tool(name=name, description=description, parameters=copy.deepcopy(params),
                    callable=lambda **kw: None)
        registry.register(tool)
        tool = registry.get_tool(name)
        # llm-rosetta caches its Gemini pass under a key that ignores key order, so a schema seen
        # before in another order would come back in that order: start each tool afresh.
        clear_all_caches()
        got = {f: registry.get_schemas(name, api_format=f)[0] for f in FORMATS}
        mine = gemini(tool, engine=False)
        if mine != got["gemini"] or json.dumps(mine) != json.dumps(got["gemini"]):
            sys.exit(f"{source}: this script's copy of the reference's Gemini pass disagrees:\n"
                     f"  reference: {json.dumps(got['gemini'])}\n  copy:      {json.dumps(mine)}")
        ref_flat = tool.parameters
        check_wrappers(source, got, name, description, ref_flat)
        case = {"catalog": list(source)} if isinstance(source, tuple) else {
            "name": source, "description": description, "parameters": params}
        engine_tool = engine_flattened(description, params)
        flat = engine_tool.parameters
        if json.dumps(flat) != json.dumps(params):
            case["flattened"] = flat
        if json.dumps(flat) != json.dumps(ref_flat):
            differs += 1
            case["flattened_reference"] = ref_flat
        case["gemini"] = got["gemini"]["parameters"]
        expected = gemini(engine_tool, engine=True)["parameters"]
        if json.dumps(expected) != json.dumps(got["gemini"]["parameters"]):
            differs += "flattened_reference" not in case
            case["gemini_reference"] = got["gemini"]["parameters"]
            case["gemini"] = expected
        out.append(case)
    doc = {
        "reference": f"toolregistry {toolregistry.__version__}",
        "note": "Written by tests/schema/record.py; do not edit by hand.",
        "cases": out,
    }
    path = os.path.join(HERE, "golden.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    print(f"{len(out)} cases, {differs} with a deliberate difference -> {path}")


if __name__ == "__main__":
    main()
