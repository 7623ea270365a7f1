// The Node binding's cost, in one process and one run (bench numbers, never a unit test):
//
//   1. discover on bfcl's catalog, top_k 10, reference profile, three ways interleaved query by
//      query (their order turning): the bare C call through koffi (answer pointer freed, not decoded), `discoverJson`
//      (the answer as a JS string), `discover` (decoded objects); p50 / p95 of each and the
//      overhead of `discover` over the C call.
//   2. execute with 8 async tools of 100 ms each (setTimeout): the wall time of the batch.
//
//   cargo build --release --lib && (cd bindings/node && npm ci && npx tsc)
//   node bench/node_bench.mjs [CATALOG.json] [QUERIES.jsonl]
// Defaults: data/bfcl/catalog.json and ../shared/eval/bfcl/queries.jsonl.
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
process.env.TOOLREGISTRY_LIB ??= join(root, "target", "release", "libtoolregistry.so");
const { Registry } = await import(join(root, "bindings", "node", "dist", "index.js"));
const koffi = createRequire(join(root, "bindings", "node", "package.json"))("koffi");

const catalog = process.argv[2] ?? join(root, "data", "bfcl", "catalog.json");
const queriesPath = process.argv[3] ?? join(root, "..", "shared", "eval", "bfcl", "queries.jsonl");
const queries = readFileSync(queriesPath, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l).query);

const lib = koffi.load(process.env.TOOLREGISTRY_LIB);
const rawNew = lib.func("int32_t tr_registry_new(const char *o, _Out_ void **out, _Out_ void **err)");
const rawRegister = lib.func("int32_t tr_registry_register(void *r, const char *t, _Out_ void **out, _Out_ void **err)");
const rawDiscovererNew = lib.func("int32_t tr_discoverer_new(void *r, const char *o, _Out_ void **out, _Out_ void **err)");
const rawDiscover = lib.func("int32_t tr_discoverer_discover(void *d, const char *q, const char *o, _Out_ void **out, _Out_ void **err)");
const rawFree = lib.func("void tr_string_free(void *s)");

const text = readFileSync(catalog, "utf8");
const ptr = [null], out = [null], err = [null];
if (rawNew(null, ptr, err) !== 0) throw new Error("tr_registry_new");
if (rawRegister(ptr[0], text, out, err) !== 0) throw new Error("tr_registry_register");
rawFree(out[0]);
const dptr = [null];
if (rawDiscovererNew(ptr[0], '{"profile":"reference"}', dptr, err) !== 0) throw new Error("tr_discoverer_new");

const registry = new Registry();
registry.register(text);
const d = registry.discoverer({ profile: "reference" });

const opts = '{"top_k":10}';
const ways = {
  "C call (koffi, not decoded)": (q) => { rawDiscover(dptr[0], q, opts, out, err); rawFree(out[0]); },
  "discoverJson": (q) => d.discoverJson(q, { topK: 10 }),
  "discover": (q) => d.discover(q, { topK: 10 }),
};
const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (const q of queries) for (const f of Object.values(ways)) f(q); // warm-up: every answer once
const rounds = 5;
// The first way to see a query pays its cold caches: the order turns with every query and round.
const entries = Object.entries(ways);
for (let r = 0; r < rounds; r++) {
  queries.forEach((q, i) => {
    for (let j = 0; j < entries.length; j++) {
      const [k, f] = entries[(i + r + j) % entries.length];
      const t = process.hrtime.bigint();
      f(q);
      times[k].push(Number(process.hrtime.bigint() - t) / 1000);
    }
  });
}
const pct = (a, p) => { const s = [...a].sort((x, y) => x - y); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
console.log(`machine: ${cpus().length} CPUs (${cpus()[0].model}), Node ${process.version}, load ${loadavg().map((x) => x.toFixed(2)).join(" / ")}`);
console.log(`catalog ${catalog} (${registry.toolsStatus().length} tools), ${queries.length} queries x ${rounds} rounds, top_k 10, reference profile`);
console.log("| way | p50 µs | p95 µs |\n|---|---|---|");
for (const [k, a] of Object.entries(times)) console.log(`| ${k} | ${pct(a, 0.5).toFixed(1)} | ${pct(a, 0.95).toFixed(1)} |`);
const c50 = pct(times["C call (koffi, not decoded)"], 0.5);
console.log(`overhead of discover over the C call (p50): ${(pct(times.discover, 0.5) - c50).toFixed(1)} µs; of discoverJson: ${(pct(times.discoverJson, 0.5) - c50).toFixed(1)} µs`);

// 8 async tools of 100 ms each, through execute (the two-step loop), five batches.
for (let i = 0; i < 8; i++) {
  registry.registerFunction({ name: `sleep_${i}`, description: "Sleeps 100 ms." }, () => new Promise((res) => setTimeout(() => res(`slept ${i}`), 100)));
}
const reply = { role: "assistant", tool_calls: Array.from({ length: 8 }, (_, i) => ({ id: `c${i}`, type: "function", function: { name: `sleep_${i}`, arguments: "{}" } })) };
const walls = [];
for (let r = 0; r < 5; r++) {
  const t = process.hrtime.bigint();
  const msgs = await registry.execute(reply);
  walls.push(Number(process.hrtime.bigint() - t) / 1e6);
  if (msgs.length !== 8 || msgs.some((m, i) => m.content !== `slept ${i}`)) throw new Error("wrong answers");
}
console.log(`execute, 8 async tools x 100 ms: ${walls.map((w) => w.toFixed(1)).join(", ")} ms (median ${pct(walls, 0.5).toFixed(1)} ms; sequential would be 800 ms)`);
d.close();
registry.close();
