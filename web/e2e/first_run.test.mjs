// Issue 31, points 4 and 9, end to end at both window sizes: a fresh
// instance opens on owner creation, and a login before any account exists
// answers the ruling's words ("No account exists yet: create the owner") and
// leads back there; the header names the user in every tab, also one that
// did not log in; the sidebar (the tab row on a phone) stays in place while
// the page scrolls.
import assert from "node:assert/strict";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

let server;
let browser;
let page;

const test = H.explaining(nodeTest, () => ({ pages: [page], servers: [server] }));

const sizes = [
  ["wide", { width: 1280, height: 800 }],
  ["phone", { width: 390, height: 844 }],
];

before(async () => {
  browser = await H.launch();
});

after(async () => {
  await page?.context().close();
  await browser?.close();
  await server?.stop();
});

for (const [size, viewport] of sizes) {
  test(`${size}: a fresh instance opens on owner creation; a login before it says no account exists yet`, async () => {
    await server?.stop();
    server = await H.startServer();
    await page?.context().close();
    page = await H.newPage(browser, server.base, viewport);
    const p = page;
    await p.goto("/");
    await p.getByRole("heading", { name: "Create the owner account", level: 1 }).waitFor({ timeout: H.deadline });
    assert.equal(await p.locator("main.login").getAttribute("data-setup"), "offered");
    const username = p.getByLabel("Username (2–30 of a–z, 0–9, _ . -)");
    await H.until(() => username.evaluate((el) => el === document.activeElement), "the owner's username has the focus");
    // The login is there, folded under it.
    const loginPart = p.locator("details.login-later");
    assert.equal(await loginPart.getAttribute("open"), null);
    assert.equal(await p.getByLabel("Username or email").isVisible(), false);

    await p.getByText("Already set up? Log in").click();
    await p.getByLabel("Username or email").fill("ann");
    await p.getByLabel("Password", { exact: true }).fill("some password");
    await p.getByRole("button", { name: "Log in" }).click();
    const alert = p.getByRole("alert");
    await alert.waitFor({ timeout: H.deadline });
    assert.equal(await alert.textContent(), "No account exists yet: create the owner");
    await H.until(() => username.evaluate((el) => el === document.activeElement), "back on owner creation");

    await username.fill("olive");
    await p.getByLabel("Name", { exact: true }).fill("Olive Owner");
    await p.getByLabel("Email", { exact: true }).fill("olive@example.com");
    await p.getByLabel("Password (at least 8 characters)").fill("a long passphrase");
    await p.getByLabel("I accept the terms of use").check();
    await p.getByRole("button", { name: "Create the owner account" }).click();
    await p.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
    assert.equal(await p.locator("header .who").textContent(), "Olive Owner");
    assert.ok(await p.locator("header .who").isVisible(), "the name shows in the header");

    // Once the owner exists the page is the login again.
    await p.getByRole("button", { name: "Log out" }).click();
    await p.getByRole("heading", { name: "Log in to Switchboard", level: 1 }).waitFor({ timeout: H.deadline });
    assert.equal(await p.locator("main.login").getAttribute("data-setup"), "done");
    assert.equal(await p.getByRole("heading", { name: "Create the owner account" }).count(), 0);
    assert.deepEqual(await p.problems(), []);
  });

  test(`${size}: the header names the user in a tab that did not log in`, async () => {
    const p = page;
    await p.getByLabel("Username or email").fill("olive");
    await p.getByLabel("Password", { exact: true }).fill("a long passphrase");
    await p.getByRole("button", { name: "Log in" }).click();
    await p.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
    // A second tab of the same browser: the session cookie, but none of the
    // first tab's sessionStorage.
    const tab = await p.context().newPage();
    try {
      await tab.goto("/#/board");
      await tab.getByRole("heading", { name: "Board", level: 1 }).waitFor({ timeout: H.deadline });
      const who = tab.locator("header .who");
      await H.until(async () => (await who.count()) === 1 && (await who.textContent()) === "Olive Owner", "the new tab's header names Olive");
      assert.ok(await who.isVisible(), "the name shows in the header");
      for (const [view, heading] of [["queue", "Queue"], ["settings", "Settings"]]) {
        await tab.goto(`/#/${view}`);
        await tab.getByRole("heading", { name: heading, level: 1 }).waitFor({ timeout: H.deadline });
        assert.equal(await who.textContent(), "Olive Owner");
      }
    } finally {
      await tab.close();
    }
  });

  test(`${size}: the navigation stays in place while the page scrolls`, async () => {
    const p = page;
    // Enough items that the Queue's page is longer than the window.
    const key = await (async () => {
      const login = await H.rest(server.base, "POST", "/api/auth/login", { body: { username: "olive", password: "a long passphrase" } });
      const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
      const made = await H.rest(server.base, "POST", "/api/v2/keys", { cookie, body: { label: "filler", scopes: [] } });
      assert.equal(made.status, 201, made.text);
      return made.json.apiKey;
    })();
    for (let i = 1; i <= 20; i++) {
      const res = await H.rest(server.base, "POST", "/api/v2/queue", { key, body: { title: `Filler task ${i}`, description: "Something to read on a long page." } });
      assert.equal(res.status, 201, res.text);
    }
    await p.goto("/#/queue");
    await p.locator("article.item", { hasText: "Filler task 1" }).first().waitFor({ timeout: H.deadline });
    const nav = p.locator("nav.tabs");
    const before = await nav.boundingBox();
    const scrolled = await p.evaluate(() => {
      window.scrollTo(0, 600);
      return window.scrollY;
    });
    assert.ok(scrolled >= 300, `the page scrolls (by ${scrolled}px)`);
    await H.until(async () => {
      const box = await nav.boundingBox();
      return box !== null && Math.abs(box.y - before.y) < 2;
    }, "the navigation has not moved");
    assert.ok(await p.locator('nav.tabs a[data-tab="now"]').isVisible(), "the first tab is still on screen");
    const top = await p.locator("header.top").boundingBox();
    assert.ok(top.y >= 0 && top.y < 2, `the top bar stays at the top (y ${top.y})`);
    assert.deepEqual(await p.problems(), []);
  });
}
