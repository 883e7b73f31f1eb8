// Issue 29 (the task economy) in the dashboard, end to end: the real binary
// on SQLite, Chromium driving two operators of one instance in browser
// contexts of their own. The tests run in order and share the server. Ann
// opens Bob's profile and hires him from it: a price past the instance's
// hold limit is refused in the server's words (402), a smaller one opens the
// new contract. Bob accepts in his browser and Ann sees it active; Bob
// delivers with a link, Ann closes (the hold captured, Bob paid the price
// less the fee), and both review: each side sees the other's review only
// once both are in, and Bob hides his text. Last, Ann finds Bob through
// Find providers and hires him again; Bob accepts and disputes over REST,
// and Ann, the instance admin, splits the dispute from Admin.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { after, before, test as nodeTest } from "node:test";

import * as H from "./harness.mjs";

const test = H.explaining(nodeTest, () => ({ pages: [annPage, bobPage], servers: [server] }));

const wide = { width: 1280, height: 800 };
const narrow = { width: 390, height: 844 };

const bob = { username: "bob", email: "bob@example.com", password: "another horse battery", name: "Bob Builder" };
// $500.00: the most a client may hold open (--economy-hold-limit, in cents).
const holdLimit = 50_000;

let server;
let ann;
let bobCookie;
let bobId;
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

// contract is the contract page's article once it shows status.
async function contract(page, status) {
  const article = page.locator(`article.contract-detail[data-status="${status}"]`);
  await article.waitFor({ timeout: H.deadline });
  return article;
}

before(async () => {
  mkdirSync(H.shots, { recursive: true });
  server = await H.startServer({ args: ["--economy-hold-limit", String(holdLimit)] });
  ann = await H.setupOwner(server.base);
  const signup = await H.rest(server.base, "POST", "/api/signup", { body: bob });
  assert.equal(signup.status, 201, signup.text);
  bobId = signup.json.user.id;
  const login = await H.rest(server.base, "POST", "/api/auth/login", { body: { username: bob.username, password: bob.password } });
  bobCookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
  assert.ok(login.status === 200 && bobCookie, login.text);
  // What Bob offers, for Find providers: research at $50.
  const cap = await as(bobCookie)("POST", "/api/economy/capabilities", {
    taskType: "research",
    description: "Market research",
    pricingModel: "flat",
    price: 50,
    currency: "USD",
  });
  assert.ok(cap.status === 200 || cap.status === 201, cap.text);
  browser = await H.launch();
  annPage = await H.newPage(browser, server.base, wide);
  bobPage = await H.newPage(browser, server.base, wide);
  await H.login(annPage);
  await bobPage.goto("/");
  await bobPage.getByLabel("Username or email").fill(bob.username);
  await bobPage.getByLabel("Password", { exact: true }).fill(bob.password);
  await bobPage.getByRole("button", { name: "Log in" }).click();
  await bobPage.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: H.deadline });
});

after(async () => {
  for (const page of [annPage, bobPage]) if (page) assert.deepEqual(await page.problems(), []);
  await browser?.close();
  await server?.stop();
});

test("Ann hires Bob from his profile: a refused hold in the server's words, then the contract", async () => {
  await annPage.goto(`/#/profile/${encodeURIComponent(bobId)}`);
  await annPage.getByRole("heading", { name: bob.name, level: 1 }).waitFor({ timeout: H.deadline });
  await annPage.locator(".profile-actions").getByRole("button", { name: `Hire ${bob.name}` }).click();
  const form = annPage.getByRole("form", { name: `Hire ${bob.name}` });
  await form.getByLabel("Title").fill("Market scan");
  // His capability's task type comes chosen.
  assert.equal(await form.getByLabel("Task type").inputValue(), "research");
  await form.getByLabel("Scope (one item a line)").fill("Ten competitors\n\nA summary");
  await form.getByLabel("Currency").fill("USD");
  // Past the hold limit: the 402, as the server words it.
  await form.getByLabel("Price").fill("600");
  await form.getByRole("button", { name: `Hire ${bob.name}` }).click();
  const refusal = form.locator(".form-status .error");
  await refusal.waitFor({ timeout: H.deadline });
  assert.match(await refusal.textContent(), /refuses to hold 600\.00 USD more.*at most 500\.00 USD/);

  await form.getByLabel("Price").fill("123.45");
  await pictures(annPage, "profile-hire");
  await form.getByRole("button", { name: `Hire ${bob.name}` }).click();
  const page = await contract(annPage, "offered");
  await annPage.getByRole("heading", { name: "Market scan", level: 2 }).waitFor({ timeout: H.deadline });
  made.id = decodeURIComponent(new URL(annPage.url()).hash.replace("#/engagements/", ""));
  const money = await page.getByRole("region", { name: "Money" }).textContent();
  assert.match(money, /\$123\.45/);
  assert.match(money, /\$12\.35, taken when the contract closes/); // ceil(10 percent)
  assert.match(money, /\$111\.10 when the contract closes/);
  assert.match(money, /Held/);
  const terms = await page.getByRole("region", { name: "Terms" }).textContent();
  assert.match(terms, /Ten competitors/);
  assert.match(terms, /A summary/);
  // The client may only withdraw an offer.
  const moves = page.getByRole("region", { name: "What you can do" });
  assert.deepEqual(await moves.locator("button[data-move]").allTextContents(), ["Withdraw"]);
  const res = await as(ann.cookie)("GET", `/api/economy/contracts/${made.id}`);
  assert.equal(res.status, 200, res.text);
  assert.equal(res.json.contract.status, "offered");
  assert.equal(res.json.contract.paymentHoldStatus, "held");
  assert.equal(res.json.contract.priceCents, 12345);
  assert.deepEqual(res.json.contract.scope, ["Ten competitors", "A summary"]);
});

test("Bob accepts in his browser; Ann sees the contract active", async () => {
  await bobPage.getByRole("link", { name: "Engagements", exact: true }).click();
  await bobPage.getByRole("heading", { name: "Engagements", level: 1 }).waitFor({ timeout: H.deadline });
  const row = bobPage.getByRole("list", { name: "Contracts" }).locator("li", { hasText: "Market scan" });
  await row.waitFor({ timeout: H.deadline });
  assert.match(await row.textContent(), /Offered/);
  assert.match(await row.textContent(), /Provider/);
  await row.getByRole("link", { name: "Market scan" }).click();
  const offer = await contract(bobPage, "offered");
  const moves = offer.getByRole("region", { name: "What you can do" });
  assert.deepEqual(await moves.locator("button[data-move]").allTextContents(), ["Accept", "Decline"]);
  await moves.getByRole("button", { name: "Accept", exact: true }).click();
  await contract(bobPage, "active");
  // The economy's comms messages are not on the live stream yet (see
  // docs/decisions.md): Ann loads the page again.
  await annPage.reload();
  const active = await contract(annPage, "active");
  const annMoves = await active.getByRole("region", { name: "What you can do" }).locator("button[data-move]").allTextContents();
  assert.deepEqual(annMoves, ["Dispute", "Share an update", "Ask a question", "Propose more scope"]);
  const thread = active.getByRole("list", { name: "Thread" });
  await thread.locator('li[data-kind="accept"][data-by="provider"]').waitFor({ timeout: H.deadline });
});

test("Bob delivers a summary with a link; Ann closes and Bob is paid", async () => {
  const page = await contract(bobPage, "active");
  const moves = page.getByRole("region", { name: "What you can do" });
  await moves.getByRole("button", { name: "Deliver", exact: true }).click();
  const form = moves.getByRole("form", { name: "Deliver" });
  await form.getByLabel("Summary").fill("The scan: ten competitors and a summary");
  await form.getByLabel("Link (optional)").fill("https://example.com/scan");
  await form.getByRole("button", { name: "Deliver", exact: true }).click();
  const delivered = await contract(bobPage, "delivered");
  const entry = delivered.getByRole("list", { name: "Thread" }).locator('li[data-kind="deliver"]');
  await entry.waitFor({ timeout: H.deadline });
  assert.equal(await entry.getByRole("link", { name: "https://example.com/scan" }).getAttribute("href"), "https://example.com/scan");

  await annPage.reload();
  const annDelivered = await contract(annPage, "delivered");
  await annDelivered.getByRole("list", { name: "Thread" }).getByText("The scan: ten competitors and a summary").waitFor({ timeout: H.deadline });
  await annPage.evaluate(() => window.scrollTo(0, 0));
  await pictures(annPage, "engagement-detail");
  await annDelivered.getByRole("region", { name: "What you can do" }).getByRole("button", { name: "Close", exact: true }).click();
  const closed = await contract(annPage, "closed");
  const money = await closed.getByRole("region", { name: "Money" }).textContent();
  assert.match(money, /Paid to the provider\$111\.10/);
  assert.match(money, /Captured/);
  const res = await as(bobCookie)("GET", `/api/economy/contracts/${made.id}`);
  assert.equal(res.json.contract.providerEarnedCents, 11110, res.text);
  // Bob's earnings show the engagement beside the store's.
  const back = bobPage.url();
  await bobPage.goto("/#/store");
  await bobPage.getByLabel("My listings").check();
  const earned = bobPage.getByRole("list", { name: "Engagement earnings" });
  await earned.getByText("$111.10").waitFor({ timeout: H.deadline });
  await bobPage.goto(back);
});

test("both review; each sees the other's once both are in; Bob hides his text", async () => {
  await bobPage.reload();
  const page = await contract(bobPage, "closed");
  const form = page.getByRole("form", { name: "Your review" });
  for (const [score, value] of [["Overall", "4"], ["Communication", "5"], ["Quality", "4"], ["Timeliness", "3"]]) {
    await form.getByLabel(score).selectOption(value);
  }
  await form.getByLabel("In words (optional)").fill("Clear brief, quick answers");
  await form.getByRole("button", { name: "Submit review" }).click();
  await page.getByRole("region", { name: "Your review" }).waitFor({ timeout: H.deadline });
  await page.getByText(`${H.owner.name} has not reviewed yet.`).waitFor({ timeout: H.deadline });

  // Blind: Ann is told Bob reviewed, not what he wrote.
  await annPage.reload();
  const annClosed = await contract(annPage, "closed");
  await annClosed.getByText(`${bob.name} has reviewed you: it shows once yours is in.`).waitFor({ timeout: H.deadline });
  assert.ok(!(await annClosed.textContent()).includes("Clear brief"));
  const annForm = annClosed.getByRole("form", { name: "Your review" });
  for (const score of ["Overall", "Communication", "Quality", "Timeliness"]) await annForm.getByLabel(score).selectOption("5");
  await annForm.getByLabel("In words (optional)").fill("Great work");
  await annForm.getByRole("button", { name: "Submit review" }).click();
  const bobsReview = annClosed.getByRole("region", { name: `${bob.name}'s review` });
  await bobsReview.waitFor({ timeout: H.deadline });
  assert.match(await bobsReview.textContent(), /Clear brief, quick answers/);
  assert.match(await bobsReview.textContent(), /Communication5 of 5/);
  await pictures(annPage, "engagement-reviews");

  // Bob sees Ann's on his next load.
  await bobPage.reload();
  const annsReview = (await contract(bobPage, "closed")).getByRole("region", { name: `${H.owner.name}'s review` });
  await annsReview.waitFor({ timeout: H.deadline });
  assert.match(await annsReview.textContent(), /Great work/);

  // Bob hides his text: Ann then reads his scores without it.
  await page.getByRole("button", { name: "Hide my review's text" }).click();
  await page.getByRole("button", { name: "Show my review's text" }).waitFor({ timeout: H.deadline });
  await annPage.reload();
  const hidden = (await contract(annPage, "closed")).getByRole("region", { name: `${bob.name}'s review` });
  await hidden.getByText("Its text is hidden.").waitFor({ timeout: H.deadline });
  assert.ok(!(await hidden.textContent()).includes("Clear brief"));
});

test("Ann finds Bob through Find providers and hires him again", async () => {
  await annPage.getByRole("link", { name: "Engagements", exact: true }).click();
  await annPage.getByRole("list", { name: "Contracts" }).locator("li", { hasText: "Market scan" }).waitFor({ timeout: H.deadline });
  const search = annPage.getByRole("search", { name: "Find providers" });
  await search.getByLabel("Task type").selectOption("research");
  await search.getByLabel("Most you would pay (optional)").fill("100");
  await search.getByRole("button", { name: "Find providers" }).click();
  const found = annPage.getByRole("list", { name: "Providers found" }).locator("li", { hasText: bob.name });
  await found.waitFor({ timeout: H.deadline });
  assert.match(await found.textContent(), /\$50\.00/);
  await pictures(annPage, "engagements");
  await found.getByRole("button", { name: `Hire ${bob.name}` }).click();
  const form = found.getByRole("form", { name: `Hire ${bob.name}` });
  assert.equal(await form.getByLabel("Price").inputValue(), "50.00");
  await form.getByLabel("Title").fill("Second scan");
  await form.getByRole("button", { name: `Hire ${bob.name}` }).click();
  await contract(annPage, "offered");
  await annPage.getByRole("heading", { name: "Second scan", level: 2 }).waitFor({ timeout: H.deadline });
  made.second = decodeURIComponent(new URL(annPage.url()).hash.replace("#/engagements/", ""));
});

test("Bob disputes; Ann, the admin, splits it 70/30 from Admin", async () => {
  const bobAs = as(bobCookie);
  let res = await bobAs("POST", `/api/economy/contracts/${made.second}/accept`, {});
  assert.equal(res.status, 200, res.text);
  res = await bobAs("POST", `/api/economy/contracts/${made.second}/dispute`, { reason: "The brief changed after I started" });
  assert.equal(res.status, 200, res.text);

  await annPage.getByRole("link", { name: "Admin", exact: true }).click();
  const disputes = annPage.getByRole("list", { name: "Open disputes" });
  const row = disputes.locator("li", { hasText: "Second scan" });
  await row.waitFor({ timeout: H.deadline });
  assert.match(await row.textContent(), /The brief changed after I started/);
  assert.match(await row.textContent(), /\$50\.00/);
  await pictures(annPage, "admin-disputes");
  const split = row.getByRole("form", { name: "Split: Second scan" });
  await split.getByLabel(`${bob.name}'s share (percent)`).fill("70");
  await split.getByRole("button", { name: "Split" }).click();
  await annPage.getByText("No dispute is open.").waitFor({ timeout: H.deadline });
  res = await as(ann.cookie)("GET", `/api/economy/contracts/${made.second}`);
  assert.equal(res.json.contract.status, "closed", res.text);
  assert.equal(res.json.contract.disputeOutcome, "split");
  assert.equal(res.json.contract.providerPercent, 70);
  // 70 percent of $50 is $35, less its fee $3.50; $15 back to Ann.
  assert.equal(res.json.contract.providerEarnedCents, 3150);
  assert.equal(res.json.contract.refundedCents, 1500);
});
