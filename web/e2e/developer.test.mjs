// Issue 31 point 8, the developer portal in the dashboard: Ann (the owner,
// and like every signed-in user a developer) opens the Developer view,
// creates a connect token (shown once) and revokes it, adds a widget
// template, and opens an agent she registered to see its test runs and run
// another. Every step is seen at both window sizes, without sideways
// scrolling.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

let server;
let agentServer;
let browser;
let page;
let ann;

// pictures saves the page at both sizes and finds no sideways scrolling at either.
async function pictures(name) {
  for (const size of [wide, narrow]) {
    await page.setViewportSize(size);
    await H.shot(page, name);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at ${size.width}px scrolls sideways by ${overflow}px`);
  }
  await page.setViewportSize(wide);
}

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  // The agent: a conforming endpoint on loopback (outside the instance).
  agentServer = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ output: "received the test task" }));
    });
  });
  await new Promise((r) => agentServer.listen(0, "127.0.0.1", r));
  server = await H.startServer();
  ann = await H.setupOwner(server.base);
  const key = await H.rest(server.base, "POST", "/api/developer/keys", { cookie: ann.cookie, body: { label: "e2e" } });
  assert.equal(key.status, 201, key.text);
  const reg = await H.rest(server.base, "POST", "/api/developer/agents/register", {
    key: key.json.developerKey,
    body: {
      name: "Scout", slug: "scout", description: "Finds sources", endpointUrl: `http://127.0.0.1:${agentServer.address().port}/`,
      category: "data", pricingModel: "free", declaredWidgetTypes: ["info_card"], skipHealthCheck: true,
    },
  });
  assert.equal(reg.status, 201, reg.text);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, wide);
  await H.login(page);
});

after(async () => {
  if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
  await new Promise((r) => (agentServer ? agentServer.close(r) : r()));
});

test("the Developer view is a tab and shows the account", async () => {
  await page.getByRole("link", { name: "Developer" }).click();
  await page.getByRole("heading", { name: "Developer", level: 1 }).waitFor({ timeout: H.deadline });
  await page.getByRole("form", { name: "Edit the developer account" }).getByLabel("Contact email").waitFor({ timeout: H.deadline });
  assert.equal(await page.getByRole("form", { name: "Edit the developer account" }).getByLabel("Contact email").inputValue(), H.owner.email);
  await pictures("developer");
});

test("a connect token is shown once, listed, and revoked", async () => {
  const form = page.getByRole("form", { name: "Create a connect token" });
  await form.getByRole("button", { name: "Create token" }).click();
  const shown = page.getByLabel("Connect token", { exact: true });
  await shown.waitFor({ timeout: H.deadline });
  const token = (await shown.textContent()).trim();
  assert.match(token, /^fct_/);
  await pictures("developer-token-once");
  await page.getByRole("button", { name: "Done, I have saved it" }).click();
  const list = page.getByRole("list", { name: "Your connect tokens" });
  const revoke = list.getByRole("button", { name: `Revoke token ${token.slice(0, 12)}` });
  await revoke.waitFor({ timeout: H.deadline });
  await revoke.click();
  await page.getByText("No connect tokens yet.").waitFor({ timeout: H.deadline });
  // Revoked, it registers nothing.
  const res = await H.rest(server.base, "POST", "/api/developer/agents/register", {
    key: token,
    body: { name: "Late", slug: "late", description: "d", endpointUrl: "http://127.0.0.1:9/", category: "data", pricingModel: "free", declaredWidgetTypes: ["info_card"], skipHealthCheck: true },
  });
  assert.equal(res.status, 401, res.text);
});

test("a widget template is added from its type's example", async () => {
  const form = page.getByRole("form", { name: "Add a widget template" });
  await form.getByLabel("Name").fill("Variations");
  await form.getByLabel("Type").selectOption("choice_card");
  assert.match(await form.getByLabel("Widget (JSON)").inputValue(), /"choice_card"/);
  await form.getByRole("button", { name: "Add template" }).click();
  const list = page.getByRole("list", { name: "Your widget templates" });
  await list.getByText("Variations").waitFor({ timeout: H.deadline });
  assert.match(await list.innerText(), /Choice card · Pick a variation · 2 items/);
  // An invalid one is refused with the field named, and nothing is added.
  await form.getByLabel("Name").fill("Broken");
  await form.getByLabel("Widget (JSON)").fill(JSON.stringify({ type: "choice_card", title: "One", items: [{ id: "a", label: "A", actions: ["select"] }] }));
  await form.getByRole("button", { name: "Add template" }).click();
  await page.getByRole("alert").filter({ hasText: "widget.items" }).waitFor({ timeout: H.deadline });
  assert.equal(await list.getByRole("listitem").count(), 1);
  await pictures("developer-templates");
});

test("an agent's test runs are seen, and another is run", async () => {
  const agents = page.getByRole("list", { name: "Your agents" });
  await agents.getByRole("button", { name: "Details of Scout" }).click();
  const runs = page.getByRole("list", { name: "Test runs of Scout" });
  await runs.waitFor({ timeout: H.deadline });
  assert.match(await runs.innerText(), /Passed · at registration/);
  await page.getByRole("button", { name: "Run a test of Scout" }).click();
  await H.until(async () => (await runs.getByRole("listitem").count()) === 2, "a second test run listed");
  assert.match(await runs.getByRole("listitem").first().innerText(), /Passed · test run/);
  await pictures("developer-agent");
});
