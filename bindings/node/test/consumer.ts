// Compiled (not run) by 35-node.sh against the package's shipped .d.ts: the API a TypeScript
// user writes must type-check, and misuse must not.
import {
  Registry, ToolError, ToolRegistryError, ClosedError, type DiscoverResult, type Explanation, type HostFunction,
  type StatusName,
} from "toolregistry";
import { aiTools } from "toolregistry/ai";
import { mcpToolsList } from "toolregistry/mcp";

export async function typed(): Promise<void> {
  const registry = new Registry({ discovery: { profile: "reference" } });
  const names: string[] = registry.register([{ name: "a", description: "x" }]);
  const fn: HostFunction = async (args: { city: string }, ctx) => `${ctx.name} ${args.city}`;
  registry.registerFunction({ name: "w", description: "x" }, fn);
  registry.registerFunction({ name: "t", description: "x" }, () => {
    throw new ToolError("no");
  });
  const d = registry.discoverer({ minScoreRatio: 0.1 });
  const hits: DiscoverResult[] = d.discover("x", { topK: 3, namespaces: ["gh"], deferred: true });
  const score: number = hits[0]!.score;
  const need: string | undefined = hits[0]!.intent;
  const single = registry.discoverer({ profile: "enhanced", intents: false });
  const why: Explanation = single.explain("x", "a", { topK: 3 });
  const needs: string[] = why.intents.map((i) => i.text);
  const toolNeed: string | null = why.tool.intent;
  const counted: number = registry.recordUsage(["a", "w"]);
  const partnerWhy: string | undefined = hits[0]!.brought_in;
  const tasks: number = registry.usageStatus().tasks;
  registry.discoverer({ usage: false });
  new Registry({ usage: true }).close();
  const untyped: Record<string, unknown> = why;
  const messages: Record<string, unknown>[] = await registry.execute({ role: "assistant" }, { includeAssistant: true });
  const c = registry.conversation({ apiFormat: "anthropic", mode: "native" });
  const { tools, systemText, fingerprint } = c.tools();
  registry.setEmbedder(async (texts) => texts.map(() => [1, 0]), { dim: 2 });
  const ok: boolean = await registry.waitEmbeddings(1000);
  aiTools(registry, { includeDeferred: false });
  mcpToolsList(registry).tools[0]?.inputSchema.type satisfies "object" | undefined;
  try {
    registry.unregister("x");
  } catch (e) {
    if (e instanceof ToolRegistryError) {
      const s: StatusName = e.status;
      void s;
    } else if (e instanceof ClosedError) {
      void e.code;
    }
  }
  // @ts-expect-error topK is a number
  d.discover("x", { topK: "3" });
  // @ts-expect-error no such api format
  registry.getSchemas({ apiFormat: "openai" });
  // @ts-expect-error a task is an array of names
  registry.recordUsage("a");
  // @ts-expect-error intents is a boolean
  registry.discoverer({ intents: "no" });
  c[Symbol.dispose]();
  d.close();
  registry.close();
  single.close();
  void [names, score, need, needs, toolNeed, untyped, messages, tools, systemText, fingerprint, ok];
}
