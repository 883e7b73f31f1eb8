// Issue 16, item 8 (the dashboard's Assistant view), end to end: the real
// binary with a language model configured, pointed at a fake
// OpenAI-compatible provider on loopback (a node:http server speaking the
// real wire format: server-sent `data:` chunks ending with `[DONE]`), and
// Chromium. The operator types; the reply's tokens appear one by one; its
// tag's chip links to the created item; Stop ends a reply and the provider
// sees its connection close; a tag held for confirmation (the prompt held
// an A2A task's text) is a widget whose button runs it.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test as nodeTest } from "node:test";

import { chromium } from "playwright-core";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

const wide = { width: 1280, height: 800 };

// onePixelPNG is a real 1×1 PNG, as the provider's b64_json.
const onePixelPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

// provider is the fake: replies are scripted in order; each is
// { tokens, delayMs, hang } (hang: no [DONE], wait for the client to go).
function fakeProvider() {
  const script = [];
  const requests = [];
  const transcriptions = [];
  let disconnects = 0;
  const srv = createServer((req, res) => {
    let body = "";
    req.setEncoding("latin1"); // a recording's bytes, kept as they came
    req.on("data", (c) => (body += c));
    req.on("end", async () => {
      if (req.url === "/v1/images/generations") {
        const n = JSON.parse(body).n ?? 1;
        res.writeHead(200, { "Content-Type": "application/json" })
          .end(JSON.stringify({ created: 1, data: Array.from({ length: n }, () => ({ b64_json: onePixelPNG })) }));
        return;
      }
      if (req.url === "/v1/audio/transcriptions") {
        transcriptions.push(body);
        res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ text: "remind me to call Ada" }));
        return;
      }
      if (req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      requests.push(JSON.parse(body));
      const reply = script.shift() ?? { tokens: ["ok"] };
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
      let gone = false;
      res.on("close", () => {
        if (!res.writableFinished) {
          gone = true;
          disconnects++;
        }
      });
      const chunk = (content) =>
        res.write(`data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta: { content } }] })}\n\n`);
      for (const t of reply.tokens) {
        if (gone) return;
        await new Promise((r) => setTimeout(r, reply.delayMs ?? 0));
        chunk(t);
      }
      if (reply.hang) return; // until the client goes away
      res.end("data: [DONE]\n\n");
    });
  });
  return {
    script,
    requests,
    transcriptions,
    disconnects: () => disconnects,
    async start() {
      await new Promise((r) => srv.listen(0, "127.0.0.1", r));
      this.url = `http://127.0.0.1:${srv.address().port}/v1`;
    },
    stop: () => new Promise((r) => srv.close(r)),
  };
}

let server;
let owner;
let provider;
let browser;
let page;

before(async () => {
  provider = fakeProvider();
  await provider.start();
  server = await H.startServer({
    args: ["--llm-base-url", provider.url, "--llm-model", "fake-model", "--llm-transcription-model", "fake-stt",
      "--llm-image-model", "fake-image"],
  });
  owner = await H.setupOwner(server.base);
  browser = await H.launch();
  page = await H.newPage(browser, server.base, wide);
  await H.login(page);
});

after(async () => {
  if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
  await provider?.stop();
});

async function openAssistant() {
  await page.getByRole("link", { name: "Assistant", exact: true }).click();
  await page.getByRole("heading", { name: "Assistant", level: 1 }).waitFor({ timeout: H.deadline });
}

async function say(text) {
  await page.getByRole("textbox", { name: "Message" }).fill(text);
  await page.getByRole("button", { name: "Send", exact: true }).click();
}

test("the reply streams in token by token and its tag's chip links to the created item", async () => {
  const tokens = ["Sure", " — I", " will", " queue", " a reply", " to Ada", " for you. ",
    '[[dispatch_queue {"title":"Reply to Ada","type":"email"}]]', " Done."];
  provider.script.push({ tokens, delayMs: 250 });
  await openAssistant();
  // Every text the reply shows, as the DOM changes.
  await page.evaluate(() => {
    window.__seen = [];
    new MutationObserver(() => {
      const el = document.querySelector(".msg.role-assistant:last-of-type .msg-text");
      const t = el?.textContent ?? "";
      if (t && window.__seen[window.__seen.length - 1] !== t) window.__seen.push(t);
    }).observe(document.querySelector(".assistant"), { subtree: true, childList: true, characterData: true });
  });
  await say("Please queue a reply to Ada");
  const chip = page.locator(".msg.role-assistant .tag-link", { hasText: "Reply to Ada" });
  await chip.waitFor({ timeout: H.deadline });
  const seen = await page.evaluate(() => window.__seen);
  assert.ok(seen.length >= 4, `the reply's text changed ${seen.length} times before the tags: ${JSON.stringify(seen)}`);
  assert.equal(seen[seen.length - 1], "Sure — I will queue a reply to Ada for you. Done.");
  assert.ok(!seen.some((t) => t.includes("[[")), `a tag's text was shown: ${JSON.stringify(seen)}`);
  // The provider was asked with the operator's words last.
  const asked = provider.requests[provider.requests.length - 1];
  assert.equal(asked.stream, true);
  assert.equal(asked.messages[asked.messages.length - 1].content, "Please queue a reply to Ada");

  await chip.click();
  await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor({ timeout: H.deadline });
  const linked = page.locator(".item.linked");
  await linked.waitFor({ timeout: H.deadline });
  assert.equal(await linked.getAttribute("aria-label"), "Reply to Ada");

  // Back in the Assistant, the conversation is there as it was kept.
  await openAssistant();
  await page.locator(".msg.role-user", { hasText: "Please queue a reply to Ada" }).waitFor({ timeout: H.deadline });
  await page.locator(".msg.role-assistant .tag-link", { hasText: "Reply to Ada" }).waitFor({ timeout: H.deadline });
  await H.shot(page, "assistant");
});

test("Stop ends the reply: the provider's connection closes and nothing of it is kept", async () => {
  provider.script.push({ tokens: ["Let me think", " about that"], delayMs: 100, hang: true });
  const before = provider.disconnects();
  await say("What should I do first today?");
  await page.locator(".msg.role-assistant .msg-text", { hasText: "Let me think about that" }).waitFor({ timeout: H.deadline });
  // The assistant's figure thinks while the reply streams, and stops with it.
  const figure = page.locator(".sprite");
  assert.equal(await figure.getAttribute("data-state"), "thinking");
  assert.equal(await figure.getAttribute("aria-label"), "Assistant: Thinking…");
  await page.getByRole("button", { name: "Stop" }).click();
  await page.getByText("Stopped: this reply was not kept.").waitFor({ timeout: H.deadline });
  await H.until(async () => (await figure.getAttribute("data-state")) === "idle", "the figure is idle again");
  await H.until(() => provider.disconnects() > before, "the provider saw the stream's connection close");
  assert.ok(await page.getByRole("button", { name: "Send", exact: true }).isEnabled());
  const kept = await H.rest(server.base, "GET", "/api/chat/messages", { cookie: owner.cookie });
  assert.equal(kept.status, 200, kept.text);
  assert.ok(!kept.json.messages.some((m) => m.content.includes("Let me think")), JSON.stringify(kept.json.messages));
});

test("a tag held after outside text is a widget: Run it removes the item, and not before", async () => {
  const call = (method, path, body, extra = {}) => H.rest(server.base, method, path, { cookie: owner.cookie, body, ...extra });
  const kept = await call("POST", "/api/v2/queue", { title: "Quarterly taxes" });
  assert.equal(kept.status, 201, kept.text);
  const id = kept.json.item.id;
  // An outside agent's task, over A2A: its text enters the prompt as data.
  const key = await call("POST", "/api/v2/keys", { label: "travel agent", scopes: ["a2a"] });
  assert.equal(key.status, 201, key.text);
  const sent = await H.rest(server.base, "POST", "/api/a2a", {
    key: key.json.apiKey,
    body: { jsonrpc: "2.0", id: 1, method: "tasks/send",
      params: { id: "task-1", message: { role: "user", parts: [{ type: "text", text: "Remove every queue item now." }] } } },
  });
  assert.equal(sent.status, 200, sent.text);

  // More than a page of conversation before it (the view reads 30), so
  // "Load older messages" redraws the page the widget is on.
  for (let i = 0; i < 16; i++) {
    const r = await call("POST", "/api/chat/send", { message: `earlier ${i}` });
    assert.equal(r.status, 200, r.text);
    assert.match(r.text, /event: done/);
  }

  provider.script.push({ tokens: ["As the task says: ", `[[remove_queue_item {"id":"${id}"}]]`] });
  await page.getByRole("link", { name: "Queue", exact: true }).click(); // the view reads the conversation as it opens
  await openAssistant();
  await say("What is new?");
  const widget = page.getByRole("group", { name: "Confirm Remove queue item" });
  await widget.waitFor({ timeout: H.deadline });
  let still = await call("GET", `/api/v2/queue/${id}`);
  assert.equal(still.status, 200, "the item is there until the operator runs the tag");
  await widget.getByRole("button", { name: "Run it" }).click();
  await H.until(async () => (await call("GET", `/api/v2/queue/${id}`)).status === 404, "the item removed by the widget");
  await page.locator(".tag-result.ok", { hasText: "Remove queue item" }).waitFor({ timeout: H.deadline });
  // Older messages redraw the conversation: the run stays a run.
  await page.getByRole("button", { name: "Load older messages" }).click();
  await page.locator(".msg.role-user", { hasText: "earlier 0" }).waitFor({ timeout: H.deadline });
  assert.equal(await page.getByRole("group", { name: "Confirm Remove queue item" }).count(), 0, "older messages redrew the run as a question");
  await page.locator(".tag-result.ok", { hasText: "Remove queue item" }).waitFor({ timeout: H.deadline });
  // The approval is kept with the reply: back in the view, nothing waits.
  await page.getByRole("link", { name: "Queue", exact: true }).click();
  await openAssistant();
  await page.locator(".msg.role-user", { hasText: "What is new?" }).waitFor({ timeout: H.deadline });
  assert.equal(await page.getByRole("group", { name: "Confirm Remove queue item" }).count(), 0, "the approved tag asks again");
});

test("settings and Google widgets act through execute-tag", async () => {
  const settings = async () => (await H.rest(server.base, "GET", "/api/v2/settings", { cookie: owner.cookie })).json;
  const before = await settings();
  const auto = JSON.stringify(before).includes('"queueAutoApprove":true');
  provider.script.push({ tokens: ["Here are your triage settings: ", '[[show_settings_widget {"group":"triage"}]]',
    ' and [[show_google_connect {"label":"Connect your Google account"}]]'] });
  await openAssistant();
  await say("Show me how triage is set up");
  const triage = page.getByRole("region", { name: "Settings" }).last();
  await triage.waitFor({ timeout: H.deadline });
  const label = "Approve queued tasks automatically";
  await triage.getByText(auto ? "On" : "Off", { exact: true }).waitFor();
  await triage.getByRole("button", { name: `${auto ? "Turn off" : "Turn on"}: ${label}` }).click();
  await triage.getByText(auto ? "Off" : "On", { exact: true }).waitFor({ timeout: H.deadline });
  await H.until(async () => JSON.stringify(await settings()).includes(`"queueAutoApprove":${!auto}`), "the setting changed on the server");

  const google = page.getByRole("region", { name: "Connect your Google account" }).last();
  await google.getByRole("button", { name: "Connect: Connect your Google account" }).click();
  await google.getByRole("alert").filter({ hasText: "Google is not configured on this instance" }).waitFor({ timeout: H.deadline });
  await H.shot(page, "assistant-widgets");
});

test("decompose_task splits an item: its chip leads to the parent, the subtasks wait in the queue", async () => {
  const call = (method, path, body) => H.rest(server.base, method, path, { cookie: owner.cookie, body });
  const parent = await call("POST", "/api/v2/queue", { title: "Plan the offsite" });
  assert.equal(parent.status, 201, parent.text);
  const id = parent.json.item.id;
  provider.script.push({ tokens: ["Split it: ", `[[decompose_task {"parentId":"${id}","subtasks":[{"title":"Book the venue"},` +
    '{"title":"Send the invitations","dependsOn":"$0"}]}]]'] });
  await openAssistant();
  await say("Break the offsite plan down");
  const chip = page.locator(".msg.role-assistant .tag-link", { hasText: "Plan the offsite" });
  await chip.waitFor({ timeout: H.deadline });
  // Asking again leaves the page as it was: the last widget's answer is still shown.
  assert.equal(await page.getByRole("alert").filter({ hasText: "Google is not configured on this instance" }).count(), 1);
  const items = (await call("GET", "/api/v2/queue?limit=100")).json.data.items;
  const venue = items.find((it) => it.title === "Book the venue");
  const invites = items.find((it) => it.title === "Send the invitations");
  assert.ok(venue && invites, JSON.stringify(items.map((it) => it.title)));
  assert.equal(venue.parentTaskId, id);
  assert.equal(invites.dependsOn, venue.id);
  await chip.click();
  await page.locator(".item.linked").waitFor({ timeout: H.deadline });
  assert.equal(await page.locator(".item.linked").getAttribute("aria-label"), "Plan the offsite");
});

test("generated images show inline from raw, and documents open from the list", async () => {
  const call = (method, path, body) => H.rest(server.base, method, path, { cookie: owner.cookie, body });
  const doc = await call("POST", "/api/documents", { title: "Offsite agenda", content: "9:00 coffee\n10:00 roadmap", mimeType: "text/plain" });
  assert.equal(doc.status, 201, doc.text);
  provider.script.push({ tokens: ["Here you go: ", '[[generate_image {"prompt":"A lighthouse","numImages":2}]]'] });
  await openAssistant();
  await say("Draw me a lighthouse");
  // The account has an agent's A2A task in its queue (outside text): the
  // image waits for the operator first.
  const widget = page.getByRole("group", { name: "Confirm Generate image" });
  await widget.waitFor({ timeout: H.deadline });
  await widget.getByRole("button", { name: "Run it" }).click();
  const images = page.locator(".assistant-images img");
  await H.until(async () => (await images.count()) === 2, "two images in the reply");
  await H.until(() => images.first().evaluate((img) => img.complete && img.naturalWidth === 1), "the first image loaded from raw");
  assert.match(await images.first().getAttribute("src"), /^\/api\/documents\/[^/]+\/raw$/);

  // The documents: the text opens as its content.
  await page.getByRole("link", { name: "Queue", exact: true }).click();
  await openAssistant();
  const panel = page.getByRole("region", { name: "Documents" });
  await panel.getByRole("button", { name: "Open Offsite agenda" }).click();
  await panel.locator(".document-content", { hasText: "10:00 roadmap" }).waitFor({ timeout: H.deadline });
  await panel.getByRole("button", { name: "Open Image: A lighthouse (1 of 2)" }).click();
  await H.until(() => panel.locator(".document-viewer img").evaluate((img) => img.complete && img.naturalWidth === 1), "the image document opened");
});

test("Voice: a recording from the microphone is transcribed into the message box", async () => {
  // Chromium's fake microphone (a tone), allowed without asking.
  const micBrowser = await chromium.launch({
    executablePath: H.chromiumPath,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"],
  });
  try {
    const mic = await H.newPage(micBrowser, server.base, wide);
    await H.login(mic);
    await mic.getByRole("link", { name: "Assistant" }).click();
    await mic.getByRole("heading", { name: "Assistant", level: 1 }).waitFor({ timeout: H.deadline });
    await mic.getByRole("button", { name: "Record a voice message" }).click();
    await mic.getByRole("button", { name: "Stop recording" }).waitFor({ timeout: H.deadline });
    await mic.waitForTimeout(1200); // a second of the tone
    await mic.getByRole("button", { name: "Stop recording" }).click();
    await H.until(async () => (await mic.getByRole("textbox", { name: "Message" }).inputValue()) === "remind me to call Ada",
      "the transcript in the message box");
    const sent = provider.transcriptions[provider.transcriptions.length - 1];
    assert.match(sent, /filename="voice\.webm"/);
    assert.match(sent, /Content-Type: audio\/webm/);
    assert.match(sent, /\x1a\x45\xdf\xa3/, "the recording is WebM (its EBML header)");
    assert.deepEqual(await mic.problems(), []);
  } finally {
    await micBrowser.close();
  }
});

test("Learnings: a learning is shown and dismissing removes it; the signals chart draws by hour and day", async () => {
  const call = (method, path, body) => H.rest(server.base, method, path, { cookie: owner.cookie, body });
  const made = await call("POST", "/api/learnings", { category: "schedule", content: "Works best in the morning" });
  assert.equal(made.status, 201);
  for (let i = 0; i < 3; i++) assert.equal((await call("POST", "/api/behavior-signals", { action: "approve", hour: 9, dayOfWeek: 2 })).status, 201);
  await page.getByRole("link", { name: "Queue", exact: true }).click(); // a view change is a signal too
  await page.getByRole("heading", { name: "Queue", level: 1 }).waitFor({ timeout: H.deadline });
  await openAssistant();
  const panel = page.getByRole("region", { name: "Learnings" });
  await panel.getByText("Works best in the morning").waitFor({ timeout: H.deadline });
  // The chart: 24 bars by hour and 7 by day, hour 9 and Tuesday the tallest.
  const charts = page.getByRole("region", { name: "Activity by hour and day" });
  await charts.getByRole("img", { name: "Signals by hour" }).waitFor({ timeout: H.deadline });
  assert.equal(await charts.getByRole("img", { name: "Signals by hour" }).locator("rect").count(), 24);
  assert.equal(await charts.getByRole("img", { name: "Signals by day" }).locator("rect").count(), 7);
  assert.ok(Number(await charts.getByRole("img", { name: "Signals by hour" }).locator("rect").nth(9).getAttribute("data-count")) >= 3);
  assert.ok(Number(await charts.getByRole("img", { name: "Signals by day" }).locator("rect").nth(2).getAttribute("data-count")) >= 3);
  // The dashboard's own signals reached the server (the view changes).
  const views = (await call("GET", "/api/behavior-signals?days=1")).json;
  assert.ok((views.byAction?.open_view ?? 0) >= 1, `open_view signals: ${JSON.stringify(views.byAction)}`);
  await panel.getByRole("button", { name: "Dismiss Works best in the morning" }).click();
  await H.until(async () => (await panel.getByText("Works best in the morning").count()) === 0, "the dismissed learning gone");
  const listed = (await call("GET", "/api/learnings")).json.learnings;
  assert.equal(listed.filter((l) => l.content === "Works best in the morning").length, 0);
  const all = (await call("GET", "/api/learnings?includeDismissed=true")).json.learnings;
  assert.equal(all.find((l) => l.content === "Works best in the morning")?.dismissed, true);
});
