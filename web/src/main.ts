// The dashboard's shell: session check, login, navigation between the views
// (hash routes, so the server serves one page at "/"), the live stream, and
// the spec's window events.
import { signal } from "./signal";
import "./style.css";

import { api, isUnauthenticated } from "./api";
import { h, replace } from "./dom";
import { live, metadataOf } from "./live";
import { announce, navigateEvent, onRefresh, type Topic } from "./refresh";
import { sprite } from "./sprite";
import { errorBox, sessionEvents, type View } from "./ui";
import { adminView } from "./views/admin";
import { assistantView } from "./views/assistant";
import { boardView } from "./views/board";
import { chatView } from "./views/chat";
import { contactsView } from "./views/contacts";
import { developerView } from "./views/developer";
import { engagementsView } from "./views/engagements";
import { inviteView } from "./views/invite";
import { loginView, type LoggedIn } from "./views/login";
import { networkView } from "./views/network";
import { nowView } from "./views/now";
import { profileView, teamProfileView } from "./views/profile";
import { projectsView } from "./views/projects";
import { queueView } from "./views/queue";
import { settingsView } from "./views/settings";
import { storeView } from "./views/store";
import { teamsView } from "./views/teams";
import { QueueStatus, StreamEvent } from "./gen/vocabulary_terms";
import type { RecordEvent } from "./live";
import { tabBadges, waiting } from "./waiting";

const app = document.getElementById("app")!;

const tabs = [
  { id: "now", title: "Now" },
  { id: "queue", title: "Queue" },
  { id: "board", title: "Board" },
  { id: "projects", title: "Projects" },
  { id: "teams", title: "Teams" },
  { id: "engagements", title: "Engagements" },
  { id: "contacts", title: "Contacts" },
  { id: "assistant", title: "Assistant" },
  { id: "chat", title: "Chat" },
  { id: "store", title: "Store" },
  { id: "network", title: "Network" },
  { id: "developer", title: "Developer" },
  { id: "settings", title: "Settings" },
  { id: "admin", title: "Admin" },
] as const;
type TabId = (typeof tabs)[number]["id"];

// The pages that are no tab: an invite link's page (#/invite/<token>) and a
// user's profile (#/profile/<userId>), both readable signed out too, as is a
// team's profile (#/teams/<id>/profile).
const pages = [
  { id: "invite", title: "Team invite" },
  { id: "profile", title: "Profile" },
] as const;
type PageId = (typeof pages)[number]["id"];

// sub is what follows the id ("profile" in #/teams/<id>/profile).
type Route = { tab: TabId | PageId; id?: string; sub?: string; params: URLSearchParams };

function parseRoute(hash: string): Route | null {
  if (!hash.startsWith("#/")) return hash === "" || hash === "#" ? { tab: "now", params: new URLSearchParams() } : null;
  const [path, query = ""] = hash.slice(2).split("?", 2);
  const [tab, id, sub] = path.split("/", 3);
  const known = tabs.find((t) => t.id === tab) ?? pages.find((p) => p.id === tab);
  return {
    tab: known ? known.id : "now",
    id: id ? decodeURIComponent(id) : undefined,
    sub: sub || undefined,
    params: new URLSearchParams(query),
  };
}

// inviteToken is the token of an invite page's address, or "".
function inviteToken(hash: string): string {
  const r = parseRoute(hash);
  return r?.tab === "invite" && r.id ? r.id : "";
}

// publicPage is the view of an address readable signed out (a user's or a
// team's profile) with its title, or null.
function publicPage(hash: string): { title: string; view: () => View } | null {
  const r = parseRoute(hash);
  if (r?.tab === "profile" && r.id) {
    const id = r.id;
    return { title: "Profile", view: () => profileView(id) };
  }
  if (r?.tab === "teams" && r.id && r.sub === "profile") {
    const id = r.id;
    return { title: "Team profile", view: () => teamProfileView(id) };
  }
  return null;
}

const accountKey = "switchboard.account";

function account(): LoggedIn | null {
  try {
    return JSON.parse(sessionStorage.getItem(accountKey) ?? "null") as LoggedIn | null;
  } catch {
    return null;
  }
}

let current: View | null = null;
let shell: { main: HTMLElement; links: Map<TabId, HTMLAnchorElement>; badge: HTMLElement } | null = null;
let stopShell: (() => void) | null = null;

function unmountView(): void {
  current?.unmount();
  current = null;
}

// showInviteSignedOut shows an invite link's page to someone not signed in:
// the invite's preview, and a way to the login page, which comes back here.
function showInviteSignedOut(token: string): void {
  unmountView();
  stopShell?.();
  stopShell = null;
  shell = null;
  live.stop();
  document.title = "Team invite · Switchboard";
  current = inviteView(token, () => showLogin("Log in to answer the invite."));
  replace(app, h("main", { id: "main", class: "login invite-signed-out", tabindex: -1 }, current.el));
}

// showPublicSignedOut shows a profile to someone not signed in, with a way
// to the login page.
function showPublicSignedOut(page: { title: string; view: () => View }): void {
  unmountView();
  stopShell?.();
  stopShell = null;
  shell = null;
  live.stop();
  document.title = `${page.title} · Switchboard`;
  current = page.view();
  replace(
    app,
    h(
      "main",
      { id: "main", class: "login profile-signed-out", tabindex: -1 },
      current.el,
      h("p", null, h("a", { href: "#/login", onclick: (e: Event) => { e.preventDefault(); showLogin(); } }, "Log in to Switchboard")),
    ),
  );
}

function showLogin(notice = ""): void {
  unmountView();
  stopShell?.();
  stopShell = null;
  shell = null;
  live.stop();
  document.title = "Log in · Switchboard";
  replace(
    app,
    loginView(notice, (u) => {
      sessionStorage.setItem(accountKey, JSON.stringify(u));
      if (!location.hash.startsWith("#/") || location.hash.startsWith("#/login")) history.replaceState(null, "", "#/now");
      startShell();
    }),
  );
}

async function logout(): Promise<void> {
  try {
    await api.accounts.logout({});
  } catch {
    // Already logged out, or unreachable: the login page is right either way.
  }
  sessionStorage.removeItem(accountKey);
  showLogin("You are logged out.");
}

function startShell(): void {
  const links = new Map<TabId, HTMLAnchorElement>();
  const badge = h("span", { class: "badge", hidden: true });
  // What waits for an answer, on the tab where it is answered.
  const waitingStops: (() => void)[] = [];
  const nav = h(
    "nav",
    { class: "tabs", "aria-label": "Views" },
    h(
      "ul",
      null,
      tabs.map((t) => {
        const w = tabBadges(t.id);
        waitingStops.push(w.stop);
        const a = h("a", { href: `#/${t.id}`, "data-tab": t.id }, t.title, t.id === "now" ? badge : null, w.els);
        links.set(t.id, a);
        // Admin shows once the server says the caller is the admin (below).
        return h("li", { hidden: t.id === "admin" }, a);
      }),
    ),
  );
  const liveEl = h("span", { class: "live-state", role: "status", title: "The live event stream" });
  const showLive = () => {
    liveEl.dataset.state = live.state;
    liveEl.textContent = live.state === "live" ? "Live" : live.state === "connecting" ? "Connecting…" : "Offline";
  };
  showLive();
  const main = h("main", { id: "main", tabindex: -1 });
  const who = account();
  replace(
    app,
    h(
      "div",
      { class: "shell" },
      h(
        "header",
        { class: "top" },
        h("a", { class: "brand", href: "#/now" }, "Switchboard"),
        h(
          "div",
          { class: "top-right" },
          liveEl,
          who && h("span", { class: "who" }, who.name || who.username),
          h("button", { type: "button", class: "secondary small", onclick: () => void logout() }, "Log out"),
        ),
      ),
      nav,
      main,
      h("div", { id: "toast", class: "toast", role: "status", "aria-live": "polite" }),
      sprite.el,
    ),
  );
  shell = { main, links, badge };
  void sprite.load();

  // The pending count on the Now tab.
  const refreshBadge = async () => {
    try {
      const res = await api.queue.listQueueItems({ status: QueueStatus.PendingConfirmation, limit: 1 });
      const n = res.data?.pagination?.total ?? 0;
      badge.hidden = n === 0;
      badge.textContent = String(n);
      badge.setAttribute("aria-label", `${n} waiting for approval`);
      sprite.wait(n);
    } catch (e) {
      if (isUnauthenticated(e) && shell) showLogin("Your session has ended. Log in again.");
    }
  };
  void refreshBadge();
  void waiting.refresh();
  // Only the admin may read the federation status: its answer tells whether
  // the Admin tab is theirs.
  api.federation.getFederationStatus({}).then(
    () => {
      const li = links.get("admin")?.parentElement;
      if (li) li.hidden = false;
    },
    () => {},
  );
  const offBadge = onRefresh("now", () => {
    void refreshBadge();
    void waiting.refresh();
  });
  const badgeTimer = setInterval(() => {
    void refreshBadge();
    void waiting.refresh();
  }, 60_000);

  // What the stream tells becomes the spec's window events, so every view
  // (and any embedded widget) refreshes: a comms message about a queue item
  // means the queue moved; wake means an urgent item became ready. (The chat
  // view takes new messages from the stream itself.)
  const onMessage = (e: Event) => {
    const m = (e as CustomEvent).detail;
    if (metadataOf(m).queueItemId) announce("queue", "now", "board", "activity");
  };
  const onWake = () => announce("now", "queue");
  // queue_updated: an item was created, changed or deleted, by anyone.
  const onQueue = () => announce("queue", "now", "board");
  // The dashboard's kinds: the views that show the record read it again,
  // and the waiting counts with them (Now's refresh asks for them). A burst
  // of changes (an agent filing ten cards) is read again once.
  const due = new Set<Topic>();
  let dueTimer: ReturnType<typeof setTimeout> | undefined;
  const soon = (...topics: Topic[]) => {
    topics.forEach((t) => due.add(t));
    dueTimer ??= setTimeout(() => {
      dueTimer = undefined;
      const all = [...due];
      due.clear();
      announce(...all);
    }, 100);
  };
  const onRecord = (e: Event) => {
    const t = (e as CustomEvent<RecordEvent>).detail.type;
    if (t === StreamEvent.CardChanged) soon("board", "now", "activity");
    else if (t === StreamEvent.ContactChanged) soon("contacts", "activity");
    else if (t === StreamEvent.StoreChanged) soon("store", "now");
    else if (t === StreamEvent.EconomyChanged) soon("now", "activity");
    else soon("network", "now", "activity");
  };
  const onLiveEnd = () => {
    if (shell) showLogin("Your session has ended. Log in again.");
  };
  live.addEventListener("message", onMessage);
  live.addEventListener("wake", onWake);
  live.addEventListener("queue", onQueue);
  live.addEventListener("record", onRecord);
  live.addEventListener("state", showLive);
  live.addEventListener("unauthenticated", onLiveEnd);
  live.start();

  stopShell = () => {
    offBadge();
    clearInterval(badgeTimer);
    live.removeEventListener("message", onMessage);
    live.removeEventListener("wake", onWake);
    live.removeEventListener("queue", onQueue);
    live.removeEventListener("record", onRecord);
    clearTimeout(dueTimer);
    waitingStops.forEach((stop) => stop());
    live.removeEventListener("state", showLive);
    live.removeEventListener("unauthenticated", onLiveEnd);
  };
  route();
}

function route(): void {
  if (!shell) {
    // Signed out, an invite link opened in this tab still shows its invite;
    // leaving the invite's page for another is the login page.
    const token = inviteToken(location.hash);
    const page = publicPage(location.hash);
    if (token) showInviteSignedOut(token);
    else if (page) showPublicSignedOut(page);
    else if (current) showLogin();
    return;
  }
  const r = parseRoute(location.hash);
  if (!r) return; // an in-page anchor such as the skip link
  signal("open_view", { view: r.tab });
  unmountView();
  for (const [id, a] of shell.links) {
    if (id === r.tab) {
      a.setAttribute("aria-current", "page");
      // On a phone the tabs scroll sideways: keep the current one in sight.
      a.scrollIntoView({ block: "nearest", inline: "nearest" });
    } else a.removeAttribute("aria-current");
  }
  const who = account();
  switch (r.tab) {
    case "now":
      current = nowView();
      break;
    case "queue":
      current = queueView(r.params);
      break;
    case "board":
      current = boardView(r.params);
      break;
    case "engagements":
      current = engagementsView(r.params, r.id);
      break;
    case "contacts":
      current = contactsView(r.params, r.id);
      break;
    case "projects":
      current = projectsView(r.params, who, r.id);
      break;
    case "teams":
      current = r.id && r.sub === "profile" ? teamProfileView(r.id) : teamsView(who, r.id);
      break;
    case "profile":
      current = profileView(r.id ?? "", who);
      break;
    case "invite":
      current = inviteView(r.id ?? "");
      break;
    case "assistant":
      current = assistantView();
      break;
    case "chat":
      current = chatView(r.params);
      break;
    case "store":
      current = storeView(r.params, r.id);
      break;
    case "network":
      current = networkView();
      break;
    case "developer":
      current = developerView();
      break;
    case "settings":
      current = settingsView(who, () => void logout());
      break;
    case "admin":
      current = adminView();
      break;
  }
  replace(shell.main, current.el);
  document.title = `${[...tabs, ...pages].find((t) => t.id === r.tab)?.title} · Switchboard`;
}

window.addEventListener("hashchange", route);

// service:navigate-tab: another part of the page (or an embedded widget) asks
// for a view, by name in detail ("queue") or detail.tab.
window.addEventListener(navigateEvent, (e) => {
  const d = (e as CustomEvent<unknown>).detail;
  const tab = typeof d === "string" ? d : d && typeof d === "object" ? (d as { tab?: unknown }).tab : undefined;
  if (typeof tab === "string" && tabs.some((t) => t.id === tab)) location.hash = `#/${tab}`;
});

// Several calls may find the session gone at once: the login page shows once.
sessionEvents.addEventListener("ended", () => {
  if (shell) showLogin("Your session has ended. Log in again.");
});

// The skip link moves focus to the view without touching the route.
document.querySelector<HTMLAnchorElement>(".skip-link")?.addEventListener("click", (e) => {
  e.preventDefault();
  document.getElementById("main")?.focus();
});

async function boot(): Promise<void> {
  try {
    // Who the cookie is tells whether it is still good, and names the user
    // in a tab that did not log in (sessionStorage is per tab).
    const me = await api.accounts.getCurrentUser({});
    if (me.user) sessionStorage.setItem(accountKey, JSON.stringify({ username: me.user.username, name: me.user.name, id: me.user.id }));
    startShell();
  } catch (e) {
    if (isUnauthenticated(e)) {
      const token = inviteToken(location.hash);
      const page = publicPage(location.hash);
      if (token) showInviteSignedOut(token);
      else if (page) showPublicSignedOut(page);
      else showLogin();
      return;
    }
    replace(
      app,
      h("main", { id: "main", class: "login" }, h("h1", null, "Switchboard"), errorBox(e, () => void boot())),
    );
  }
}

void boot();
