// Issue 15, item 9 (connections and preferences), end to end: two real
// binaries on loopback with the operator network on (--federation, and
// --federation-allow-private for http:// loopback peers), each on its own
// SQLite file and knowing its own address (--public-url, which the peer
// verifies), their dashboards' Network views driven by Chromium. The tests
// run in order: A asks, B accepts, B sets the trust level and its relay
// preferences, A removes the connection and B hears of it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import * as H from "./harness.mjs";

const wide = { width: 1280, height: 800 };

let a;
let b;
let aOwner;
let bOwner;
let browser;
let aPage;
let bPage;

const on = (srv, who) => (method, path, body) => H.rest(srv.base, method, path, { cookie: who.cookie, body });

async function connectionsOf(srv, who) {
  const res = await on(srv, who)("GET", "/api/federation/connections?status=all");
  assert.equal(res.status, 200, res.text);
  return res.json.connections ?? [];
}

async function peerServer() {
  const port = await H.freePort();
  return H.startServer({ port, args: ["--public-url", `http://127.0.0.1:${port}`, "--federation", "--federation-allow-private"] });
}

before(async () => {
  [a, b] = await Promise.all([peerServer(), peerServer()]);
  [aOwner, bOwner] = await Promise.all([H.setupOwner(a.base), H.setupOwner(b.base)]);
  browser = await H.launch();
  aPage = await H.newPage(browser, a.base, wide);
  bPage = await H.newPage(browser, b.base, wide);
  await H.login(aPage);
  await H.login(bPage);
});

after(async () => {
  for (const page of [aPage, bPage]) if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

const row = (page) => page.locator("li.network-connection");

test("A asks B to connect from the Network view", async () => {
  await aPage.getByRole("link", { name: "Network" }).click();
  await aPage.getByRole("heading", { name: "Network", level: 1 }).waitFor({ timeout: H.deadline });
  await aPage.getByLabel("Their instance's address").fill(b.base);
  await aPage.getByLabel("Their email there").fill(H.owner.email);
  await aPage.getByLabel("Message (optional)").fill("Shall we share work?");
  await aPage.getByRole("button", { name: "Send request" }).click();
  await H.until(async () => (await row(aPage).count()) === 1, "A lists its request");
  assert.equal(await row(aPage).getAttribute("data-status"), "pending");
  const onB = await connectionsOf(b, bOwner);
  assert.equal(onB.length, 1);
  assert.equal(onB[0].direction, "inbound");
  assert.equal(onB[0].message, "Shall we share work?");
});

test("B accepts the request, and both are connected", async () => {
  await bPage.goto("/#/network");
  const requests = bPage.getByRole("list", { name: "Requests to you" });
  await requests.getByText("Shall we share work?").waitFor({ timeout: H.deadline });
  await requests.getByRole("button", { name: /^Accept: / }).click();
  await H.until(async () => (await bPage.locator('li.network-connection[data-status="active"]').count()) === 1, "B shows the connection active");
  for (const [srv, who] of [[a, aOwner], [b, bOwner]]) {
    const list = await connectionsOf(srv, who);
    assert.equal(list.length, 1);
    assert.equal(list[0].status, "active", srv.base);
  }
});

test("B sets the trust level and its relay preferences", async () => {
  const connection = bPage.locator('li.network-connection[data-status="active"]');
  await connection.getByLabel("Trust").selectOption("trusted");
  await H.until(async () => (await connectionsOf(b, bOwner))[0].trustLevel === "trusted", "the trust level is saved");

  const prefs = bPage.getByRole("form", { name: "Relay preferences" });
  await prefs.getByLabel("Muted topics (one a line)").fill("crypto\nlottery");
  await prefs.getByLabel("From", { exact: true }).fill("22:00");
  await prefs.getByLabel("To", { exact: true }).fill("07:00");
  await prefs.getByLabel("Time zone").fill("Europe/Berlin");
  await prefs.getByRole("button", { name: "Save preferences" }).click();
  await H.until(async () => {
    const res = await on(b, bOwner)("GET", "/api/federation/preferences");
    const p = res.json?.preferences;
    return p?.mutedTopics?.join() === "crypto,lottery" && p?.quietHours?.start === "22:00" && p?.quietHours?.timeZone === "Europe/Berlin";
  }, "the preferences are saved");
  // A time zone that does not exist is refused in the server's words.
  await prefs.getByLabel("Time zone").fill("Mars/Olympus");
  await prefs.getByRole("button", { name: "Save preferences" }).click();
  await prefs.getByRole("alert").waitFor({ timeout: H.deadline });
  assert.match(await prefs.getByRole("alert").textContent(), /timeZone/);
});

test("A removes the connection, and B hears of it", async () => {
  // A's page still shows the request as it sent it: load it again.
  await aPage.reload();
  const connection = aPage.locator('li.network-connection[data-status="active"]');
  await connection.getByRole("button", { name: /^Remove: / }).click();
  await connection.getByRole("button", { name: "Remove", exact: true }).click();
  await H.until(async () => (await row(aPage).count()) === 0, "A's list is empty");
  assert.deepEqual(await connectionsOf(b, bOwner), []);
});
