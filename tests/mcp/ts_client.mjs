// The MCP TypeScript SDK's client (@modelcontextprotocol/sdk from npm) against `toolregistry mcp
// --http`: initialize, list, search, call a found tool, over streamable HTTP with the bearer token.
// Usage: node ts_client.mjs URL TOKEN   (NODE_PATH or a node_modules with the SDK)
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [url, token] = process.argv.slice(2);
const failures = [];
const check = (ok, what) => {
  console.log((ok ? "ok    " : "FAIL  ") + what);
  if (!ok) failures.push(what);
};
const text = (r) => r.content.filter((c) => c.type === "text").map((c) => c.text).join("\n");

const transport = new StreamableHTTPClientTransport(new URL(url), {
  requestInit: { headers: { Authorization: `Bearer ${token}` } },
});
const client = new Client({ name: "ts-check", version: "1.0.0" });
let changed = false;
await client.connect(transport);
client.setNotificationHandler(
  (await import("@modelcontextprotocol/sdk/types.js")).ToolListChangedNotificationSchema,
  async () => { changed = true; },
);
const first = (await client.listTools()).tools.map((t) => t.name);
check(first.includes("discover_tools") && first.includes("call_deferred"), `TS SDK: list (${first.join(", ")})`);
const found = await client.callTool({ name: "discover_tools", arguments: { query: "echo arguments remote signature", namespace: "remote" } });
const hits = JSON.parse(text(found));
check(!found.isError && hits[0]?.name === "remote-remote_echo", `TS SDK: search finds ${hits[0]?.name}`);
const r = await client.callTool({ name: "remote-remote_echo", arguments: { text: "from-ts", n: 3 } });
const body = r.isError ? {} : JSON.parse(text(r));
check(body.text === "from-ts" && body.n === 3, `TS SDK: call through the proxy: ${text(r).slice(0, 80)}`);
const after = (await client.listTools()).tools.map((t) => t.name);
check(after.includes("remote-remote_echo"), "TS SDK: the found tool joined this session's list");
await transport.terminateSession();
await client.close();
if (failures.length) {
  console.log(`${failures.length} FAILED`);
  process.exit(1);
}
