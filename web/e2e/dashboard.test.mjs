// Issue 6 acceptance, end to end: the real binary on SQLite serving the
// embedded dashboard, Debian's Chromium driving it, an "agent" on REST.
// The tests run in order and share one server: each builds on what the
// earlier ones left (the approved item, the comms messages, the contacts).
// Nothing is timed: every wait is for a condition, with a generous deadline.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

let server;
let agent;
let browser;
let page;
const made = {};

const api = (method, path, body, headers) => H.rest(server.base, method, path, { key: agent.key, body, headers });

async function createItem(title, extra = {}) {
  const res = await api("POST", "/api/v2/queue", { title, ...extra });
  assert.equal(res.status, 201, res.text);
  return res.json.item;
}

async function itemStatus(id) {
  const res = await api("GET", `/api/v2/queue/${id}`);
  assert.equal(res.status, 200, res.text);
  return res.json.item.status;
}

const pendingList = () => page.locator('section[aria-labelledby="now-pending"] article.item');
const item = (id) => page.locator(`article.item[data-id="${id}"]`);
const card = (title) => page.locator("article.kcard", { has: page.getByRole("button", { name: title, exact: true }) });
const column = (status) => page.locator(`section.column[data-status="${status}"]`);

async function recordRefreshes() {
  await page.evaluate(() => {
    window.__refreshes = [];
    for (const t of ["now", "board", "queue", "comms", "activity"]) {
      window.addEventListener(`service:${t}-refresh`, () => window.__refreshes.push(t));
    }
  });
}

before(async () => {
  H.prepareResults();
  server = await H.startServer();
  agent = await H.setupOwner(server.base);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, wide);
  // The page's timers run on a clock the test can stop or move, so a test can
  // tell the stream's updates from the Now view's 60-second poll.
  await page.clock.install();
});

after(async () => {
  await browser?.close();
  await server?.stop();
});

// Issue 6, item 3: the binary serves the dashboard at "/" with no Node.js.
test("the binary serves the dashboard at / with security and cache headers, and keeps JSON 404s", async () => {
  const res = await fetch(`${server.base}/`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type"), /^text\/html/);
  assert.match(res.headers.get("content-security-policy"), /frame-ancestors 'none'/);
  assert.match(res.headers.get("content-security-policy"), /script-src 'self'/);
  assert.equal(res.headers.get("x-content-type-options"), "nosniff");
  assert.equal(res.headers.get("cache-control"), "no-cache");
  const html = await res.text();
  const script = html.match(/src="(\/assets\/[^"]+\.js)"/)?.[1];
  assert.ok(script, html);
  const js = await fetch(server.base + script);
  assert.equal(js.status, 200);
  assert.match(js.headers.get("cache-control"), /immutable/);
  for (const path of ["/api/v2/nope", "/nope", "/assets/nope.js"]) {
    const nf = await fetch(server.base + path);
    assert.equal(nf.status, 404, path);
    assert.deepEqual(await nf.json(), { success: false, error: `no endpoint GET ${path}` });
  }
});

// Issue 6: `serve` on a fresh machine serves the dashboard, and the page
// alone takes a new instance to a logged-in operator (no curl).
test("a fresh server: the login page creates the owner account and logs in", async () => {
  const fresh = await H.startServer();
  const p = await H.newPage(browser, fresh.base, wide);
  try {
    await p.goto("/");
    await p.locator("main.login[data-setup='offered']").waitFor({ timeout: H.deadline });
    // It opens on owner creation (issue 31, point 4; first_run.test.mjs).
    await p.getByRole("heading", { name: "Create the owner account", level: 1 }).waitFor({ timeout: H.deadline });
    await p.getByLabel("Username (2–30 of a–z, 0–9, _ . -)").fill("olive");
    await p.getByLabel("Name", { exact: true }).fill("Olive Owner");
    await p.getByLabel("Email", { exact: true }).fill("olive@example.com");
    await p.getByLabel("Password (at least 8 characters)").fill("a long passphrase");
    await p.getByLabel("I accept the terms of use").check();
    await p.getByRole("button", { name: "Create the owner account" }).click();
    await p.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
    assert.equal(await p.locator(".who").textContent(), "Olive Owner");
    // The owner is the instance's admin: the Admin tab shows once the server
    // has said so.
    await p.locator('nav.tabs a[data-tab="admin"]').waitFor({ state: "visible", timeout: H.deadline });
    assert.deepEqual(await p.locator("nav.tabs a").evaluateAll((as) => as.map((a) => a.dataset.tab)), [
      "now", "queue", "board", "projects", "teams", "engagements", "contacts", "assistant", "chat", "store", "network", "developer", "settings", "admin",
    ]);
    // Once the owner exists the login page no longer offers to create one,
    // after a log out or on a fresh load (the server refuses a second setup too).
    await p.getByRole("button", { name: "Log out" }).click();
    await p.locator("main.login[data-setup='done']").waitFor({ timeout: H.deadline });
    assert.equal(await p.getByRole("heading", { name: "Create the owner account" }).count(), 0);
    await p.reload();
    await p.locator("main.login[data-setup='done']").waitFor({ timeout: H.deadline });
    assert.equal(await p.getByRole("heading", { name: "Create the owner account" }).count(), 0);
    const again = await H.rest(fresh.base, "POST", "/api/setup", {
      body: { username: "mallory", email: "mallory@example.com", password: "another passphrase", name: "Mallory", acceptedTerms: true },
    });
    assert.equal(again.status, 409, again.text);
    assert.deepEqual(await p.problems(), []);
  } finally {
    await p.context().close();
    await fresh.stop();
  }
});

test("log in: a wrong password is refused with the server's reason, the right one opens Now", async () => {
  await page.goto("/");
  await page.getByRole("heading", { name: "Log in to Switchboard" }).waitFor({ timeout: H.deadline });
  await page.getByLabel("Username or email").fill(H.owner.username);
  await page.getByLabel("Password", { exact: true }).fill("not the password");
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("alert").filter({ hasText: "invalid credentials" }).waitFor({ timeout: H.deadline });
  await H.login(page);
  // The session is an HttpOnly cookie: the page's script cannot read it.
  assert.equal(await page.evaluate(() => document.cookie), "");
});

test("an item an agent posts over REST appears in Now without a reload, urgent first", async () => {
  await page.goto("/#/now");
  await page.getByText("Nothing waits for your approval.").waitFor({ timeout: H.deadline });
  await page.evaluate(() => (window.__sameDocument = true));
  await H.until(async () => (await page.locator('[aria-busy="true"]').count()) === 0, "Now loaded");
  // The page's clock stands still, so the 60-second poll cannot be what
  // brings the items: the stream's queue_updated events do (issue 12, "Live
  // queue").
  await page.clock.pauseAt(Date.now() + 1000);
  made.high = await createItem("Book the venue", { priority: "high", source: "Calendar sync" });
  made.urgent = await createItem("Renew the TLS certificate", { priority: "urgent", description: "It expires on Friday" });
  assert.equal(made.urgent.status, "pending_confirmation");
  await H.until(async () => (await pendingList().count()) === 2, "both items listed in Now");
  assert.equal(await pendingList().first().getAttribute("data-id"), made.urgent.id, "the urgent item is on top");
  // Who asked: the request's source, else (no X-Agent-Name either) the key's label.
  assert.equal(made.high.source, "Calendar sync");
  assert.equal(made.urgent.source, "e2e agent");
  assert.equal(await item(made.high.id).locator(".item-source").textContent(), "From Calendar sync");
  assert.equal(await item(made.urgent.id).locator(".item-source").textContent(), "From e2e agent");
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the page was not reloaded");
  // The Now tab's badge counts them.
  await H.until(async () => (await page.locator('a[data-tab="now"] .badge').textContent()) === "2", "badge shows 2");
  await page.clock.resume();
});

test("Approve moves the item to ready and dispatches the service refresh events", async () => {
  await recordRefreshes();
  await page.getByRole("button", { name: `Approve ${made.urgent.title}` }).click();
  await item(made.urgent.id).waitFor({ state: "detached", timeout: H.deadline });
  assert.equal(await itemStatus(made.urgent.id), "ready");
  await page.locator("#toast", { hasText: `"${made.urgent.title}" approved and added to queue` }).waitFor({ timeout: H.deadline });
  const seen = await page.evaluate(() => window.__refreshes);
  for (const t of ["now", "queue", "board", "activity"]) assert.ok(seen.includes(t), `service:${t}-refresh in ${seen}`);
});

test("an illegal move shows the server's reason; a legal one moves the item", async () => {
  await page.goto("/#/queue");
  const row = item(made.high.id);
  await row.waitFor({ timeout: H.deadline });
  assert.equal(await row.locator(".item-source").textContent(), "From Calendar sync");
  // pending_confirmation cannot go straight to in_progress (spec, guard 1).
  await row.getByLabel("Move to").selectOption("in_progress");
  await row.getByRole("button", { name: "Move" }).click();
  const alert = row.getByRole("alert");
  await alert.waitFor({ timeout: H.deadline });
  const shown = (await alert.textContent()).trim();
  const refused = await api("POST", `/api/v2/queue/${made.high.id}/status`, { status: "in_progress" });
  assert.equal(refused.status, 400);
  assert.equal(shown, refused.json.error, "the page shows the server's own reason");
  assert.equal(await itemStatus(made.high.id), "pending_confirmation");

  const ready = item(made.urgent.id);
  await ready.getByLabel("Move to").selectOption("in_progress");
  await ready.getByRole("button", { name: "Move" }).click();
  await H.until(async () => (await itemStatus(made.urgent.id)) === "in_progress", "moved to in_progress");
  await item(made.urgent.id).locator(".chip.status-in_progress").waitFor({ timeout: H.deadline });
  // Filters: only in-progress items.
  await page.getByLabel("Status", { exact: true }).selectOption("in_progress");
  await H.until(async () => (await page.locator("article.item").count()) === 1, "one item in progress");
  assert.match(page.url(), /#\/queue\?status=in_progress$/);
});

test("a chat message posted over REST appears live; the agent-activity filter keeps only agent activity", async () => {
  await page.goto("/#/chat");
  await page.locator("main .live-state[data-state='live']").waitFor({ timeout: H.deadline });
  await page.evaluate(() => (window.__sameDocument = true));
  const sent = await api("POST", "/api/v2/shared-chat/send", { content: "The draft is ready for review" }, { "X-Agent-Name": "Scout" });
  assert.equal(sent.status, 201, sent.text);
  const msg = page.locator(`article.msg[data-id="${sent.json.id}"]`);
  await msg.waitFor({ timeout: H.deadline });
  assert.equal(await msg.locator(".msg-author").textContent(), "Scout");
  assert.equal(await msg.locator(".msg-text").textContent(), "The draft is ready for review");
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the page was not reloaded");

  // The operator writes back.
  await page.getByLabel("Message", { exact: true }).fill("Thanks, Scout");
  await page.getByLabel("Message", { exact: true }).press("Enter");
  const mine = page.locator("article.msg", { hasText: "Thanks, Scout" });
  await mine.waitFor({ timeout: H.deadline });
  // The operator's own message is theirs: role user, shown with their name.
  assert.equal(await mine.locator(".msg-author").textContent(), H.owner.name);
  assert.match(await mine.getAttribute("class"), /\brole-user\b/);
  const listed = await api("GET", "/api/v2/shared-chat/messages?limit=100");
  const stored = listed.json.messages.find((m) => m.content === "Thanks, Scout");
  assert.equal(stored.role, "user");
  assert.equal(stored.agentName, H.owner.name);

  await page.getByLabel("Agent activity only").check();
  // The earlier move to in_progress wrote "Started: …" (agent_execution_started).
  await page.locator("article.msg", { hasText: `Started: ${made.urgent.title}` }).waitFor({ timeout: H.deadline });
  await msg.waitFor({ state: "detached", timeout: H.deadline });
  const plain = await api("POST", "/api/v2/shared-chat/send", { content: "Not agent activity" });
  assert.equal(plain.status, 201);
  const done = await api("POST", `/api/v2/queue/${made.urgent.id}/result`, { result: "Renewed until next year" });
  assert.equal(done.status, 200, done.text);
  // The task_completed message arrives live, after the plain one, which the filter left out.
  await page.locator("article.msg", { hasText: `Completed: ${made.urgent.title}` }).waitFor({ timeout: H.deadline });
  assert.equal(await page.locator("article.msg", { hasText: "Not agent activity" }).count(), 0);
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "the page was not reloaded");
});

test("the auto-approve toggle decides the status of the next item created over REST", async () => {
  await page.goto("/#/settings");
  const toggle = page.getByRole("switch", { name: "Auto-approve new queue items" });
  await toggle.waitFor({ timeout: H.deadline });
  assert.equal(await toggle.isChecked(), false);
  await toggle.click();
  await H.until(async () => (await api("GET", "/api/v2/settings")).json.queueAutoApprove === true, "auto-approve saved");
  assert.equal((await createItem("Starts ready")).status, "ready");
  await H.until(() => toggle.isEnabled(), "toggle usable again");
  await toggle.click();
  await H.until(async () => (await api("GET", "/api/v2/settings")).json.queueAutoApprove === false, "auto-approve off");
  assert.equal((await createItem("Waits for approval")).status, "pending_confirmation");
  // What the page shows survives a reload.
  await page.reload();
  await toggle.waitFor({ timeout: H.deadline });
  assert.equal(await toggle.isChecked(), false);
});

test("create an API key: its value is shown once, works, and is never shown again", async () => {
  await page.goto("/#/settings");
  await page.getByLabel("Label", { exact: true }).fill("Reporting agent");
  // The scope boxes carry the contract's labels (vocabulary.proto, key_scope).
  await page.getByRole("checkbox", { name: "Queue", exact: true }).check();
  await page.getByRole("button", { name: "Create key" }).click();
  const secret = page.locator("output.secret");
  await secret.waitFor({ timeout: H.deadline });
  const value = (await secret.textContent()).trim();
  assert.match(value, /^sbk_/);
  // The key works for its scope only.
  assert.equal((await H.rest(server.base, "GET", "/api/v2/queue", { key: value })).status, 200);
  assert.equal((await H.rest(server.base, "GET", "/api/v2/settings", { key: value })).status, 403);
  const row = page.locator(".key-row", { hasText: "Reporting agent" });
  await row.waitFor({ timeout: H.deadline });
  const prefix = (await row.locator(".key-prefix").textContent()).replace("…", "");
  assert.ok(value.startsWith(prefix) && prefix.length < value.length, `${prefix} is a prefix of the key`);
  await page.getByRole("button", { name: "Done, I have saved it" }).click();
  await secret.waitFor({ state: "detached", timeout: H.deadline });
  assert.ok(!(await page.content()).includes(value), "the key left the page");
  await page.reload();
  await page.locator(".key-row", { hasText: "Reporting agent" }).waitFor({ timeout: H.deadline });
  assert.ok(!(await page.content()).includes(value), "the key is not shown after a reload");
  const listed = await H.rest(server.base, "GET", "/api/v2/keys", { cookie: agent.cookie });
  assert.ok(!listed.text.includes(value), "the list never carries the key");
});

// Issue 13, item 9: Settings shows how an MCP and an A2A client connect; the
// MCP config it shows works as written once the key is put in.
test("Settings: connect an agent shows the MCP and A2A endpoints and a client config that works", async () => {
  await page.goto("/#/settings");
  const panel = page.getByRole("region", { name: "Connect an agent" });
  await panel.waitFor({ timeout: H.deadline });
  assert.match(await panel.textContent(), new RegExp(`${server.base}/api/a2a`));
  const config = JSON.parse(await panel.getByLabel("MCP client config").textContent());
  const endpoint = config.mcpServers.switchboard.url;
  assert.equal(endpoint, `${server.base}/api/mcp`);
  const key = await H.rest(server.base, "POST", "/api/v2/keys", { cookie: agent.cookie, body: { label: "mcp client", scopes: ["mcp", "queue"] } });
  assert.equal(key.status, 201, key.text);
  const res = await fetch(endpoint, {
    method: "POST",
    headers: { ...config.mcpServers.switchboard.headers, Authorization: `Bearer ${key.json.apiKey}`, "Content-Type": "application/json" },
    body: JSON.stringify({ method: "tools/list" }),
  });
  assert.equal(res.status, 200);
  assert.ok((await res.json()).tools.some((t) => t.name === "queue_add"));
  const card = await fetch(JSON.parse(await panel.getByLabel("A2A client config").textContent()).agentCard);
  assert.equal(card.status, 200, "the agent card the config names is served");
});

test("Board: create a card with labels, due date, checklist and a contact; edit it; move it by control and by drag", async () => {
  for (const c of [
    { name: "Dana Reyes", company: "Acme", email: "dana@acme.example", tags: ["vip", "lead"] },
    { name: "Eli Park", company: "Globex", tags: ["partner"] },
    { name: "Farah Quinn", tags: [] },
  ]) {
    const res = await api("POST", "/api/v2/contacts", c);
    assert.equal(res.status, 201, res.text);
    made[c.name] = res.json.contact;
  }
  await page.goto("/#/board");
  await page.getByRole("button", { name: "New card", exact: true }).click();
  const dialog = page.getByRole("dialog", { name: "New card" });
  await dialog.waitFor({ timeout: H.deadline });
  await dialog.getByLabel("Title", { exact: true }).fill("Launch plan");
  await dialog.getByLabel("Description").fill("Everything for the Q3 launch");
  await dialog.getByLabel("Priority").selectOption("high");
  await dialog.getByLabel("Due date").fill("2031-07-01");
  await dialog.getByLabel("Labels", { exact: true }).fill("launch, q3");
  for (const t of ["Write the brief", "Book the venue"]) {
    await dialog.getByLabel("New checklist item").fill(t);
    await dialog.getByRole("button", { name: "Add item" }).click();
  }
  await dialog.getByLabel("Find a contact to link").fill("Dana");
  await dialog.getByRole("button", { name: /Link Dana Reyes/ }).click();
  await dialog.getByRole("button", { name: "Create card" }).click();
  await dialog.waitFor({ state: "detached", timeout: H.deadline });

  const launch = column("active").locator("article.kcard", { hasText: "Launch plan" });
  await launch.waitFor({ timeout: H.deadline });
  assert.equal(await launch.locator(".progress span").textContent(), "0/2");
  assert.deepEqual(await launch.locator(".labels li").allTextContents(), ["launch", "q3"]);
  assert.match(await launch.locator(".card-contacts").textContent(), /Dana Reyes/);
  assert.match(await launch.locator(".due").textContent(), /2031/);

  // Edit: tick one checklist item.
  await launch.getByRole("button", { name: "Launch plan", exact: true }).click();
  const edit = page.getByRole("dialog", { name: "Edit card" });
  await edit.getByLabel("Done: Write the brief").check();
  await edit.getByRole("button", { name: "Save" }).click();
  await edit.waitFor({ state: "detached", timeout: H.deadline });
  await H.until(async () => (await launch.locator(".progress span").textContent()) === "1/2", "progress 1/2");

  // Move with the control (keyboard users' way).
  await launch.getByLabel("Move Launch plan to column").selectOption("planning");
  await launch.getByRole("button", { name: "Move" }).click();
  const planned = column("planning").locator("article.kcard", { hasText: "Launch plan" });
  await planned.waitFor({ timeout: H.deadline });
  // And by drag and drop.
  await planned.dragTo(column("paused"));
  await column("paused").locator("article.kcard", { hasText: "Launch plan" }).waitFor({ timeout: H.deadline });
  const cards = await api("GET", "/api/v2/kanban?search=Launch");
  made.launch = cards.json.cards[0];
  assert.equal(made.launch.status, "paused");
  assert.equal(made.launch.checklist.filter((c) => c.completed).length, 1);
});

test("the board's first screen shows the first column that holds cards, on a phone too", async () => {
  // Cards only in a late column: the first screen must not be empty columns.
  const res = await api("POST", "/api/v2/kanban", { title: "Ship the release notes", status: "completed" });
  assert.equal(res.status, 201, res.text);
  const p = await H.newPage(browser, server.base, narrow);
  try {
    await H.login(p);
    await p.goto("/#/board");
    const col = p.locator('section.column[data-status]');
    await H.until(async () => (await p.locator('section.column .count:text-is("")').count()) === 0, "every column counted");
    const counts = await col.evaluateAll((els) => els.map((e) => Number(e.querySelector(".count")?.textContent ?? "0")));
    const first = counts.findIndex((n) => n > 0);
    assert.ok(first > 0, `the first columns are empty here, so the view must scroll (counts ${counts})`);
    await H.until(async () => {
      const box = await col.nth(first).boundingBox();
      return box !== null && box.x >= 0 && box.x < narrow.width / 2;
    }, "the first column with cards is on screen");
  } finally {
    await p.context().close();
  }
});

test("the pending-review badge: a completed task's card shows it on the Board and in Now", async () => {
  // The result reported in the chat test completed the urgent task: the
  // queue-to-board bridge added an unchecked review item to its card.
  await page.goto("/#/board");
  const reviewed = page.locator("article.kcard", { has: page.locator(".chip.pending-review") });
  await reviewed.first().waitFor({ timeout: H.deadline });
  await page.goto("/#/now");
  const badge = page.locator("section[aria-labelledby='now-review'] .badge");
  await H.until(async () => (await badge.isVisible()) && Number(await badge.textContent()) >= 1, "review badge shown");
  await page.locator("section[aria-labelledby='now-review'] li", { has: page.locator(".chip.pending-review") }).first().waitFor();
});

test("Contacts: search, tag filter, and a detail with its linked cards", async () => {
  await page.goto("/#/contacts");
  const rows = page.locator(".contact-row");
  await H.until(async () => (await rows.count()) === 3, "three contacts");
  await page.getByLabel("Search", { exact: true }).fill("Dana");
  await H.until(async () => (await rows.count()) === 1, "search narrows to one");
  await page.getByLabel("Search", { exact: true }).fill("");
  await page.getByLabel("Tag", { exact: true }).fill("partner");
  await H.until(async () => (await rows.count()) === 1 && (await rows.first().textContent()).includes("Eli Park"), "tag filter");
  await page.getByLabel("Tag", { exact: true }).fill("");
  await H.until(async () => (await rows.count()) === 3, "all again");
  await page.getByRole("link", { name: /Dana Reyes/ }).click();
  const detail = page.locator(".contact-detail");
  await detail.waitFor({ timeout: H.deadline });
  await detail.getByRole("link", { name: "Launch plan" }).waitFor({ timeout: H.deadline });
  assert.match(await detail.textContent(), /dana@acme\.example/);
});

test("every list pages: Queue, Now, Chat and API keys", async () => {
  const titles = [];
  for (let i = 1; i <= 22; i++) titles.push(`Reminder ${String(i).padStart(2, "0")}`);
  for (const t of titles) await createItem(t, { type: "reminder" });
  await page.goto("/#/queue?type=reminder");
  await page.getByText("1–20 of 22").waitFor({ timeout: H.deadline });
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByText("21–22 of 22").waitFor({ timeout: H.deadline });
  // Newest first: the two oldest are on the second page.
  assert.deepEqual(await page.locator("article.item .item-title").allTextContents(), ["Reminder 02", "Reminder 01"]);

  await page.goto("/#/now");
  await page.locator("section[aria-labelledby='now-pending']").getByText(/^1–10 of \d+$/).waitFor({ timeout: H.deadline });

  for (let i = 1; i <= 35; i++) {
    const res = await api("POST", "/api/v2/shared-chat/send", { content: `Bulk message ${String(i).padStart(2, "0")}` });
    assert.equal(res.status, 201);
  }
  await page.goto("/#/chat");
  await page.locator("article.msg", { hasText: "Bulk message 35" }).waitFor({ timeout: H.deadline });
  assert.equal(await page.locator("article.msg", { hasText: "Bulk message 01" }).count(), 0);
  await page.getByRole("button", { name: "Load older messages" }).click();
  await page.locator("article.msg", { hasText: "Bulk message 01" }).waitFor({ timeout: H.deadline });

  // Earlier tests made some keys: ten more make at least two pages.
  const before = (await H.rest(server.base, "GET", "/api/v2/keys", { cookie: agent.cookie })).json.keys.length;
  for (let i = 1; i <= 10; i++) {
    const res = await H.rest(server.base, "POST", "/api/v2/keys", { cookie: agent.cookie, body: { label: `Spare ${i}`, scopes: ["chat"] } });
    assert.equal(res.status, 201);
  }
  const total = before + 10;
  await page.goto("/#/settings");
  const keysPanel = page.locator("section[aria-labelledby='settings-keys']");
  await keysPanel.getByText(`1–10 of ${total}`, { exact: true }).waitFor({ timeout: H.deadline });
  await keysPanel.getByRole("button", { name: "Next" }).click();
  await keysPanel.getByText(`11–${Math.min(20, total)} of ${total}`, { exact: true }).waitFor({ timeout: H.deadline });
});

test("keyboard: skip link, tabs, Approve, and the card editor open and close from the keyboard", async () => {
  await page.goto("/#/now");
  // A fresh document: keyboard navigation starts at its top.
  await page.reload();
  await pendingList().first().waitFor({ timeout: H.deadline });
  await page.keyboard.press("Tab");
  assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
  await page.keyboard.press("Enter");
  assert.equal(await page.evaluate(() => document.activeElement?.id), "main");
  // Tab on to the first Approve button.
  const first = await pendingList().first().getAttribute("data-id");
  let reached = false;
  for (let i = 0; i < 40 && !reached; i++) {
    await page.keyboard.press("Tab");
    reached = await page.evaluate(() => document.activeElement?.textContent === "Approve");
  }
  assert.ok(reached, "an Approve button is reachable with Tab");
  await page.keyboard.press("Enter");
  await item(first).waitFor({ state: "detached", timeout: H.deadline });

  // The tabs are links: Shift+Tab back to them and follow one with Enter.
  await page.locator('a[data-tab="board"]').focus();
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { name: "Board", level: 1 }).waitFor({ timeout: H.deadline });
  const title = page.getByRole("button", { name: "Launch plan", exact: true });
  await title.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "Edit card" });
  await dialog.waitFor({ timeout: H.deadline });
  await H.until(() => dialog.getByLabel("Title", { exact: true }).evaluate((el) => el === document.activeElement), "focus in the dialog");
  await page.keyboard.press("Escape");
  await dialog.waitFor({ state: "detached", timeout: H.deadline });
  await H.until(() => title.evaluate((el) => el === document.activeElement), "focus back on the card");
});

test("loading and error states: a failed call shows the error with Retry, a slow one shows Loading", async () => {
  const rpc = "**/switchboard.v1.QueueService/ListQueueItems";
  await page.route(rpc, (route) => route.abort("connectionrefused"));
  await page.goto("/#/queue");
  const alert = page.locator("main div.error[role='alert']");
  await alert.waitFor({ timeout: H.deadline });
  assert.match(await alert.textContent(), /cannot be reached/);
  await page.unroute(rpc);

  let release;
  const held = new Promise((r) => (release = r));
  await page.route(rpc, async (route) => {
    await held;
    await route.continue();
  });
  await alert.getByRole("button", { name: "Retry" }).click();
  await page.locator("main .loading", { hasText: "Loading…" }).waitFor({ timeout: H.deadline });
  release();
  await page.locator("main article.item").first().waitFor({ timeout: H.deadline });
  await page.unroute(rpc);
});

test("service:navigate-tab switches the view", async () => {
  await page.goto("/#/now");
  await page.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
  await page.evaluate(() => window.dispatchEvent(new CustomEvent("service:navigate-tab", { detail: "contacts" })));
  await page.getByRole("heading", { name: "Contacts", level: 1 }).waitFor({ timeout: H.deadline });
  await page.evaluate(() => window.dispatchEvent(new CustomEvent("service:navigate-tab", { detail: { tab: "chat" } })));
  await page.getByRole("heading", { name: "Chat", level: 1 }).waitFor({ timeout: H.deadline });
});

// Issue 12, item 5: the Store tab. The listing's endpoint is an agent served
// by this test process on loopback (the server runs with
// --allow-private-endpoints); the json input format sends {executionId, task,
// context, callbackUrl}, and it answers {output}, echoing the task.
test("Store: browse and search, open a listing with its kit, install, run it with an input and see the result", async () => {
  const seen = [];
  const agentServer = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const task = JSON.parse(body);
      seen.push({ task, executionId: req.headers["x-service-execution-id"] });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ output: `Summary of: ${task.task}` }));
    });
  });
  await new Promise((done) => agentServer.listen(0, "127.0.0.1", done));
  try {
    const endpointUrl = `http://127.0.0.1:${agentServer.address().port}/run`;
    const created = await api("POST", "/api/marketplace", {
      name: "Echo Summariser", description: "Summarises whatever it is given.", category: "writing",
      endpointUrl, pricingModel: "free", inputFormat: "json", authMethod: "none",
      installGuide: "Ask it for a summary.", commands: [{ name: "/summarise", description: "Summarise a text", usage: "/summarise <text>" }],
    });
    assert.equal(created.status, 201, created.text);
    const other = await api("POST", "/api/marketplace", {
      name: "Chart Maker", description: "Draws charts.", category: "data", endpointUrl, pricingModel: "per_task", pricePerTask: 3, currency: "USD",
    });
    assert.equal(other.status, 201, other.text);
    const id = created.json.agent.id;
    made.listing = id;

    await page.goto("/#/store");
    await page.getByRole("heading", { name: "Store", level: 1 }).waitFor({ timeout: H.deadline });
    const rows = page.locator(".store-row");
    await H.until(async () => (await rows.count()) === 2, "two listings");
    const echo = page.locator(`.store-row[data-id="${id}"]`);
    assert.match(await echo.textContent(), /Summarises whatever it is given\./);
    assert.match(await echo.textContent(), /Free/);
    assert.match(await echo.textContent(), /No ratings yet/);
    await page.getByLabel("Search", { exact: true }).fill("echo");
    await H.until(async () => (await rows.count()) === 1, "search narrows to one");
    await page.getByLabel("Search", { exact: true }).fill("");
    await page.getByLabel("Pricing", { exact: true }).selectOption("paid");
    await H.until(async () => (await rows.count()) === 1 && (await rows.first().textContent()).includes("Chart Maker"), "pricing filter");
    await page.getByLabel("Pricing", { exact: true }).selectOption("");
    await H.until(async () => (await rows.count()) === 2, "all again");

    await page.getByRole("link", { name: "Echo Summariser" }).click();
    const detail = page.locator(".store-detail");
    await detail.waitFor({ timeout: H.deadline });
    await detail.getByRole("heading", { name: "Integration kit" }).waitFor({ timeout: H.deadline });
    assert.match(await detail.textContent(), /\/summarise <text>/);
    await detail.getByText("Install the agent to run it.").waitFor();
    await detail.getByRole("button", { name: "Install", exact: true }).click();
    await detail.getByRole("button", { name: "Uninstall", exact: true }).waitFor({ timeout: H.deadline });
    assert.equal((await api("GET", `/api/marketplace/${id}`)).json.agent.installed, true);

    await detail.getByRole("button", { name: "Subscribe", exact: true }).click();
    await detail.getByRole("button", { name: "Unsubscribe", exact: true }).waitFor({ timeout: H.deadline });

    await detail.getByLabel("Task for the agent").fill("the quarterly report");
    await detail.getByRole("button", { name: "Run", exact: true }).click();
    const result = detail.getByRole("region", { name: "Result" });
    await result.waitFor({ timeout: H.deadline });
    await result.getByText("Summary of: the quarterly report").waitFor({ timeout: H.deadline });
    assert.match(await result.textContent(), /Completed/);
    assert.equal(seen.length, 1);
    assert.equal(seen[0].task.task, "the quarterly report");
    assert.equal(seen[0].executionId, await result.getAttribute("data-execution-id"));

    // My listings: the operator's own, with the store's fees and earnings.
    await page.getByLabel("My listings").check();
    const earnings = page.getByRole("region", { name: "Earnings" });
    await earnings.getByText(/The store keeps [\d.]+% of each paid task/).waitFor({ timeout: H.deadline });
    await earnings.getByText("No paid tasks yet.").waitFor({ timeout: H.deadline });
    await H.until(async () => (await rows.count()) === 2, "both own listings");
    await page.getByLabel("My listings").uncheck();
  } finally {
    agentServer.close();
  }
});

// Issue 12, item 5: a dynamic price. The loopback agent answers a
// price_quote until the run is approved (quoteApproved in the body), then the
// output; the listing's Run shows the quote with Approve and Decline.
test("Store: a quoted run shows the quote; Approve runs the task and shows the result, Decline ends it", async () => {
  const agentServer = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const task = JSON.parse(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(task.quoteApproved ? { output: `Report on ${task.task}` } : { price_quote: { amount: 12.5, currency: "USD", breakdown: "5 sources at 2.50" } }));
    });
  });
  await new Promise((done) => agentServer.listen(0, "127.0.0.1", done));
  try {
    const created = await api("POST", "/api/marketplace", {
      name: "Quoting Researcher", description: "Prices each task before doing it.", category: "research",
      endpointUrl: `http://127.0.0.1:${agentServer.address().port}/run`, inputFormat: "json", authMethod: "none",
      pricingModel: "dynamic", pricingConfig: { model: "dynamic", dynamicConfig: { estimateRange: [1, 20] } },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.agent.id;
    assert.equal((await api("POST", `/api/marketplace/${id}/install`)).status, 201);
    await page.goto(`/#/store/${id}`);
    const detail = page.locator(".store-detail");
    await detail.waitFor({ timeout: H.deadline });
    const result = detail.getByRole("region", { name: "Result" });

    await detail.getByLabel("Task for the agent").fill("batteries");
    await detail.getByRole("button", { name: "Run", exact: true }).click();
    await result.getByText("5 sources at 2.50").waitFor({ timeout: H.deadline });
    assert.match(await result.textContent(), /\$12\.50/);
    await result.getByRole("button", { name: "Approve" }).click();
    await result.getByText("Report on batteries").waitFor({ timeout: H.deadline });
    assert.equal(await result.getByRole("button", { name: "Approve" }).count(), 0);

    await detail.getByLabel("Task for the agent").fill("solar");
    await detail.getByRole("button", { name: "Run", exact: true }).click();
    await result.getByRole("button", { name: "Decline" }).waitFor({ timeout: H.deadline });
    await result.getByRole("button", { name: "Decline" }).click();
    // A declined quote ends the run as failed, with the server's reason.
    await result.getByText("the requester declined the quoted price").waitFor({ timeout: H.deadline });
    assert.equal(await result.getByRole("button", { name: "Decline" }).count(), 0);
  } finally {
    agentServer.close();
  }
});

// Issue 12, item 5: capability packs in the Store tab. A second account
// (signed up over REST) offers a one_time pack with an access password; the
// operator installs it with the password (a wrong one is refused with the
// server's reason), fills its editable fields, which resolve the prompt, and
// uninstalls it.
test("Store: a capability pack installs with its access password, and its fields customise its prompt", async () => {
  const bob = { username: "bob", email: "bob@example.com", password: "another horse battery", name: "Bob Builder" };
  const signup = await H.rest(server.base, "POST", "/api/signup", { body: bob });
  assert.equal(signup.status, 201, signup.text);
  const login = await H.rest(server.base, "POST", "/api/auth/login", { body: { username: bob.username, password: bob.password } });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
  assert.ok(login.status === 200 && cookie, login.text);
  const res = await H.rest(server.base, "POST", "/api/marketplace-capabilities", {
    cookie,
    body: {
      action: "create", name: "Follow-up writer", description: "Writes polite follow-ups", category: "writing",
      pricingModel: "one_time", price: 4.99, accessPassword: "letmein-please",
      prompt: "Write a follow-up to {{recipient}} in a {{tone}} tone.",
      editableFields: JSON.stringify([
        { name: "recipient", label: "Recipient", type: "text", default: "" },
        { name: "tone", label: "Tone", type: "text", default: "warm" },
      ]),
    },
  });
  assert.equal(res.status, 201, res.text);
  const id = res.json.capability.capabilityId;
  await page.goto("/#/store");
  const pack = page.locator(`li.pack[data-id="${id}"]`);
  await pack.waitFor({ timeout: H.deadline });
  await pack.getByLabel("Access password").fill("not the password");
  await pack.getByRole("button", { name: "Install pack" }).click();
  await pack.getByRole("alert").getByText(/access password is not right/).waitFor({ timeout: H.deadline });
  await pack.getByLabel("Access password").fill("letmein-please");
  await pack.getByRole("button", { name: "Install pack" }).click();
  await pack.getByLabel("Recipient").waitFor({ timeout: H.deadline });
  assert.equal(await pack.getByLabel("Tone").inputValue(), "warm");
  await pack.getByLabel("Recipient").fill("Grace");
  await pack.getByRole("button", { name: "Save fields" }).click();
  await pack.getByText("Write a follow-up to Grace in a warm tone.").waitFor({ timeout: H.deadline });
  assert.equal((await api("GET", `/api/marketplace-capabilities/${id}`)).json.capability.customizations.recipient, "Grace");
  await pack.getByRole("button", { name: "Uninstall pack" }).click();
  await pack.getByLabel("Access password").waitFor({ timeout: H.deadline });
  assert.equal((await api("GET", `/api/marketplace-capabilities/${id}`)).json.capability.installed, false);
});

// A board with cards in its first columns, so the pictures show cards.
// A store agent on loopback (outside the machine in real life): it answers
// "Result for <message>", as the agents of the Go store tests do.
async function loopbackAgent() {
  const { createServer } = await import("node:http");
  const got = [];
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      let message = "";
      try {
        message = JSON.parse(body).message ?? "";
      } catch {
        // Not JSON: answer for an empty message.
      }
      got.push(message);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ output: `Result for ${message}` }));
    });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}/`, got, close: () => new Promise((r) => srv.close(r)) };
}

// dora is a second account (signed up over REST) with a store key; she
// lists the loopback agent "Research Scout" (free) that the review tests run.
let scout;
let doraAccount;
after(() => scout?.server.close());
async function dora() {
  if (!doraAccount) {
    const who = { username: "dora", email: "dora@example.com", password: "correct horse battery", name: "Dora Developer" };
    const signup = await H.rest(server.base, "POST", "/api/signup", { body: who });
    assert.equal(signup.status, 201, signup.text);
    const login = await H.rest(server.base, "POST", "/api/auth/login", { body: { username: who.username, password: who.password } });
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
    assert.equal(login.status, 200, login.text);
    const key = await H.rest(server.base, "POST", "/api/v2/keys", { cookie, body: { label: "dora agent", scopes: ["store"] } });
    assert.equal(key.status, 201, key.text);
    doraAccount = { key: key.json.apiKey, api: (method, path, body) => H.rest(server.base, method, path, { key: key.json.apiKey, body }) };
  }
  if (!scout) {
    const agentServer = await loopbackAgent();
    const listing = await doraAccount.api("POST", "/api/marketplace", { name: "Research Scout", endpointUrl: agentServer.url, pricingModel: "free" });
    assert.equal(listing.status, 201, listing.text);
    scout = { id: listing.json.agent.id, server: agentServer };
  }
  return doraAccount;
}

// The queue item that delivered an execution's result with its review widget.
async function deliveredItem(executionId) {
  return H.until(async () => {
    const res = await api("GET", "/api/v2/queue?limit=100");
    const meta = (i) => (typeof i.metadata === "string" ? JSON.parse(i.metadata) : i.metadata ?? {});
    return res.json.data.items.find((i) => meta(i).executionId === executionId && meta(i).widgets);
  }, "the delivered item with its review widget");
}

// A real delivered execution over the API: ann (the operator, through her
// agent's key) runs dora's Research Scout, and its result reaches her queue
// as a done item carrying the review widget.
async function deliveredReview(input) {
  await dora();
  const ran = await api("POST", `/api/marketplace/${scout.id}/execute`, { input });
  assert.ok(ran.status === 200 || ran.status === 201, ran.text);
  const executionId = ran.json.executionId;
  return { executionId, item: await deliveredItem(executionId) };
}

// Issue 12, acceptance: one continuous flow in the browser. Dora lists a free
// agent served on loopback; the operator finds it in the Store by search,
// opens it, installs it, runs it with a task, sees the result, goes to the
// Queue and confirms the review from the widget with a rating.
test("browse → install → execute a loopback agent → confirm the review from the Queue widget, with a rating", async () => {
  await dora();
  await page.goto("/#/store");
  await page.getByRole("heading", { name: "Store", level: 1 }).waitFor({ timeout: H.deadline });
  await page.getByLabel("Search", { exact: true }).fill("scout");
  // The listings' rows (the capability packs below are rows too).
  const rows = page.locator(".store-row:not(.pack)");
  await H.until(async () => (await rows.count()) === 1 && (await rows.first().getAttribute("data-id")) === scout.id, "search finds Research Scout");
  await page.getByRole("link", { name: "Research Scout" }).click();
  const detail = page.locator(".store-detail");
  await detail.getByRole("heading", { name: "Research Scout" }).waitFor({ timeout: H.deadline });
  await detail.getByRole("button", { name: "Install", exact: true }).click();
  await detail.getByLabel("Task for the agent").fill("Scout the battery market");
  await detail.getByRole("button", { name: "Run", exact: true }).click();
  const result = detail.getByRole("region", { name: "Result" });
  await result.getByText("Result for Scout the battery market").waitFor({ timeout: H.deadline });
  assert.match(await result.textContent(), /Completed/);
  const executionId = await result.getAttribute("data-execution-id");
  assert.equal(scout.server.got.at(-1), "Scout the battery market");
  const it = await deliveredItem(executionId);

  await page.locator('nav.tabs a[data-tab="queue"]').click();
  await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor({ timeout: H.deadline });
  const row = item(it.id);
  const widget = row.locator("section.widget");
  await widget.getByRole("heading", { name: "Review the result of Research Scout" }).waitFor({ timeout: H.deadline });
  await widget.getByText("Confirm or deny within 48 hours").waitFor();
  // A done item has no legal move: the Queue offers none (server/queue/rules.go).
  assert.equal(it.status, "done_today");
  assert.equal(await row.getByLabel("Move to").count(), 0, "a done item offers no move");
  await widget.getByRole("button", { name: `Confirm: ${it.title}` }).click();
  await widget.getByLabel("Rating (optional)").selectOption("5");
  await widget.getByLabel("Feedback (optional)").fill("Three good sources");
  await recordRefreshes();
  await row.evaluate((el) => (el.dataset.beforeConfirm = "1"));
  await widget.getByRole("button", { name: "Confirm result" }).click();
  // The server's answer (the execution's review status), in the widget and the toast.
  await widget.locator(".widget-done", { hasText: "Result confirmed." }).waitFor({ timeout: H.deadline });
  await page.locator("#toast", { hasText: "Result confirmed." }).waitFor({ timeout: H.deadline });
  // The refresh redraws the item: the decision stays, the buttons stay gone.
  const redrawn = page.locator(`article.item[data-id="${it.id}"]:not([data-before-confirm])`);
  await redrawn.locator(".widget-done", { hasText: "Result confirmed." }).waitFor({ timeout: H.deadline });
  assert.equal(await widget.getByRole("button", { name: `Confirm: ${it.title}` }).count(), 0);
  const seen = await page.evaluate(() => window.__refreshes);
  assert.ok(seen.includes("queue") && seen.includes("now"), `refresh events: ${seen}`);
  // The rating reached the execution and the listing.
  const listed = await api("GET", `/api/marketplace/executions?agentId=${scout.id}&reviewStatus=confirmed`);
  assert.equal(listed.status, 200, listed.text);
  const mine = listed.json.executions.find((x) => x.execution.executionId === executionId);
  assert.equal(mine?.execution.rating, 5, listed.text);
  // Confirming twice is refused by the server, which says why.
  const again = await api("POST", "/api/marketplace/lifecycle", { action: "confirm", executionId });
  assert.ok(again.status >= 400, again.text);
});

test("a delivered store result: deny with a reason and a category requeues the task with the agent", async () => {
  const earlier = scout?.server.got.length ?? 0;
  const { item: it } = await deliveredReview("Scout the solar market");
  const calls = scout.server.got.length;
  assert.equal(calls, earlier + 1);
  await page.goto("/#/queue");
  const widget = item(it.id).locator("section.widget");
  await widget.getByRole("button", { name: `Deny: ${it.title}` }).click();
  // The reason is required: the form says so without calling the server.
  await widget.getByRole("button", { name: "Deny and requeue" }).click();
  await widget.getByRole("alert").filter({ hasText: "Say why the result is denied." }).waitFor({ timeout: H.deadline });
  await widget.getByLabel("Why (required)").fill("Only one source, three were asked for");
  await widget.getByLabel("Category").selectOption("incomplete");
  await widget.getByRole("button", { name: "Deny and requeue" }).click();
  await widget.locator(".widget-done", { hasText: "Result denied; the task is queued again with the agent." }).waitFor({ timeout: H.deadline });
  await page.locator("#toast", { hasText: "queued again" }).waitFor({ timeout: H.deadline });
  // The server recorded the decision on the item: after a reload the widget
  // shows it instead of the buttons.
  await page.reload();
  const after = item(it.id).locator("section.widget");
  await after.locator(".widget-done", { hasText: "Result denied." }).waitFor({ timeout: H.deadline });
  assert.equal(await after.getByRole("button", { name: `Deny: ${it.title}` }).count(), 0);
  // The requeued execution runs: the agent is called with the same task again.
  await H.until(() => scout.server.got.length > calls, "the requeued task reaches the agent");
  assert.equal(scout.server.got.at(-1), "Scout the solar market");
});

// Issue 12, item 5: the Store tab's "Waiting for your review" lists the
// operator's delivered executions (ListStoreExecutions, pending_review) with
// the Queue widget's confirm and deny forms; a decided one leaves the list.
test("Store: a delivered result waits in \"Waiting for your review\"; Confirm there removes it from the list", async () => {
  const { executionId } = await deliveredReview("Scout the wind market");
  await page.goto("/#/store");
  const reviews = page.getByRole("region", { name: "Waiting for your review" });
  const row = reviews.locator(`.store-review-row[data-execution-id="${executionId}"]`);
  await row.waitFor({ timeout: H.deadline });
  assert.match(await row.textContent(), /Research Scout/);
  assert.match(await row.textContent(), /Result for Scout the wind market/);
  const subject = "Research Scout: Scout the wind market";
  // Deny's reason is required here too: the same form as the widget's.
  await row.getByRole("button", { name: `Deny: ${subject}` }).click();
  await row.getByRole("button", { name: "Deny and requeue" }).click();
  await row.getByRole("alert").filter({ hasText: "Say why the result is denied." }).waitFor({ timeout: H.deadline });
  await row.getByRole("button", { name: `Confirm: ${subject}` }).click();
  assert.equal(await row.getByRole("button", { name: "Deny and requeue" }).count(), 0, "one form at a time");
  await row.getByLabel("Rating (optional)").selectOption("4");
  await row.getByLabel("Feedback (optional)").fill("Good enough");
  await row.getByRole("button", { name: "Confirm result" }).click();
  await page.locator("#toast", { hasText: "Result confirmed." }).waitFor({ timeout: H.deadline });
  await reviews.locator(`.store-review-row[data-execution-id="${executionId}"]`).waitFor({ state: "detached", timeout: H.deadline });
  const listed = await api("GET", "/api/marketplace/executions?reviewStatus=confirmed");
  const done = listed.json.executions.find((x) => x.execution.executionId === executionId);
  assert.equal(done?.execution.rating, 4, listed.text);
  assert.equal(done?.execution.feedback, "Good enough");
});

// Issue 12, item 5: earnings per listing. The operator offers a per_task
// listing; dora runs it (the ledger's default method holds the price) and
// confirms (the hold is captured); the Earnings region shows the listing's
// row as GetStoreEarnings answers it.
test("Store: My listings shows the earnings of each paid listing", async () => {
  const d = await dora();
  const agentServer = await loopbackAgent();
  try {
    const created = await api("POST", "/api/marketplace", {
      name: "Paid Summariser", description: "Four dollars a summary.", category: "writing",
      endpointUrl: agentServer.url, pricingModel: "per_task", pricePerTask: 4, currency: "USD",
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.agent.id;
    const ran = await d.api("POST", `/api/marketplace/${id}/execute`, { input: "the annual report" });
    assert.equal(ran.status, 200, ran.text);
    assert.equal(ran.json.paymentHoldStatus, "held", ran.text);
    const confirmed = await d.api("POST", "/api/marketplace/lifecycle", { action: "confirm", executionId: ran.json.executionId });
    assert.equal(confirmed.status, 200, confirmed.text);
    const earned = await api("GET", "/api/marketplace/earnings");
    assert.equal(earned.status, 200, earned.text);
    const want = earned.json.agents.find((a) => a.agentId === id);
    assert.ok(want && want.paidExecutionCount === 1 && want.gross === 4, earned.text);

    await page.goto("/#/store?mine=1");
    const earnings = page.getByRole("region", { name: "Earnings" });
    const row = earnings.locator(`table.earnings-agents tr[data-id="${id}"]`);
    await row.waitFor({ timeout: H.deadline });
    const cells = await row.locator("th, td").allTextContents();
    const usd = (n) => new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" }).format(n);
    assert.deepEqual(cells, ["Paid Summariser", "1", usd(want.gross), usd(want.platformFee), usd(want.developerPayout), usd(want.pendingPayout)]);
    assert.equal(want.developerPayout + want.platformFee, 4);
    await earnings.getByText(/earned from 1 paid task/).waitFor({ timeout: H.deadline });
  } finally {
    await agentServer.close();
  }
});

// Issue 12, item 5: the payment prompt of a quote, stored in an item's or a
// message's metadata (executionId, agentId, widgets: the execute answer's
// widget), renders in Queue and Chat and acts through DecideStoreQuote. The
// engine answers the widget to the caller and stores no item itself, so the
// item and the message are made over REST around real quoted executions.
test("a payment_prompt widget renders in Queue and Chat; Approve and Decline act through DecideStoreQuote", async () => {
  const agentServer = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const task = JSON.parse(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(task.quoteApproved ? { output: `Priced report on ${task.task}` } : { price_quote: { amount: 7, currency: "USD", breakdown: "2 sources at 3.50" } }));
    });
  });
  await new Promise((done) => agentServer.listen(0, "127.0.0.1", done));
  try {
    const created = await api("POST", "/api/marketplace", {
      name: "Pricing Analyst", category: "research", endpointUrl: `http://127.0.0.1:${agentServer.address().port}/run`,
      inputFormat: "json", authMethod: "none", pricingModel: "dynamic", pricingConfig: { model: "dynamic", dynamicConfig: { estimateRange: [1, 20] } },
    });
    assert.equal(created.status, 201, created.text);
    const id = created.json.agent.id;
    const quoted = async (input) => {
      const ran = await api("POST", `/api/marketplace/${id}/execute`, { input });
      assert.equal(ran.status, 200, ran.text);
      assert.equal(ran.json.pricingPhase, "quoted", ran.text);
      assert.equal(ran.json.widget.type, "payment_prompt", ran.text);
      return ran.json;
    };
    const status = async (executionId) =>
      (await api("GET", `/api/marketplace/executions?agentId=${id}`)).json.executions.find((x) => x.execution.executionId === executionId)?.execution.status;

    // Queue: Approve runs the task.
    const first = await quoted("wind");
    const it = await createItem("Approve the price of the wind report", {
      metadata: JSON.stringify({ executionId: first.executionId, agentId: id, widgets: [first.widget] }),
    });
    await page.goto("/#/queue");
    const widget = item(it.id).locator('section.widget[data-type="payment_prompt"]');
    await widget.getByRole("heading", { name: first.widget.title }).waitFor({ timeout: H.deadline });
    await widget.getByText("2 sources at 3.50").first().waitFor();
    await widget.getByRole("button", { name: `Approve: ${it.title}` }).click();
    await widget.locator(".widget-done", { hasText: "Quote approved; the task is completed." }).waitFor({ timeout: H.deadline });
    assert.equal(await widget.getByRole("button", { name: `Decline: ${it.title}` }).count(), 0);
    assert.equal(await status(first.executionId), "completed");

    // Chat: Decline ends it, nothing charged.
    const second = await quoted("tides");
    const sent = await api("POST", "/api/v2/shared-chat/send", {
      content: "The analyst quotes a price for the tides report",
      metadataJson: JSON.stringify({ executionId: second.executionId, agentId: id, widgets: [second.widget] }),
    });
    assert.equal(sent.status, 201, sent.text);
    await page.goto("/#/chat");
    const inChat = page.locator(`article.msg[data-id="${sent.json.id}"] section.widget[data-type="payment_prompt"]`);
    await inChat.getByRole("button", { name: "Decline: The analyst quotes a price for the tides report" }).click();
    await inChat.locator(".widget-done", { hasText: "Quote declined" }).waitFor({ timeout: H.deadline });
    assert.equal(await status(second.executionId), "failed");
  } finally {
    agentServer.close();
  }
});

// The item's metadata as the REST mirror gives it (a JSON string).
async function itemMeta(id) {
  const res = await api("GET", `/api/v2/queue/${id}`);
  assert.equal(res.status, 200, res.text);
  const m = res.json.item.metadata;
  return { status: res.json.item.status, meta: typeof m === "string" ? JSON.parse(m || "{}") : m ?? {} };
}

// A node:http server on loopback that keeps what it receives: the item's
// widgetResponseUrl (the e2e server allows private endpoints).
async function loopbackHook() {
  const got = [];
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: JSON.parse(body) });
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${srv.address().port}/widget-response`, got, close: () => new Promise((r) => srv.close(r)) };
}

// Issue 13, item 8b (RULINGS "A2A", widgets): the operator answers an
// item's widgets in the Queue through WidgetService.RespondToWidget.
test("Queue widgets answer through RespondToWidget: a choice completes the item and reaches the widgetResponseUrl; an action_list answer records without completing; an info_card without actions is read-only", async () => {
  const hook = await loopbackHook();
  try {
    const widgets = [
      { id: "fare", type: "choice_card", title: "Choose a fare", items: [
        { id: "morning", label: "Morning fare", description: "07:10, 120 EUR", actions: ["submit"] },
        { id: "evening", label: "Evening fare", description: "19:40, 95 EUR", actions: ["submit"] },
      ] },
      { type: "action_list", title: "Meanwhile", items: [{ id: "later", label: "Tomorrow morning", actions: ["remind_me", "decline"] }] },
      { type: "info_card", title: "Baggage", items: [{ id: "bag", label: "One bag included" }] },
    ];
    const it = await createItem("Flight to Lisbon", { metadata: JSON.stringify({ widgets, widgetResponseUrl: hook.url }) });
    await page.goto("/#/queue");
    const choice = item(it.id).locator('section.widget[data-type="choice_card"]');
    const list = item(it.id).locator('section.widget[data-type="action_list"]');
    const info = item(it.id).locator('section.widget[data-type="info_card"]');
    await choice.getByRole("heading", { name: "Choose a fare" }).waitFor({ timeout: H.deadline });

    // An info_card whose rows have no actions offers nothing to press.
    await info.getByText("One bag included").waitFor();
    assert.equal(await info.getByRole("button").count(), 0, "an info_card without actions is read-only");

    // action_list, non-terminal: recorded, the item stays open, the buttons stay.
    await recordRefreshes();
    await list.getByRole("button", { name: `Remind me Tomorrow morning: ${it.title}` }).click();
    await list.locator(".widget-note", { hasText: "Recorded: Remind me (Tomorrow morning)" }).waitFor({ timeout: H.deadline });
    let now = await itemMeta(it.id);
    assert.notEqual(now.status, "done_today");
    assert.equal(now.meta.widgetResponses.length, 1, JSON.stringify(now.meta));
    assert.deepEqual(
      { widgetId: now.meta.widgetResponses[0].widgetId, widgetItemId: now.meta.widgetResponses[0].widgetItemId, action: now.meta.widgetResponses[0].action },
      { widgetId: "1", widgetItemId: "later", action: "remind_me" },
    );
    assert.ok(await page.evaluate(() => window.__refreshes.includes("queue") && window.__refreshes.includes("now")), "the queue refresh topics are announced");
    assert.equal(await list.getByRole("button", { name: `Remind me Tomorrow morning: ${it.title}` }).count(), 1, "a non-terminal answer keeps the buttons");

    // choice_card, terminal: the option completes the item.
    await choice.getByRole("button", { name: `Evening fare: ${it.title}` }).click();
    await choice.locator(".widget-done", { hasText: "Answered: Submit (Evening fare)" }).waitFor({ timeout: H.deadline });
    assert.equal(await choice.getByRole("button").count(), 0, "a terminal answer replaces the buttons");
    now = await itemMeta(it.id);
    assert.equal(now.status, "done_today");
    assert.equal(now.meta.widgetResponses.length, 2, JSON.stringify(now.meta));
    assert.equal(now.meta.widgetResponses[1].widgetId, "fare");
    assert.equal(now.meta.widgetResponses[1].widgetItemId, "evening");
    assert.equal(now.meta.widgetResponses[1].action, "submit");

    // Both answers reach the loopback widgetResponseUrl, marked as widget responses.
    await H.until(() => hook.got.length >= 2, "both widget responses forwarded");
    for (const f of hook.got) assert.equal(f.headers["x-service-event"], "widget_response");
    const forwarded = hook.got.find((f) => f.body.widgetId === "fare");
    assert.ok(forwarded, JSON.stringify(hook.got.map((f) => f.body)));
    assert.equal(forwarded.body.itemId, it.id);
    assert.equal(forwarded.body.widgetItemId, "evening");
    assert.equal(forwarded.body.action, "submit");

    // After a reload the recorded answers show: the terminal one instead of
    // the choice's buttons, the non-terminal one beside the list's buttons.
    await page.reload();
    await choice.locator(".widget-done", { hasText: "Answered: Submit (Evening fare)" }).waitFor({ timeout: H.deadline });
    assert.equal(await choice.getByRole("button").count(), 0);
    await choice.getByText("Morning fare", { exact: true }).waitFor(); // the options stay named
    await list.locator(".widget-note", { hasText: "Recorded: Remind me (Tomorrow morning)" }).waitFor();
    assert.equal(await list.getByRole("button", { name: `Remind me Tomorrow morning: ${it.title}` }).count(), 1);
  } finally {
    await hook.close();
  }
});

test("widgets in metadata render on Now and in Chat; an unknown widget, and a chat widget naming no item, are read-only", async () => {
  const widgets = [
    { type: "info_card", title: "Flight options", subtitle: "Two fares found", items: [{ id: "a", label: "Morning fare", description: "07:10, 120 EUR", actions: ["book"] }] },
    { type: "route_map", title: "Route", items: [{ id: "r", label: "Via Zurich", actions: ["open_map"] }] },
  ];
  const it = await createItem("Pick a flight", { metadata: JSON.stringify({ widgets }) });
  await page.goto("/#/now");
  const widget = item(it.id).locator('section.widget[data-type="info_card"]');
  await widget.getByRole("heading", { name: "Flight options" }).waitFor({ timeout: H.deadline });
  await widget.getByText("Two fares found").waitFor();
  await widget.getByText("Morning fare").waitFor();
  await widget.getByText("07:10, 120 EUR").waitFor();
  // A known type's row actions are buttons (answered in the Queue test above).
  await widget.getByRole("button", { name: `Book Morning fare: ${it.title}` }).waitFor();
  const unknown = item(it.id).locator('section.widget[data-type="route_map"]');
  await unknown.getByText("Via Zurich").waitFor();
  await unknown.getByText("Open map", { exact: true }).waitFor();
  assert.equal(await unknown.getByRole("button").count(), 0, "an unknown widget type names its actions without offering them");

  // A chat message that carries the widgets and names no item shows them read-only.
  const sent = await api("POST", "/api/v2/shared-chat/send", { content: "Fares for your trip", metadataJson: JSON.stringify({ widgets }) });
  assert.equal(sent.status, 201, sent.text);
  // One that names the item answers for it: a payment_prompt without a store
  // executionId goes through RespondToWidget, and Approve completes the item.
  const prompt = { type: "payment_prompt", title: "Pay the fare", items: [{ id: "pay", label: "120 EUR", actions: ["approve", "decline"] }] };
  const paid = await createItem("Pay for the flight", { metadata: JSON.stringify({ widgets: [prompt] }) });
  const linked = await api("POST", "/api/v2/shared-chat/send", {
    content: "The travel agent asks to pay the fare",
    metadataJson: JSON.stringify({ itemId: paid.id, widgets: [prompt] }),
  });
  assert.equal(linked.status, 201, linked.text);
  await page.goto("/#/chat");
  const msg = page.locator(`article.msg[data-id="${sent.json.id}"]`);
  await msg.locator("section.widget").first().getByRole("heading", { name: "Flight options" }).waitFor({ timeout: H.deadline });
  assert.equal(await msg.getByRole("button").count(), 0, "a chat widget naming no item is read-only");
  await msg.getByText("Book", { exact: true }).waitFor();
  const inChat = page.locator(`article.msg[data-id="${linked.json.id}"] section.widget[data-type="payment_prompt"]`);
  await inChat.getByRole("button", { name: "Approve 120 EUR: The travel agent asks to pay the fare" }).click();
  await inChat.locator(".widget-done", { hasText: "Answered: Approve (120 EUR)" }).waitFor({ timeout: H.deadline });
  const after = await itemMeta(paid.id);
  assert.equal(after.status, "done_today");
  assert.equal(after.meta.widgetResponses[0].action, "approve");
  assert.equal(after.meta.widgetResponses[0].widgetId, "0");
});

let seeded = false;
async function seedBoard() {
  if (seeded) return;
  seeded = true;
  const day = (n) => new Date(Date.now() + n * 86_400_000).toISOString();
  const cards = [
    { title: "Acme renewal", status: "leads", priority: "high", labels: ["renewal"], dueDate: day(5), contacts: [{ contactId: made["Dana Reyes"].id }] },
    { title: "Globex pilot", status: "qualifying", priority: "medium", labels: ["pilot", "q3"], checklist: [{ text: "Call Eli", completed: true }, { text: "Send the deck", completed: false }], contacts: [{ contactId: made["Eli Park"].id }] },
    { title: "Website refresh", status: "proposal", priority: "low", description: "New landing page" },
    { title: "Overdue contract", status: "negotiation", priority: "urgent", dueDate: day(-3), checklist: [{ text: "Legal review", completed: false }] },
  ];
  for (const c of cards) {
    const res = await api("POST", "/api/v2/kanban", c);
    assert.equal(res.status, 201, res.text);
  }
}

for (const viewport of [wide, narrow]) {
  test(`screenshots of every view at ${viewport.width}x${viewport.height}, with no sideways scrolling`, async () => {
    await seedBoard();
    const p = await H.newPage(browser, server.base, viewport);
    try {
      await p.goto("/");
      await p.getByRole("heading", { name: "Log in to Switchboard" }).waitFor({ timeout: H.deadline });
      await H.shot(p, "login");
      await H.login(p);
      const views = [
        ["now", "/#/now", "Now"],
        ["queue", "/#/queue", "Queue"],
        ["board", "/#/board", "Board"],
        ["contacts", "/#/contacts", "Contacts"],
        ["contact-detail", `/#/contacts/${made["Dana Reyes"].id}`, "Contacts"],
        ["chat", "/#/chat", "Chat"],
        ["store", "/#/store", "Store"],
        ["store-detail", `/#/store/${made.listing}`, "Store"],
        ["network", "/#/network", "Network"],
        ["settings", "/#/settings", "Settings"],
      ];
      for (const [name, url, heading] of views) {
        await p.goto(url);
        await p.getByRole("heading", { name: heading, level: 1 }).waitFor({ timeout: H.deadline });
        await H.shot(p, name);
        const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `${name} at ${viewport.width}px scrolls sideways by ${overflow}px`);
      }
      await p.goto("/#/board");
      await p.getByRole("button", { name: "Launch plan", exact: true }).click();
      await p.getByRole("dialog", { name: "Edit card" }).getByLabel("Title").waitFor({ timeout: H.deadline });
      await H.shot(p, "card-editor");
      assert.deepEqual(await p.problems(), []);
    } finally {
      await p.context().close();
    }
  });
}

test("Now's day strip shows today's events; an item naming one starting within the hour is marked with the reason", async () => {
  // The page's clock runs again (earlier tests resumed it): the strip's day is today's.
  const start = new Date(Date.now() + 30 * 60_000);
  const end = new Date(start.getTime() + 30 * 60_000);
  const ev = await H.rest(server.base, "POST", "/api/calendar/events", {
    cookie: agent.cookie,
    body: { title: "Zeppelin budget review", startsAt: start.toISOString(), endsAt: end.toISOString(), location: "Hangar 2" },
  });
  assert.equal(ev.status, 201, ev.text);
  const related = await createItem("Draft the zeppelin memo", { priority: "urgent" });
  const plain = await createItem("Sweep the hangar floor", { priority: "urgent" });
  await page.goto("/#/now");
  const strip = page.locator('section[aria-labelledby="now-today"]');
  const event = strip.locator(`li.calendar-event[data-event-id="${ev.json.event.id}"]`);
  await event.waitFor({ timeout: H.deadline });
  assert.match(await event.textContent(), /Zeppelin budget review · Hangar 2/);
  await H.until(async () => (await event.getAttribute("class")).includes("correlated"), "the event is marked as related");
  assert.match(await event.locator(".event-items").textContent(), /Draft the zeppelin memo/);
  const entry = page.locator(`.now-entry[data-now-item="${related.id}"]`);
  await entry.waitFor({ timeout: H.deadline });
  assert.ok((await entry.getAttribute("class")).includes("correlated"));
  assert.match(await entry.locator(".now-boost").textContent(), /^\+25: "Zeppelin budget review" starts in \d+ minutes \(zeppelin\)$/);
  assert.equal(await page.locator(`.now-entry[data-now-item="${plain.id}"] .now-boost`).count(), 0);
  // The boost lifts the item above the other urgent one, newer though that is.
  const order = await pendingList().evaluateAll((els) => els.map((e) => e.getAttribute("data-id")));
  assert.ok(order.indexOf(related.id) < order.indexOf(plain.id), `order ${order}`);
  for (const id of [related.id, plain.id]) assert.equal((await api("DELETE", `/api/v2/queue/${id}`)).status, 200);
});

test("a session ended elsewhere brings back the login page, which says so", async () => {
  await page.goto("/#/now");
  await page.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
  const session = (await page.context().cookies()).find((c) => c.name === "sb_session");
  assert.ok(session?.httpOnly, "the session cookie is HttpOnly");
  const out = await H.rest(server.base, "POST", "/api/auth/logout", { cookie: `sb_session=${session.value}`, body: {} });
  assert.equal(out.status, 200, out.text);
  // The next call the page makes finds out (a refresh here; the event stream
  // may find out first on its own).
  await page.evaluate(() => window.dispatchEvent(new CustomEvent("service:now-refresh")));
  await page.getByText("Your session has ended. Log in again.").waitFor({ timeout: H.deadline });
  await H.login(page);
});

test("log out ends the session", async () => {
  await page.goto("/#/now");
  await page.getByRole("button", { name: "Log out" }).first().click();
  await page.getByRole("heading", { name: "Log in to Switchboard" }).waitFor({ timeout: H.deadline });
  await page.reload();
  await page.getByRole("heading", { name: "Log in to Switchboard" }).waitFor({ timeout: H.deadline });
});

test("no script errors, Content-Security-Policy violations or API keys in the browser", async () => {
  assert.deepEqual(await page.problems(), []);
});
