// The official MCP TypeScript SDK client calling the network tools, for
// TestTypeScriptSDKClientRelay (server/throughtest/mcp_tssdk_test.go): relay_send to a
// connection, then relay_threads; one JSON line per step, judged by the Go
// test. Usage: node ts-sdk-relay.mjs <base URL> <API key> <connection id>
// (MCP_SDK_DIR names the testdata/npm directory holding node_modules).
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [base, key, connectionId] = process.argv.slice(2);
if (!base || !key || !connectionId) {
  console.error("usage: ts-sdk-relay.mjs <base URL> <API key> <connection id>");
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
  const sent = await client.callTool({
    name: "relay_send",
    arguments: { connectionId, subject: "From TypeScript", intent: "assign_task", payload: { description: "Two pages" } },
  });
  print("relay_send", { isError: sent.isError ?? false, structured: sent.structuredContent, text: texts(sent.content) });

  const threads = await client.callTool({ name: "relay_threads", arguments: { status: "active" } });
  print("relay_threads", { isError: threads.isError ?? false, structured: threads.structuredContent, text: texts(threads.content) });
} catch (err) {
  print("error", { message: String(err?.stack ?? err) });
  process.exitCode = 1;
} finally {
  await transport.terminateSession().catch(() => {});
  await client.close();
}
