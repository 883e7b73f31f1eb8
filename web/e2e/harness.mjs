// The end-to-end harness: the real switchboard binary (built from this
// checkout, with the dashboard embedded) on a fresh SQLite file, Debian's
// Chromium driven by playwright-core, and plain HTTP for the agent's REST calls.
import { spawn, execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const repo = resolve(here, "..", "..");
export const results = join(repo, "web", "test-results");
// Screenshots are test artifacts, or, for `npm run screenshots`, the pictures
// the docs show (docs/screenshots).
export const shots = process.env.SWITCHBOARD_SCREENSHOTS
  ? resolve(process.env.SWITCHBOARD_SCREENSHOTS)
  : join(results, "screenshots");

// Generous deadlines: the machine is small and shared; nothing here is timed.
export const deadline = 30_000;

export const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";

// explaining wraps node:test's test so that a failed test's error also says
// what each page showed and what each server last logged: a failure on a
// loaded CI machine can then be read from the run's output alone.
export function explaining(test, scene) {
  return (name, fn) =>
    test(name, async (t) => {
      try {
        await fn(t);
      } catch (err) {
        const { pages = [], servers = [] } = scene();
        const parts = [];
        for (const p of pages.filter(Boolean)) {
          const text = await p
            .locator("main")
            .innerText({ timeout: 2_000 })
            .catch((e) => `(unreadable: ${e.message})`);
          parts.push(`the page at ${p.url()} showed:\n${text.slice(0, 3_000)}`);
        }
        for (const s of servers.filter(Boolean)) parts.push(`its server last logged:\n${s.log.slice(-40).join("\n")}`);
        if (parts.length && err instanceof Error) err.message += `\n\n${parts.join("\n\n")}`;
        throw err;
      }
    });
}

// until polls fn until it returns a truthy value (or stops throwing), or fails
// with the last error after the deadline.
export async function until(fn, message, timeout = deadline) {
  const end = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = new Error(`not yet: ${message}`);
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`${message}: gave up after ${timeout} ms: ${last?.message ?? last}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}

let built;

// binary builds the switchboard binary from this checkout once per run, or
// takes the one .ci/run built for all its steps (CI_SWITCHBOARD_BINARY).
function binary() {
  if (process.env.CI_SWITCHBOARD_BINARY) return process.env.CI_SWITCHBOARD_BINARY;
  if (!built) {
    const dir = mkdtempSync(join(tmpdir(), "switchboard-e2e-bin-"));
    built = { dir, bin: join(dir, "switchboard") };
    execFileSync("go", ["build", "-o", built.bin, "./cmd/switchboard"], { cwd: repo, stdio: "inherit" });
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
  return built.bin;
}

// freePort answers a loopback port nothing listens on (for a server that must
// know its own address before it starts, such as a spoke's --public-url).
export async function freePort() {
  const srv = createNetServer();
  await new Promise((r) => srv.listen(0, "127.0.0.1", r));
  const { port } = srv.address();
  await new Promise((r) => srv.close(r));
  return port;
}

// startServer starts the binary on a free loopback port (or port) over a new
// SQLite file; args are added to the usual flags.
export async function startServer({ args = [], port = 0 } = {}) {
  const bin = binary();
  const dir = mkdtempSync(join(tmpdir(), "switchboard-e2e-"));
  const child = spawn(
    bin,
    [
      "serve",
      "--addr", `127.0.0.1:${port}`,
      "--db", `sqlite:${join(dir, "switchboard.db")}`,
      "--heartbeat", "5s",
      // The suite logs in many times and calls far more than an operator
      // would in a minute; the limits themselves are tested in Go.
      "--rate-limit-per-minute", "100000",
      "--auth-rate-limit-per-minute", "10000",
      // The store agents the suite runs are small servers on loopback; the
      // production flag lets the outbound guard reach them.
      "--allow-private-endpoints",
      // Info: the "switchboard listening" line names the port.
      "--log-level", "info",
      // The store test's agent is a node:http server on loopback, which the
      // outbound address guard refuses unless private endpoints are allowed.
      "--allow-private-endpoints",
      ...args,
    ],
    { cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  const log = [];
  const base = await new Promise((resolveBase, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${log.join("\n")}`)), 60_000);
    child.on("exit", (code) => reject(new Error(`the server exited (${code}):\n${log.join("\n")}`)));
    // Each server's log is kept beside the other temporary files (outside
    // the server's own directory, which is removed), for whoever reads a
    // failed run.
    const kept = join(tmpdir(), `switchboard-e2e-server-${child.pid}.log`);
    createInterface({ input: child.stderr }).on("line", (line) => {
      log.push(line);
      appendFileSync(kept, line + "\n");
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "switchboard listening") {
          clearTimeout(timer);
          resolveBase(`http://${rec.addr}`);
        }
      } catch {
        // not a log record
      }
    });
  });
  return {
    base,
    log,
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        // The grace period's timer is cleared once the server exits: a
        // pending timer kept every test file's process alive for its 20 s.
        let grace;
        await Promise.race([exited, new Promise((r) => (grace = setTimeout(r, 20_000)))]);
        clearTimeout(grace);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// rest calls the REST mirror as an agent would (a bearer key) or as a session.
export async function rest(base, method, path, { key, cookie, body, headers = {} } = {}) {
  const h = { "Content-Type": "application/json", ...headers };
  if (key) h.Authorization = `Bearer ${key}`;
  if (cookie) {
    h.Cookie = cookie;
    h.Origin = base;
  }
  const res = await fetch(base + path, {
    method,
    headers: h,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

export const owner = { username: "ann", password: "correct horse battery", name: "Ann Operator", email: "ann@example.com" };

// setupOwner creates the instance owner and an API key for "the agent".
export async function setupOwner(base) {
  const setup = await rest(base, "POST", "/api/setup", {
    body: { username: owner.username, email: owner.email, password: owner.password, name: owner.name, acceptedTerms: true },
  });
  if (setup.status !== 201) throw new Error(`setup: ${setup.status} ${setup.text}`);
  const login = await rest(base, "POST", "/api/auth/login", { body: { username: owner.username, password: owner.password } });
  const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0];
  if (login.status !== 200 || !cookie) throw new Error(`login: ${login.status} ${login.text}`);
  const key = await rest(base, "POST", "/api/v2/keys", { cookie, body: { label: "e2e agent", scopes: [] } });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { cookie, key: key.json.apiKey };
}

export async function launch() {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

// newPage opens a page in a fresh context and records what must never happen:
// uncaught errors, Content-Security-Policy violations, and an Authorization
// header (the browser has no API key; it runs on the session cookie). options
// are the context's further options (hasTouch for a phone's finger).
export async function newPage(browser, base, viewport, options = {}) {
  const context = await browser.newContext({ baseURL: base, viewport, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (req) => {
    if (req.headers().authorization) problems.push(`a request carried Authorization: ${req.url()}`);
  });
  await page.addInitScript(() => {
    window.__cspViolations = [];
    document.addEventListener("securitypolicyviolation", (e) =>
      window.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  page.problems = async () => {
    const csp = await page.evaluate(() => window.__cspViolations ?? []).catch(() => []);
    return [...problems, ...csp.map((v) => `CSP violation: ${v}`)];
  };
  return page;
}

export async function login(page, who = owner) {
  await page.goto("/");
  await page.getByLabel("Username or email").fill(who.username);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Log in" }).click();
  await page.getByRole("heading", { name: "Now", level: 1 }).waitFor({ timeout: deadline });
}

// prepareResults makes the screenshot directory. Emptying it is the npm
// scripts' job, once per run: a test file that did it would delete the
// pictures of the files that ran before it.
export function prepareResults() {
  mkdirSync(shots, { recursive: true });
}

// shot saves a screenshot of the page into shots.
export async function shot(page, name) {
  const { width, height } = page.viewportSize();
  // Let the toast and any transition settle so the picture shows the view.
  await page.evaluate(() => document.getElementById("toast")?.classList.remove("shown"));
  await until(async () => (await page.locator('[aria-busy="true"], .loading').count()) === 0, `${name} finished loading`);
  await page.waitForTimeout(300); // transitions (toast, switch) end
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: join(shots, `${name}-${width}x${height}.png`) });
}
