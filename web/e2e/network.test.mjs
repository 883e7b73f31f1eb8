// Issue 15, item 9 (connections and preferences), end to end: two real
// binaries on loopback with the operator network on (--federation, and
// --federation-allow-private for http:// loopback peers), each on its own
// SQLite file and knowing its own address (--public-url, which the peer
// verifies), their dashboards' Network views driven by Chromium. The tests
// run in order: A asks, B accepts, B sets the trust level and its relay
// preferences; A sends B a relay from its form and its thread follows B's
// queue (accepted, blocked with the reason, completed with the result) and
// holds B's reply; B quarantines A (untrusted), then releases one held relay
// and discards another; a notification from A shows on B's Now and is marked
// read; a job A posts reaches B and matches B's declared capability; A
// removes the connection and B hears of it; A asks again, B declines from
// its Requests, and A hears it declined when it asks once more.
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

async function relaysOf(srv, who) {
  const res = await on(srv, who)("GET", "/api/federation/relays");
  assert.equal(res.status, 200, res.text);
  return res.json.relays ?? [];
}

const relayRow = (page, id) => page.locator(`li.relay[data-relay-id="${id}"]`);

test("A sends B a relay from its Network view, and B's view shows it inbound", async () => {
  await aPage.reload();
  const form = aPage.getByRole("form", { name: "Send a relay" });
  const to = form.getByLabel("To", { exact: true });
  await H.until(async () => (await to.inputValue()) !== "", "A's form offers the active connection");
  assert.equal(await to.locator("option:checked").textContent(), `${H.owner.name} (${H.owner.username}@${new URL(b.base).host})`);
  await form.getByLabel("Type", { exact: true }).selectOption("request");
  await form.getByLabel("Intent", { exact: true }).selectOption("assign_task");
  await form.getByLabel("Priority", { exact: true }).selectOption("high");
  await form.getByLabel("Subject", { exact: true }).fill("Review the Q3 plan");
  await form.getByLabel("Message to them (optional)").fill("Two pages, by Friday.");
  await form.getByRole("button", { name: "Send relay" }).click();
  await H.until(async () => /waits in their queue/.test(await form.getByRole("status").textContent()), "A reads B's answer in words");

  const [sent] = await relaysOf(a, aOwner);
  assert.equal(sent.subject, "Review the Q3 plan");
  assert.equal(sent.priority, "high");
  assert.equal(sent.state, "delivered");
  const threads = aPage.getByRole("list", { name: "Relay threads" });
  await relayRow(threads, sent.id).waitFor({ timeout: H.deadline });
  assert.equal(await relayRow(threads, sent.id).getAttribute("data-direction"), "outbound");
  assert.match(await relayRow(threads, sent.id).textContent(), /Assign a task: Review the Q3 plan.*Delivered/);

  await bPage.reload();
  const inbound = bPage.locator('li.relay[data-direction="inbound"]');
  await inbound.first().waitFor({ timeout: H.deadline });
  assert.equal(await inbound.count(), 1);
  assert.match(await inbound.textContent(), /Review the Q3 plan/);
  assert.match(await inbound.textContent(), /Two pages, by Friday\./);
  assert.equal(await bPage.getByRole("list", { name: "Held for your review" }).count(), 0);
});

test("B approves, blocks and completes the relay in its queue, and replies; A's thread follows", async () => {
  const [sent] = await relaysOf(a, aOwner);
  const pending = await H.rest(b.base, "GET", "/api/v2/queue?status=pending_confirmation", { key: bOwner.key });
  assert.equal(pending.status, 200, pending.text);
  const item = pending.json.data.items.find((it) => it.title === "Review the Q3 plan");
  assert.ok(item, pending.text);
  const ok = await H.rest(b.base, "POST", `/api/v2/queue/${item.id}/confirm`, { key: bOwner.key, body: { action: "approve" } });
  assert.equal(ok.status, 200, ok.text);
  // The news travels through B's outbox; then A's page, loaded again, says so.
  await H.until(async () => (await relaysOf(a, aOwner))[0].state === "accepted", "A's relay is accepted");
  await aPage.reload();
  const rowOnA = relayRow(aPage, sent.id);
  await rowOnA.waitFor({ timeout: H.deadline });
  assert.equal(await rowOnA.getAttribute("data-state"), "accepted");
  assert.equal(await rowOnA.locator(".chip.relay-accepted").textContent(), "Accepted");

  // B's work is blocked, then done: A's thread shows the reason, then the result.
  const report = (body) => H.rest(b.base, "POST", `/api/v2/queue/${item.id}/result`, { key: bOwner.key, body });
  const blocked = await report({ result: "Waiting on finance", status: "blocked" });
  assert.equal(blocked.status, 200, blocked.text);
  await H.until(async () => (await relaysOf(a, aOwner))[0].state === "blocked", "A's relay is blocked");
  await aPage.reload();
  await relayRow(aPage, sent.id).locator(".relay-reason").waitFor({ timeout: H.deadline });
  assert.equal(await relayRow(aPage, sent.id).locator(".relay-reason").textContent(), "Blocked: Waiting on finance");
  assert.equal(await relayRow(aPage, sent.id).locator(".chip.relay-blocked").textContent(), "Blocked");
  const ready = await H.rest(b.base, "POST", `/api/v2/queue/${item.id}/status`, { key: bOwner.key, body: { status: "ready" } });
  assert.equal(ready.status, 200, ready.text);
  const done = await report({ result: "Approved with two comments." });
  assert.equal(done.status, 200, done.text);
  await H.until(async () => (await relaysOf(a, aOwner))[0].state === "completed", "A's relay is completed");
  await aPage.reload();
  await relayRow(aPage, sent.id).locator(".relay-result").waitFor({ timeout: H.deadline });
  assert.equal(await relayRow(aPage, sent.id).getAttribute("data-state"), "completed");
  assert.equal(await relayRow(aPage, sent.id).locator(".relay-result").textContent(), "Result: Approved with two comments.");

  // B answers in the thread from its view: A's thread holds the response.
  await bPage.reload();
  await bPage.getByRole("button", { name: "Reply: Review the Q3 plan" }).click();
  const form = bPage.getByRole("form", { name: "Send a relay" });
  assert.equal(await form.getByLabel("Type", { exact: true }).inputValue(), "response");
  assert.equal(await form.getByLabel("Subject", { exact: true }).inputValue(), "Re: Review the Q3 plan");
  await form.getByLabel("Message to them (optional)").fill("Done: see my two comments.");
  await form.getByRole("button", { name: "Send relay" }).click();
  await H.until(async () => /added to the thread/.test(await form.getByRole("status").textContent()), "B reads that the reply joined the thread");
  await aPage.reload();
  const thread = aPage.locator(`li.relay-thread[data-thread-id="${sent.id}"]`);
  await thread.locator('li.relay[data-direction="inbound"]').waitFor({ timeout: H.deadline });
  assert.deepEqual(await thread.locator("li.relay").evaluateAll((rows) => rows.map((r) => r.dataset.direction)), ["outbound", "inbound"]);
  // The thread reads as its request's state, not the reply's.
  assert.equal(await thread.locator("h4 .chip").textContent(), "Completed");
  assert.match(await thread.locator('li.relay[data-direction="inbound"]').textContent(), /Re: Review the Q3 plan.*Response.*Done: see my two comments\./s);
  await pictures(aPage, "network-relays", aPage.getByRole("list", { name: "Relay threads" }));
});

test("B distrusts A: A's relays wait in B's review, one released, one discarded", async () => {
  const connection = bPage.locator('li.network-connection[data-status="active"]');
  await connection.getByLabel("Trust").selectOption("untrusted");
  await H.until(async () => (await connectionsOf(b, bOwner))[0].trustLevel === "untrusted", "B's trust level is saved");

  // From A's form: the answer says the relay is held.
  const form = aPage.getByRole("form", { name: "Send a relay" });
  await form.getByLabel("Intent", { exact: true }).selectOption("get_info");
  await form.getByLabel("Subject", { exact: true }).fill("Who owns the budget?");
  await form.getByRole("button", { name: "Send relay" }).click();
  await H.until(async () => /Held for their review/.test(await form.getByRole("status").textContent()), "A reads that B holds the relay");
  // And one more through the API, to be discarded.
  const [conn] = await connectionsOf(a, aOwner);
  const spam = await on(a, aOwner)("POST", "/api/federation/relays", { connectionId: conn.id, type: "request", intent: "custom", subject: "A limited offer" });
  assert.equal(spam.status, 200, spam.text);
  assert.equal(spam.json.answer.quarantined, true, spam.text);

  await bPage.reload();
  const held = bPage.getByRole("list", { name: "Held for your review" });
  await held.getByText("Get information: Who owns the budget?").waitFor({ timeout: H.deadline });
  assert.equal(await held.locator("li").count(), 2);
  await pictures(bPage, "network-held", held);
  // Nothing is in B's queue for them until B releases one.
  const before = await H.rest(b.base, "GET", "/api/v2/queue?status=pending_confirmation", { key: bOwner.key });
  assert.equal(before.json.data.items.filter((it) => it.title === "Who owns the budget?").length, 0);

  await held.getByRole("button", { name: "Release: Who owns the budget?" }).click();
  await H.until(async () => (await held.locator("li").count()) === 1, "the released relay leaves the held list");
  const after = await H.rest(b.base, "GET", "/api/v2/queue?status=pending_confirmation", { key: bOwner.key });
  assert.equal(after.json.data.items.filter((it) => it.title === "Who owns the budget?").length, 1, after.text);
  const released = (await relaysOf(b, bOwner)).find((r) => r.subject === "Who owns the budget?");
  assert.equal(released.quarantined, false);

  await held.getByRole("button", { name: "Discard: A limited offer" }).click();
  await bPage.getByText("Nothing is held for your review.").waitFor({ timeout: H.deadline });
  // A hears the discarded relay was declined (through B's outbox).
  await H.until(async () => (await relaysOf(a, aOwner)).find((r) => r.subject === "A limited offer")?.state === "declined", "A's relay is declined");
  await aPage.reload();
  const declined = (await relaysOf(a, aOwner)).find((r) => r.subject === "A limited offer");
  await relayRow(aPage, declined.id).waitFor({ timeout: H.deadline });
  assert.equal(await relayRow(aPage, declined.id).getAttribute("data-state"), "declined");
  assert.match(await relayRow(aPage, declined.id).textContent(), /discarded from quarantine/);
});

test("a notification A sends shows on B's Now view, and B marks it read", async () => {
  const [conn] = await connectionsOf(a, aOwner);
  const sent = await on(a, aOwner)("POST", "/api/federation/notify", {
    connectionId: conn.id,
    type: "task_assigned",
    title: "Please review the deck",
    body: "Slides 4 to 9.",
  });
  assert.equal(sent.status, 200, sent.text);

  await bPage.goto("/#/now");
  const list = bPage.getByRole("list", { name: "Notifications" });
  await list.getByText("Please review the deck").waitFor({ timeout: H.deadline });
  assert.match(await list.locator("li.unread").textContent(), /Task assigned.*Unread.*Slides 4 to 9\./s);
  assert.equal(await bPage.getByRole("heading", { name: /^From your network/ }).isVisible(), true);
  await pictures(bPage, "now-notifications", list);
  await list.getByRole("button", { name: "Mark read: Please review the deck" }).click();
  await H.until(async () => (await list.locator("li.read").count()) === 1, "B's notification shows read");
  assert.equal(await list.getByRole("button", { name: /^Mark read/ }).count(), 0);
  const res = await on(b, bOwner)("GET", "/api/notifications");
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.unreadCount ?? 0, 0, res.text);
  assert.ok(res.json.notifications[0].readAt, res.text);

  // A received none: its Now view has no network panel at all.
  await aPage.goto("/#/now");
  await aPage.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
  await H.until(async () => (await aPage.locator('[aria-busy="true"], .loading').count()) === 0, "A's Now loaded");
  assert.equal(await aPage.getByRole("heading", { name: /^From your network/ }).count(), 0);
});

test("a job A posts from its view reaches B, and B's declared capability matches it", async () => {
  await aPage.goto("/#/network");
  const post = aPage.getByRole("form", { name: "Post a job" });
  await post.getByLabel("Job title").fill("Size the EU market");
  await post.getByLabel("What is to be done").fill("A one-page estimate for SaaS scheduling tools.");
  await post.getByLabel("Kind of work").selectOption("research");
  await post.getByLabel("Urgency").selectOption("high");
  await post.getByLabel("Skills needed (comma-separated)").fill("market sizing, saas");
  await post.getByRole("button", { name: "Post the job" }).click();
  await H.until(async () => /shared with 1 of 1 connection/.test(await post.getByRole("status").textContent()), "A's job reached B");
  const mine = aPage.getByRole("list", { name: "Jobs you posted" });
  await mine.getByText("Size the EU market").waitFor({ timeout: H.deadline });

  await bPage.goto("/#/network");
  const received = bPage.getByRole("list", { name: "Jobs from your connections" });
  await received.getByText("Size the EU market").waitFor({ timeout: H.deadline });
  assert.equal(await received.locator("li.job").getAttribute("data-status"), "open");
  await bPage.getByText("No open job from your connections fits your capabilities.").waitFor({ timeout: H.deadline });

  const declare = bPage.getByRole("form", { name: "Declare a capability" });
  await declare.getByLabel("Kind of work you offer").selectOption("research");
  await declare.getByLabel("Your skills (comma-separated)").fill("market sizing");
  await declare.getByLabel("Description (optional)").fill("Quick market estimates");
  await declare.getByRole("button", { name: "Declare the capability" }).click();
  const caps = bPage.getByRole("list", { name: "Your capabilities" });
  await caps.getByText("Research: market sizing").waitFor({ timeout: H.deadline });
  const matches = bPage.getByRole("list", { name: "Matching jobs" });
  await matches.getByText("Size the EU market").waitFor({ timeout: H.deadline });
  // 0.7 × one of two skills + 0.3 for the task type (network_exchange.proto, JobMatch).
  assert.match(await matches.locator("li").first().textContent(), /65% fit.*Your kind of work · your skills: market sizing/s);
  await pictures(bPage, "network-jobs", matches);

  // A closes its job; B's copy closes too, and it no longer matches.
  await mine.getByRole("button", { name: "Close: Size the EU market" }).click();
  await mine.getByRole("button", { name: "Close the job" }).click();
  await H.until(async () => (await mine.locator('li.job[data-status="closed"]').count()) === 1, "A's job shows closed");
  await H.until(async () => {
    const res = await on(b, bOwner)("GET", "/api/federation/jobs-board?origin=received");
    return res.json?.jobs?.[0]?.status === "closed";
  }, "B's copy of the job is closed");
  await bPage.getByRole("button", { name: "Match again" }).click();
  await bPage.getByText("No open job from your connections fits your capabilities.").waitFor({ timeout: H.deadline });
  assert.equal(await bPage.locator('li.job[data-origin="received"][data-status="closed"]').count(), 1);

  // B removes its capability.
  await caps.getByRole("button", { name: "Remove capability: Research: market sizing" }).click();
  await caps.getByRole("button", { name: "Remove", exact: true }).click();
  await bPage.getByText("You have declared no capabilities.").waitFor({ timeout: H.deadline });
  const left = await on(b, bOwner)("GET", "/api/economy/capabilities");
  assert.deepEqual(left.json.capabilities ?? [], [], left.text);
});

// Issue 29 point 5 in the dashboard: B applies to A's job from its Network
// view; A sees the application on its posted job and awards it, which offers
// B a contract at the application's price.
test("B applies to a job A posted, and A awards it from its view", async () => {
  await aPage.goto("/#/network");
  const post = aPage.getByRole("form", { name: "Post a job" });
  await post.getByLabel("Job title").fill("Draft the launch slides");
  await post.getByLabel("What is to be done").fill("Ten slides for the launch.");
  await post.getByLabel("Kind of work").selectOption("creative");
  await post.getByRole("button", { name: "Post the job" }).click();
  await H.until(async () => /shared with 1 of 1 connection/.test(await post.getByRole("status").textContent()), "A's second job reached B");

  // B's page has shown the Network view since the last test: load it again.
  await bPage.goto("/#/network");
  await bPage.reload();
  const apply = bPage.getByRole("form", { name: "Apply: Draft the launch slides" });
  await apply.getByLabel("Your price").fill("250");
  await apply.getByLabel("Days to deliver").fill("3");
  await apply.getByLabel("Message").fill("I design decks weekly.");
  await apply.getByRole("button", { name: "Apply" }).click();
  await H.until(async () => {
    const res = await on(a, aOwner)("GET", "/api/federation/jobs-board?origin=posted&status=open");
    const job = (res.json?.jobs ?? []).find((j) => j.title === "Draft the launch slides");
    if (!job) return false;
    const apps = await on(a, aOwner)("GET", `/api/federation/jobs/${job.id}/applications`);
    return (apps.json?.applications ?? []).length === 1;
  }, "B's application reached A");

  await aPage.reload();
  const applications = aPage.getByRole("list", { name: "Applications: Draft the launch slides" });
  await applications.getByText("I design decks weekly.").waitFor({ timeout: H.deadline });
  assert.match(await applications.locator("li").first().textContent(), /\$250\.00 · 3 days/);
  await applications.getByRole("button", { name: /^Award: / }).click();
  await aPage.waitForURL(/#\/engagements\//, { timeout: H.deadline });
  const contracts = await on(a, aOwner)("GET", "/api/economy/contracts?role=client");
  const hired = (contracts.json?.contracts ?? []).find((c) => c.title === "Draft the launch slides");
  assert.ok(hired, contracts.text);
  assert.equal(hired.priceCents, 25000);
  assert.equal(hired.status, "offered");
  await aPage.goto("/#/network");
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

// docs/decisions.md (a decline is not told to the requester): B declines a
// new request from its Requests; B keeps it as declined and asks nothing
// more; A's request stays pending until A asks again, when B's answer says
// declined and A's view and list record it.
test("A asks again, B declines from its view, and A hears it when it asks once more", async () => {
  const ask = async () => {
    const form = aPage.getByRole("form", { name: "Connect with someone" });
    await form.getByLabel("Their instance's address").fill(b.base);
    await form.getByLabel("Their email there").fill(H.owner.email);
    await form.getByLabel("Message (optional)").fill("Second thoughts?");
    await form.getByRole("button", { name: "Send request" }).click();
  };
  await aPage.goto("/#/network");
  await ask();
  await H.until(async () => (await row(aPage).count()) === 1, "A lists its new request");
  assert.equal(await row(aPage).getAttribute("data-status"), "pending");

  await bPage.goto("/#/network");
  await bPage.reload();
  const requests = bPage.getByRole("list", { name: "Requests to you" });
  await requests.getByText("Second thoughts?").waitFor({ timeout: H.deadline });
  await requests.getByRole("button", { name: /^Decline: / }).click();
  await bPage.locator("#toast", { hasText: /^Declined / }).waitFor({ timeout: H.deadline });
  await bPage.getByText("No one is waiting for your answer.").waitFor({ timeout: H.deadline });
  const declinedOnB = bPage.locator('li.network-connection[data-status="declined"]');
  await declinedOnB.waitFor({ timeout: H.deadline });
  assert.equal(await declinedOnB.locator(".chip").textContent(), "Declined");
  assert.equal(await declinedOnB.getByRole("button", { name: /^Accept: / }).count(), 0);
  const onB = await connectionsOf(b, bOwner);
  assert.equal(onB.length, 1);
  assert.equal(onB[0].status, "declined");
  assert.equal(onB[0].direction, "inbound");
  const pendingOnB = await on(b, bOwner)("GET", "/api/federation/connections?status=pending");
  assert.deepEqual(pendingOnB.json.connections ?? [], [], pendingOnB.text);

  // B does not tell A: A's request is still pending there.
  let onA = await connectionsOf(a, aOwner);
  assert.equal(onA.length, 1);
  assert.equal(onA[0].status, "pending");

  // A asks once more: B answers declined, and A's view says so.
  await ask();
  await aPage.locator("#toast", { hasText: "declined your request" }).waitFor({ timeout: H.deadline });
  await H.until(async () => (await row(aPage).getAttribute("data-status")) === "declined", "A's view shows the request declined");
  assert.equal(await row(aPage).count(), 1);
  onA = await connectionsOf(a, aOwner);
  assert.equal(onA.length, 1);
  assert.equal(onA[0].status, "declined");
  // B still holds one declined connection and no request.
  const again = await connectionsOf(b, bOwner);
  assert.equal(again.length, 1);
  assert.equal(again[0].status, "declined");
});
