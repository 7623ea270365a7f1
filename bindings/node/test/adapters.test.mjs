// The adapters against the real packages from npm: the AI SDK's generateText (with its own mock
// model from ai/test) runs the registry's tools, and an MCP TypeScript SDK server answers
// tools/list and tools/call from the registry to the SDK's client, which validates the shapes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolRequestSchema, ListToolsRequestSchema, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { Registry, ToolError } from "toolregistry";
import { aiTools } from "toolregistry/ai";
import { mcpToolsList, mcpCallTool } from "toolregistry/mcp";

const WEATHER = {
  name: "get_weather",
  description: "Current weather for a city.",
  parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};

function registry() {
  const r = new Registry({ discovery: { profile: "reference" } });
  r.registerFunction(WEATHER, async ({ city }) => `sunny in ${city}`);
  r.registerFunction({ name: "broken", description: "Fails." }, async () => { throw new ToolError("upstream down"); });
  r.register({ name: "send_email", description: "Send an email.", metadata: { defer: true } });
  return r;
}

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

test("AI SDK: the tool set's execute runs through the registry", async () => {
  const r = registry();
  try {
    const tools = aiTools(r, { includeDeferred: false });
    assert.deepEqual(Object.keys(tools).sort(), ["broken", "call_deferred", "discover_tools", "get_weather"]);
    let seenTools;
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        seenTools = options.tools;
        if (step++ === 0) {
          return {
            content: [
              { type: "tool-call", toolCallId: "t1", toolName: "get_weather", input: JSON.stringify({ city: "Paris" }) },
              { type: "tool-call", toolCallId: "t2", toolName: "broken", input: "{}" },
              { type: "tool-call", toolCallId: "t3", toolName: "discover_tools", input: JSON.stringify({ query: "send an email" }) },
            ],
            finishReason: { unified: "tool-calls", raw: undefined },
            usage,
            warnings: [],
          };
        }
        return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
      },
    });
    const result = await generateText({ model, tools, prompt: "weather?", stopWhen: stepCountIs(3) });
    const weatherTool = seenTools.find((t) => t.name === "get_weather");
    assert.deepEqual(weatherTool.inputSchema.properties, { city: { type: "string" } });
    assert.equal(weatherTool.description, "Current weather for a city.");
    const results = Object.fromEntries(result.steps[0].toolResults.map((t) => [t.toolCallId, t.output]));
    assert.equal(results.t1, "sunny in Paris");
    assert.equal(results.t2, "Error: upstream down");
    assert.ok(String(results.t3).includes("send_email"));
    assert.equal(result.text, "done");
  } finally {
    r.close();
  }
});

test("MCP: tools/list and tools/call through the SDK's server and client", async () => {
  const r = registry();
  const server = new Server({ name: "toolregistry-test", version: "0.0.0" }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => mcpToolsList(r));
  server.setRequestHandler(CallToolRequestSchema, async (req) => mcpCallTool(r, req.params));
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test-client", version: "0.0.0" });
  try {
    await server.connect(serverSide);
    await client.connect(clientSide);
    const listed = await client.listTools();
    // The SDK's own schema accepts the answer (the client parsed it too).
    ListToolsResultSchema.parse(mcpToolsList(r));
    const names = listed.tools.map((t) => t.name);
    assert.deepEqual(names, ["broken", "call_deferred", "discover_tools", "get_weather", "send_email"]);
    const w = listed.tools.find((t) => t.name === "get_weather");
    assert.deepEqual(w.inputSchema, { type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    assert.equal(w.description, "Current weather for a city.");
    assert.deepEqual(mcpToolsList(r, { includeDeferred: false }).tools.map((t) => t.name), ["broken", "call_deferred", "discover_tools", "get_weather"]);
    const ok = await client.callTool({ name: "get_weather", arguments: { city: "Oslo" } });
    assert.deepEqual(ok.content, [{ type: "text", text: "sunny in Oslo" }]);
    assert.ok(!ok.isError);
    const bad = await client.callTool({ name: "broken", arguments: {} });
    assert.equal(bad.isError, true);
    assert.equal(bad.content[0].text, "Error: upstream down");
    const invalid = await client.callTool({ name: "get_weather", arguments: { city: 3 } });
    assert.equal(invalid.isError, true);
  } finally {
    await client.close();
    await server.close();
    r.close();
  }
});
