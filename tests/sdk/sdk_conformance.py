#!/usr/bin/env python3
"""What the library writes, checked by the providers' official Python SDKs (openai, anthropic,
google-genai; versions pinned in scripts/test-parts/45-sdk-conformance.sh).

1. Request types, strictly: every tool list and message the library produces is validated with
   pydantic against the SDK's own request types, with unknown keys refused (the SDKs' TypedDicts
   get ``extra='forbid'``; google-genai's models forbid extras already) and lazy ``Iterable``
   fields forced. Covered: ``get_schemas`` in every format with and without ``strict`` (a real
   catalog plus hand-made edge cases), discover answers, conversation tools in every mode (native
   Anthropic and Responses, client and server search, included), search replies, ``execute``
   results and ``include_assistant`` turns.
2. Response models in: model replies built with the SDKs' response classes, dumped every way the
   SDK dumps them (``model_dump`` with and without ``mode="json"``, ``by_alias``,
   ``exclude_none``; ``to_json_dict``/``to_dict``; ``model_dump_json``), must all give the same
   answer, with every call answered and no error.
3. Real clients: the SDKs' own clients send the library's tools and messages to a recording HTTP
   server on 127.0.0.1 (``base_url``); the JSON that leaves the client must be exactly the
   library's (same keys, same order, same values).

Usage: sdk_conformance.py [CATALOG.json]  (exit status 1 on any failure; the first lines of each
failure are printed).
"""

import base64
import http.server
import importlib.metadata
import json
import sys
import threading
import typing
from pathlib import Path

import anthropic
import openai
import pydantic
import typing_extensions
from anthropic.types import Message as AnthropicMessage
from anthropic.types import MessageParam, ToolUnionParam
from google import genai
from google.genai import types as gtypes
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessageParam,
    ChatCompletionToolUnionParam,
)
from openai.types.responses import Response, ResponseInputItemParam
from openai.types.responses import ToolParam as ResponsesToolParam

import toolregistry_rs as tr

# How many catalog tools the conversation, reply and client checks use (every mode lists them all).
CONVERSATION_CATALOG = 60
FAILURES: typing.List[str] = []
CHECKS = 0


def version(distribution: str) -> str:
    return importlib.metadata.version(distribution)


def check(ok: bool, what: str) -> None:
    global CHECKS
    CHECKS += 1
    if not ok:
        FAILURES.append(what)


# ---- strict validation against the SDKs' request types ----


def forbid_extra(tp: typing.Any, seen: typing.Set[int]) -> None:
    """Sets ``extra='forbid'`` on every TypedDict reachable from ``tp`` (the SDKs' request types
    accept unknown keys otherwise)."""
    if id(tp) in seen:
        return
    seen.add(id(tp))
    if typing_extensions.is_typeddict(tp):
        # (Some file fields are typed IO[bytes]: taken as they are.)
        tp.__pydantic_config__ = pydantic.ConfigDict(extra="forbid", arbitrary_types_allowed=True)
        for hint in typing.get_type_hints(tp, include_extras=True).values():
            forbid_extra(hint, seen)
    for arg in typing.get_args(tp):
        forbid_extra(arg, seen)


def force(value: typing.Any) -> typing.Any:
    """The validated value with every lazy iterable run (pydantic checks an ``Iterable`` field's
    items only when it is iterated)."""
    if isinstance(value, dict):
        return {k: force(v) for k, v in value.items()}
    if isinstance(value, (str, bytes, int, float, bool)) or value is None:
        return value
    if isinstance(value, pydantic.BaseModel):
        return value
    if hasattr(value, "__iter__"):
        return [force(v) for v in value]
    return value


class Strict:
    """A pydantic TypeAdapter over an SDK request type, unknown keys refused."""

    def __init__(self, tp: typing.Any) -> None:
        forbid_extra(tp, set())
        self.adapter: pydantic.TypeAdapter[typing.Any] = pydantic.TypeAdapter(tp)
        self.name = getattr(tp, "__name__", str(tp))

    def errors(self, value: typing.Any) -> typing.Optional[str]:
        try:
            force(self.adapter.validate_python(value))
        except pydantic.ValidationError as e:
            return str(e).splitlines()[0] + " | " + " | ".join(str(e).splitlines()[1:4])
        return None


class GeminiModel:
    """A google-genai model class (its config forbids extra keys), camelCase or snake_case."""

    def __init__(self, cls: typing.Any) -> None:
        self.cls = cls
        self.name = cls.__name__

    def errors(self, value: typing.Any) -> typing.Optional[str]:
        try:
            self.cls.model_validate(value)
        except pydantic.ValidationError as e:
            return str(e).splitlines()[0] + " | " + " | ".join(str(e).splitlines()[1:4])
        return None


CHAT_TOOL = Strict(ChatCompletionToolUnionParam)
CHAT_MESSAGE = Strict(ChatCompletionMessageParam)
RESPONSES_TOOL = Strict(ResponsesToolParam)
RESPONSES_ITEM = Strict(ResponseInputItemParam)
ANTHROPIC_TOOL = Strict(ToolUnionParam)
ANTHROPIC_MESSAGE = Strict(MessageParam)
GEMINI_TOOL = GeminiModel(gtypes.Tool)
GEMINI_DECLARATION = GeminiModel(gtypes.FunctionDeclaration)
GEMINI_CONTENT = GeminiModel(gtypes.Content)

TOOL_TYPES = {
    "openai-chat": CHAT_TOOL,
    "openai-responses": RESPONSES_TOOL,
    "anthropic": ANTHROPIC_TOOL,
    "gemini": GEMINI_DECLARATION,
}
MESSAGE_TYPES = {
    "openai-chat": CHAT_MESSAGE,
    "openai-responses": RESPONSES_ITEM,
    "anthropic": ANTHROPIC_MESSAGE,
    "gemini": GEMINI_CONTENT,
}
STRICT = {"openai-chat": [False, True], "openai-responses": [False, True], "anthropic": [False], "gemini": [False]}


def validate_all(kind: typing.Any, values: typing.Iterable[typing.Any], where: str) -> None:
    for i, v in enumerate(values):
        err = kind.errors(v)
        label = v.get("name", v.get("type", "")) if isinstance(v, dict) else ""
        check(err is None, f"{where}[{i}] {label}: not a valid {kind.name}: {err}")


# ---- the registry under test ----

EDGE_TOOLS = [
    {
        "name": "book_bus",
        "description": "Book seats on a coach.",
        "parameters": {
            "type": "object",
            "properties": {
                "seats": {"type": "integer", "enum": [1, 2, 3, 4, 5]},
                "level": {"type": ["string", "null"], "enum": ["low", "high", None]},
                "ratio": {"type": "number", "enum": [0.5, 1]},
                "class": {"anyOf": [{"type": "string", "enum": ["a", "b"]}, {"type": "null"}]},
                "tags": {"type": "array", "items": {"type": "integer", "enum": [7, 8]}},
            },
            "required": ["seats"],
        },
    },
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "metadata": {"defer": True},
    },
    {
        "name": "send_email",
        "description": "Send an email to recipients.",
        "parameters": {
            "type": "object",
            "properties": {"to": {"type": "array", "items": {"type": "string"}}, "subject": {"type": "string"}},
            "required": ["to", "subject"],
        },
        "metadata": {"defer": True},
    },
]


def echo(name: str) -> typing.Callable[[str], str]:
    return lambda args: f"{name} <- {args}"


def registry(catalog: typing.List[typing.Dict[str, typing.Any]]) -> tr.Registry:
    """The edge tools (with echo hosts) over `catalog`, whose tools are deferred: discover answers
    then carry their schemas."""
    r = tr.Registry()
    if catalog:
        r.register([{**t, "metadata": {**t.get("metadata", {}), "defer": True}} for t in catalog])
    for tool in EDGE_TOOLS:
        r.register_function(tool, echo(tool["name"]), raw=True)
    r.enable_discovery()
    return r


# ---- 1. what the library writes, against the request types ----


def check_schemas(r: tr.Registry) -> None:
    d = r.discoverer()
    for fmt, kind in TOOL_TYPES.items():
        for strict in STRICT[fmt]:
            tools = r.get_schemas(api_format=fmt, strict=strict)
            validate_all(kind, tools, f"get_schemas({fmt}, strict={strict})")
            hits = d.discover("book a bus ticket for passengers", 10, api_format=fmt, strict=strict)
            schemas = [h["schema"] for h in hits if "schema" in h]
            check(bool(schemas), f"discover({fmt}): no schema in the answer")
            validate_all(kind, schemas, f"discover({fmt}, strict={strict})")
        try:
            r.get_schemas(api_format=fmt, strict=True)
            check(fmt in ("openai-chat", "openai-responses"), f"{fmt}: strict accepted")
        except tr.ToolRegistryError:
            check(fmt not in ("openai-chat", "openai-responses"), f"{fmt}: strict refused")


CONVERSATIONS = [
    (fmt, mode, search, strict)
    for fmt in TOOL_TYPES
    for mode in ["summaries", "stable", "native", "auto"]
    for search in (["client", "server"] if mode == "native" else ["client"])
    for strict in STRICT[fmt]
    if mode != "native" or fmt in ("anthropic", "openai-responses")
]


def request_tool_type(fmt: str) -> typing.Any:
    """The element type of a request's `tools` (Gemini's is `Tool`, not the declaration)."""
    return GEMINI_TOOL if fmt == "gemini" else TOOL_TYPES[fmt]


def check_conversation_tools(r: tr.Registry) -> None:
    for fmt, mode, search, strict in CONVERSATIONS:
        for threshold in ([10, 10**9] if mode == "auto" else [10_000]):
            with r.conversation(api_format=fmt, mode=mode, search=search, strict=strict,
                                defer_threshold_tokens=threshold, loaded=["get_weather"]) as c:
                tools = c.tools().tools
                where = f"conversation({fmt}, {mode}, search={search}, strict={strict}, auto<{threshold})"
                check(bool(tools), f"{where}: no tools")
                validate_all(request_tool_type(fmt), tools, where + ".tools")
                if fmt == "gemini":
                    check(len(tools) == 1 and "functionDeclarations" in tools[0],
                          f"{where}: Gemini's tools must be one Tool with functionDeclarations: {tools[:1]}")


# Model replies as the SDKs' response classes hold them.


def chat_reply() -> ChatCompletion:
    return ChatCompletion.model_validate({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}},
                {"id": "call_2", "type": "function",
                 "function": {"name": "book_bus", "arguments": "{\"seats\":2,\"level\":null}"}},
                {"id": "call_3", "type": "function",
                 "function": {"name": "discover_tools", "arguments": "{\"query\":\"email\"}"}},
            ]}}],
    })


def responses_reply() -> Response:
    return Response.model_validate({
        "id": "resp_1", "object": "response", "created_at": 1, "model": "gpt-test", "status": "completed",
        "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "Weather first."}],
             "encrypted_content": "gAAAAB-opaque"},
            {"type": "tool_search_call", "id": "ts_1", "call_id": None, "execution": "server",
             "status": "completed", "arguments": {"query": "weather"}},
            {"type": "tool_search_output", "id": "tso_1", "call_id": None, "execution": "server",
             "status": "completed", "tools": [{"type": "function", "name": "get_weather", "description": "Weather.",
                                               "parameters": {"type": "object", "properties": {}}, "strict": False,
                                               "defer_loading": True}]},
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather",
             "arguments": "{\"city\":\"Paris\"}", "status": "completed"},
            {"type": "tool_search_call", "id": "ts_2", "call_id": "call_s2", "execution": "client",
             "status": "completed", "arguments": {"query": "send email"}},
            {"type": "function_call", "id": "fc_2", "call_id": "call_2", "name": "book_bus",
             "arguments": "{\"seats\":1}", "status": "completed"},
        ],
    })


def anthropic_reply() -> AnthropicMessage:
    return AnthropicMessage.model_validate({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
        "stop_reason": "tool_use", "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [
            {"type": "thinking", "thinking": "Weather first.", "signature": "c2lnLTE="},
            {"type": "redacted_thinking", "data": "cmVkYWN0ZWQ="},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
            {"type": "thinking", "thinking": "Then the bus.", "signature": "c2lnLTI="},
            {"type": "tool_use", "id": "toolu_2", "name": "book_bus", "input": {"seats": 3}},
            {"type": "tool_use", "id": "toolu_3", "name": "discover_tools", "input": {"query": "email"}},
        ],
    })


def gemini_reply() -> gtypes.GenerateContentResponse:
    return gtypes.GenerateContentResponse(candidates=[gtypes.Candidate(
        finish_reason=gtypes.FinishReason.STOP,
        content=gtypes.Content(role="model", parts=[
            gtypes.Part(text="Weather first.", thought=True, thought_signature=b"sig-thought"),
            gtypes.Part(text="Checking."),
            gtypes.Part(function_call=gtypes.FunctionCall(id="gc_1", name="get_weather", args={"city": "Paris"}),
                        thought_signature=b"sig-call-1"),
            gtypes.Part(function_call=gtypes.FunctionCall(name="book_bus", args={"seats": 4, "level": "low"})),
        ]))])


def dumps(model: pydantic.BaseModel) -> typing.Dict[str, typing.Any]:
    """Every JSON form of `model` the SDK gives (python-mode dumps hold bytes: JSON mode only)."""
    out: typing.Dict[str, typing.Any] = {}
    for by_alias in (False, True):
        for exclude_none in (False, True):
            out[f"model_dump(mode=json, by_alias={by_alias}, exclude_none={exclude_none})"] = model.model_dump(
                mode="json", by_alias=by_alias, exclude_none=exclude_none)
    out["model_dump_json()"] = json.loads(model.model_dump_json())
    out["model_dump_json(by_alias)"] = json.loads(model.model_dump_json(by_alias=True))
    if hasattr(model, "to_json_dict"):
        out["to_json_dict()"] = model.to_json_dict()
    if hasattr(model, "to_dict"):
        out["to_dict()"] = model.to_dict()
    if isinstance(model, gtypes.GenerateContentResponse):
        content = model.candidates[0].content
        out["candidates[0].content.to_json_dict()"] = content.to_json_dict()
        out["candidates[0].content.model_dump(mode=json)"] = content.model_dump(mode="json")
        out["parts as to_json_dict()"] = [p.to_json_dict() for p in content.parts]
    if isinstance(model, ChatCompletion):
        out["choices[0].message.model_dump()"] = model.choices[0].message.model_dump()
        out["choices[0].message.to_dict()"] = model.choices[0].message.to_dict()
    if isinstance(model, Response):
        out["[item.model_dump() for item in output]"] = [i.model_dump() for i in model.output]
    if isinstance(model, AnthropicMessage):
        out["content blocks model_dump()"] = [b.model_dump() for b in model.content]
    return out


REPLIES = {
    "openai-chat": (chat_reply, 3),
    "openai-responses": (responses_reply, 2),
    "anthropic": (anthropic_reply, 3),
    "gemini": (gemini_reply, 2),
}


def check_replies(r: tr.Registry) -> typing.Dict[str, typing.List[typing.Dict[str, typing.Any]]]:
    """Every dump of every reply through execute (with and without include_assistant) and a
    conversation; the answers must agree and be valid request messages. Returns each format's
    answer with the assistant turn (for the real-client round trip)."""
    answers = {}
    for fmt, (reply, n_calls) in REPLIES.items():
        model = reply()
        seen: typing.Dict[str, str] = {}
        for how, dumped in dumps(model).items():
            where = f"{fmt} reply as {how}"
            try:
                messages = r.execute(dumped, include_assistant=True)
                bare = r.execute(json.dumps(dumped), api_format=fmt)
            except tr.ToolRegistryError as e:
                check(False, f"{where}: refused: {e}")
                continue
            seen[how] = json.dumps(messages)
            validate_all(MESSAGE_TYPES[fmt], messages, where)
            check(count_results(fmt, bare) == n_calls, f"{where}: {count_results(fmt, bare)} results, want {n_calls}")
            check(not any('"Error: ' in json.dumps(m) for m in bare), f"{where}: an error result: {bare}")
            check_kept(fmt, messages, where)
        distinct = set(seen.values())
        check(len(distinct) == 1, f"{fmt}: the dumps give {len(distinct)} different answers: "
              + "; ".join(f"{k}: {v[:200]}" for k, v in seen.items()))
        answers[fmt] = json.loads(next(iter(seen.values()))) if seen else []
        if not seen:
            continue
        for mode in (["native"] if fmt in ("anthropic", "openai-responses") else ["stable"]):
            for search in (["client", "server"] if mode == "native" else ["client"]):
                with r.conversation(api_format=fmt, mode=mode, search=search) as c:
                    messages = c.execute(model.model_dump(mode="json"), include_assistant=True)
                    where = f"conversation({fmt}, {mode}, {search}).execute"
                    validate_all(MESSAGE_TYPES[fmt], messages, where)
                    check_kept(fmt, messages, where)
                    # The reply's client search (call_s2) is answered once; the server's is not.
                    answered = [m.get("call_id") for m in messages
                                if m.get("type") == "tool_search_output" and m.get("execution") == "client"]
                    want = ["call_s2"] if fmt == "openai-responses" else []
                    check(answered == want, f"{where}: client tool_search_output for {answered}, want {want}: "
                          "a search the server ran is not answered again")
    return answers


def count_results(fmt: str, messages: typing.List[typing.Dict[str, typing.Any]]) -> int:
    if fmt == "openai-chat":
        return sum(m.get("role") == "tool" for m in messages)
    if fmt == "openai-responses":
        return sum(m.get("type") == "function_call_output" for m in messages)
    if fmt == "anthropic":
        return sum(len(m["content"]) for m in messages if m.get("role") == "user")
    return sum(len(m["parts"]) for m in messages if m.get("role") == "user")


def check_kept(fmt: str, messages: typing.List[typing.Dict[str, typing.Any]], where: str) -> None:
    """The rebuilt assistant turn keeps what the provider needs back."""
    text = json.dumps(messages)
    if fmt == "openai-responses":
        reasoning = [m for m in messages if m.get("type") == "reasoning"]
        check(len(reasoning) == 1 and reasoning[0].get("encrypted_content") == "gAAAAB-opaque"
              and messages[0] is reasoning[0], f"{where}: the reasoning item is not kept first: {text[:300]}")
    elif fmt == "anthropic":
        blocks = messages[0]["content"]
        kinds = [b["type"] for b in blocks]
        check(kinds == ["thinking", "redacted_thinking", "tool_use", "thinking", "tool_use", "tool_use"],
              f"{where}: thinking blocks not kept in order: {kinds}")
        check(blocks[0].get("signature") == "c2lnLTE=" and blocks[1].get("data") == "cmVkYWN0ZWQ=",
              f"{where}: thinking blocks changed: {blocks[:2]}")
    elif fmt == "gemini":
        parts = messages[0]["parts"]
        want = [base64.b64encode(b"sig-thought").decode(), base64.b64encode(b"sig-call-1").decode(), None]
        check([p.get("thoughtSignature") for p in parts] == want,
              f"{where}: thought signatures not kept on their parts: {parts}")


# ---- 3. the SDKs' real clients, against a recording server ----


class Recorder(http.server.BaseHTTPRequestHandler):
    bodies: typing.List[typing.Tuple[str, bytes]] = []
    replies: typing.Dict[str, bytes] = {}

    def do_POST(self) -> None:  # noqa: N802 (the handler's name)
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        Recorder.bodies.append((self.path, body))
        reply = next((v for k, v in Recorder.replies.items() if k in self.path), b"{}")
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: typing.Any) -> None:
        pass


def sent() -> typing.Dict[str, typing.Any]:
    """The last request body, decoded keeping its key order."""
    return json.loads(Recorder.bodies[-1][1])


def camel(value: typing.Any, data: bool = False) -> typing.Any:
    """Gemini JSON with every field name in camelCase (protobuf JSON takes both spellings, and
    google-genai writes some schema fields in snake_case, e.g. `min_length`); names that are data
    (properties, arguments, responses, values) are left alone."""
    if isinstance(value, list):
        return [camel(v, data) for v in value]
    if not isinstance(value, dict) or data:
        return value
    out = {}
    for k, v in value.items():
        head, *rest = k.split("_")
        key = head + "".join(w[:1].upper() + w[1:] for w in rest) if rest and head else k
        if key == "properties" and isinstance(v, dict):
            out[key] = {name: camel(schema) for name, schema in v.items()}
        else:
            out[key] = camel(v, key in ("args", "response", "default", "example", "enum"))
    return out


def same(got: typing.Any, want: typing.Any, where: str, ordered: bool = True) -> None:
    """The JSON the client sent equals the library's, key order included. google-genai re-writes
    every object through its models, in their field order and with some names in snake_case:
    there the keys are compared as sets, in camelCase."""
    if not ordered:
        # As values: a float field of the SDK's writes 1 as 1.0.
        got, want = camel(got), camel(want)
    a = json.dumps(got, ensure_ascii=False, sort_keys=not ordered)
    b = json.dumps(want, ensure_ascii=False, sort_keys=not ordered)
    if a != b and (ordered or got != want):
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        check(False, f"{where}: the client sent other JSON than the library's, from character {at}:\n"
              f"    sent    ...{a[max(0, at - 150):at + 150]}\n    library ...{b[max(0, at - 150):at + 150]}")
    else:
        check(True, where)


def round_trip(c: typing.Any, fmt: str, tools: typing.Any, where: str, clients: typing.Any,
               user: typing.Dict[str, typing.Any]) -> None:
    """The SDK's client sends the conversation's tools; its parsed reply goes through the
    library; the client sends the library's messages back. Both requests must carry the
    library's JSON."""
    oa, an, gc = clients
    if fmt == "openai-chat":
        reply = oa.chat.completions.create(model="m", messages=[user], tools=tools)
        same(sent()["tools"], tools, where + " tools")
        messages = c.execute(reply.choices[0].message.model_dump(), include_assistant=True)
        oa.chat.completions.create(model="m", messages=[user, *messages], tools=tools)
        same(sent()["messages"][1:], messages, where + " messages")
    elif fmt == "openai-responses":
        reply = oa.responses.create(model="m", input=[user], tools=tools)
        same(sent()["tools"], tools, where + " tools")
        messages = c.execute(reply.model_dump(), include_assistant=True)
        oa.responses.create(model="m", input=[user, *messages], tools=tools)
        same(sent()["input"][1:], messages, where + " input")
    elif fmt == "anthropic":
        reply = an.messages.create(model="m", max_tokens=64, messages=[user], tools=tools)
        same(sent()["tools"], tools, where + " tools")
        messages = c.execute(reply.model_dump(), include_assistant=True)
        an.messages.create(model="m", max_tokens=64, messages=[user, *messages], tools=tools)
        same(sent()["messages"][1:], messages, where + " messages")
    else:
        guser = {"role": "user", "parts": [{"text": user["content"]}]}
        reply = gc.models.generate_content(
            model="m", contents=[guser], config=gtypes.GenerateContentConfig(tools=tools))
        same(sent()["tools"], tools, where + " tools", ordered=False)
        messages = c.execute(reply.to_json_dict(), include_assistant=True)
        # Content objects read from JSON, as a host holds them (a dict's base64
        # signature would be taken as raw bytes by pydantic's python mode).
        contents = [gtypes.Content.model_validate_json(json.dumps(m)) for m in [guser, *messages]]
        gc.models.generate_content(
            model="m", contents=contents, config=gtypes.GenerateContentConfig(tools=tools))
        same(sent()["contents"][1:], messages, where + " contents", ordered=False)


def check_clients(r: tr.Registry, answers: typing.Dict[str, typing.Any]) -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    Recorder.replies = {
        "/chat/completions": chat_reply().model_dump_json().encode(),
        "/responses": responses_reply().model_dump_json().encode(),
        "/messages": anthropic_reply().model_dump_json().encode(),
        ":generateContent": gemini_reply().model_dump_json(by_alias=True, exclude_none=True).encode(),
    }
    try:
        oa = openai.OpenAI(base_url=base + "/v1", api_key="test", max_retries=0)
        an = anthropic.Anthropic(base_url=base, api_key="test", max_retries=0)
        gc = genai.Client(api_key="test", http_options=gtypes.HttpOptions(base_url=base + "/"))
        user = {"role": "user", "content": "What's the weather in Paris?"}
        for fmt, mode, search, strict in CONVERSATIONS:
            if mode == "auto":
                continue
            with r.conversation(api_format=fmt, mode=mode, search=search, strict=strict,
                                loaded=["get_weather"]) as c:
                tools = c.tools().tools
                where = f"{fmt} client, conversation({mode}, {search}, strict={strict})"
                try:
                    round_trip(c, fmt, tools, where, (oa, an, gc), user)
                except Exception as e:  # the SDK refused what the library wrote, or the reply
                    check(False, f"{where}: {type(e).__name__}: " + str(e).replace("\n", " | ")[:400])
        # Plain get_schemas lists and execute answers too.
        for fmt in ("openai-chat", "anthropic"):
            tools = r.get_schemas(api_format=fmt, include_deferred=False)
            if fmt == "openai-chat":
                oa.chat.completions.create(model="m", messages=[user], tools=tools)
            else:
                an.messages.create(model="m", max_tokens=64, messages=[user], tools=tools)
            same(sent()["tools"], tools, f"{fmt} client, get_schemas")
        tools = r.get_schemas(api_format="gemini", include_deferred=False)
        gc.models.generate_content(model="m", contents="hi", config=gtypes.GenerateContentConfig(
            tools=[gtypes.Tool(function_declarations=tools)]))
        same(sent()["tools"], [{"functionDeclarations": tools}], "gemini client, get_schemas", ordered=False)
        if answers.get("openai-responses"):
            oa.responses.create(model="m", input=[user, *answers["openai-responses"]])
            same(sent()["input"][1:], answers["openai-responses"], "responses client, execute answer")
    finally:
        server.shutdown()


def stage(run: typing.Callable[..., typing.Any], *args: typing.Any) -> typing.Any:
    """Runs one group of checks; an exception (an SDK refusing what the library wrote, the
    library refusing a reply) is a failed check, and the other groups still run."""
    try:
        return run(*args)
    except Exception as e:
        check(False, f"{run.__name__}: {type(e).__name__}: " + str(e).replace("\n", " | ")[:500])
        return None


def main(argv: typing.List[str]) -> int:
    catalog = json.loads(Path(argv[1]).read_text()) if len(argv) > 1 else []
    # Every schema of the catalog in every format; the conversations, replies and clients on a
    # slice of it (each conversation mode lists every tool again).
    with registry(catalog) as r:
        stage(check_schemas, r)
    with registry(catalog[:CONVERSATION_CATALOG]) as r:
        stage(check_conversation_tools, r)
        answers = stage(check_replies, r) or {}
        stage(check_clients, r, answers)
    versions = ", ".join(f"{name} {version(name)}" for name in ("openai", "anthropic", "google-genai"))
    if FAILURES:
        sys.stderr.write(f"{len(FAILURES)} of {CHECKS} SDK checks failed ({versions}):\n")
        for f in FAILURES[:40]:
            sys.stderr.write("  " + f[:600] + "\n")
        return 1
    print(f"{CHECKS} SDK checks passed ({versions}; {len(catalog)} catalog tools)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
