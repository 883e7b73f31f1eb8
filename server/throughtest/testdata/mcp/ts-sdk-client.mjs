// The official MCP TypeScript SDK client over Streamable HTTP, for
// TestTypeScriptSDKClient (server/throughtest/mcp_tssdk_test.go): it runs the steps the
// test names and prints one JSON line per step with what it saw; the Go test
// judges them. Usage: node ts-sdk-client.mjs <base URL> <API key> <prompt name>
// (MCP_SDK_DIR names the testdata/npm directory holding node_modules).
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [base, key, promptName] = process.argv.slice(2);
if (!base || !key || !promptName) {
  console.error("usage: ts-sdk-client.mjs <base URL> <API key> <prompt name>");
  process.exit(2);
}
const dir = process.env.MCP_SDK_DIR ?? path.join(path.dirname(new URL(import.meta.url).pathname), "npm");
const require = createRequire(path.join(dir, "package.json"));
const load = (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");

const print = (step, data) => console.log(JSON.stringify({ step, ...data }));
const texts = (content) => (content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");

const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", base), {
  requestInit: { headers: { Authorization: `Bearer ${key}` } },
});
const client = new Client({ name: "switchboard-ts-sdk-test", version: "1.0.0" });
try {
  await client.connect(transport);
  print("initialize", {
    server: client.getServerVersion(),
    capabilities: client.getServerCapabilities(),
    sessionId: transport.sessionId ?? "",
    protocolVersion: transport.protocolVersion ?? "",
  });

  const tools = await client.listTools();
  print("tools/list", { tools: tools.tools.map((t) => t.name), withOutputSchema: tools.tools.filter((t) => t.outputSchema).length });

  const added = await client.callTool({ name: "queue_add", arguments: { title: "From TypeScript", priority: "high" } });
  print("queue_add", { isError: added.isError ?? false, structured: added.structuredContent, text: texts(added.content) });

  const id = added.structuredContent?.item?.id;
  const moved = await client.callTool({ name: "queue_update", arguments: { id, status: "done_today" } });
  print("queue_update", { isError: moved.isError ?? false, text: texts(moved.content) });

  const briefing = await client.readResource({ uri: "switchboard://briefing" });
  print("resources/read", { contents: briefing.contents });

  const prompts = await client.listPrompts();
  const prompt = await client.getPrompt({ name: promptName, arguments: { recipient: "Grace" } });
  print("prompts/get", { listed: prompts.prompts.map((p) => p.name), messages: prompt.messages });
} catch (err) {
  print("error", { message: String(err?.stack ?? err) });
  process.exitCode = 1;
} finally {
  await transport.terminateSession().catch(() => {});
  await client.close();
}
