// Issue 28 (teams, projects, invites), end to end: the real binary on SQLite
// serving the dashboard, Chromium driving two operators of one instance, each
// in a browser context of their own. The tests run in order and share the
// server: Ann makes a team in the Teams view and an invite link there (shown
// once); Bob opens the link signed out, sees the invite, signs in from it and
// accepts it; the link, used, then says so plainly, and so does an expired
// one. Ann makes a project in the Projects view and assigns it to the team
// from the team's detail; the project lists Bob as a contributor through the
// team, and the cards filed under it by status. Last, Ann invites Bob to a
// second project by email, and Bob accepts it from his Now view. Then the
// profiles: Bob writes a bio in Settings, Ann opens his profile from the
// team's members and reads it there; Bob makes his profile private, and it
// reads as private to Ann and to someone signed out, while Ann's public one
// opens signed out.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [annPage, bobPage], servers: [server] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

const bob = { username: "bob", email: "bob@example.com", password: "another horse battery", name: "Bob Builder" };

let server;
let ann;
let bobCookie;
let browser;
let annPage;
let bobPage;
const made = {};

const as = (cookie) => (method, path, body) => H.rest(server.base, method, path, { cookie, body });

// pictures saves the page at both sizes and finds no sideways scrolling at either.
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
  server = await H.startServer();
  ann = await H.setupOwner(server.base);
  const signup = await H.rest(server.base, "POST", "/api/signup", { body: bob });
  assert.equal(signup.status, 201, signup.text);
  const login = await H.rest(server.base, "POST", "/api/auth/login", { body: { username: bob.username, password: bob.password } });
  bobCookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
  assert.ok(login.status === 200 && bobCookie, login.text);
  browser = await H.launch();
  annPage = await H.newPage(browser, server.base, wide);
  bobPage = await H.newPage(browser, server.base, wide);
  await H.login(annPage);
});

after(async () => {
  for (const page of [annPage, bobPage]) if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
});

test("Ann creates a team from the Teams view", async () => {
  await annPage.getByRole("link", { name: "Teams", exact: true }).click();
  await annPage.getByRole("heading", { name: "Teams", level: 1 }).waitFor({ timeout: H.deadline });
  await annPage.getByText("You are in no team yet").waitFor({ timeout: H.deadline });
  await annPage.getByRole("button", { name: "New team" }).click();
  const form = annPage.getByRole("form", { name: "New team" });
  await form.getByLabel("Name", { exact: true }).fill("Launch Crew");
  await form.getByRole("button", { name: "Create team" }).click();
  await annPage.getByRole("heading", { name: "Launch Crew", level: 2 }).waitFor({ timeout: H.deadline });
  made.teamId = decodeURIComponent(new URL(annPage.url()).hash.replace("#/teams/", ""));
  const list = await as(ann.cookie)("GET", "/api/teams");
  assert.equal(list.status, 200, list.text);
  assert.equal(list.json.teams.length, 1);
  const team = list.json.teams[0];
  assert.equal(team.id, made.teamId);
  assert.equal(team.handle, "launch-crew");
  assert.equal(team.role, "owner");
  // The owner is listed with the contract's word for the role.
  const members = annPage.getByRole("list", { name: "Members" });
  await members.getByText(H.owner.name).waitFor({ timeout: H.deadline });
  assert.equal(await members.locator("li.member-row .chip").first().textContent(), "Owner");
});

test("Ann makes an invite link, shown once with a Copy button", async () => {
  const form = annPage.getByRole("form", { name: "Create an invite" });
  await form.getByLabel("Message (optional)").fill("Come build with us");
  await form.getByRole("button", { name: "Create invite" }).click();
  const link = annPage.getByRole("status", { name: "The invite link" });
  await link.waitFor({ timeout: H.deadline });
  made.link = (await link.textContent()).trim();
  assert.match(made.link, new RegExp(`^${server.base.replace(/[.]/g, "\\.")}/#/invite/[A-Za-z0-9_-]{43}$`));
  await annPage.getByText("shown only this once").waitFor({ timeout: H.deadline });
  assert.equal(await annPage.locator(".once").getByRole("button", { name: "Copy" }).count(), 1);
  // The invite is listed, pending, and its token is nowhere in the list.
  const invites = annPage.getByRole("list", { name: "Invites" });
  await invites.locator('li[data-status="pending"]').waitFor({ timeout: H.deadline });
  assert.match(await invites.textContent(), /Anyone with the link/);
  assert.ok(!(await invites.textContent()).includes(made.link.split("/").pop()));
  await pictures(annPage, "team-detail");
});

test("Bob opens the link signed out, sees the invite, signs in from it and accepts", async () => {
  await bobPage.goto(made.link);
  const view = bobPage.locator(".view.invite");
  await view.getByText("Launch Crew").first().waitFor({ timeout: H.deadline });
  const text = await view.textContent();
  assert.match(text, /@launch-crew/);
  assert.match(text, new RegExp(H.owner.name));
  assert.match(text, /Member/);
  assert.match(text, /Come build with us/);
  assert.match(text, /Expires/);
  assert.equal(await view.getByRole("button", { name: "Accept", exact: true }).count(), 0);
  await pictures(bobPage, "team-invite-signed-out");
  await view.getByRole("button", { name: "Sign in to accept" }).click();
  await bobPage.getByLabel("Username or email").fill(bob.username);
  await bobPage.getByLabel("Password", { exact: true }).fill(bob.password);
  await bobPage.getByRole("button", { name: "Log in" }).click();
  // Back on the invite, signed in: now it can be answered.
  const accept = bobPage.locator(".view.invite").getByRole("button", { name: "Accept", exact: true });
  await accept.waitFor({ timeout: H.deadline });
  await accept.click();
  await bobPage.getByText("You joined Launch Crew").first().waitFor({ timeout: H.deadline });
  const team = await as(ann.cookie)("GET", `/api/teams/${made.teamId}`);
  assert.equal(team.status, 200, team.text);
  const joined = team.json.members.find((m) => m.username === bob.username);
  assert.ok(joined, team.text);
  assert.equal(joined.role, "member");
  // The link, used, says so plainly.
  await bobPage.reload();
  await bobPage.getByText("This invite was already used.").waitFor({ timeout: H.deadline });
  // Bob's Teams view lists the team.
  await bobPage.getByRole("link", { name: "Teams", exact: true }).click();
  await bobPage.getByRole("list", { name: "Your teams" }).getByRole("link", { name: "Launch Crew" }).waitFor({ timeout: H.deadline });
});

// A real invite cannot be made to expire here (the server's clock is the
// wall clock), so the server's 410 is answered for it as the server words it
// over Connect: failed_precondition, the message led by INVITE_EXPIRED and
// the ErrorInfo detail with that code.
test("an expired invite says so plainly", async () => {
  const info = Buffer.concat([Buffer.from([0x0a, "INVITE_EXPIRED".length]), Buffer.from("INVITE_EXPIRED")]).toString("base64").replace(/=+$/, "");
  const preview = "**/switchboard.v1.TeamService/PreviewTeamInvite";
  await bobPage.route(preview, (route) =>
    route.fulfill({
      status: 400,
      contentType: "application/json",
      body: JSON.stringify({
        code: "failed_precondition",
        message: "INVITE_EXPIRED: this invite expired; ask for a new one",
        details: [{ type: "switchboard.v1.ErrorInfo", value: info }],
      }),
    }),
  );
  try {
    await bobPage.goto(made.link.replace(/[A-Za-z0-9_-]{43}$/, "x".repeat(43)));
    await bobPage.reload();
    await bobPage.getByText("This invite has expired.").waitFor({ timeout: H.deadline });
    assert.equal(await bobPage.locator(".view.invite").getByRole("button", { name: "Accept", exact: true }).count(), 0);
  } finally {
    await bobPage.unroute(preview);
  }
});

test("Ann creates a project, assigns it to the team, and Bob is listed as a contributor", async () => {
  await annPage.getByRole("link", { name: "Projects", exact: true }).click();
  await annPage.getByRole("heading", { name: "Projects", level: 1 }).waitFor({ timeout: H.deadline });
  await annPage.getByRole("button", { name: "New project" }).click();
  const form = annPage.getByRole("form", { name: "New project" });
  await form.getByLabel("Name", { exact: true }).fill("Apollo");
  await form.getByLabel("Description (optional)").fill("The moon shot");
  await form.getByRole("button", { name: "Create project" }).click();
  await annPage.getByRole("heading", { name: "Apollo", level: 2 }).waitFor({ timeout: H.deadline });
  made.projectId = decodeURIComponent(new URL(annPage.url()).hash.replace("#/projects/", ""));
  assert.equal(await annPage.getByRole("list", { name: "Lead" }).locator("li.member-row").count(), 1);

  // From the team's detail: assign the project.
  await annPage.goto(`/#/teams/${encodeURIComponent(made.teamId)}`);
  const assign = annPage.getByRole("form", { name: "Assign a project" });
  await assign.getByLabel("Project you lead").selectOption({ label: "Apollo" });
  await assign.getByRole("button", { name: "Assign project" }).click();
  const assigned = annPage.getByRole("list", { name: "Assigned projects" });
  await assigned.getByRole("link", { name: "Apollo" }).waitFor({ timeout: H.deadline });
  // Cards filed under the project, by Ann's agent and by Bob (a contributor
  // now): the project shows both, whoever owns them, by card status.
  for (const [who, card] of [
    [{ key: ann.key }, { title: "Pick the crew", status: "planning" }],
    [{ cookie: bobCookie }, { title: "Build the lander", status: "development" }],
  ]) {
    const res = await H.rest(server.base, "POST", "/api/v2/kanban", { ...who, body: { ...card, projectId: made.projectId } });
    assert.equal(res.status, 201, res.text);
  }
  await assigned.getByRole("link", { name: "Apollo" }).click();

  const contributors = annPage.getByRole("list", { name: "Contributor" });
  await contributors.getByText(bob.name).waitFor({ timeout: H.deadline });
  const row = contributors.locator("li.member-row", { hasText: bob.name });
  assert.match(await row.locator(".chip").textContent(), /^Team$/);
  for (const [status, title] of [["planning", "Pick the crew"], ["development", "Build the lander"]]) {
    const column = annPage.locator(`.project-board section.column[data-status="${status}"]`);
    await column.getByRole("link", { name: title }).waitFor({ timeout: H.deadline });
  }
  const project = await as(ann.cookie)("GET", `/api/projects/${made.projectId}`);
  assert.equal(project.status, 200, project.text);
  assert.equal(project.json.project.teamId, made.teamId);
  const member = project.json.members.find((m) => m.username === bob.username);
  assert.equal(member?.role, "contributor", project.text);
  assert.equal(member?.via, "team", project.text);
  await pictures(annPage, "project-detail");
});

test("Ann invites Bob to a second project; Bob accepts it from Now", async () => {
  const created = await as(ann.cookie)("POST", "/api/projects", { name: "Gemini" });
  assert.equal(created.status, 201, created.text);
  const id = created.json.project.id;
  await annPage.goto(`/#/projects/${encodeURIComponent(id)}`);
  const form = annPage.getByRole("form", { name: "Invite to the project" });
  await form.getByLabel("Their email").fill(bob.email);
  await form.getByRole("button", { name: "Send invite" }).click();
  // Bob's email is his account's: the invite names him as a user here.
  await annPage.getByRole("list", { name: "Pending invites" }).locator('li[data-status="pending"]').waitFor({ timeout: H.deadline });

  await bobPage.goto("/#/now");
  const item = bobPage.locator('section[aria-labelledby="now-pending"] article.item', { hasText: "Join project Gemini" });
  await item.waitFor({ timeout: H.deadline });
  assert.equal(await item.getByRole("button", { name: /^Approve/ }).count(), 0);
  await item.getByRole("button", { name: /^Accept/ }).click();
  await H.until(async () => (await item.count()) === 0, "the invite's item leaves Now");
  const project = await as(bobCookie)("GET", `/api/projects/${id}`);
  assert.equal(project.status, 200, project.text);
  assert.equal(project.json.project.role, "contributor", project.text);
});

test("Bob sets a bio in Settings; Ann opens his profile from the team's members and reads it", async () => {
  await bobPage.goto("/#/settings");
  const form = bobPage.getByRole("form", { name: "Profile" });
  await form.getByLabel("Bio").fill("Builds landers, mostly on time.");
  await form.getByRole("button", { name: "Save profile" }).click();
  await bobPage.getByText("Saved your profile").waitFor({ timeout: H.deadline });
  const settings = await as(bobCookie)("GET", "/api/v2/settings");
  assert.equal(settings.status, 200, settings.text);
  assert.equal(settings.json.bio, "Builds landers, mostly on time.");
  // Bob's own link to his profile.
  await bobPage.getByRole("link", { name: "View my profile" }).click();
  await bobPage.getByRole("heading", { name: bob.name, level: 1 }).waitFor({ timeout: H.deadline });
  made.bobId = decodeURIComponent(new URL(bobPage.url()).hash.replace("#/profile/", ""));

  await annPage.goto(`/#/teams/${encodeURIComponent(made.teamId)}`);
  await annPage.getByRole("list", { name: "Members" }).getByRole("link", { name: bob.name }).click();
  const view = annPage.locator(".view.profile");
  await view.getByRole("heading", { name: bob.name, level: 1 }).waitFor({ timeout: H.deadline });
  assert.equal(decodeURIComponent(new URL(annPage.url()).hash), `#/profile/${made.bobId}`);
  const text = await view.textContent();
  assert.match(text, /@bob/);
  assert.match(text, /Builds landers, mostly on time\./);
  assert.match(text, /No reviews yet/);
  await view.getByRole("list", { name: "Teams" }).getByText("Launch Crew").waitFor({ timeout: H.deadline });
  // The profile never shows an email.
  assert.ok(!text.includes(bob.email));
  await pictures(annPage, "profile");

  // A contributor's name in the project links to the profile too.
  await annPage.goto(`/#/projects/${encodeURIComponent(made.projectId)}`);
  await annPage.getByRole("list", { name: "Contributor" }).getByRole("link", { name: bob.name }).click();
  await annPage.locator(".view.profile").getByRole("heading", { name: bob.name, level: 1 }).waitFor({ timeout: H.deadline });
});

test("a private profile reads as private to another user and signed out; a public one opens signed out", async () => {
  await bobPage.goto("/#/settings");
  const form = bobPage.getByRole("form", { name: "Profile" });
  await form.getByLabel("Who may see your profile").selectOption("private");
  await form.getByRole("button", { name: "Save profile" }).click();
  await bobPage.getByText("Saved your profile").waitFor({ timeout: H.deadline });
  const settings = await as(bobCookie)("GET", "/api/v2/settings");
  assert.equal(settings.json.profileVisibility, "private", settings.text);

  await annPage.goto(`/#/profile/${encodeURIComponent(made.bobId)}`);
  await annPage.reload();
  await annPage.getByText("This profile is private").waitFor({ timeout: H.deadline });
  assert.equal(await annPage.getByText("Builds landers").count(), 0);

  // Bob still sees his own.
  await bobPage.goto(`/#/profile/${encodeURIComponent(made.bobId)}`);
  await bobPage.locator(".view.profile").getByText("Builds landers, mostly on time.").waitFor({ timeout: H.deadline });

  const stranger = await H.newPage(browser, server.base, wide);
  try {
    await stranger.goto(`/#/profile/${encodeURIComponent(made.bobId)}`);
    await stranger.getByText("This profile is private").waitFor({ timeout: H.deadline });
    // Ann's profile is public: it opens signed out, with her team.
    const annId = (await as(ann.cookie)("GET", `/api/teams/${made.teamId}`)).json.members.find((m) => m.username === H.owner.username).userId;
    await stranger.goto(`/#/profile/${encodeURIComponent(annId)}`);
    const view = stranger.locator(".view.profile");
    await view.getByRole("heading", { name: H.owner.name, level: 1 }).waitFor({ timeout: H.deadline });
    await view.getByRole("list", { name: "Teams" }).getByText("Launch Crew").waitFor({ timeout: H.deadline });
    await stranger.getByRole("link", { name: "Log in to Switchboard" }).waitFor({ timeout: H.deadline });
    await pictures(stranger, "profile-signed-out");
    assert.deepEqual(await stranger.problems(), []);
  } finally {
    await stranger.context().close();
  }
});
