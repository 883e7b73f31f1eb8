// Issue 30 (board analysis), end to end: the real binary serving the
// dashboard, Chromium as the operator. Two near-duplicate cards made through
// the API; "Scan now" on the Board raises the merge suggestion in the
// Insights panel; Apply merges it: the newer card leaves the board and the
// older one holds its checklist.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

let server;
let ann;
let browser;
let page;

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  server = await H.startServer();
  ann = await H.setupOwner(server.base);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, { width: 1280, height: 800 });
  await H.login(page);
});

after(async () => {
  if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
});

test("the Insights panel applies a merge suggestion", async () => {
  const api = (method, path, body) => H.rest(server.base, method, path, { cookie: ann.cookie, body });
  const older = await api("POST", "/api/v2/kanban", { title: "Plan the Berlin launch", checklist: [{ text: "book the venue" }] });
  assert.equal(older.status, 201, older.text);
  const newer = await api("POST", "/api/v2/kanban", { title: "Plan the Berlin launch!", checklist: [{ text: "print the flyers" }] });
  assert.equal(newer.status, 201, newer.text);
  const olderId = older.json.card.id;
  const newerId = newer.json.card.id;

  await page.getByRole("link", { name: "Board", exact: true }).click();
  await page.getByRole("heading", { name: "Board", level: 1 }).waitFor({ timeout: H.deadline });
  await page.locator(`article[data-id="${newerId}"]`).first().waitFor({ timeout: H.deadline });
  await page.getByRole("button", { name: "Scan now" }).click();
  const insight = page.locator('li.insight[data-type="merge_suggestion"]');
  await insight.waitFor({ timeout: H.deadline });
  assert.match(await insight.innerText(), /Plan the Berlin launch/);
  await insight.getByRole("button", { name: "Apply" }).click();
  await page.locator(`article[data-id="${newerId}"]`).waitFor({ state: "detached", timeout: H.deadline });
  await insight.waitFor({ state: "detached", timeout: H.deadline });

  const target = await api("GET", `/api/v2/kanban/${olderId}`);
  const texts = target.json.card.checklist.map((c) => c.text);
  assert.deepEqual(texts, ["book the venue", "print the flyers"]);
});
