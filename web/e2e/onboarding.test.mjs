// Issue 31, points 5, 6 and 9 (onboarding, the sprite, voice without a
// transcription model), end to end: the real binary (no language model
// configured) serving the dashboard, Chromium as the operator, at both
// window sizes. Now shows the intro, then the checklist "Getting started",
// whose steps check themselves off as the operator acts (the API key the
// harness made, a settings save) or by "Mark done", and which goes away once
// all six are done; the assistant's figure shows in the corner, follows the
// settings saved in Settings and stands still under reduced motion; the
// Assistant view's voice button is disabled with its reason.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages, servers: [server] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

let server;
let ann;
let browser;
const pages = [];

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  server = await H.startServer();
  ann = await H.setupOwner(server.base);
  browser = await H.launch();
});

after(async () => {
  for (const p of pages) assert.deepEqual(await p.problems(), []);
  await browser?.close();
  await server?.stop();
});

async function open(viewport) {
  const page = await H.newPage(browser, server.base, viewport);
  pages.push(page);
  await H.login(page);
  return page;
}

const api = (method, path, body) => H.rest(server.base, method, path, { cookie: ann.cookie, body });

const stepsList = (page) => page.getByRole("list", { name: "Onboarding steps" });
const step = (page, key) => page.locator(`li.onboarding-step[data-step="${key}"]`);

test("Now: the intro, then the checklist that checks itself off (wide)", async () => {
  const page = await open(wide);
  await page.getByRole("heading", { name: "Welcome to Switchboard" }).waitFor({ timeout: H.deadline });
  await H.shot(page, "onboarding-intro");
  await page.getByRole("button", { name: "Start the checklist" }).click();
  await stepsList(page).waitFor({ timeout: H.deadline });
  assert.equal(await stepsList(page).locator("li").count(), 6);
  // The harness made an API key before the checklist existed.
  await step(page, "api_key").and(page.locator(".done")).waitFor({ timeout: H.deadline });
  assert.match(await page.locator(".onboarding-progress").innerText(), /1 of 6 done/);

  await page.getByRole("button", { name: "Mark done: Add a contact" }).click();
  await step(page, "contact").and(page.locator(".done")).waitFor({ timeout: H.deadline });

  // The real action, elsewhere: the settings saved with auto-approve.
  const saved = await api("PATCH", "/api/v2/settings", { queueAutoApprove: true });
  assert.equal(saved.status, 200, saved.text);
  await page.getByRole("link", { name: "Board", exact: true }).click();
  await page.getByRole("heading", { name: "Board", level: 1 }).waitFor({ timeout: H.deadline });
  await page.getByRole("link", { name: "Now", exact: true }).click();
  await step(page, "auto_approve").and(page.locator(".done")).waitFor({ timeout: H.deadline });
  assert.match(await page.locator(".onboarding-progress").innerText(), /3 of 6 done/);
  assert.equal(await step(page, "store").getByRole("link", { name: "Open the Store" }).getAttribute("href"), "#/store");
  await H.shot(page, "onboarding-checklist");

  const activity = await api("GET", "/api/activity?category=settings&limit=50");
  const actions = activity.json.data.map((e) => e.action);
  assert.ok(actions.includes("setup_action"), `settings activity: ${actions}`);
});

test("Now: the checklist fits a phone and leaves once all six are done (narrow)", async () => {
  const page = await open(narrow);
  await stepsList(page).waitFor({ timeout: H.deadline });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 0, `Now scrolls sideways by ${overflow}px`);
  await H.shot(page, "onboarding-checklist");
  for (const key of ["store", "network"]) {
    const res = await api("POST", "/api/onboarding/advance", { step: key });
    assert.equal(res.status, 200, res.text);
  }
  await page.getByRole("button", { name: "Mark done: Hold a first conversation with the assistant" }).click();
  await page.getByRole("heading", { name: "Getting started" }).waitFor({ state: "hidden", timeout: H.deadline });
  const settings = await api("GET", "/api/v2/settings");
  assert.equal(settings.json.onboardingComplete, true);
  const activity = await api("GET", "/api/activity?category=settings&limit=50");
  assert.ok(activity.json.data.some((e) => e.action === "onboarding_completed"));
});

for (const viewport of [wide, narrow]) {
  test(`the assistant's figure follows its settings at ${viewport.width}x${viewport.height}`, async () => {
    const page = await open(viewport);
    const figure = page.locator(".sprite");
    await figure.waitFor({ timeout: H.deadline });
    assert.equal(await figure.getAttribute("data-state"), "idle");
    assert.equal(await figure.getAttribute("data-size"), "normal");
    assert.match(await figure.getAttribute("aria-label"), /Assistant: Idle/);
    const normal = await figure.locator("svg").boundingBox();

    // Something waiting for the operator shows as the figure's badge: an
    // item an agent files while approval is required, counted as the Now tab
    // counts it.
    assert.equal((await api("PATCH", "/api/v2/settings", { queueAutoApprove: false })).status, 200);
    const filed = await H.rest(server.base, "POST", "/api/v2/queue", { key: ann.key, body: { title: `Sprite badge ${viewport.width}` } });
    assert.equal(filed.status, 201, filed.text);
    const pending = await api("GET", "/api/v2/queue?status=pending_confirmation&limit=1");
    const n = String(pending.json.data.pagination.total);
    assert.ok(Number(n) >= 1, pending.text);
    await H.until(async () => (await figure.locator(".sprite-badge").textContent()) === n && (await figure.getAttribute("data-waiting")) === "true",
      "the figure's badge counts what waits");
    assert.equal(await figure.getAttribute("aria-label"), `Assistant: ${n} waiting for you`);
    assert.equal((await api("DELETE", `/api/v2/queue/${filed.json.item.id}`)).status, 200);
    if (n === "1") await H.until(async () => (await figure.getAttribute("data-waiting")) === "false", "the badge goes with the item");

    await page.getByRole("link", { name: "Settings", exact: true }).click();
    const size = page.getByLabel("Size", { exact: true });
    await size.waitFor({ timeout: H.deadline });
    await size.selectOption("large");
    await page.locator('.sprite[data-size="large"]').waitFor({ timeout: H.deadline });
    const saved = await api("GET", "/api/user/sprite-settings");
    assert.equal(saved.json.settings.size, "large");
    const box = await figure.locator("svg").boundingBox();
    assert.ok(box && normal && box.width > normal.width * 1.3, `the large figure is ${box?.width}px wide, the normal one ${normal?.width}px`);
    await H.shot(page, "sprite-settings");

    // Reduced motion: the figure stands still.
    assert.notEqual(await figure.locator("svg").evaluate((el) => getComputedStyle(el).animationName), "none");
    await page.emulateMedia({ reducedMotion: "reduce" });
    assert.equal(await figure.locator("svg").evaluate((el) => getComputedStyle(el).animationName), "none");
    await page.emulateMedia({ reducedMotion: "no-preference" });

    await page.getByRole("switch", { name: "Show the assistant's figure" }).uncheck();
    await figure.waitFor({ state: "hidden", timeout: H.deadline });
    await page.getByRole("switch", { name: "Show the assistant's figure" }).check();
    await figure.waitFor({ timeout: H.deadline });
    await size.selectOption("normal");
    await page.locator('.sprite[data-size="normal"]').waitFor({ timeout: H.deadline });
  });

  test(`voice is disabled with its reason without a transcription model at ${viewport.width}x${viewport.height}`, async () => {
    const page = await open(viewport);
    await page.getByRole("link", { name: "Assistant", exact: true }).click();
    await page.getByRole("heading", { name: "Assistant", level: 1 }).waitFor({ timeout: H.deadline });
    const voice = page.getByRole("button", { name: "Record a voice message" });
    await H.until(async () => await voice.isDisabled(), "the voice button is disabled");
    const reason = page.locator("#mic-reason");
    await reason.waitFor({ timeout: H.deadline });
    assert.match(await reason.innerText(), /transcription model/);
    assert.equal(await voice.getAttribute("aria-describedby"), "mic-reason");
    await H.shot(page, "assistant-voice-off");
  });
}
