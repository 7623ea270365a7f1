/**
 * The Vercel AI SDK adapter (`ai` 6.x): the registry's tools as a `ToolSet`, each tool's
 * `execute` running through `registry.execute` (so schema checks, disabled tools, deferred
 * targets and the JS functions behave exactly as in every other path).
 */
import { jsonSchema, tool, type ToolSet } from "ai";
import type { Registry } from "./registry.js";
import type { SchemaOptions } from "./types.js";

/** Options of `aiTools`: which tools (as for `getSchemas`; default: every enabled tool). */
export type AiToolsOptions = Omit<SchemaOptions, "apiFormat">;

interface ChatSchema {
  type: "function";
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/**
 * A `ToolSet` for `generateText` / `streamText` built from the registry's schemas (OpenAI chat
 * shape, cleaned as for any provider). `execute(input, { toolCallId, abortSignal })` runs the
 * call as a one-call batch through `registry.execute` and answers the text the model would read
 * (an error result is text starting with `Error: `, as in every provider).
 */
export function aiTools(registry: Registry, options: AiToolsOptions = {}): ToolSet {
  const schemas = registry.getSchemas({ ...options, apiFormat: "openai-chat" }) as unknown as ChatSchema[];
  const set: ToolSet = {};
  for (const s of schemas) {
    const name = s.function.name;
    set[name] = tool({
      description: s.function.description ?? "",
      inputSchema: jsonSchema<Record<string, unknown>>(
        (s.function.parameters ?? { type: "object", properties: {} }) as Parameters<typeof jsonSchema>[0],
      ),
      execute: async (input: Record<string, unknown>, ctx: { toolCallId: string; abortSignal?: AbortSignal }) => {
        const reply = [
          { id: ctx.toolCallId, type: "function", function: { name, arguments: JSON.stringify(input ?? {}) } },
        ];
        const messages = await registry.execute(reply, {
          apiFormat: "openai-chat",
          ...(ctx.abortSignal ? { signal: ctx.abortSignal } : {}),
        });
        return messages[0]?.content as string;
      },
    });
  }
  return set;
}
