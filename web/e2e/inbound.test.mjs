// Issue 30's inbound webhooks in the dashboard: Ann creates a generic
// webhook in Settings (its URL and secret shown once), the test delivers an
// alert to it signed with the Standard Webhooks algorithm, and the item
// appears in Now without a reload (the queue's live event).
import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

let server;
let browser;
let page;

before(async () => {
  // The instance key seals the hooks' secrets.
  process.env.SWITCHBOARD_SECRET_KEY = randomBytes(32).toString("base64");
  server = await H.startServer();
  await H.setupOwner(server.base);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, { width: 1280, height: 800 });
  await H.login(page);
});

after(async () => {
  if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
});

test("a webhook made in Settings and delivered to by the test appears live in Now", async () => {
  await page.goto("/#/settings");
  const form = page.getByRole("form", { name: "Create an inbound webhook" });
  await form.getByLabel("Name").fill("alerts");
  await form.getByRole("button", { name: "Create webhook" }).click();
  const secretOut = page.getByLabel("Webhook secret");
  await secretOut.waitFor({ timeout: H.deadline });
  const secret = (await secretOut.textContent()).trim();
  const url = (await page.getByLabel("Webhook URL").textContent()).trim();
  assert.match(secret, /^whsec_/);
  const path = url.slice(url.indexOf("/api/webhooks/generic/"));
  assert.ok(path.startsWith("/api/webhooks/generic/"), url);

  await page.goto("/#/now");
  await page.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
  const body = JSON.stringify({ alert: { summary: "Disk full on db-1", urgency: "sev1" } });
  const id = "msg_e2e_1";
  const ts = String(Math.floor(Date.now() / 1000));
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const sig = createHmac("sha256", key).update(`${id}.${ts}.${body}`).digest("base64");
  const res = await fetch(server.base + path, {
    method: "POST",
    headers: { "content-type": "application/json", "webhook-id": id, "webhook-timestamp": ts, "webhook-signature": `v1,${sig}` },
    body,
  });
  assert.equal(res.status, 202, await res.text());
  await page.getByText("Disk full on db-1").first().waitFor({ timeout: H.deadline });

  // The delivery is in the hook's log in Settings.
  await page.goto("/#/settings");
  await page.locator('.deliveries li[data-outcome="accepted"]').first().waitFor({ timeout: H.deadline });
});
