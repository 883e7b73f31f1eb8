// Now: what waits for the operator. Items pending confirmation (urgent first,
// then high, medium, low; newest first within each) with Approve / Reject, and
// the cards whose queue work waits for review (the pending-review badge), and
// the notifications people on other instances sent (unread first, each with
// "Mark read"), shown only while there are any.
import { api, isNetworkOff } from "../api";
import { h, replace } from "../dom";
import type { Notification } from "../gen/switchboard/v1/network_exchange_pb";
import type { KanbanCard } from "../gen/switchboard/v1/kanban_pb";
import type { QueueItem } from "../gen/switchboard/v1/queue_pb";
import { onRefresh } from "../refresh";
import { Region, act, chip, emptyState, pageOf, pager, priorities, timeOf, toast, type Page, type View } from "../ui";
import { termLabel } from "../vocabulary";
import { queueItemRow } from "./queueItem";
import { QueueStatus } from "../gen/vocabulary_terms";

const pageSize = 10;
// The spec's fallback: the now panel polls every 60 seconds.
const pollMillis = 60_000;

// pendingPage reads one page of the pending items in priority order. The list
// RPC orders by creation only, so the page is stitched from one filtered list
// per priority: first their totals, then the slices the page covers.
async function pendingPage(offset: number, limit: number): Promise<{ items: QueueItem[]; page: Page }> {
  const status = QueueStatus.PendingConfirmation;
  const totals = await Promise.all(
    priorities.map(async (priority) => {
      const res = await api.queue.listQueueItems({ status, priority, limit: 1, offset: 0 });
      return res.data?.pagination?.total ?? 0;
    }),
  );
  const total = totals.reduce((a, b) => a + b, 0);
  const slices: Promise<QueueItem[]>[] = [];
  let start = 0;
  priorities.forEach((priority, i) => {
    const end = start + totals[i];
    const from = Math.max(offset, start);
    const to = Math.min(offset + limit, end);
    if (from < to) {
      slices.push(
        api.queue
          .listQueueItems({ status, priority, offset: from - start, limit: to - from })
          .then((res) => res.data?.items ?? []),
      );
    }
    start = end;
  });
  const items = (await Promise.all(slices)).flat();
  return { items, page: { offset, limit, total, hasMore: offset + limit < total } };
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
      const { items, page } = await pendingPage(pendingOffset, pageSize);
      pendingCount.hidden = page.total === 0;
      pendingCount.textContent = String(page.total);
      if (items.length === 0 && page.offset > 0) {
        pendingOffset = Math.max(0, page.offset - pageSize);
        queueMicrotask(loadPending);
      }
      if (page.total === 0) return emptyState("Nothing waits for your approval.");
      return [
        h(
          "div",
          { class: "items" },
          items.map((it) => queueItemRow(it, { move: false })),
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

  const refresh = () => {
    void loadPending();
    void loadReview();
    void notifications.load();
  };

  const el = h(
    "div",
    { class: "view now" },
    h("h1", null, "Now"),
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
    },
  };
}
