// Issue 31 point 7 (admin views), end to end: the real binary serving the
// dashboard, Chromium as the instance admin. A store agent on loopback runs
// through the API (two answered, one failing) and through the MCP door;
// Admin → Agent activity draws today's runs stacked by outcome, the origins
// and the durations, lists the agent and the execution log; at 1280x800
// and 390x844 without sideways scrolling. My agents creates an agent the
// instance owns with its kit, which the list then offers to edit.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createServer } from "node:http";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

let server;
let ann;
let agent;
let browser;
let page;
let agentId;

// The store agent: answers every task but one that asks it to fail.
function startAgent() {
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (body.includes("fail")) {
        res.writeHead(500, { "Content-Type": "text/plain" });
        res.end("cannot");
        return;
      }
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ output: "Done: " + body.length + " bytes read." }));
    });
  });
  return new Promise((resolve) => srv.listen(0, "127.0.0.1", () => resolve(srv)));
}

const api = (method, path, body) => H.rest(server.base, method, path, { key: ann.key, body });

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  server = await H.startServer();
  ann = await H.setupOwner(server.base);
  agent = await startAgent();
  const listing = await api("POST", "/api/marketplace", {
    name: "Scout",
    slug: "scout",
    endpointUrl: `http://127.0.0.1:${agent.address().port}/run`,
    pricingModel: "free",
  });
  assert.equal(listing.status, 201, listing.text);
  agentId = listing.json.agent.id;
  for (const input of ["Find three sources", "Summarise them", "Please fail"]) {
    const ran = await api("POST", `/api/marketplace/${agentId}/execute`, { input });
    assert.equal(ran.status, 200, ran.text);
  }
  assert.equal((await api("POST", `/api/marketplace/${agentId}/install`, {})).status, 201);
  const mcp = await api("POST", "/api/mcp", { method: "tools/call", params: { name: "marketplace_scout", arguments: { input: "From MCP" } } });
  assert.equal(mcp.status, 200, mcp.text);
  assert.match(mcp.text, /Done/);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, wide);
  await H.login(page);
});

after(async () => {
  if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
  await new Promise((r) => (agent ? agent.close(r) : r()));
});

const section = () => page.locator("section.agent-activity");

test("Agent activity draws the runs as charts with the execution log", async () => {
  await page.getByRole("link", { name: "Admin", exact: true }).click();
  await page.getByRole("heading", { name: "Agent activity", level: 2 }).waitFor({ timeout: H.deadline });
  const s = section();
  const daily = s.locator("svg.daily-chart");
  await daily.waitFor({ timeout: H.deadline });
  // 30 days by default: one group a day, today's the last, 3 completed and 1 failed.
  assert.equal(await daily.locator("g.day").count(), 30);
  const today = daily.locator("g.day").last();
  assert.equal(await today.locator("rect.outcome-completed").getAttribute("data-count"), "3");
  assert.equal(await today.locator("rect.outcome-failed").getAttribute("data-count"), "1");
  assert.equal(await daily.locator("rect.bar").count(), 2, "only today has runs");

  const origins = s.locator("svg.origin-chart");
  assert.equal(await origins.locator("rect.origin-local").getAttribute("data-value"), "3");
  assert.equal(await origins.locator("rect.origin-mcp").getAttribute("data-value"), "1");
  assert.equal(await origins.locator("rect.origin-assistant").getAttribute("data-value"), "0");
  assert.match(await origins.textContent(), /75%/);
  assert.equal(await s.locator("svg.duration-chart rect.bar").count(), 1);

  const row = s.locator(`table.activity-agents tr[data-agent-id="${agentId}"]`);
  assert.deepEqual(
    await row.locator("th, td").allInnerTexts().then((cells) => cells.slice(0, 5)),
    ["Scout", "4", "3", "1", "0"],
  );
  const log = s.locator("li.activity-log-row");
  assert.equal(await log.count(), 4);
  assert.equal(await log.first().getAttribute("data-origin"), "mcp");
  assert.equal(await s.locator('li.activity-log-row[data-status="failed"]').count(), 1);

  // The week: the same runs, seven days drawn.
  await s.getByRole("button", { name: "7 days" }).click();
  await until(async () => (await s.locator("svg.daily-chart g.day").count()) === 7);
  assert.equal(await s.locator('svg.daily-chart g.day:last-of-type rect[data-count="3"]').count(), 1);

  for (const size of [wide, narrow]) {
    await page.setViewportSize(size);
    await s.scrollIntoViewIfNeeded();
    await H.shot(page, "admin-agent-activity");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `agent activity at ${size.width}px scrolls sideways by ${overflow}px`);
    assert.ok((await s.locator("svg.daily-chart").boundingBox()).width > 100, `the chart is drawn at ${size.width}px`);
  }
  await page.setViewportSize(wide);
});

test("My agents creates an agent the instance owns, with its kit", async () => {
  const form = page.getByRole("form", { name: "Instance agent" });
  await form.getByLabel("Name").fill("Morning briefing");
  await form.getByLabel("Tools").fill("calendar_read\nqueue_list");
  await form.getByLabel("System prompt").fill("You write the morning briefing.");
  await form.getByRole("button", { name: "Save agent" }).click();
  const listed = page.locator("ul.my-agents li", { hasText: "Morning briefing" });
  await listed.waitFor({ timeout: H.deadline });
  const saved = await H.rest(server.base, "GET", `/api/marketplace?search=briefing`, { cookie: ann.cookie });
  const made = saved.json.agents.find((a) => a.name === "Morning briefing");
  assert.equal(made?.instanceOwned, true, saved.text);
  const detail = await H.rest(server.base, "GET", `/api/marketplace/${made.id}`, { cookie: ann.cookie });
  assert.deepEqual(detail.json.agent.kit.tools, ["calendar_read", "queue_list"]);
  // Edit fills the form with the kit the detail carries for the admin.
  await listed.getByRole("button", { name: "Edit Morning briefing" }).click();
  await until(async () => (await form.getByLabel("System prompt").inputValue()) === "You write the morning briefing.");
  for (const size of [wide, narrow]) {
    await page.setViewportSize(size);
    await page.locator("section.my-agents-panel").scrollIntoViewIfNeeded();
    await H.shot(page, "admin-my-agents");
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `my agents at ${size.width}px scrolls sideways by ${overflow}px`);
  }
  await page.setViewportSize(wide);
});

function until(fn) {
  return H.until(fn, "the view to update");
}
