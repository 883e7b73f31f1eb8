// Issue 28's billing, end to end: the real binary as the managed platform
// (--role hub), where a team made here is a platform team whose seats are
// paid for. Ann's new team shows the Subscription panel with its one seat
// (hers); adding Bob answers 402 PAYMENT_REQUIRED, which the Teams view
// words as the team being out of seats with the plan that covers them and,
// for Ann the owner, a button to the panel; Ann subscribes to Starter there
// and the add goes through.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

const wide = { width: 1280, height: 800 };
const bob = { username: "bob", email: "bob@example.com", password: "another horse battery", name: "Bob Builder" };

let server;
let ann;
let browser;
let page;
const made = {};

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  server = await H.startServer({ args: ["--role", "hub"] });
  ann = await H.setupOwner(server.base);
  const signup = await H.rest(server.base, "POST", "/api/signup", { body: bob });
  assert.equal(signup.status, 201, signup.text);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, wide);
  await H.login(page);
});

after(async () => {
  if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
});

test("a new platform team shows the Subscription panel with one seat", async () => {
  await page.getByRole("link", { name: "Teams", exact: true }).click();
  await page.getByRole("button", { name: "New team" }).click();
  const form = page.getByRole("form", { name: "New team" });
  await form.getByLabel("Name", { exact: true }).fill("Paid Crew");
  await form.getByRole("button", { name: "Create team" }).click();
  await page.getByRole("heading", { name: "Paid Crew", level: 2 }).waitFor({ timeout: H.deadline });
  made.teamId = decodeURIComponent(new URL(page.url()).hash.replace("#/teams/", ""));
  const team = await H.rest(server.base, "GET", `/api/teams/${made.teamId}`, { cookie: ann.cookie });
  assert.equal(team.status, 200, team.text);
  assert.equal(team.json.team.isSelfHosted, false, team.text);
  const panel = page.locator("section.team-subscription");
  await panel.getByRole("heading", { name: "Subscription" }).waitFor({ timeout: H.deadline });
  assert.match(await panel.textContent(), /1 of 1 used/);
  assert.equal(await panel.getByRole("button", { name: "Subscribe" }).count(), 1);
});

test("adding a second member says the team is out of seats, and Starter lets the add through", async () => {
  const add = page.getByRole("form", { name: "Add a member" });
  await add.getByLabel("Their email here").fill(bob.email);
  await add.getByRole("button", { name: "Add member" }).click();
  const refusal = add.locator(".out-of-seats");
  await refusal.waitFor({ timeout: H.deadline });
  assert.match(await refusal.textContent(), /Your team is out of seats: the Starter plan \(.+ a month\) covers them/);
  await H.shot(page, "team-out-of-seats");
  await refusal.getByRole("button", { name: "Go to the subscription" }).click();
  const subscribe = page.getByRole("form", { name: "Subscribe" });
  assert.equal(await subscribe.getByLabel("Plan", { exact: true }).inputValue(), "starter");
  await subscribe.getByRole("button", { name: "Subscribe" }).click();
  const panel = page.locator("section.team-subscription");
  await panel.getByText("Change plan").first().waitFor({ timeout: H.deadline });
  const sub = (await H.rest(server.base, "GET", `/api/teams/${made.teamId}`, { cookie: ann.cookie })).json.subscription;
  assert.equal(sub?.plan, "starter");
  assert.equal(sub?.status, "active");
  const text = await panel.textContent();
  assert.match(text, /Starter/);
  assert.match(text, new RegExp(`1 of ${sub.seats} used`));
  assert.match(text, /a month/);
  assert.match(text, /Next renewal/);

  const again = page.getByRole("form", { name: "Add a member" });
  await again.getByLabel("Their email here").fill(bob.email);
  await again.getByRole("button", { name: "Add member" }).click();
  await page.getByRole("list", { name: "Members" }).getByRole("link", { name: bob.name }).waitFor({ timeout: H.deadline });
  const team = await H.rest(server.base, "GET", `/api/teams/${made.teamId}`, { cookie: ann.cookie });
  assert.ok(team.json.members.some((m) => m.username === bob.username), team.text);
  await H.shot(page, "team-subscription");
});
