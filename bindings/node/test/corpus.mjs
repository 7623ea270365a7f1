// The conformance corpora of tests/conformance (execute and conversation), run through this
// binding: the fixture registries with the scripted hosts, and one case at a time. Used by the
// tests and by the cross-language programs (cross_*.mjs).
import { readFileSync, readdirSync, existsSync, statSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { Registry, ToolError } from "toolregistry";

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const EXECUTE = join(ROOT, "tests", "conformance", "execute");
export const CONVERSATION = join(ROOT, "tests", "conformance", "conversation");

export const read = (p) => readFileSync(p, "utf8").replace(/\n$/, "");

/** The corpus' scripted host functions (tests/conformance/README.md). */
export function host(kind, name) {
  if (kind === "echo") return async (args) => `${name} <- ${JSON.stringify(args)}`;
  if (kind === "fail") return async () => { throw new ToolError("upstream returned 503"); };
  return async () => { throw new Error("kaboom"); };
}

export function fixtureRegistry(corpus) {
  const fixture = JSON.parse(readFileSync(join(corpus, "fixture.json"), "utf8"));
  const r = new Registry();
  for (const entry of fixture.tools) {
    if (entry.host === null) r.register(entry.tool);
    else r.registerFunction(entry.tool, host(entry.host, entry.tool.name));
  }
  for (const d of fixture.disable ?? []) r.disable(d.name, d.reason);
  r.enableDiscovery(fixture.discovery);
  return r;
}

const dirs = (p) => readdirSync(p).filter((n) => statSync(join(p, n)).isDirectory()).sort();

/** `provider/case` directories of the execute corpus, sorted. */
export function executeCases(corpus = EXECUTE) {
  const out = [];
  for (const provider of dirs(corpus)) {
    for (const c of dirs(join(corpus, provider))) {
      if (existsSync(join(corpus, provider, c, "calls.json"))) out.push(`${provider}/${c}`);
    }
  }
  return out;
}

export function conversationCases(corpus = CONVERSATION) {
  return dirs(corpus).filter((c) => existsSync(join(corpus, c, "calls.json")));
}

/** The options of a case (the library's JSON keys) as this binding's execute options. */
export function executeOptions(dir) {
  const p = join(dir, "options.json");
  if (!existsSync(p)) return {};
  const o = JSON.parse(readFileSync(p, "utf8"));
  const out = {};
  if (o.api_format !== undefined) out.apiFormat = o.api_format;
  if (o.include_assistant !== undefined) out.includeAssistant = o.include_assistant;
  return out;
}

/** One execute case on `registry`: the library's answer bytes. */
export async function runExecuteCase(registry, corpus, name) {
  const dir = join(corpus, name);
  return registry.executeJson(readFileSync(join(dir, "calls.json"), "utf8"), executeOptions(dir));
}

/**
 * One conversation case on a fresh fixture registry, closed before the calls run (the
 * conversation outlives it): messages, loaded and tools JSON text.
 */
export async function runConversationCase(corpus, name) {
  const dir = join(corpus, name);
  const r = fixtureRegistry(corpus);
  const c = r.conversation(readFileSync(join(dir, "options.json"), "utf8"));
  r.close();
  try {
    const messages = await c.executeJson(readFileSync(join(dir, "calls.json"), "utf8"));
    return { messages, loaded: c.loadedJson(), tools: c.toolsJson() };
  } finally {
    c.close();
  }
}
