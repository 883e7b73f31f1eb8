// Issue 14, items 1, 4 and 8, end to end: two real binaries on loopback, a
// hub (--role hub, so its store holds synced agents in pending_review) and a
// spoke (its --public-url is its own address, which the hub verifies at
// join), each on its own SQLite file, their dashboards driven by Chromium.
// The tests run in order and build on each other: join, sync, the hub's view
// of its instance, the review queue, the audit log, leaving.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [hubPage, spokePage], servers: [hub, spoke] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

let hub;
let spoke;
let hubOwner;
let spokeOwner;
let browser;
let hubPage;
let spokePage;
const ids = {};

const hubApi = (method, path, body, headers) => H.rest(hub.base, method, path, { cookie: hubOwner.cookie, body, headers });
const spokeApi = (method, path, body) => H.rest(spoke.base, method, path, { cookie: spokeOwner.cookie, body });

async function listing(base, key, body) {
  const res = await H.rest(base, "POST", "/api/marketplace", { key, body: { endpointUrl: "https://93.184.215.14/agent", ...body } });
  assert.equal(res.status, 201, res.text);
  return res.json.agent.id;
}

async function hubInstance() {
  const res = await hubApi("GET", "/api/admin/federation/instances");
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.instances.length, 1, res.text);
  return res.json.instances[0];
}

// factsOf reads a definition list of the page as {term: text}.
function factsOf(locator) {
  return locator.evaluate((dl) => {
    const out = {};
    for (const dt of dl.querySelectorAll("dt")) out[dt.textContent] = dt.nextElementSibling?.textContent ?? "";
    return out;
  });
}

const federation = (page) => page.locator('section[aria-labelledby="settings-federation"]');

// pictures saves the page at both sizes with target in sight (the docs'
// screenshots with `npm run screenshots`).
async function pictures(page, name, target) {
  for (const size of [wide, narrow]) {
    await page.setViewportSize(size);
    await target.scrollIntoViewIfNeeded();
    await H.shot(page, name);
  }
  await page.setViewportSize(wide);
}

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  hub = await H.startServer({ args: ["--role", "hub"] });
  const port = await H.freePort();
  spoke = await H.startServer({ port, args: ["--public-url", `http://127.0.0.1:${port}`] });
  hubOwner = await H.setupOwner(hub.base);
  spokeOwner = await H.setupOwner(spoke.base);
  // A listing of the hub's own takes the slug "scout", so the spoke's Scout
  // conflicts; the spoke's three others are synced.
  await listing(hub.base, hubOwner.key, { name: "Hub Scout", slug: "scout" });
  ids.scout = await listing(spoke.base, spokeOwner.key, { name: "Scout", slug: "scout" });
  ids.writer = await listing(spoke.base, spokeOwner.key, { name: "Writer", category: "writing", description: "Drafts anything." });
  ids.coder = await listing(spoke.base, spokeOwner.key, { name: "Coder", category: "coding" });
  ids.reader = await listing(spoke.base, spokeOwner.key, { name: "Reader", category: "research" });
  browser = await H.launch();
  hubPage = await H.newPage(browser, hub.base, wide);
  spokePage = await H.newPage(browser, spoke.base, wide);
  await H.login(hubPage);
  await H.login(spokePage);
});

after(async () => {
  await browser?.close();
  await spoke?.stop();
  await hub?.stop();
});

test("Settings → Federation on a standalone instance: join a hub with a connect token; the status shows the hub, the heartbeat and store participation", async () => {
  await spokePage.goto("/#/settings");
  const section = federation(spokePage);
  await section.waitFor({ timeout: H.deadline });
  const before = await factsOf(section.locator("dl.facts"));
  assert.equal(before.Role, "Standalone");
  assert.equal(before.Membership, "Not joined to a hub");

  // The hub's admin mints the instance token in the hub's own Settings.
  await hubPage.goto("/#/settings");
  await federation(hubPage).getByRole("button", { name: "Create an instance connect token" }).click();
  const minted = federation(hubPage).locator('output[aria-label="The new instance connect token"]');
  await minted.waitFor({ timeout: H.deadline });
  const token = await minted.textContent();
  assert.match(token, /^fct_/);
  const form = section.getByRole("form", { name: "Join a hub" });
  await form.getByLabel("Hub URL").fill(hub.base);
  await form.getByLabel("Connect token").fill(token);
  await form.getByLabel("Name on the hub (optional)").fill("Spoke A");
  assert.equal(await form.getByLabel("Take part in the hub's store").isChecked(), true);
  await form.getByRole("button", { name: "Join hub" }).click();

  await H.until(async () => (await factsOf(section.locator("dl.facts"))).Membership === "Joined", "joined");
  const after = await factsOf(section.locator("dl.facts"));
  assert.equal(after.Hub, hub.base);
  assert.match(after["Last heartbeat"], /answered: 1 instance, \d+ users?, \d+ agents? in the network/);
  assert.match(after["Store participation"], /^Linked/);
  assert.equal(after["Last sync"], "Never");
  assert.equal(after["Heartbeat every"], "1 h");
  const status = (await spokeApi("GET", "/api/federation/status")).json.status;
  assert.equal(status.joined, true);
  assert.equal(after["Instance id on the hub"], status.instanceId);
  assert.equal((await hubInstance()).name, "Spoke A");
  assert.equal(await form.count(), 0, "the join form is gone once joined");
  assert.deepEqual(await spokePage.problems(), []);
});

test("Sync now shows what the hub did with each listing; unlink and link the store", async () => {
  const section = federation(spokePage);
  await section.getByRole("button", { name: "Sync now" }).click();
  const results = section.locator("ul.sync-results li");
  await H.until(async () => (await results.count()) === 4, "four sync results");
  const row = (id) => section.locator(`ul.sync-results li[data-id="${id}"]`);
  assert.equal(await row(ids.scout).getAttribute("data-status"), "conflict");
  assert.match(await row(ids.scout).textContent(), /^Scout Conflict .*"scout" is taken on this hub/);
  for (const [id, name] of [[ids.writer, "Writer"], [ids.coder, "Coder"], [ids.reader, "Reader"]]) {
    assert.equal(await row(id).getAttribute("data-status"), "created");
    assert.match(await row(id).textContent(), new RegExp(`^${name} Created · on the hub \\S+`));
  }
  assert.notEqual((await factsOf(section.locator("dl.facts")))["Last sync"], "Never");
  await pictures(spokePage, "settings-federation", section);

  await section.getByRole("button", { name: "Unlink store" }).click();
  await H.until(async () => (await factsOf(section.locator("dl.facts")))["Store participation"] === "Not linked", "unlinked");
  assert.equal((await hubInstance()).storeParticipation, false);
  await section.getByRole("button", { name: "Link store" }).click();
  await H.until(async () => /^Linked/.test((await factsOf(section.locator("dl.facts")))["Store participation"]), "linked again");
  assert.equal((await hubInstance()).storeParticipation, true);
});

test("Rotate token: the hub holds a new token and the spoke stays joined", async () => {
  const before = (await hubInstance()).tokenPrefix;
  const section = federation(spokePage);
  await section.getByRole("button", { name: "Rotate token" }).click();
  await H.until(async () => (await hubInstance()).tokenPrefix !== before, "a new token on the hub");
  assert.equal((await factsOf(section.locator("dl.facts"))).Membership, "Joined");
  assert.equal((await spokeApi("GET", "/api/federation/status")).json.status.joined, true);
});

test("Announce health: maintenance reaches the hub at once, then healthy again", async () => {
  const section = federation(spokePage);
  const form = section.getByRole("form", { name: "Announce health" });
  assert.equal(await form.getByLabel("Health announced to the hub").inputValue(), "healthy");
  await form.getByLabel("Health announced to the hub").selectOption("maintenance");
  await form.getByRole("button", { name: "Announce" }).click();
  await H.until(async () => (await factsOf(section.locator("dl.facts")))["Announced health"] === "Maintenance", "maintenance shown");
  assert.equal((await hubInstance()).health, "maintenance");
  assert.equal((await spokeApi("GET", "/api/federation/status")).json.status.health, "maintenance");
  await form.getByLabel("Health announced to the hub").selectOption("healthy");
  await form.getByRole("button", { name: "Announce" }).click();
  await H.until(async () => (await hubInstance()).health === "healthy", "healthy on the hub");
  // The hub has it before the spoke answers the page, which then shows it.
  await H.until(async () => (await factsOf(section.locator("dl.facts")))["Announced health"] === "Healthy", "healthy shown");
  assert.deepEqual(await spokePage.problems(), []);
});

test("Settings → Federation on the hub lists the joined instance; deactivate asks first, then reactivate", async () => {
  // Settings was open since the token was minted: a route change mounts it afresh.
  await hubPage.goto("/#/now");
  await hubPage.goto("/#/settings");
  const section = federation(hubPage);
  await section.waitFor({ timeout: H.deadline });
  // A hub joins no hub: its role is all its status says.
  assert.deepEqual(await factsOf(section.locator("dl.facts")), { Role: "Hub" });
  const inst = await hubInstance();
  const row = section.locator(`li.instance-row[data-id="${inst.id}"]`);
  await row.waitFor({ timeout: H.deadline });
  const text = await row.textContent();
  assert.match(text, /^Spoke A/);
  assert.ok(text.includes(spoke.base), text);
  assert.match(text, /Active.*Healthy/);
  assert.match(text, new RegExp(`Last heartbeat .+ · ${inst.agentCount} agents? · ${inst.userCount} users? · Store: linked`));
  assert.ok(!/Last heartbeat never/.test(text), text);
  await pictures(hubPage, "settings-federation-hub", section);

  await row.getByRole("button", { name: "Deactivate Spoke A" }).click();
  assert.equal(await hubInstance().then((i) => i.status), "active", "nothing happens before the confirmation");
  await row.getByRole("button", { name: "Yes, deactivate" }).click();
  await H.until(async () => (await row.getAttribute("data-status")) === "deactivated", "deactivated on the page");
  assert.match(await row.textContent(), /Deactivated/);
  assert.equal((await hubInstance()).status, "deactivated");

  await row.getByRole("button", { name: "Reactivate Spoke A" }).click();
  await H.until(async () => (await row.getAttribute("data-status")) === "active", "active again on the page");
  assert.equal((await hubInstance()).status, "active");
  assert.deepEqual(await hubPage.problems(), []);
});

// The hub's review policy holds its own new listings too: "Hub Scout" waits
// beside the three synced agents.
test("Admin → Listings waiting for review: the spoke's synced agents wait there; approve, reject with a reason, disable", async () => {
  await hubPage.goto("/#/settings");
  const tab = hubPage.locator('nav.tabs a[data-tab="admin"]');
  await tab.waitFor({ state: "visible", timeout: H.deadline });
  await tab.click();
  await hubPage.getByRole("heading", { name: "Admin", level: 1 }).waitFor({ timeout: H.deadline });
  const section = hubPage.locator("section.listing-reviews");
  const rows = section.locator("li.listing-review-row");
  const bySlug = (slug) => section.locator(`li.listing-review-row[data-slug="${slug}"]`);
  await H.until(async () => (await rows.count()) === 4, "three synced listings and the hub's own waiting");
  assert.match(await bySlug("scout").textContent(), /^Hub Scout\s*scout\s*Pending review/);
  assert.match(await bySlug("writer").textContent(), /^Writer\s*writer\s*Pending review/);
  assert.match(await bySlug("writer").textContent(), /Drafts anything\./);
  // Where each came from (issue 31): the instance that synced it, by the
  // name it joined with; the hub's own listing is its own.
  assert.equal(await bySlug("writer").locator(".listing-origin").textContent(), "From instance Spoke A");
  assert.equal(await bySlug("scout").locator(".listing-origin").textContent(), "Listed on this instance");
  const hubId = async (slug) => bySlug(slug).getAttribute("data-id");
  const writer = await hubId("writer");
  const coder = await hubId("coder");
  const reader = await hubId("reader");
  await pictures(hubPage, "admin-reviews", section);

  await bySlug("writer").getByRole("button", { name: "Approve Writer" }).click();
  await H.until(async () => (await rows.count()) === 3, "Writer left the queue");
  assert.equal((await hubApi("GET", `/api/marketplace/${writer}`)).json.agent.status, "active");

  await bySlug("coder").getByRole("button", { name: "Reject Coder" }).click();
  await bySlug("coder").getByLabel("Reason (optional, the owner sees it)").fill("Needs a description.");
  await bySlug("coder").getByRole("button", { name: "Reject listing" }).click();
  await H.until(async () => (await rows.count()) === 2, "Coder left the queue");
  assert.equal((await hubApi("GET", `/api/marketplace/${coder}`)).json.agent.status, "rejected");

  await bySlug("reader").getByRole("button", { name: "Disable Reader" }).click();
  await bySlug("reader").getByRole("button", { name: "Disable listing" }).click();
  await H.until(async () => (await rows.count()) === 1, "Reader left the queue");
  assert.equal((await hubApi("GET", `/api/marketplace/${reader}`)).json.agent.status, "disabled");
  // The last one: the queue says it is empty.
  await bySlug("scout").getByRole("button", { name: "Approve Hub Scout" }).click();
  await H.until(async () => (await section.locator("p.empty").count()) === 1, "the queue is empty");
  assert.equal(await section.locator("p.empty").textContent(), "No listing waits for review.");
  assert.deepEqual(await hubPage.problems(), []);
});

test("Leave asks first; once left, the join form is back and the hub lists the instance as left", async () => {
  await spokePage.goto("/#/settings");
  const section = federation(spokePage);
  await section.getByRole("button", { name: "Leave hub" }).click();
  assert.equal((await spokeApi("GET", "/api/federation/status")).json.status.joined, true, "nothing happens before the confirmation");
  await section.getByRole("button", { name: "Yes, leave" }).click();
  await spokePage.locator("#toast", { hasText: "Left the hub" }).waitFor({ timeout: H.deadline });
  assert.equal(await spokePage.locator("#toast").textContent(), "Left the hub", "the hub was told");
  await section.getByRole("form", { name: "Join a hub" }).waitFor({ timeout: H.deadline });
  assert.equal((await factsOf(section.locator("dl.facts"))).Membership, "Not joined to a hub");
  assert.equal((await spokeApi("GET", "/api/federation/status")).json.status.joined, false);
  assert.equal((await hubInstance()).status, "left");
  assert.deepEqual(await spokePage.problems(), []);
});

test("Admin → Federation audit: pages of 30, filters, statistics that match the rows, and a preview's markup shown as text", async () => {
  // A hostile call: markup in the body of a platform route. Whatever the
  // guard decides, its audit row keeps the payload's preview.
  const hostile = '<script>window.__xss = 1</script><img src=x onerror="window.__xss = 2">';
  const sent = await H.rest(hub.base, "POST", "/api/v2/federation/heartbeat", {
    body: { status: hostile },
    headers: { Authorization: "Bearer sbp_not_a_token" },
  });
  assert.ok(sent.status >= 400, sent.text);
  // Enough calls for a second page.
  for (let i = 0; i < 32; i++) {
    await H.rest(hub.base, "POST", "/api/v2/federation/heartbeat", { body: { status: "healthy" }, headers: { Authorization: "Bearer sbp_not_a_token" } });
  }
  const all = await hubApi("GET", "/api/admin/federation-audit");
  assert.equal(all.status, 200, all.text);
  const total = all.json.pagination.total;
  assert.ok(total > 30, all.text);
  const hostileRow = (await hubApi("GET", "/api/admin/federation-audit?limit=100")).json.entries.find((e) => e.payload.includes("<script>"));
  assert.ok(hostileRow, "the hostile call has its row");

  // The Admin view was open since the review test: a route change mounts it
  // afresh.
  await hubPage.goto("/#/now");
  await hubPage.goto("/#/admin");
  const section = hubPage.locator("section.federation-audit");
  const rows = section.locator("li.audit-row");
  await H.until(async () => (await rows.count()) === 30, "a first page of 30").catch(async (e) => {
    throw new Error(`${e.message}\n${await section.textContent()}`);
  });
  const pager = section.locator("nav.pager");
  assert.equal(await pager.locator(".pager-status").textContent(), `1–30 of ${total}`);
  await pager.getByRole("button", { name: "Next" }).click();
  await H.until(async () => (await pager.locator(".pager-status").textContent()) === `31–${Math.min(60, total)} of ${total}`, "the second page");
  assert.equal(await rows.count(), Math.min(30, total - 30));
  await pager.getByRole("button", { name: "Previous" }).click();
  await H.until(async () => (await pager.locator(".pager-status").textContent()) === `1–30 of ${total}`, "back to the first page");

  // Filter on the hostile row's status and endpoint.
  const filters = section.getByRole("form", { name: "Filter the federation audit" });
  await filters.getByLabel("Status").selectOption(hostileRow.status);
  await filters.getByLabel("Direction").selectOption("inbound");
  await filters.getByLabel("Endpoint (exact path)").fill("/api/v2/federation/heartbeat");
  await filters.getByRole("button", { name: "Apply filters" }).click();
  const filtered = await hubApi("GET", `/api/admin/federation-audit?status=${hostileRow.status}&direction=inbound&endpoint=/api/v2/federation/heartbeat`);
  await H.until(async () => (await section.locator(`li.audit-row[data-id="${hostileRow.id}"]`).count()) === 1 &&
    (await rows.count()) === Math.min(30, filtered.json.pagination.total), "the filtered rows");
  for (const s of await rows.evaluateAll((els) => els.map((e) => e.dataset.status))) assert.equal(s, hostileRow.status);
  await pictures(hubPage, "admin-audit", section.locator(`li.audit-row[data-id="${hostileRow.id}"]`));

  // The preview is text: the markup reads as its characters, nothing ran,
  // no element came of it.
  const payload = section.locator(`li.audit-row[data-id="${hostileRow.id}"] pre[aria-label="Payload"]`);
  const shown = await payload.textContent();
  assert.equal(shown, hostileRow.payload);
  assert.ok(shown.includes("<script>window.__xss = 1</script>"), shown);
  assert.ok(shown.includes('<img src=x onerror=\\"window.__xss = 2\\">'), shown);
  assert.equal(await section.locator("img, script").count(), 0);
  assert.equal(await payload.evaluate((el) => el.children.length), 0);
  assert.equal(await hubPage.evaluate(() => window.__xss), undefined);

  // Statistics over the same filters match the server's count of the rows.
  await section.getByRole("button", { name: "Statistics" }).click();
  const totals = section.locator('dl.facts[aria-label="Totals"]');
  await totals.waitFor({ timeout: H.deadline });
  const stats = await hubApi("GET", `/api/admin/federation-audit?view=stats&status=${hostileRow.status}&direction=inbound&endpoint=/api/v2/federation/heartbeat`);
  assert.equal(stats.status, 200, stats.text);
  assert.equal(stats.json.stats.total, filtered.json.pagination.total);
  const f = await factsOf(totals);
  assert.equal(f.Rows, String(stats.json.stats.total));
  assert.equal(f["Median duration"], `${stats.json.stats.p50DurationMs} ms`);
  const byStatus = await section.locator("table.audit-counts", { has: hubPage.locator("caption", { hasText: "By status" }) }).locator("tbody tr").allTextContents();
  assert.deepEqual(byStatus, stats.json.stats.byStatus.map((c) => `${c.value}${c.count}`));
  assert.deepEqual(await hubPage.problems(), []);
});

test("a member sees neither the Admin tab nor the Federation section", async () => {
  const who = { username: "mia", email: "mia@example.com", password: "correct horse battery", name: "Mia Member" };
  const signup = await H.rest(hub.base, "POST", "/api/signup", { body: who });
  assert.equal(signup.status, 201, signup.text);
  const page = await H.newPage(browser, hub.base, wide);
  try {
    await page.goto("/");
    await page.getByLabel("Username or email").fill(who.username);
    await page.getByLabel("Password", { exact: true }).fill(who.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
    await page.goto("/#/settings");
    await page.getByRole("heading", { name: "API keys" }).waitFor({ timeout: H.deadline });
    // Both wait for the same answer (permission denied): once the section's
    // region has settled, the tab has too.
    await H.until(async () => (await federation(page).locator(".region[aria-busy]").count()) === 0, "the federation probe answered");
    assert.equal(await federation(page).isVisible(), false);
    assert.equal(await page.locator('nav.tabs a[data-tab="admin"]').isVisible(), false);
  } finally {
    await page.context().close();
  }
});

