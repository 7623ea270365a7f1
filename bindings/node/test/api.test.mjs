// The synchronous surface: registry, discoverer, conversation tools, errors, bad input, closed
// handles, and the native memory contract (strings and handles freed exactly once).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  Registry, Discoverer, Conversation, ToolRegistryError, ClosedError, Status, version, statusName, libraryPath,
} from "toolregistry";
import { stringStats } from "../dist/native.js";
import { handleStats } from "../dist/handle.js";
import { ROOT } from "./corpus.mjs";

const TOOLS = [
  {
    name: "get_weather",
    description: "Current weather for a city.",
    parameters: { type: "object", properties: { city: { type: "string", description: "City name" } }, required: ["city"] },
    metadata: { tags: ["weather"] },
  },
  { name: "send_email", description: "Send an email to recipients. Supports CC.", metadata: { defer: true, tags: ["mail"] } },
  { name: "create_issue", description: "Create an issue in a repository.", namespace: "github", metadata: { defer: true } },
  { type: "function", function: { name: "read_file", description: "Read a file from disk.", parameters: { type: "object", properties: { path: { type: "string" } } } } },
  { name: "list_dir", description: "List a directory.", input_schema: { type: "object", properties: { path: { type: "string" } } } },
  { name: "fetch_url", description: "Fetch a URL.", inputSchema: { type: "object", properties: { url: { type: "string" } } } },
];

// Closed after each test (Node 20 has no `using`).
const owned = [];
const own = (x) => (owned.push(x), x);
afterEach(() => {
  while (owned.length) owned.pop().close();
});

function registry() {
  const r = new Registry();
  r.register(TOOLS);
  return r;
}

test("version, status names, library path", () => {
  assert.match(version(), /^\d+\.\d+\.\d+/);
  assert.equal(statusName(Status.NOT_FOUND), "TR_STATUS_NOT_FOUND");
  assert.equal(statusName(99), "TR_STATUS_UNKNOWN");
  assert.ok(libraryPath.endsWith("libtoolregistry.so"), libraryPath);
});

test("register answers the names, in every accepted shape, and replaces in place", () => {
  const r = own(new Registry());
  assert.deepEqual(r.register(TOOLS), ["get_weather", "send_email", "github-create_issue", "read_file", "list_dir", "fetch_url"]);
  assert.deepEqual(r.register({ name: "get_weather", description: "Weather now." }), ["get_weather"]);
  assert.deepEqual(r.register(JSON.stringify([{ name: "x1", description: "x" }])), ["x1"]);
  assert.equal(r.toolsStatus().length, 7);
});

test("unregister, metadata, enable and disable with reasons, tools status", () => {
  const r = own(registry());
  r.unregister("fetch_url");
  assert.ok(!r.toolsStatus().some((t) => t.name === "fetch_url"));
  r.setMetadata("get_weather", { defer: true, tags: ["a", "b"], searchHint: "forecast" });
  let st = Object.fromEntries(r.toolsStatus().map((t) => [t.name, t]));
  assert.equal(st.get_weather.deferred, true);
  assert.deepEqual(st.get_weather.tags, ["a", "b"]);
  r.disable("send_email", "under maintenance");
  r.setEnabled("github", false);
  st = Object.fromEntries(r.toolsStatus().map((t) => [t.name, t]));
  assert.equal(st.send_email.enabled, false);
  assert.equal(st.send_email.reason, "under maintenance");
  assert.equal(st["github-create_issue"].enabled, false);
  assert.equal(st["github-create_issue"].namespace, "github");
  r.enable("send_email");
  r.setEnabled("github", true);
  st = Object.fromEntries(r.toolsStatus().map((t) => [t.name, t]));
  assert.equal(st.send_email.reason, null);
  assert.equal(st.send_email.enabled, true);
  r.disable("send_email");
  assert.equal(r.toolsStatus().find((t) => t.name === "send_email").reason, null);
});

test("schemas in the four formats, strict, filters, summaries", () => {
  const r = own(registry());
  const chat = r.getSchemas();
  assert.equal(chat[0].type, "function");
  assert.deepEqual(chat.map((s) => s.function.name), [...chat.map((s) => s.function.name)].sort());
  const responses = r.getSchemas({ apiFormat: "openai-responses" });
  assert.ok(responses.every((s) => s.type === "function" && typeof s.name === "string"));
  const anthropic = r.getSchemas({ apiFormat: "anthropic" });
  assert.ok(anthropic.every((s) => "input_schema" in s));
  const gemini = r.getSchemas({ apiFormat: "gemini" });
  const gw = gemini.find((s) => s.name === "get_weather");
  assert.equal(gw.parameters.type, "OBJECT");
  assert.deepEqual(r.getSchemas({ includeDeferred: false }).map((s) => s.function.name), ["fetch_url", "get_weather", "list_dir", "read_file"]);
  assert.deepEqual(r.getSchemas({ tags: ["mail"] }).map((s) => s.function.name), ["send_email"]);
  assert.ok(!r.getSchemas({ excludeTags: ["mail"] }).some((s) => s.function.name === "send_email"));
  assert.deepEqual(r.getSchemas({ names: ["read_file", "get_weather"] }).map((s) => s.function.name), ["read_file", "get_weather"]);
  const strict = r.getStrictSchemas({ names: ["get_weather"] });
  assert.equal(strict.tools[0].function.strict, true);
  assert.equal(strict.tools[0].function.parameters.additionalProperties, false);
  assert.ok(Array.isArray(strict.warnings));
  assert.throws(() => r.getStrictSchemas({ apiFormat: "anthropic" }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => r.getSchemas({ names: ["nope"] }), (e) => e.status === "TR_STATUS_NOT_FOUND" && /nope/.test(e.message));
  assert.deepEqual(r.deferredSummaries(), [
    { name: "send_email", description: "Send an email to recipients.", namespace: null },
    { name: "github-create_issue", description: "Create an issue in a repository.", namespace: "github" },
  ]);
});

test("discover: ranking, options, filters, exact name, select:, explain", () => {
  const r = own(registry());
  const d = own(r.discoverer());
  const hits = d.discover("send an email", { topK: 3 });
  assert.equal(hits[0].name, "send_email");
  assert.equal(hits[0].deferred, true);
  assert.ok(hits[0].schema, "deferred hits carry their schema");
  assert.ok(hits.every((h, i) => i === 0 || h.score <= hits[i - 1].score));
  assert.equal(typeof d.discoverJson("send an email"), "string");
  const exact = d.discover("get_weather");
  assert.equal(exact.length, 1);
  assert.equal(exact[0].score, 1);
  const sel = d.discover("select:read_file,nope,get_weather");
  assert.deepEqual(sel.map((h) => h.name), ["read_file", "get_weather"]);
  assert.deepEqual(d.discover("issue", { namespaces: ["github"] }).map((h) => h.name), ["github-create_issue"]);
  assert.ok(d.discover("read a file or list a directory", { deferred: false }).every((h) => !h.deferred));
  assert.ok(d.discover("email weather", { tags: ["weather"] }).every((h) => h.name === "get_weather"));
  const anth = d.discover("send an email", { topK: 1, apiFormat: "anthropic" });
  assert.ok("input_schema" in anth[0].schema);
  const strict = d.discover("send an email", { topK: 1, strict: true });
  assert.equal(strict[0].schema.function.strict, true);
  const small = d.discover("send an email or read a file", { maxTokens: 10 });
  assert.ok(small.length >= 1 && !("schema" in small[0]));
  const ex = d.explain("send an email", "send_email");
  assert.equal(typeof ex, "object");
  assert.ok(JSON.stringify(ex).includes("email"));
  assert.throws(() => d.explain("x", "nope"), { status: "TR_STATUS_NOT_FOUND" });
  d.rebuildIndex();
  assert.deepEqual(d.discover("send an email", { topK: 3 }), hits);
  const ref = own(r.discoverer({ profile: "reference", minScoreRatio: 0, fieldWeights: { name: 3 } }));
  assert.equal(ref.discover("send an email", { topK: 1 })[0].name, "send_email");
});

test("a discoverer follows the registry and outlives it", () => {
  const r = registry();
  const d = new Discoverer(r);
  r.register({ name: "translate_text", description: "Translate text between languages." });
  assert.equal(d.discover("translate")[0].name, "translate_text");
  r.close();
  assert.equal(d.discover("translate")[0].name, "translate_text");
  d.close();
});

test("discover_tools through enableDiscovery and call", () => {
  const r = own(registry());
  assert.throws(() => r.call("discover_tools", { query: "email" }), { status: "TR_STATUS_NOT_FOUND" });
  r.enableDiscovery({ profile: "reference" });
  const answer = r.call("discover_tools", { query: "send an email", top_k: 2 });
  assert.equal(answer[0].name, "send_email");
  assert.ok(r.getSchemas().some((s) => s.function.name === "discover_tools"));
  assert.ok(r.getSchemas().some((s) => s.function.name === "call_deferred"));
  r.enableDiscovery({ callDeferred: false });
  assert.ok(!r.getSchemas().some((s) => s.function.name === "call_deferred"));
  const r2 = own(new Registry({ discovery: true }));
  assert.ok(r2.getSchemas().some((s) => s.function.name === "discover_tools"));
});

test("conversation tools, reveal, loaded, options as JSON text", () => {
  const r = own(registry());
  r.enableDiscovery();
  const c = own(r.conversation({ mode: "stable" }));
  const t = c.tools();
  assert.match(t.fingerprint, /^[0-9a-f]{64}$/);
  assert.ok(t.systemText.includes("send_email"));
  assert.deepEqual(JSON.parse(c.toolsJson()).tools, t.tools);
  assert.deepEqual(c.loaded(), []);
  c.reveal("send_email");
  assert.deepEqual(c.loaded(), ["send_email"]);
  assert.ok(c.tools().tools.some((x) => x.function?.name === "send_email"));
  assert.notEqual(c.tools().fingerprint, t.fingerprint);
  assert.throws(() => c.reveal(["github-create_issue", "nope"]), { status: "TR_STATUS_NOT_FOUND" });
  assert.deepEqual(c.loaded(), ["send_email"], "reveal is all or none");
  const c2 = own(new Conversation(r, '{"api_format":"anthropic","loaded":["send_email"]}'));
  assert.deepEqual(c2.loaded(), ["send_email"]);
  assert.ok(c2.tools().tools.every((x) => !("function" in x)));
  assert.throws(() => r.conversation({ mode: "native", apiFormat: "openai-chat" }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => r.conversation("{"), { status: "TR_STATUS_INVALID_JSON" });
});

test("errors carry the C status name, number and the library's message", () => {
  const r = own(registry());
  const e = assert.throws(() => r.unregister("nope"), ToolRegistryError);
  try { r.unregister("nope"); } catch (err) {
    assert.ok(err instanceof ToolRegistryError && err instanceof Error);
    assert.equal(err.status, "TR_STATUS_NOT_FOUND");
    assert.equal(err.statusCode, Status.NOT_FOUND);
    assert.match(err.message, /nope/);
  }
  assert.throws(() => r.register("[{"), { status: "TR_STATUS_INVALID_JSON" });
  assert.throws(() => r.register([{ description: "no name" }]), (x) => x.status === "TR_STATUS_INVALID_ARGUMENT" && x.message.length > 0);
  assert.throws(() => r.register({ name: "discover_tools", description: "x" }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => new Registry({ discovery: { profile: "nope" } }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => new Registry({ embedding: { modelDir: "/nonexistent/model" } }), (x) => x.status === "TR_STATUS_INVALID_ARGUMENT" && /nonexistent/.test(x.message));
  assert.throws(() => r.register("x".repeat(70 * 1024 * 1024)), { status: "TR_STATUS_TOO_LARGE" });
  assert.throws(() => r.register({ name: "n".repeat(2000), description: "x" }), { status: "TR_STATUS_TOO_LARGE" });
  const d = own(r.discoverer());
  assert.throws(() => d.discover("   "), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover("x", { topK: 0 }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover("q".repeat(70 * 1024)), { status: "TR_STATUS_TOO_LARGE" });
  assert.throws(() => r.discoverer({ minScoreRatio: 2 }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.ok(d.discover("send an email ".repeat(3000)).length > 0, "a long query is answered from its first tokens");
  // Nothing half-applied: a batch with one bad tool registers none.
  assert.throws(() => r.register([{ name: "ok_tool", description: "x" }, { name: "" }]));
  assert.ok(!r.toolsStatus().some((t) => t.name === "ok_tool"));
  void e;
});

test("bad input from JS: wrong types, NUL characters, strange values", () => {
  const r = own(registry());
  const d = own(r.discoverer());
  assert.throws(() => r.register(undefined), TypeError);
  assert.throws(() => r.register(() => 1), TypeError);
  assert.throws(() => r.register({ name: "x", description: 1n }), TypeError);
  assert.throws(() => r.register(42), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => r.register(null), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => r.register('{"name":"a\u0000b"}'), { status: "TR_STATUS_INVALID_JSON" });
  assert.throws(() => r.unregister(42), TypeError);
  assert.throws(() => r.unregister("get\u0000weather"), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover(null), TypeError);
  assert.throws(() => d.discover("a\u0000b"), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover("x", { topK: -1 }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover("x", { topK: 1.5 }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover("x", { topK: "3" }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => d.discover("x", { namespaces: "github" }), TypeError);
  assert.throws(() => r.setEnabled("get_weather", "yes"), TypeError);
  assert.throws(() => r.setMetadata("get_weather", null), TypeError);
  assert.throws(() => r.setMetadata("get_weather", { tags: "a" }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  assert.throws(() => r.registerFunction({ name: "f", description: "x" }, "not a function"), TypeError);
  assert.throws(() => new Discoverer({}), TypeError);
  assert.throws(() => new Conversation({}), TypeError);
  const cyclic = { name: "c" };
  cyclic.self = cyclic;
  assert.throws(() => r.register(cyclic), TypeError);
  const deep = JSON.parse("[".repeat(200) + "]".repeat(200));
  assert.throws(() => r.register(deep), { status: "TR_STATUS_INVALID_JSON" });
  // Lone surrogates become U+FFFD on the way to UTF-8; the library answers, never crashes.
  assert.ok(Array.isArray(d.discover("email \ud800 someone")));
  assert.ok(r.register({ name: "emoji_tool", description: "🌦 weather ☂ 天气" }).length === 1);
  assert.equal(d.discover("天气")[0].name, "emoji_tool");
});

test("use after close is a clear error; close is idempotent; children outlive the registry", () => {
  const r = registry();
  r.enableDiscovery();
  const d = r.discoverer();
  const c = r.conversation();
  r.close();
  r.close();
  assert.equal(r.closed, true);
  for (const f of [() => r.register(TOOLS), () => r.toolsStatus(), () => r.discoverer(), () => r.conversation(),
    () => r.unregister("x"), () => r.getSchemas(), () => r.call("discover_tools", { query: "x" })]) {
    assert.throws(f, (e) => e instanceof ClosedError && e.code === "ERR_TOOLREGISTRY_CLOSED" && /Registry is closed/.test(e.message));
  }
  assert.equal(d.discover("email")[0].name, "send_email");
  assert.ok(c.tools().tools.length > 0);
  d.close();
  c.close();
  assert.throws(() => d.discover("email"), /Discoverer is closed/);
  assert.throws(() => c.tools(), /Conversation is closed/);
  assert.throws(() => c.loaded(), ClosedError);
  assert.throws(() => d[Symbol.dispose]() ?? d.explain("a", "b"), ClosedError);
});

test("every library string is freed exactly once", () => {
  const r = own(registry());
  const d = own(r.discoverer());
  let before = stringStats.freed;
  d.discover("send an email");
  assert.equal(stringStats.freed - before, 1, "one answer string");
  before = stringStats.freed;
  assert.throws(() => r.unregister("nope"));
  assert.equal(stringStats.freed - before, 1, "one error string");
  before = stringStats.freed;
  r.setEnabled("get_weather", true);
  assert.equal(stringStats.freed - before, 0, "no string on success without output");
  before = stringStats.freed;
  for (let i = 0; i < 1000; i++) d.discoverJson("read a file");
  assert.equal(stringStats.freed - before, 1000);
});

test("handles are freed exactly once: close, dispose, and the FinalizationRegistry safety net", async () => {
  const base = { ...handleStats };
  {
    // Node 20 has Symbol.dispose but no `using`: what `using` would call, called by hand.
    const r = registry();
    const d = r.discoverer();
    const c = r.conversation();
    d.close();
    c[Symbol.dispose]();
    r[Symbol.dispose]();
    d[Symbol.dispose]();
    r.close();
  }
  assert.equal(handleStats.registries - base.registries, 1);
  assert.equal(handleStats.discoverers - base.discoverers, 1);
  assert.equal(handleStats.conversations - base.conversations, 1);
  if (typeof globalThis.gc !== "function") return;
  const before = { ...handleStats };
  (() => {
    for (let i = 0; i < 20; i++) {
      const r = registry();
      r.discoverer();
      r.conversation();
    }
  })();
  for (let i = 0; i < 50 && handleStats.registries - before.registries < 20; i++) {
    globalThis.gc();
    await new Promise((res) => setTimeout(res, 10));
  }
  assert.equal(handleStats.registries - before.registries, 20, "dropped registries are freed by the safety net");
  assert.equal(handleStats.discoverers - before.discoverers, 20);
  assert.equal(handleStats.conversations - before.conversations, 20);
});

test("a whole catalog: bfcl registers and answers", () => {
  const r = own(new Registry());
  const names = r.register(readFileSync(join(ROOT, "data", "bfcl", "catalog.json"), "utf8"));
  assert.ok(names.length > 100);
  const d = own(r.discoverer({ profile: "reference" }));
  assert.equal(d.discover("convert currency", { topK: 5 }).length, 5);
});
