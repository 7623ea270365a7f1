/**
 * The MCP adapter: the registry's tools as the MCP TypeScript SDK's `tools/list` result, and a
 * `tools/call` answered through `registry.execute`. No dependency on the SDK: these are the
 * protocol's shapes (`Tool`: name, description, inputSchema; `CallToolResult`: content, isError).
 */
import type { Registry } from "./registry.js";
import type { SchemaOptions } from "./types.js";

export interface McpTool {
  name: string;
  description?: string;
  inputSchema: { type: "object"; properties?: Record<string, unknown>; required?: string[]; [k: string]: unknown };
}

export interface McpCallToolResult {
  content: { type: "text"; text: string }[];
  isError?: boolean;
  [k: string]: unknown;
}

/** `{ tools: [{ name, description, inputSchema }] }` for a `tools/list` answer. */
export function mcpToolsList(registry: Registry, options: Omit<SchemaOptions, "apiFormat"> = {}): { tools: McpTool[] } {
  // The Anthropic shape is MCP's but for the key: `input_schema` there, `inputSchema` here.
  const schemas = registry.getSchemas({ ...options, apiFormat: "anthropic" }) as {
    name: string;
    description?: string;
    input_schema?: Record<string, unknown>;
  }[];
  return {
    tools: schemas.map((s) => {
      const inputSchema = { type: "object", ...(s.input_schema ?? {}) } as McpTool["inputSchema"];
      const t: McpTool = { name: s.name, inputSchema };
      if (s.description) t.description = s.description;
      return t;
    }),
  };
}

/**
 * A `tools/call` (`{ name, arguments }`) answered through `registry.execute`: the text result,
 * with `isError: true` when the registry answered an error result.
 */
export async function mcpCallTool(
  registry: Registry,
  params: { name: string; arguments?: Record<string, unknown> },
  options: { signal?: AbortSignal } = {},
): Promise<McpCallToolResult> {
  const reply = {
    role: "assistant",
    content: [{ type: "tool_use", id: "mcp_call", name: params.name, input: params.arguments ?? {} }],
  };
  const messages = await registry.execute(reply, { apiFormat: "anthropic", ...(options.signal ? { signal: options.signal } : {}) });
  const block = (messages[0]?.content as { content: string; is_error?: boolean }[])[0]!;
  const result: McpCallToolResult = { content: [{ type: "text", text: block.content }] };
  if (block.is_error) result.isError = true;
  return result;
}
