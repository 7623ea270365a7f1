// execute and conversation.execute over prepare and finish: the conformance corpora byte for
// byte, then the JS side: async functions run concurrently, throws become error results,
// re-entrant functions, close and abort during a batch, and the outcomes of every kind of call.
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Registry, ToolError, ToolRegistryError, ClosedError } from "toolregistry";
import {
  EXECUTE, CONVERSATION, executeCases, conversationCases, fixtureRegistry, runExecuteCase, runConversationCase, read,
} from "./corpus.mjs";

const owned = [];
const own = (x) => (owned.push(x), x);
afterEach(() => {
  while (owned.length) owned.pop().close();
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const chat = (...calls) => ({
  role: "assistant",
  content: null,
  tool_calls: calls.map(([name, args], i) => ({ id: `c${i}`, type: "function", function: { name, arguments: JSON.stringify(args) } })),
});
const contents = (messages) => messages.map((m) => m.content);

test("the execute corpus is there", () => {
  assert.ok(executeCases().length >= 50);
  assert.ok(conversationCases().length >= 8);
});

for (const name of executeCases()) {
  test(`execute corpus ${name}`, async () => {
    const r = own(fixtureRegistry(EXECUTE));
    const expected = read(join(EXECUTE, name, "expected.json"));
    assert.equal(await runExecuteCase(r, EXECUTE, name), expected);
  });
}

for (const name of conversationCases()) {
  test(`conversation corpus ${name}`, async () => {
    const { messages, loaded, tools } = await runConversationCase(CONVERSATION, name);
    assert.equal(messages, read(join(CONVERSATION, name, "expected.json")));
    assert.equal(loaded, read(join(CONVERSATION, name, "loaded.json")));
    try {
      assert.equal(tools, read(join(CONVERSATION, name, "tools.json")));
    } catch (e) {
      if (e.code !== "ENOENT") throw e;
    }
  });
}

const ADD = {
  name: "add",
  description: "Add two numbers.",
  parameters: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};

test("results: strings as is, values as JSON; every failure is that call's error result", async () => {
  const r = own(new Registry());
  assert.deepEqual(r.registerFunction(ADD, async ({ a, b }) => a + b), ["add"]);
  r.registerFunction({ name: "info", description: "Info." }, () => ({ ok: true, n: [1, 2] }));
  r.registerFunction({ name: "boom", description: "x" }, async () => { throw new TypeError("bad value"); });
  r.registerFunction({ name: "denied", description: "x" }, async () => { throw new ToolError("permission denied"); });
  r.register({ name: "no_fn", description: "x" });
  r.registerFunction({ name: "maint", description: "x" }, () => "never");
  r.disable("maint", "under maintenance");
  const out = await r.execute(chat(
    ["add", { a: 2, b: 3.5 }], ["info", {}], ["boom", {}], ["denied", {}], ["add", { a: "two" }],
    ["addd", {}], ["no_fn", {}], ["maint", {}], ["add", { a: 1, b: 1 }],
  ));
  const got = contents(out);
  assert.deepEqual(out.map((m) => m.tool_call_id), ["c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8"]);
  assert.equal(got[0], "5.5");
  assert.equal(got[1], '{"ok":true,"n":[1,2]}');
  assert.equal(got[2], 'Error: the host function of "boom" panicked: bad value');
  assert.equal(got[3], "Error: permission denied");
  assert.match(got[4], /^Error:.*\ba\b/);
  assert.match(got[5], /^Error:.*add/);
  assert.match(got[6], /^Error:.*no host function/);
  assert.match(got[7], /^Error:.*under maintenance/);
  assert.equal(got[8], "2");
});

test("async functions run concurrently: 8 tools of 100 ms overlap", async () => {
  const r = own(new Registry());
  let running = 0;
  let most = 0;
  for (let i = 0; i < 8; i++) {
    r.registerFunction({ name: `slow${i}`, description: "Sleeps." }, async () => {
      running++;
      most = Math.max(most, running);
      await sleep(100);
      running--;
      return `done ${i}`;
    });
  }
  const out = await r.execute(chat(...Array.from({ length: 8 }, (_, i) => [`slow${i}`, {}])));
  assert.deepEqual(contents(out), Array.from({ length: 8 }, (_, i) => `done ${i}`));
  assert.equal(most, 8, "all eight were in flight at once");
});

test("concurrency_safe:false runs alone; the concurrency option caps the batch", async () => {
  const r = own(new Registry());
  let running = 0;
  const seen = {};
  const fn = (name) => async () => { running++; seen[name] = Math.max(seen[name] ?? 0, running); await sleep(20); running--; return name; };
  r.registerFunction({ name: "a", description: "x" }, fn("a"));
  r.registerFunction({ name: "b", description: "x" }, fn("b"));
  r.registerFunction({ name: "alone", description: "x", metadata: { concurrency_safe: false } }, fn("alone"));
  await r.execute(chat(["a", {}], ["b", {}], ["alone", {}], ["a", {}], ["b", {}]));
  assert.equal(seen.alone, 1);
  assert.equal(seen.b, 2, "a and b overlap");
  let most = 0;
  r.registerFunction({ name: "c", description: "x" }, async () => { running++; most = Math.max(most, running); await sleep(5); running--; return "c"; });
  await r.execute(chat(...Array.from({ length: 6 }, () => ["c", {}])), { concurrency: 2 });
  assert.equal(most, 2);
});

test("re-entrant functions: a tool that discovers and executes on the same registry", async () => {
  const r = own(new Registry({ discovery: { profile: "reference" } }));
  r.register({ name: "send_email", description: "Send an email.", metadata: { defer: true } });
  const d = own(r.discoverer());
  r.registerFunction(ADD, async ({ a, b }) => a + b);
  r.registerFunction({ name: "outer", description: "Calls back in." }, async (_args, ctx) => {
    const hits = d.discover("email");
    const inner = await r.execute(chat(["add", { a: 20, b: 22 }]));
    r.setMetadata("send_email", { tags: ["mail"] });
    return `${ctx.name} ${hits[0].name} ${inner[0].content}`;
  });
  const out = await r.execute(chat(["outer", {}], ["discover_tools", { query: "send an email" }]));
  assert.equal(out[0].content, "outer send_email 42");
  assert.ok(out[1].content.includes("send_email"));
});

test("the context names the call; the signal aborts the batch", async () => {
  const r = own(new Registry());
  let ctxSeen = null;
  r.registerFunction({ name: "who", description: "x" }, async (args, ctx) => { ctxSeen = ctx; return args; });
  await r.execute(chat(["who", { x: 1 }]));
  assert.equal(ctxSeen.name, "who");
  assert.equal(ctxSeen.id, "c0");
  r.registerFunction({ name: "slow", description: "x" }, (_a, ctx) => new Promise((res) => {
    const t = setTimeout(() => res("late"), 2000);
    ctx.signal?.addEventListener("abort", () => { clearTimeout(t); res("stopped"); });
  }));
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 20);
  await assert.rejects(r.execute(chat(["slow", {}]), { signal: ac.signal }), { name: "AbortError" });
});

test("close during a batch: the batch finishes, later calls are refused", async () => {
  const r = new Registry();
  let release;
  r.registerFunction({ name: "wait", description: "x" }, () => new Promise((res) => { release = res; }));
  const p = r.execute(chat(["wait", {}]));
  await sleep(10);
  r.close();
  assert.throws(() => r.toolsStatus(), ClosedError);
  await assert.rejects(r.execute(chat(["wait", {}])), ClosedError);
  release("finished");
  assert.deepEqual(contents(await p), ["finished"]);
});

test("a reply that is no provider's call list rejects with the library's error; options are checked", async () => {
  const r = own(new Registry());
  await assert.rejects(r.execute({ nothing: true }), (e) => e instanceof ToolRegistryError && e.status === "TR_STATUS_INVALID_ARGUMENT");
  await assert.rejects(r.execute("{"), { status: "TR_STATUS_INVALID_JSON" });
  await assert.rejects(r.execute(chat(), { apiFormat: "nope" }), { status: "TR_STATUS_INVALID_ARGUMENT" });
  await assert.rejects(r.execute(undefined), TypeError);
  assert.deepEqual(await r.execute([]), []);
});

test("include_assistant and the other providers' shapes", async () => {
  const r = own(new Registry());
  r.registerFunction(ADD, async ({ a, b }) => a + b);
  const withTurn = await r.execute(chat(["add", { a: 1, b: 2 }]), { includeAssistant: true });
  assert.equal(withTurn[0].role, "assistant");
  assert.equal(withTurn[1].content, "3");
  const anth = await r.execute({ role: "assistant", content: [{ type: "tool_use", id: "t1", name: "add", input: { a: 1, b: 1 } }] });
  assert.deepEqual(anth, [{ role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "2" }] }]);
  const gem = await r.execute({ role: "model", parts: [{ functionCall: { name: "add", args: { a: 2, b: 2 } } }] });
  assert.equal(gem[0].parts[0].functionResponse.response.output, "4");
  const resp = await r.execute([{ type: "function_call", id: "fc1", call_id: "call1", name: "add", arguments: '{"a":3,"b":3}' }]);
  assert.deepEqual(resp, [{ type: "function_call_output", call_id: "call1", output: "6" }]);
});

test("a conversation runs the registry's functions and loads what the model found, after the registry closed", async () => {
  const r = new Registry({ discovery: { profile: "reference" } });
  r.registerFunction({ name: "send_email", description: "Send an email.", metadata: { defer: true } }, async (args) => `sent to ${args.to}`);
  r.register({ name: "get_weather", description: "Weather." });
  const c = own(r.conversation());
  r.close();
  const found = await c.execute(chat(["discover_tools", { query: "send an email" }]));
  assert.ok(found[0].content.includes("send_email"));
  assert.deepEqual(c.loaded(), ["send_email"]);
  const sent = await c.execute(chat(["send_email", { to: "bob" }]));
  assert.equal(sent[0].content, "sent to bob");
  c.close();
  await assert.rejects(c.execute(chat(["send_email", {}])), ClosedError);
});

test("setFallback runs calls of tools without their own function", async () => {
  const r = own(new Registry());
  r.register({ name: "gw-search", description: "x" });
  assert.equal(r.toolsStatus()[0].callable, false);
  r.setFallback(async (name, args) => `${name} via fallback ${JSON.stringify(args)}`);
  assert.equal(r.toolsStatus()[0].callable, true);
  assert.deepEqual(contents(await r.execute(chat(["gw-search", { q: "x" }]))), ['gw-search via fallback {"q":"x"}']);
  r.setFallback(null);
  assert.match(contents(await r.execute(chat(["gw-search", {}])))[0], /^Error:/);
  assert.throws(() => r.setFallback(5), TypeError);
});

test("the native placeholder of a JS function answers a call the library runs itself with an error, never a crash", async () => {
  const { c } = await import("../dist/native.js");
  const { out } = await import("../dist/handle.js");
  const r = own(new Registry());
  r.registerFunction(ADD, async ({ a, b }) => a + b);
  assert.equal(r.toolsStatus()[0].callable, true);
  // tr_registry_execute runs host functions itself (sequentially, on this thread): the
  // placeholder fails the call and says where the function lives.
  const handle = r._internals.handle;
  const answer = JSON.parse(out(c.execute, handle.ptr, JSON.stringify(chat(["add", { a: 1, b: 2 }])), null));
  assert.match(answer[0].content, /^Error: the host function of "add" is a JavaScript function: run its calls with execute\(\)/);
  assert.deepEqual(contents(await r.execute(chat(["add", { a: 1, b: 2 }]))), ["3"]);
});

test("register() of a name with a function drops the function, as the library drops its own", async () => {
  const r = own(new Registry());
  r.registerFunction(ADD, async ({ a, b }) => a + b);
  r.register(ADD);
  assert.equal(r.toolsStatus()[0].callable, false);
  assert.match(contents(await r.execute(chat(["add", { a: 1, b: 2 }])))[0], /^Error:.*no host function/);
  r.registerFunction(ADD, async () => "again");
  r.unregister("add");
  r.register(ADD);
  assert.match(contents(await r.execute(chat(["add", { a: 1, b: 2 }])))[0], /^Error:.*no host function/);
});
