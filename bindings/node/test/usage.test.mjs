// Usage through the binding (issue 52): recordUsage teaches the registry a habit and a discover
// brings the partner in with `brought_in`; what does not count; bad input throws and records
// nothing; the usage file keeps the counts across a restart (in a temporary folder).
import { test, afterEach } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Registry, ToolRegistryError } from "toolregistry";

const QUERY = "add an agenda item for tomorrow";
const REASON = "used with `add_agenda` in 12 of its 15 tasks";

// The catalog of tests/it/usage.rs: an agenda tool whose tasks mostly start with a login step.
const TOOLS = [
  { name: "add_agenda", description: "Add an agenda item to the user's schedule." },
  { name: "get_user_token", description: "Get the user token by username and password." },
  { name: "list_files", description: "List the files of a folder." },
  { name: "send_email", description: "Send an email message." },
  ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
    name: `agenda_tool_${i}`,
    description: `Agenda item helper number ${i}: works on an agenda item.`,
  })),
];

const owned = [];
const own = (x) => (owned.push(x), x);
afterEach(() => {
  while (owned.length) owned.pop().close();
});

function registry(options) {
  const r = own(new Registry(options));
  r.register(TOOLS);
  return r;
}

function loginHabit(r) {
  for (const [names, times] of [[["add_agenda", "get_user_token"], 12], [["add_agenda"], 3], [["list_files"], 10]]) {
    for (let i = 0; i < times; i++) assert.equal(r.recordUsage(names), names.length);
  }
}

const broughtIn = (r, options) =>
  own(r.discoverer(options))
    .discover(QUERY, { topK: 10 })
    .filter((h) => "brought_in" in h)
    .map((h) => [h.name, h.brought_in]);

test("usage: a recorded habit brings the partner in, saying why", () => {
  const r = registry();
  assert.deepEqual(broughtIn(r), []);
  loginHabit(r);
  assert.deepEqual(broughtIn(r), [["get_user_token", REASON]]);
  assert.deepEqual(broughtIn(r, { usage: false }), []);
  const s = r.usageStatus();
  assert.deepEqual([s.tasks, s.tools, s.recording, s.path], [25, 3, false, null]);
  assert.ok(s.memory_bytes > 0);
});

test("usage: unknown, repeated and empty names do not count; bad input throws", () => {
  const r = registry();
  assert.equal(r.recordUsage([]), 0);
  assert.equal(r.recordUsage(["no_such_tool", ""]), 0);
  assert.equal(r.recordUsage(["add_agenda", "add_agenda", "nope"]), 1);
  assert.throws(
    () => r.recordUsage(["add_agenda", 7]),
    (e) => e instanceof ToolRegistryError && e.status === "TR_STATUS_INVALID_ARGUMENT" &&
      e.message.includes("usage[1]: expected a string, got a number"),
  );
  assert.throws(() => r.recordUsage("add_agenda"), TypeError);
  assert.equal(r.usageStatus().tasks, 1);
});

test("usage: the usage file keeps the counts across a restart", () => {
  const dir = mkdtempSync(join(tmpdir(), "tr-node-usage-"));
  try {
    const path = join(dir, "usage.json");
    const r = registry();
    r.enableUsage(path);
    loginHabit(r);
    r.saveUsage();
    assert.equal(r.usageStatus().path, path);
    assert.equal(r.usageStatus().recording, true);
    r.close();
    const again = registry({ usage: { path } });
    assert.equal(again.usageStatus().tasks, 25);
    assert.deepEqual(broughtIn(again), [["get_user_token", REASON]]);
    writeFileSync(path, "not a usage file");
    const corrupt = registry({ usage: { path } });
    assert.equal(corrupt.usageStatus().tasks, 0);
    assert.match(corrupt.usageStatus().warning, /ignored the usage file/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
