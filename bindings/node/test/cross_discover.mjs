// One query over a catalog through the Node binding, printed as JSON (scripts/cross_language.py).
// Usage: node cross_discover.mjs CATALOG.json QUERY TOP_K [PROFILE [USAGE]]. With PROFILE "hybrid"
// the registry gets the fake embedder every language implements alike (tests/cross/discover.c), as
// a JS embedder on the pull model, and the query is embedded by it (discoverAsync). USAGE holds
// tasks recorded before the query, one JSON array of tool names a line.
import { readFileSync } from "node:fs";
import { Registry, ToolRegistryError } from "toolregistry";

function fnv1a(bytes) {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h;
}

export function fakeEmbed(texts) {
  return texts.map((text) => {
    const v = new Array(64).fill(0);
    const words = text.split(/[^A-Za-z0-9]+/).filter(Boolean);
    for (const w of words) v[fnv1a(Buffer.from(w.toLowerCase(), "utf8")) % 64] += 1;
    if (words.length === 0) v[0] = 1;
    return v;
  });
}

const [catalogPath, query, topK, profile = "reference", usage = ""] = process.argv.slice(2);
const registry = new Registry();
try {
  registry.register(readFileSync(catalogPath, "utf8"));
  if (profile === "hybrid") {
    registry.setEmbedder(async (texts) => fakeEmbed(texts), { dim: 64 });
    if (!(await registry.waitEmbeddings(120_000))) throw new Error("embedding timed out");
  }
  for (const task of usage.split("\n")) if (task) registry.recordUsage(JSON.parse(task));
  const d = registry.discoverer({ profile });
  const answer = await d.discoverAsync(query, { topK: Number(topK) });
  d.close();
  // JSON.stringify writes the shortest text that round-trips each double, like Python's repr.
  process.stdout.write(JSON.stringify(answer) + "\n");
} catch (e) {
  process.stderr.write(`cross_discover.mjs: ${e instanceof ToolRegistryError ? e.status + ": " : ""}${e.message}\n`);
  process.exitCode = 1;
} finally {
  registry.close();
}
