// What waits for the operator's answer (DashboardService.GetWaiting, GET
// /api/dashboard/waiting): one reading the shell keeps, asked again on the
// live stream's events and after the views' own changes, drawn as a badge on
// the tab where each thing is answered and as Now's "Waiting for you" panel.
import { api, isUnauthenticated } from "./api";
import { h, replace } from "./dom";
import type { GetWaitingResponse } from "./gen/switchboard/v1/dashboard_pb";
import { reportUnauthenticated } from "./ui";

type Count = "connectionRequests" | "relays" | "invites" | "storeReviews" | "contractReviews";

// kinds are the things that wait, each with the tab where it is answered and
// its words for one and for several.
export const kinds: { key: Count; tab: string; one: string; many: string }[] = [
  { key: "connectionRequests", tab: "network", one: "connection request", many: "connection requests" },
  { key: "relays", tab: "network", one: "relay held for your review", many: "relays held for your review" },
  { key: "invites", tab: "queue", one: "invite to answer", many: "invites to answer" },
  { key: "storeReviews", tab: "store", one: "store result to review", many: "store results to review" },
  { key: "contractReviews", tab: "engagements", one: "engagement to review", many: "engagements to review" },
];

function words(k: (typeof kinds)[number], n: number): string {
  return `${n} ${n === 1 ? k.one : k.many}`;
}

class Waiting extends EventTarget {
  counts?: GetWaitingResponse;
  private seq = 0;

  // refresh asks the server again; "change" follows the answer. A stale
  // answer never overwrites a newer one.
  async refresh(): Promise<void> {
    const my = ++this.seq;
    try {
      const res = await api.dashboard.getWaiting({});
      if (my !== this.seq) return;
      this.counts = res;
      this.dispatchEvent(new Event("change"));
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      // Otherwise the badges keep the last reading until the next event.
    }
  }

  // on calls fn on every change (and now, when a reading is there) and
  // answers the unsubscribe.
  on(fn: () => void): () => void {
    this.addEventListener("change", fn);
    if (this.counts) fn();
    return () => this.removeEventListener("change", fn);
  }
}

export const waiting = new Waiting();

// tabBadges are the badges of one navigation tab, one per kind answered
// there, kept current until the returned stop.
export function tabBadges(tab: string): { els: HTMLElement[]; stop: () => void } {
  const mine = kinds.filter((k) => k.tab === tab);
  const els = mine.map((k) => h("span", { class: `badge waiting waiting-${k.key}`, "data-waiting": k.key, hidden: true }));
  const stop = waiting.on(() => {
    mine.forEach((k, i) => {
      const n = waiting.counts?.[k.key] ?? 0;
      els[i].hidden = n === 0;
      els[i].textContent = String(n);
      els[i].setAttribute("aria-label", words(k, n));
    });
  });
  return { els, stop };
}

// waitingPanel is Now's "Waiting for you": a link to each kind's view with
// its count, hidden while nothing waits.
export function waitingPanel(): { el: HTMLElement; stop: () => void } {
  const list = h("ul", { class: "waiting-list", "aria-label": "Waiting for you" });
  const el = h(
    "section",
    { class: "panel waiting-panel", "aria-labelledby": "now-waiting", hidden: true },
    h("h2", { id: "now-waiting" }, "Waiting for you"),
    list,
  );
  const stop = waiting.on(() => {
    const c = waiting.counts;
    const shown = kinds.filter((k) => (c?.[k.key] ?? 0) > 0);
    el.hidden = shown.length === 0;
    replace(
      list,
      shown.map((k) =>
        h(
          "li",
          { "data-waiting": k.key },
          h("a", { href: `#/${k.tab}` }, k.many.charAt(0).toUpperCase() + k.many.slice(1)),
          " ",
          h("span", { class: "badge", "aria-label": words(k, c?.[k.key] ?? 0) }, String(c?.[k.key] ?? 0)),
        ),
      ),
    );
  });
  return { el, stop };
}
