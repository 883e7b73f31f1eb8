// Issue 28 point 12, the network half, end to end: two real binaries on
// loopback with the operator network on (as in network.test.mjs), each with
// its own operator, their dashboards driven by Chromium. The tests run in
// order: A connects to B; A invites B by connection to a project from the
// Projects view (the choice "One of your connections", the select naming
// the peer with their instance); B's Now shows the invite relay as an
// invite (Join project …, from A, Accept and Decline) and B accepts it; A's
// project lists B as a remote contributor named with their instance, which
// A (the lead) may remove; B's Projects view lists the project (B's mirror
// of it). Then A invites B to a team by connection from the Teams view and
// B declines it from Now: A's invite reads declined. Last, A removes B from
// the project and adds them back directly, by connection, as a reviewer.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [aPage, bPage], servers: [a, b] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

let a;
let b;
let aOwner;
let bOwner;
let browser;
let aPage;
let bPage;
const made = {};

const on = (srv, who) => (method, path, body) => H.rest(srv.base, method, path, { cookie: who.cookie, body });

async function peerServer() {
  const port = await H.freePort();
  return H.startServer({ port, args: ["--public-url", `http://127.0.0.1:${port}`, "--federation", "--federation-allow-private"] });
}

// pictures saves the page at both sizes with target in sight, and finds no
// sideways scrolling at either.
async function pictures(page, name, target) {
  for (const size of [wide, narrow]) {
    await page.setViewportSize(size);
    await target.scrollIntoViewIfNeeded();
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
  for (const page of [aPage, bPage]) if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await Promise.all([a?.stop(), b?.stop()]);
});

const hostOf = (srv) => new URL(srv.base).host;
const nowPending = (page, title) => page.locator('section[aria-labelledby="now-pending"] article.item', { hasText: title });

test("A connects to B, and B accepts", async () => {
  const asked = await on(a, aOwner)("POST", "/api/federation/connect", { peerInstanceUrl: b.base, peerUserEmail: H.owner.email });
  assert.equal(asked.status, 201, asked.text);
  made.aConnection = asked.json.connection.id;
  const pending = await on(b, bOwner)("GET", "/api/federation/connections?status=pending");
  assert.equal(pending.status, 200, pending.text);
  const request = pending.json.connections.find((c) => c.peerInstanceUrl === a.base);
  assert.ok(request, pending.text);
  made.bConnection = request.id;
  const accepted = await on(b, bOwner)("POST", `/api/federation/connections/${request.id}/accept`, {});
  assert.equal(accepted.status, 200, accepted.text);
  await H.until(async () => {
    const res = await on(a, aOwner)("GET", "/api/federation/connections?status=active");
    return res.json?.connections?.some((c) => c.id === made.aConnection);
  }, "A's connection is active");
});

test("A invites B by connection to a project from the Projects view", async () => {
  const created = await on(a, aOwner)("POST", "/api/projects", { name: "Voyager", description: "Out past the heliopause" });
  assert.equal(created.status, 201, created.text);
  made.projectId = created.json.project.id;
  await aPage.goto(`/#/projects/${encodeURIComponent(made.projectId)}`);
  await aPage.getByRole("heading", { name: "Voyager", level: 2 }).waitFor({ timeout: H.deadline });
  const form = aPage.getByRole("form", { name: "Invite to the project" });
  const byConnection = form.getByLabel("One of your connections");
  await H.until(async () => !(await byConnection.isDisabled()), "the form offers A's connections");
  await byConnection.check();
  // The email field makes way for the select of connections, each named with its instance.
  assert.equal(await form.getByLabel("Their email").isVisible(), false);
  const select = form.getByLabel("Connection", { exact: true });
  assert.equal(await select.locator("option:checked").textContent(), `${H.owner.name} · ${hostOf(b)}`);
  await form.getByLabel("Message (optional)").fill("Come fly with us");
  await form.getByRole("button", { name: "Send invite" }).click();
  const invites = aPage.getByRole("list", { name: "Pending invites" });
  await invites.locator('li[data-status="pending"]').waitFor({ timeout: H.deadline });
  assert.match(await invites.textContent(), new RegExp(`${H.owner.name} · ${hostOf(b).replace(/[.]/g, "\\.")}`));
  const project = await on(a, aOwner)("GET", `/api/projects/${made.projectId}`);
  assert.equal(project.status, 200, project.text);
  assert.equal(project.json.invites.length, 1, project.text);
  assert.equal(project.json.invites[0].connectionId, made.aConnection, project.text);
  assert.ok(project.json.invites[0].relayId, project.text);
});

test("B sees the invite in Now as an invite, and accepts it", async () => {
  await bPage.goto("/#/now");
  const item = nowPending(bPage, "Join project Voyager");
  await item.waitFor({ timeout: H.deadline });
  const text = await item.textContent();
  assert.match(text, new RegExp(`From ${H.owner.name} \\(${H.owner.username}@${hostOf(a).replace(/[.]/g, "\\.")}\\)`));
  assert.match(text, /As Contributor\. Come fly with us/);
  assert.equal(await item.getByRole("button", { name: /^Approve/ }).count(), 0);
  assert.equal(await item.getByRole("button", { name: /^Reject/ }).count(), 0);
  assert.equal(await item.getByRole("button", { name: /^Decline/ }).count(), 1);
  await pictures(bPage, "project-invite-relay-now", item);
  await item.getByRole("button", { name: /^Accept/ }).click();
  await H.until(async () => (await item.count()) === 0, "the invite leaves B's pending items");
  // A hears of it over the network: B is a remote contributor.
  await H.until(async () => {
    const res = await on(a, aOwner)("GET", `/api/projects/${made.projectId}`);
    return res.json?.members?.some((m) => m.connectionId === made.aConnection);
  }, "A's project lists B");
});

test("A's project shows B as a remote contributor with their instance", async () => {
  const project = await on(a, aOwner)("GET", `/api/projects/${made.projectId}`);
  const remote = project.json.members.find((m) => m.connectionId === made.aConnection);
  assert.equal(remote.role, "contributor", project.text);
  assert.equal(remote.instanceUrl, b.base, project.text);
  assert.ok(!remote.userId, project.text);
  assert.equal(remote.memberId, made.aConnection, project.text);

  await aPage.reload();
  const contributors = aPage.getByRole("list", { name: "Contributor" });
  const row = contributors.locator('li.member-row[data-remote="true"]');
  await row.waitFor({ timeout: H.deadline });
  assert.match(await row.textContent(), new RegExp(`^${H.owner.name} · ${hostOf(b).replace(/[.]/g, "\\.")}`));
  assert.ok(!(await row.textContent()).includes("(you)"));
  // A remote member is removed, never "left": the lead sees Remove, named with the instance.
  assert.equal(await row.getByRole("button", { name: `Remove ${H.owner.name} · ${hostOf(b)}` }).count(), 1);
  assert.equal(await row.getByRole("button", { name: /^Leave/ }).count(), 0);
  assert.equal(await aPage.getByRole("list", { name: "Pending invites" }).count(), 0);
  await pictures(aPage, "project-remote-member", row);
});

test("B's Projects view lists the project", async () => {
  await bPage.getByRole("link", { name: "Projects", exact: true }).click();
  const list = bPage.getByRole("list", { name: "Your projects" });
  await list.getByRole("link", { name: "Voyager" }).waitFor({ timeout: H.deadline });
  await list.getByRole("link", { name: "Voyager" }).click();
  await bPage.getByRole("heading", { name: "Voyager", level: 2 }).waitFor({ timeout: H.deadline });
  // B's copy names its lead, A, with A's instance; B is a contributor here.
  const lead = bPage.getByRole("list", { name: "Lead" }).locator("li.member-row");
  await lead.waitFor({ timeout: H.deadline });
  assert.match(await lead.textContent(), new RegExp(`· ${hostOf(a).replace(/[.]/g, "\\.")}`));
  const mine = bPage.getByRole("list", { name: "Contributor" }).locator("li.member-row", { hasText: "(you)" });
  await mine.waitFor({ timeout: H.deadline });
});

test("A invites B to a team by connection from the Teams view; B declines it from Now", async () => {
  const created = await on(a, aOwner)("POST", "/api/teams", { name: "Deep Space" });
  assert.equal(created.status, 201, created.text);
  const teamId = created.json.team.id;
  await aPage.goto(`/#/teams/${encodeURIComponent(teamId)}`);
  const form = aPage.getByRole("form", { name: "Create an invite" });
  const byConnection = form.getByLabel("One of your connections");
  await H.until(async () => !(await byConnection.isDisabled()), "the form offers A's connections");
  await byConnection.check();
  assert.equal(await form.getByLabel("Connection", { exact: true }).locator("option:checked").textContent(), `${H.owner.name} · ${hostOf(b)}`);
  await form.getByRole("button", { name: "Create invite" }).click();
  const invites = aPage.getByRole("list", { name: "Invites" });
  await invites.locator('li[data-status="pending"]').waitFor({ timeout: H.deadline });
  assert.match(await invites.textContent(), new RegExp(`${H.owner.name} · ${hostOf(b).replace(/[.]/g, "\\.")}`));
  // No link to copy: the relay carries the invite.
  assert.equal(await aPage.locator(".once").count(), 0);

  await bPage.goto("/#/now");
  const item = nowPending(bPage, "Join team Deep Space");
  await item.waitFor({ timeout: H.deadline });
  assert.match(await item.textContent(), /As Member\./);
  await item.getByRole("button", { name: /^Decline/ }).click();
  await item.getByRole("button", { name: "Yes, decline" }).click();
  await H.until(async () => (await item.count()) === 0, "the invite leaves B's pending items");
  await H.until(async () => {
    const res = await on(a, aOwner)("GET", `/api/teams/${teamId}/invites`);
    return res.json?.invites?.[0]?.status === "declined";
  }, "A's invite reads declined");
  const team = await on(a, aOwner)("GET", `/api/teams/${teamId}`);
  assert.equal(team.json.members.length, 1, team.text);
});

test("A removes B from the project, then adds them back directly by connection", async () => {
  await aPage.goto(`/#/projects/${encodeURIComponent(made.projectId)}`);
  const remote = aPage.locator('li.member-row[data-remote="true"]');
  await remote.waitFor({ timeout: H.deadline });
  await remote.getByRole("button", { name: `Remove ${H.owner.name} · ${hostOf(b)}` }).click();
  await remote.getByRole("button", { name: "Remove", exact: true }).click();
  await H.until(async () => (await remote.count()) === 0, "B leaves A's project page");
  let project = await on(a, aOwner)("GET", `/api/projects/${made.projectId}`);
  assert.ok(!project.json.members.some((m) => m.connectionId), project.text);

  const form = aPage.getByRole("form", { name: "Add a project member" });
  const byConnection = form.getByLabel("One of your connections");
  await H.until(async () => !(await byConnection.isDisabled()), "the form offers A's connections");
  await byConnection.check();
  await form.getByLabel("Role").selectOption("reviewer");
  await form.getByRole("button", { name: "Add member" }).click();
  const reviewer = aPage.getByRole("list", { name: "Reviewer" }).locator('li.member-row[data-remote="true"]');
  await reviewer.waitFor({ timeout: H.deadline });
  assert.match(await reviewer.textContent(), new RegExp(`^${H.owner.name} · ${hostOf(b).replace(/[.]/g, "\\.")}`));
  project = await on(a, aOwner)("GET", `/api/projects/${made.projectId}`);
  const back = project.json.members.find((m) => m.connectionId === made.aConnection);
  assert.equal(back?.role, "reviewer", project.text);
});
