// Now: what waits for the operator. Today's calendar events (a day strip, each
// marked when waiting items relate to it); items pending confirmation in the
// server's Now order (priority, +25 for an event within the hour, newest
// first; the boost's reason shown) with Approve / Reject, and
// the cards whose queue work waits for review (the pending-review badge), and
// the notifications people on other instances sent (unread first, each with
// "Mark read"), shown only while there are any.
import { api, isNetworkOff } from "../api";
import { h, replace } from "../dom";
import type { Notification } from "../gen/switchboard/v1/network_exchange_pb";
import type { KanbanCard } from "../gen/switchboard/v1/kanban_pb";
import type { NowEntry } from "../gen/switchboard/v1/calendar_pb";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { onRefresh } from "../refresh";
import { Region, act, chip, emptyState, pageOf, pager, timeOf, toast, type Page, type View } from "../ui";
import { termLabel } from "../vocabulary";
import { onboardingPanel } from "./onboarding";
import { queueItemRow } from "./queueItem";
import { waitingPanel } from "../waiting";

const pageSize = 10;
// The spec's fallback: the now panel polls every 60 seconds.
const pollMillis = 60_000;

// pendingPage reads one page of the pending items in the server's Now order
// (GET /api/now: priority rank, +25 for an item that names an event starting
// within the hour, then newest first), each with the reasons of its boosts.
async function pendingPage(offset: number, limit: number): Promise<{ entries: NowEntry[]; page: Page }> {
  const res = await api.now.getNow({ offset, limit });
  const total = res.pagination?.total ?? 0;
  return { entries: res.items, page: { offset, limit, total, hasMore: offset + limit < total } };
}

// nowEntryRow is a pending item, marked with the calendar boost's reason when
// it has one.
function nowEntryRow(e: NowEntry): HTMLElement | null {
  if (!e.item) return null;
  const boosted = e.boosts.length > 0;
  return h(
    "div",
    { class: boosted ? "now-entry correlated" : "now-entry", "data-now-item": e.item.id },
    queueItemRow(e.item, { move: false }),
    boosted && h("p", { class: "now-boost", "data-boost-event": e.boosts[0].eventId }, e.boosts.map((b) => b.reason).join("; ")),
  );
}

// dayStrip is today's calendar events (the local day), in order, each marked
// when items awaiting approval correlate with it (the Now order's boosts),
// with their titles. Hidden while there are none today.
function dayStrip(): { el: HTMLElement; load: () => Promise<void> } {
  const body = h("div", { class: "region", "aria-label": "Today's calendar" });
  const el = h(
    "section",
    { class: "panel day-strip", "aria-labelledby": "now-today", hidden: true },
    h("h2", { id: "now-today" }, "Today"),
    body,
  );
  let seq = 0;
  const load = async (): Promise<void> => {
    const my = ++seq;
    const from = new Date();
    from.setHours(0, 0, 0, 0);
    const to = new Date(from);
    to.setDate(to.getDate() + 1);
    try {
      const [events, now] = await Promise.all([
        api.calendar.listCalendarEvents({ from: timestampFromDate(from), to: timestampFromDate(to), limit: 100 }),
        api.now.getNow({ limit: 100 }),
      ]);
      if (my !== seq) return;
      const correlated = new Map<string, string[]>();
      for (const e of now.items) {
        for (const b of e.boosts) {
          correlated.set(b.eventId, [...(correlated.get(b.eventId) ?? []), e.item?.title ?? ""]);
        }
      }
      el.hidden = events.events.length === 0;
      replace(
        body,
        h(
          "ol",
          { class: "day-strip-events", "aria-label": "Today's events" },
          events.events.map((ev) => {
            const items = correlated.get(ev.id);
            return h(
              "li",
              { class: items ? "calendar-event correlated" : "calendar-event", "data-event-id": ev.id },
              timeOf(ev.startsAt),
              " ",
              h("span", { class: "event-title" }, ev.title),
              ev.location ? h("span", { class: "muted" }, ` · ${ev.location}`) : null,
              items ? h("div", { class: "event-items" }, `Related: ${items.join(", ")}`) : null,
            );
          }),
        ),
      );
    } catch {
      if (my !== seq) return;
      el.hidden = false;
      replace(body, h("p", { class: "muted" }, "Today's calendar could not be read just now."));
    }
  };
  return { el, load };
}

// pendingReviewCards pages through the board for cards with an unchecked
// review item; the list RPC has no such filter. Bounded: 20 pages of 100.
async function pendingReviewCards(): Promise<{ cards: KanbanCard[]; capped: boolean }> {
  const cards: KanbanCard[] = [];
  for (let offset = 0, pages = 0; pages < 20; pages++) {
    const res = await api.kanban.listCards({ limit: 100, offset });
    cards.push(...res.cards.filter((c) => c.pendingReview));
    if (!res.pagination?.hasMore) return { cards, capped: false };
    offset += 100;
  }
  return { cards, capped: true };
}

function notificationRow(n: Notification, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const read: HTMLButtonElement | null = n.readAt
    ? null
    : h(
        "button",
        {
          type: "button",
          class: "secondary",
          "aria-label": `Mark read: ${n.title}`,
          onclick: () =>
            void act(read, problem, () => api.networkExchange.readNotification({ id: n.id }), () => {
              toast(`Marked "${n.title}" read.`);
              changed();
            }),
        },
        "Mark read",
      );
  return h(
    "li",
    { class: n.readAt ? "notification read" : "notification unread", "data-notification-id": n.id },
    h("span", { class: "notification-title" }, n.title),
    " ",
    h("span", { class: `chip notification-${n.type}` }, termLabel("notification_type", n.type)),
    n.readAt ? null : [" ", h("span", { class: "chip notification-new" }, "Unread")],
    h("div", { class: "muted" }, `From ${n.fromUserName || n.from}`, n.fromUserName && n.from ? ` (${n.from})` : "", " · ", timeOf(n.createdAt)),
    n.body && h("p", { class: "notification-body" }, n.body),
    read && h("div", { class: "widget-buttons" }, read),
    problem,
  );
}

// notificationsPanel is the Now view's "From your network": the unread
// notifications (up to 20) and then the last few read ones. The panel stays
// hidden while there are none, and when the server refuses the list (the
// operator network is off, or not the caller's): Now never shows a network
// error.
function notificationsPanel(): { el: HTMLElement; load: () => Promise<void> } {
  const count = h("span", { class: "badge", hidden: true });
  const body = h("div", { class: "region", "aria-label": "Notifications" });
  const el = h(
    "section",
    { class: "panel", "aria-labelledby": "now-notifications", hidden: true },
    h("h2", { id: "now-notifications" }, "From your network ", count),
    body,
  );
  let seq = 0;
  const load = async (): Promise<void> => {
    const my = ++seq;
    try {
      const [unread, recent] = await Promise.all([
        api.networkExchange.listNotifications({ unread: true, limit: 20 }),
        api.networkExchange.listNotifications({ limit: 5 }),
      ]);
      if (my !== seq) return;
      const read = recent.notifications.filter((n) => n.readAt);
      const all = [...unread.notifications, ...read];
      el.hidden = all.length === 0;
      count.hidden = unread.unreadCount === 0;
      count.textContent = String(unread.unreadCount);
      count.setAttribute("aria-label", `${unread.unreadCount} unread`);
      replace(body, h("ul", { class: "notification-list", "aria-label": "Notifications" }, all.map((n) => notificationRow(n, () => void load()))));
    } catch (e) {
      if (my !== seq) return;
      // The network off (or not this caller's) is no news for Now; anything
      // else is said quietly, in place of the list.
      if (isNetworkOff(e)) {
        el.hidden = true;
        return;
      }
      el.hidden = false;
      replace(body, h("p", { class: "muted" }, "Notifications from your network could not be read just now."));
    }
  };
  return { el, load };
}

export function nowView(): View {
  let pendingOffset = 0;
  let reviewOffset = 0;
  const pending = new Region("Waiting for approval");
  const review = new Region("Pending review");
  const pendingCount = h("span", { class: "badge", hidden: true });
  const reviewCount = h("span", { class: "badge review", hidden: true });

  const loadPending = () =>
    pending.load(async () => {
      const { entries, page } = await pendingPage(pendingOffset, pageSize);
      pendingCount.hidden = page.total === 0;
      pendingCount.textContent = String(page.total);
      if (entries.length === 0 && page.offset > 0) {
        pendingOffset = Math.max(0, page.offset - pageSize);
        queueMicrotask(loadPending);
      }
      if (page.total === 0) return emptyState("Nothing waits for your approval.");
      return [
        h(
          "div",
          { class: "items" },
          entries.map(nowEntryRow),
        ),
        pager(page, (o) => {
          pendingOffset = o;
          void loadPending();
        }, "pending"),
      ];
    });

  const loadReview = () =>
    review.load(async () => {
      const { cards, capped } = await pendingReviewCards();
      reviewCount.hidden = cards.length === 0;
      reviewCount.textContent = capped ? `${cards.length}+` : String(cards.length);
      reviewCount.setAttribute("aria-label", `${reviewCount.textContent} cards pending review`);
      if (cards.length === 0) return emptyState("No finished work waits for your review.");
      if (reviewOffset >= cards.length) reviewOffset = 0;
      const { items, page } = pageOf(cards, reviewOffset, pageSize);
      return [
        h(
          "ul",
          { class: "review-list" },
          items.map((c) =>
            h(
              "li",
              null,
              h("a", { href: `#/board?card=${encodeURIComponent(c.id)}` }, c.title),
              " ",
              chip("card-status", "card_status", c.status),
              " ",
              h("span", { class: "chip pending-review" }, "Pending review"),
            ),
          ),
        ),
        pager(page, (o) => {
          reviewOffset = o;
          void loadReview();
        }, "review"),
      ];
    });

  const notifications = notificationsPanel();
  const strip = dayStrip();
  const waitingForYou = waitingPanel();
  const onboarding = onboardingPanel();

  const refresh = () => {
    void loadPending();
    void loadReview();
    void notifications.load();
    void strip.load();
    void onboarding.load();
  };

  const el = h(
    "div",
    { class: "view now" },
    h("h1", null, "Now"),
    waitingForYou.el,
    onboarding.el,
    strip.el,
    h(
      "section",
      { class: "panel", "aria-labelledby": "now-pending" },
      h("h2", { id: "now-pending" }, "Waiting for your approval ", pendingCount),
      pending.el,
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "now-review" },
      h("h2", { id: "now-review" }, "Pending review ", reviewCount),
      review.el,
    ),
    notifications.el,
  );
  refresh();
  const off = onRefresh("now", refresh);
  // Fallback when the event stream is down, and the spec's plain poll.
  const timer = setInterval(refresh, pollMillis);
  return {
    el,
    unmount() {
      off();
      clearInterval(timer);
      waitingForYou.stop();
    },
  };
}
