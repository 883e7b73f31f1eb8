// Issue 31, point 1 ("Everything live"), end to end: two real binaries with
// the operator network on, their dashboards driven by Chromium, and nothing
// reloaded. A card and a contact an agent makes over REST appear in the open
// Board and Contacts views within 2 s; B's Network view shows a connection
// request as it arrives, with a badge on the Network tab and on Now, and the
// asker's shows B's acceptance, at both sizes; A's relay threads follow B's
// ack. Every view is
// opened once and never loaded again: a mark set on the window before each
// step is still there after it.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [aPage, bPage], servers: [a, b] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };
// The acceptance's bound for a change to reach an open view.
const live = 2_000;

let a;
let b;
let aOwner;
let bOwner;
let browser;
let aPage;
let bPage;
let aConn;

async function peerServer() {
  const port = await H.freePort();
  return H.startServer({ port, args: ["--public-url", `http://127.0.0.1:${port}`, "--federation", "--federation-allow-private"] });
}

// open goes to a view once, waits for its heading and the live stream, and
// marks the window: a reload would lose the mark.
async function open(page, hash, heading) {
  await page.goto(`/${hash}`);
  await page.getByRole("heading", { name: heading, level: 1 }).waitFor({ timeout: H.deadline });
  await page.locator('.live-state[data-state="live"]').waitFor({ timeout: H.deadline });
  await page.evaluate(() => {
    window.__notReloaded = true;
  });
}

async function notReloaded(page) {
  assert.equal(await page.evaluate(() => window.__notReloaded === true), true, "the page was loaded again");
}

// pictures saves the page at both sizes and finds no sideways scrolling.
async function pictures(page, name) {
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
  [a, b] = await Promise.all([peerServer(), peerServer()]);
  [aOwner, bOwner] = await Promise.all([H.setupOwner(a.base), H.setupOwner(b.base)]);
  browser = await H.launch();
  aPage = await H.newPage(browser, a.base, wide);
  bPage = await H.newPage(browser, b.base, wide);
  await H.login(aPage);
  await H.login(bPage);
});

after(async () => {
  for (const page of [aPage, bPage, ...extraPages]) if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

for (const size of [wide, narrow]) {
  test(`at ${size.width}px, a card an agent makes over REST appears in the open Board`, async () => {
    await aPage.setViewportSize(size);
    await open(aPage, "#/board", "Board");
    const title = `Call the printer (${size.width})`;
    const res = await H.rest(a.base, "POST", "/api/v2/kanban", { key: aOwner.key, body: { title } });
    assert.equal(res.status, 201, res.text);
    await H.until(async () => (await aPage.getByText(title).count()) > 0, "the card shows", live);
    await notReloaded(aPage);
  });

  test(`at ${size.width}px, a contact an agent makes over REST appears in the open Contacts`, async () => {
    await aPage.setViewportSize(size);
    await open(aPage, "#/contacts", "Contacts");
    const name = `Grace Hopper ${size.width}`;
    const res = await H.rest(a.base, "POST", "/api/v2/contacts", { key: aOwner.key, body: { name } });
    assert.equal(res.status, 201, res.text);
    await H.until(async () => (await aPage.getByText(name).count()) > 0, "the contact shows", live);
    await notReloaded(aPage);
  });
}

// A connection request and its acceptance at each size: at 390 px A's owner
// asks B's owner (the connection the relays below use), at 1280 px a second
// user of A's instance does, so each round is a new request.
const rounds = [
  { size: narrow, asker: () => ({ page: aPage, cookie: aOwner.cookie }), note: "Live from A" },
  { size: wide, asker: secondAsker, note: "Live from Alex" },
];

// secondAsker signs up a second user on A's instance and opens a page as them.
async function secondAsker() {
  const alex = { username: "alex", password: "another horse battery", name: "Alex Second", email: "alex@example.com" };
  const made = await H.rest(a.base, "POST", "/api/signup", { body: { username: alex.username, email: alex.email, password: alex.password, name: alex.name } });
  assert.equal(made.status, 201, made.text);
  const login = await H.rest(a.base, "POST", "/api/auth/login", { body: { username: alex.username, password: alex.password } });
  assert.equal(login.status, 200, login.text);
  const page = await H.newPage(browser, a.base, wide);
  await H.login(page, alex);
  extraPages.push(page);
  return { page, cookie: (login.headers.get("set-cookie") ?? "").split(";")[0] };
}

const extraPages = [];

for (const round of rounds) {
  const { size } = round;
  let asker;
  let conn;
  test(`at ${size.width}px, B's open Network view shows a request as it arrives; the Network tab and Now count it`, async () => {
    asker = await round.asker();
    await asker.page.setViewportSize(size);
    await bPage.setViewportSize(size);
    await open(asker.page, "#/network", "Network");
    await open(bPage, "#/network", "Network");
    const asked = await H.rest(a.base, "POST", "/api/federation/connect", {
      cookie: asker.cookie,
      body: { peerInstanceUrl: b.base, peerUserEmail: H.owner.email, message: round.note },
    });
    assert.equal(asked.status, 201, asked.text);
    conn = asked.json.connection.id;
    if (asker.page === aPage) aConn = conn;

    const requests = bPage.getByRole("list", { name: "Requests to you" });
    await H.until(async () => (await requests.getByText(round.note).count()) === 1, "B's view lists the request", live);
    const tabBadge = bPage.locator('nav a[data-tab="network"] [data-waiting="connectionRequests"]');
    await H.until(async () => (await tabBadge.isVisible()) && (await tabBadge.textContent()) === "1", "the Network tab's badge counts it", live);
    assert.equal(await tabBadge.getAttribute("aria-label"), "1 connection request");
    await notReloaded(bPage);

    // Now's panel says the same, and leads to the Network view.
    await bPage.getByRole("link", { name: /^Now/ }).click();
    const waiting = bPage.getByRole("region", { name: "Waiting for you", exact: true });
    await waiting.waitFor({ timeout: H.deadline });
    const entry = waiting.locator('li[data-waiting="connectionRequests"]');
    await H.until(async () => (await entry.locator(".badge").textContent()) === "1", "Now counts the request");
    assert.equal(await entry.getByRole("link").getAttribute("href"), "#/network");
    if (size === narrow) await pictures(bPage, "live-now-waiting");
    await bPage.setViewportSize(size);
    await notReloaded(bPage);
  });

  test(`at ${size.width}px, B accepts, and the asker's open Network view shows the connection active`, async () => {
    await bPage.getByRole("link", { name: /^Network/ }).click();
    await bPage.getByRole("list", { name: "Requests to you" }).getByRole("button", { name: /^Accept: / }).click();
    await H.until(
      async () => (await asker.page.locator(`li.network-connection[data-connection-id="${conn}"]`).getAttribute("data-status")) === "active",
      "the asker's view shows the acceptance",
      live,
    );
    await notReloaded(asker.page);
    // Nothing waits on B any more: the badge is gone.
    const tabBadge = bPage.locator('nav a[data-tab="network"] [data-waiting="connectionRequests"]');
    await H.until(async () => await tabBadge.isHidden(), "B's badge is gone");
  });
}

for (const size of [wide, narrow]) {
  test(`at ${size.width}px, A's open Network view follows B's ack of a relay`, async () => {
    await aPage.setViewportSize(size);
    const subject = `Send the deck (${size.width})`;
    const sent = await H.rest(a.base, "POST", "/api/federation/relays", {
      cookie: aOwner.cookie,
      body: { connectionId: aConn, subject, intent: "get_info" },
    });
    assert.equal(sent.status, 200, sent.text);
    const relayID = sent.json.relay.id;
    // B's open view shows it delivered.
    await H.until(async () => (await bPage.getByText(subject).count()) > 0, "B's view shows the relay", live);

    const pending = await H.rest(b.base, "GET", "/api/v2/queue?status=pending_confirmation", { key: bOwner.key });
    assert.equal(pending.status, 200, pending.text);
    const item = pending.json.data.items.find((it) => it.title === subject);
    assert.ok(item, pending.text);
    const ok = await H.rest(b.base, "POST", `/api/v2/queue/${item.id}/confirm`, { key: bOwner.key, body: { action: "approve" } });
    assert.equal(ok.status, 200, ok.text);
    // The ack travels through B's outbox; A's page follows without a reload.
    const row = aPage.locator(`li.relay[data-relay-id="${relayID}"]`);
    await H.until(async () => (await row.count()) === 1 && (await row.getAttribute("data-state")) === "accepted", "A's view shows the ack");
    await notReloaded(aPage);
    await notReloaded(bPage);
  });
}
