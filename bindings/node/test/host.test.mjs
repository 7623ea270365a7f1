// The host side of the two-step loop on its own (runPlan): which calls run, in what overlap,
// and what each outcome becomes, from plans written here in the spec's shape.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runPlan, HostFunctions } from "../dist/host.js";
import { ToolError } from "toolregistry";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const plan = (calls) =>
  JSON.stringify({ toolregistry_plan: 1, api_format: "openai-chat", calls, extra: { kept: true } });
const call = (id, name, args = {}, more = {}) => ({ run: "host", id, name, arguments: args, concurrency_safe: true, ...more });

test("one result per host call; done calls are skipped; outcomes become content, error or unhandled", async () => {
  const h = new HostFunctions();
  h.byName.set("text", async () => "plain");
  h.byName.set("obj", (args) => ({ got: args }));
  h.byName.set("nothing", async () => undefined);
  h.byName.set("refuse", async () => { throw new ToolError("permission denied"); });
  h.byName.set("boom", () => { throw new RangeError("bad value"); });
  h.byName.set("reject", () => Promise.reject("a string"));
  h.byName.set("bigint", () => 1n);
  const results = JSON.parse(await runPlan(plan([
    call("1", "text"), { run: "done", id: "2", name: "nope" }, call("3", "obj", { a: [1, "x"] }), call("4", "nothing"),
    call("5", "refuse"), call("6", "boom"), call("7", "reject"), call("8", "missing"), call("9", "bigint"),
  ]), h));
  assert.deepEqual(results.slice(0, 7), [
    { id: "1", content: "plain" },
    { id: "3", content: '{"got":{"a":[1,"x"]}}' },
    { id: "4", content: "null" },
    { id: "5", error: "permission denied" },
    { id: "6", error: 'the host function of "boom" panicked: bad value' },
    { id: "7", error: 'the host function of "reject" panicked: a string' },
    { id: "8", unhandled: true },
  ]);
  assert.match(results[7].error, /^the host function of "bigint" panicked: .*BigInt/);
});

test("the fallback runs calls of tools without a function, with the name", async () => {
  const h = new HostFunctions();
  h.fallback = async (name, args, ctx) => `${name}:${JSON.stringify(args)}:${ctx.id}`;
  const [r] = JSON.parse(await runPlan(plan([call("c1", "gw-x", { q: 1 })]), h));
  assert.deepEqual(r, { id: "c1", content: 'gw-x:{"q":1}:c1' });
});

test("safe calls overlap; a concurrency_safe:false call runs alone, between the others", async () => {
  const h = new HostFunctions();
  const log = [];
  let running = 0;
  let most = 0;
  const fn = (tag) => async () => {
    running++;
    most = Math.max(most, running);
    log.push(`start ${tag} (${running})`);
    await sleep(20);
    running--;
    log.push(`end ${tag}`);
    return tag;
  };
  for (const t of ["a", "b", "c", "x", "d", "e"]) h.byName.set(t, fn(t));
  const calls = ["a", "b", "c", "x", "d", "e"].map((t) => call(t, t, {}, t === "x" ? { concurrency_safe: false } : {}));
  await runPlan(plan(calls), h);
  assert.equal(most, 3);
  const ix = (s) => log.indexOf(s);
  assert.equal(log[ix("start x (1)")], "start x (1)", "x ran alone");
  for (const t of ["a", "b", "c"]) assert.ok(ix(`end ${t}`) < ix("start x (1)"));
  for (const t of ["d", "e"]) assert.ok(ix(`start ${t} (1)`) > ix("end x") || ix(`start ${t} (2)`) > ix("end x"));
});

test("concurrency caps the calls at once", async () => {
  const h = new HostFunctions();
  let running = 0;
  let most = 0;
  h.byName.set("t", async () => { running++; most = Math.max(most, running); await sleep(5); running--; return "ok"; });
  const out = JSON.parse(await runPlan(plan(Array.from({ length: 10 }, (_, i) => call(`c${i}`, "t"))), h, { concurrency: 2 }));
  assert.equal(out.length, 10);
  assert.equal(most, 2);
  await assert.rejects(runPlan(plan([]), h, { concurrency: 0 }), RangeError);
});

test("an abort rejects at once with the signal's reason, and the functions see the signal", async () => {
  const h = new HostFunctions();
  let seen = null;
  h.byName.set("slow", async (_a, ctx) => { seen = ctx.signal; await sleep(1500); return "late"; });
  const ac = new AbortController();
  const started = Date.now();
  const p = runPlan(plan([call("1", "slow")]), h, { signal: ac.signal });
  setTimeout(() => ac.abort(new Error("user cancelled")), 20);
  await assert.rejects(p, /user cancelled/);
  assert.ok(Date.now() - started < 1000);
  assert.equal(seen, ac.signal);
  await assert.rejects(runPlan(plan([call("1", "slow")]), h, { signal: AbortSignal.abort() }), { name: "AbortError" });
});
