// One explain over a catalog through the Node binding, printed as JSON (scripts/cross_language.py
// compares it with the Rust CLI's). Usage: node cross_explain.mjs CATALOG.json QUERY TOOL TOP_K PROFILE
import { readFileSync } from "node:fs";
import { Registry } from "toolregistry";

const [catalogPath, query, tool, topK, profile] = process.argv.slice(2);
const registry = new Registry();
try {
  registry.register(readFileSync(catalogPath, "utf8"));
  const d = registry.discoverer({ profile });
  process.stdout.write(JSON.stringify(d.explain(query, tool, { topK: Number(topK) })) + "\n");
  d.close();
} finally {
  registry.close();
}
