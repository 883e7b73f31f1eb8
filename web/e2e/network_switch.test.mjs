// Issue 31, points 2 and 7, end to end: a hub started without --federation
// (the operator network off, as by default) and a spoke joined to it, two
// real binaries on loopback driven by Chromium. The Network view says the
// network is off and disables its forms: the admin is offered the switch,
// a member is told to ask their admin; the admin turns the network on from
// Admin → Operator network and edits the allowlist, and the forms open for
// both. The hub's federation audit shows the spoke's binary protobuf
// register call as its JSON, and the spoke's Store shows the hub's listings
// by default.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [adminPage, memberPage], servers: [hub, spoke] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };
const sizes = [wide, narrow];

let hub;
let spoke;
let hubOwner;
let spokeOwner;
let browser;
let adminPage;
let memberPage;

const member = { username: "mia", email: "mia@example.com", password: "correct horse battery", name: "Mia Member" };
const hubApi = (method, path, body) => H.rest(hub.base, method, path, { cookie: hubOwner.cookie, body });

// pictures saves the page at both sizes with target in sight, and finds no
// sideways scrolling at either.
async function pictures(page, name, target) {
  for (const size of sizes) {
    await page.setViewportSize(size);
    await target.scrollIntoViewIfNeeded();
    await H.shot(page, name);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 0, `${name} at ${size.width}px scrolls sideways by ${overflow}px`);
  }
  await page.setViewportSize(wide);
}

async function openNetwork(page) {
  await page.goto("/#/now");
  await page.goto("/#/network");
  await page.getByRole("heading", { name: "Network", level: 1 }).waitFor({ timeout: H.deadline });
  // The switch comes with the connections.
  await H.until(async () => (await page.locator('.region[aria-label="Connections"][aria-busy]').count()) === 0, "the connections answered");
}

const connectForm = (page) => page.getByRole("form", { name: "Connect with someone" });
const offNotice = (page) => page.locator(".network-off");

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  const port = await H.freePort();
  [hub, spoke] = await Promise.all([
    H.startServer({ args: ["--role", "hub"] }),
    H.startServer({ port, args: ["--public-url", `http://127.0.0.1:${port}`] }),
  ]);
  hubOwner = await H.setupOwner(hub.base);
  spokeOwner = await H.setupOwner(spoke.base);
  const signup = await H.rest(hub.base, "POST", "/api/signup", { body: member });
  assert.equal(signup.status, 201, signup.text);
  // The spoke joins the hub over Connect in binary protobuf (its client):
  // the hub's audit keeps the call.
  const token = await hubApi("POST", "/api/developer/connect-tokens", { purpose: "instance" });
  assert.equal(token.status, 201, token.text);
  const join = await H.rest(spoke.base, "POST", "/api/federation/join", {
    cookie: spokeOwner.cookie,
    body: { hubUrl: hub.base, connectToken: token.json.token.token, name: "Spoke A" },
  });
  assert.equal(join.status, 200, join.text);

  browser = await H.launch();
  adminPage = await H.newPage(browser, hub.base, wide);
  memberPage = await H.newPage(browser, hub.base, wide);
  await H.login(adminPage);
  await memberPage.goto("/");
  await memberPage.getByLabel("Username or email").fill(member.username);
  await memberPage.getByLabel("Password", { exact: true }).fill(member.password);
  await memberPage.getByRole("button", { name: "Log in" }).click();
  await memberPage.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
});

after(async () => {
  for (const page of [adminPage, memberPage]) if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await Promise.all([hub?.stop(), spoke?.stop()]);
});

test("the network is off: the forms are disabled with the reason, and a member is told to ask their admin", async () => {
  const settings = await hubApi("GET", "/api/admin/federation/settings");
  assert.equal(settings.json.settings.enabled, false, settings.text);
  await openNetwork(memberPage);
  for (const size of sizes) {
    await memberPage.setViewportSize(size);
    const notice = offNotice(memberPage);
    await notice.locator(".network-ask-admin").waitFor({ timeout: H.deadline });
    assert.match(await notice.textContent(), /^The operator network is off on this instance.*Ask your admin to turn it on\.$/);
    assert.equal(await notice.getByRole("button").count(), 0, "a member has no switch");
    assert.equal(await connectForm(memberPage).getByLabel("Their instance's address").isDisabled(), true);
    assert.equal(await connectForm(memberPage).getByRole("button", { name: "Send request" }).isDisabled(), true);
    assert.equal(await memberPage.getByRole("form", { name: "Send a relay" }).getByLabel("Subject").isDisabled(), true);
    // The reason is what the disabled parts are described by.
    const described = await connectForm(memberPage).evaluate((f) => f.closest("fieldset").getAttribute("aria-describedby"));
    assert.equal(described, await notice.getAttribute("id"));
  }
  await pictures(memberPage, "network-off-member", offNotice(memberPage));
});

test("the admin sees the switch on the Network view, and turns the network on from Admin → Operator network", async () => {
  await openNetwork(adminPage);
  const notice = offNotice(adminPage);
  await notice.getByRole("button", { name: "Turn the operator network on" }).waitFor({ timeout: H.deadline });
  assert.equal(await notice.locator(".network-ask-admin").count(), 0);
  assert.equal(await connectForm(adminPage).getByLabel("Their instance's address").isDisabled(), true);
  await pictures(adminPage, "network-off-admin", notice);

  // The way to the switch and the allowlist: Admin.
  await notice.getByRole("link", { name: "Switch and allowed instances in Admin" }).click();
  await adminPage.getByRole("heading", { name: "Admin", level: 1 }).waitFor({ timeout: H.deadline });
  const section = adminPage.locator("section.network-settings");
  const toggle = section.getByRole("switch", { name: "Operator network" });
  await toggle.waitFor({ timeout: H.deadline });
  assert.equal(await toggle.isChecked(), false);
  await toggle.check();
  await adminPage.locator("#toast", { hasText: "The operator network is on." }).waitFor({ timeout: H.deadline });
  await H.until(async () => (await hubApi("GET", "/api/admin/federation/settings")).json.settings.enabled === true, "on at the server");
  await H.until(async () => (await section.getByRole("switch", { name: "Operator network" }).isChecked()) === true, "the switch shows on");

  // The allowlist, one origin a line; empty admits any instance again.
  const list = section.getByLabel("Allowed instances, one origin a line (empty: any instance)");
  await list.fill(`${spoke.base}\nhttps://team.example`);
  await section.getByRole("button", { name: "Save allowlist" }).click();
  await H.until(async () => (await hubApi("GET", "/api/admin/federation/settings")).json.settings.allowlist.length === 2, "the allowlist saved");
  const saved = (await hubApi("GET", "/api/admin/federation/settings")).json.settings;
  assert.deepEqual(saved, { enabled: true, allowlist: [spoke.base, "https://team.example"], allowPrivate: false });
  await section.getByLabel("Allowed instances, one origin a line (empty: any instance)").fill("not an origin");
  await section.getByRole("button", { name: "Save allowlist" }).click();
  await section.locator(".error", { hasText: "allowlist" }).waitFor({ timeout: H.deadline });
  // What the admin typed after a save stays as typed beside its refusal: a save never draws the form again.
  assert.equal(await section.getByLabel("Allowed instances, one origin a line (empty: any instance)").inputValue(), "not an origin");
  await pictures(adminPage, "admin-network", section);

  // The Network view opens for the admin and, on their next visit, the member.
  for (const page of [adminPage, memberPage]) {
    await openNetwork(page);
    await H.until(async () => (await offNotice(page).isHidden()) && !(await connectForm(page).getByLabel("Their instance's address").isDisabled()), "the forms open");
    assert.equal(await page.getByRole("form", { name: "Send a relay" }).getByLabel("Subject").isDisabled(), false);
  }
});

test("Admin → Federation audit shows the spoke's binary protobuf register call as its JSON", async () => {
  const endpoint = "/switchboard.v1.FederationHubService/RegisterInstance";
  const rows = (await hubApi("GET", `/api/admin/federation-audit?endpoint=${encodeURIComponent(endpoint)}`)).json.entries;
  assert.equal(rows.length, 1, JSON.stringify(rows));
  assert.match(rows[0].payload, /^\{"name":"Spoke A","baseUrl":"http:\/\/127\.0\.0\.1:\d+","apiKey":"\[redacted\]"/);
  await adminPage.goto("/#/now");
  await adminPage.goto("/#/admin");
  const section = adminPage.locator("section.federation-audit");
  const filters = section.getByRole("form", { name: "Filter the federation audit" });
  await filters.getByLabel("Endpoint (exact path)").fill(endpoint);
  await filters.getByRole("button", { name: "Apply filters" }).click();
  const row = section.locator(`li.audit-row[data-id="${rows[0].id}"]`);
  await row.waitFor({ timeout: H.deadline });
  for (const size of sizes) {
    await adminPage.setViewportSize(size);
    const payload = row.locator('pre[aria-label="Payload"]');
    assert.equal(await payload.textContent(), rows[0].payload);
    assert.match(await row.locator('pre[aria-label="Response"]').textContent(), /"platformToken":"sbp_\[redacted\]"|"platformToken":"\[redacted\]"/);
  }
  await pictures(adminPage, "admin-audit-protobuf", row);
});

test("the spoke's Store, left at its default, shows the network's listings beside its own", async () => {
  // A listing of the hub's own, approved there, and one of the spoke's.
  const made = await H.rest(hub.base, "POST", "/api/marketplace", {
    key: hubOwner.key,
    body: { name: "Hub Researcher", endpointUrl: "https://93.184.215.14/agent", category: "research" },
  });
  assert.equal(made.status, 201, made.text);
  const approved = await hubApi("POST", `/api/admin/marketplace/${made.json.agent.id}/approve`, {});
  assert.equal(approved.status, 200, approved.text);
  const own = await H.rest(spoke.base, "POST", "/api/marketplace", {
    key: spokeOwner.key,
    body: { name: "Spoke Writer", endpointUrl: "https://93.184.215.14/agent", category: "writing" },
  });
  assert.equal(own.status, 201, own.text);

  const page = await H.newPage(browser, spoke.base, wide);
  try {
    await H.login(page);
    await page.goto("/#/store");
    await page.getByRole("heading", { name: "Store", level: 1 }).waitFor({ timeout: H.deadline });
    assert.equal(await page.getByLabel("Store", { exact: true }).inputValue(), "", "the scope is left at its default");
    const row = (name) => page.locator("ul.store-list li.store-row", { has: page.locator(".store-name", { hasText: name }) });
    await row("Hub Researcher").waitFor({ timeout: H.deadline });
    assert.equal(await row("Hub Researcher").getAttribute("data-origin"), "global");
    assert.equal(await row("Spoke Writer").getAttribute("data-origin"), "local");
    await pictures(page, "store-spoke-default", row("Hub Researcher"));
    assert.deepEqual(await page.problems(), []);
  } finally {
    await page.context().close();
  }
});
