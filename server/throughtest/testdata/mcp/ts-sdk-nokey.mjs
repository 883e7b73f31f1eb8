// The official MCP TypeScript SDK client with no key (no Authorization header,
// no authProvider), for TestTypeScriptSDKClientWithoutKey
// (server/throughtest/mcp_auth_test.go): it connects to /api/mcp, which must
// refuse it, and prints one JSON line: how the connect ended, and every
// request the process made (fetch is wrapped for the whole process, so a
// discovery request the SDK might make on its own is seen too) with the
// WWW-Authenticate header of its answer. The Go test judges them.
// Usage: node ts-sdk-nokey.mjs <base URL> (MCP_SDK_DIR names the testdata/npm
// directory holding node_modules).
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [base] = process.argv.slice(2);
if (!base) {
  console.error("usage: ts-sdk-nokey.mjs <base URL>");
  process.exit(2);
}
const dir = process.env.MCP_SDK_DIR ?? path.join(path.dirname(new URL(import.meta.url).pathname), "npm");
const require = createRequire(path.join(dir, "package.json"));
const load = (spec) => import(pathToFileURL(require.resolve(spec)).href);
const { Client } = await load("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport, StreamableHTTPError } = await load("@modelcontextprotocol/sdk/client/streamableHttp.js");

const requests = [];
const realFetch = globalThis.fetch;
globalThis.fetch = async (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  const method = init?.method ?? (input instanceof Request ? input.method : "GET");
  const seen = { url, method };
  requests.push(seen);
  const res = await realFetch(input, init);
  seen.status = res.status;
  seen.wwwAuthenticate = res.headers.get("www-authenticate");
  return res;
};

const transport = new StreamableHTTPClientTransport(new URL("/api/mcp", base));
const client = new Client({ name: "switchboard-ts-sdk-nokey", version: "1.0.0" });
const out = { step: "connect", connected: false };
try {
  await client.connect(transport);
  out.connected = true;
} catch (err) {
  out.errorName = err?.constructor?.name ?? typeof err;
  out.streamableHTTPError = err instanceof StreamableHTTPError;
  out.code = typeof err?.code === "number" ? err.code : null;
  out.message = String(err?.message ?? err);
} finally {
  await client.close().catch(() => {});
}
out.requests = requests;
console.log(JSON.stringify(out));
