// Widgets an item or a chat message carries in its metadata JSON ("widgets",
// each an AgentWidgetData of proto/switchboard/v1/store_execution.proto):
// title, subtitle and items. The review widget of a delivered store execution
// (confirm or deny, through StoreReviewService.StoreLifecycle) and the payment
// prompt of a quote (approve or decline, through
// StoreExecutionService.DecideStoreQuote) act through the store; every other
// widget of the four types answers through WidgetService.RespondToWidget
// (proto/switchboard/v1/widgets.proto) when it belongs to a queue item; a
// widget of another type, or in a chat message naming no item, is read-only
// (docs/decisions.md, "Widgets in the dashboard").
import { signal } from "./signal";
import { createClient } from "@connectrpc/connect";
import { errorText, isUnauthenticated, transport } from "./api";
import { h, replace, uid } from "./dom";
import { StoreExecutionService } from "./gen/switchboard/v1/store_execution_pb";
import { StoreReviewService } from "./gen/switchboard/v1/store_review_pb";
import { WidgetService } from "./gen/switchboard/v1/widgets_pb";
import { announce, queueChanged } from "./refresh";
import { label, reportUnauthenticated, toast } from "./ui";
import { termLabel, values } from "./vocabulary";
import { PricingPhase, QueueStatus } from "./gen/vocabulary_terms";

const review = createClient(StoreReviewService, transport);
const quotes = createClient(StoreExecutionService, transport);
const responses = createClient(WidgetService, transport);

export type WidgetItem = { id: string; label: string; description?: string; actions: string[] };
// key is how RespondToWidget names the widget: its id, or its position in
// metadata.widgets when it has none (server/widgets/rules.go).
export type Widget = { key: string; type: string; title: string; subtitle?: string; layout?: string; items: WidgetItem[] };

type Meta = Record<string, unknown>;

// The decisions made on this page, by execution: the item's metadata keeps
// its widget after the decision, so a redraw shows the decision instead of
// offering the buttons again (a second decision would be refused anyway).
const decided = new Map<string, string>();

const str = (v: unknown): string => (typeof v === "string" ? v : "");

function parseMeta(metadata: string | undefined): Meta {
  if (!metadata) return {};
  try {
    const v = JSON.parse(metadata) as unknown;
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Meta) : {};
  } catch {
    return {};
  }
}

// widgetsOf reads the well-formed widgets of a metadata JSON; anything else
// in it is ignored rather than shown half.
export function widgetsOf(meta: Meta): Widget[] {
  if (!Array.isArray(meta.widgets)) return [];
  const out: Widget[] = [];
  for (const [index, w] of (meta.widgets as unknown[]).entries()) {
    if (!w || typeof w !== "object") continue;
    const o = w as Meta;
    const items: WidgetItem[] = [];
    if (Array.isArray(o.items)) {
      for (const it of o.items as unknown[]) {
        if (!it || typeof it !== "object") continue;
        const i = it as Meta;
        items.push({
          id: str(i.id),
          label: str(i.label),
          description: str(i.description) || undefined,
          actions: Array.isArray(i.actions) ? (i.actions as unknown[]).filter((a): a is string => typeof a === "string") : [],
        });
      }
    }
    out.push({ key: str(o.id) || String(index), type: str(o.type), title: str(o.title), subtitle: str(o.subtitle) || undefined, layout: str(o.layout) || undefined, items });
  }
  return out;
}

// The actions the dashboard performs itself: the review's and the quote's.
const reviewActions = new Set(["confirm", "deny"]);
const quoteActions = new Set(values("quote_action"));

function kindOf(w: Widget, meta: Meta): "review" | "quote" | "" {
  if (!str(meta.executionId)) return "";
  const acts = w.items.flatMap((i) => i.actions);
  if (w.type === "payment_prompt" && acts.some((a) => quoteActions.has(a))) return "quote";
  if (acts.some((a) => reviewActions.has(a))) return "review";
  return "";
}

// widgetsEl renders the widgets of a metadata JSON, or null when it has none.
// subject names the item or message in accessible labels; itemId is the
// queue item the widgets belong to (a chat message names it in its metadata,
// "itemId", or its widgets are read-only).
export function widgetsEl(metadata: string | undefined, subject: string, itemId?: string): HTMLElement | null {
  const meta = parseMeta(metadata);
  const ws = widgetsOf(meta);
  if (ws.length === 0) return null;
  const target = itemId ?? str(meta.itemId);
  return h("div", { class: "widgets" }, ws.map((w) => widgetEl(w, meta, subject, target)));
}

export type ReviewAction = "confirm" | "deny";

// ReviewHooks is where a review form reports: problem holds its refusals,
// done receives the server's answer in words once the decision is made.
export type ReviewHooks = { problem: HTMLElement; done: (message: string) => void };

// reviewForm is the confirm (rating, feedback) or deny (reason, category)
// form of a delivered store execution, acting through
// StoreReviewService.StoreLifecycle. The Queue and Chat widgets and the Store
// tab's "Waiting for your review" share it (docs/decisions.md "Widgets").
export function reviewForm(action: ReviewAction, executionId: string, subject: string, hooks: ReviewHooks): HTMLFormElement {
  const { problem } = hooks;
  const showError = (e: unknown) => {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  };
  const done = (message: string) => {
    decided.set(`review:${executionId}`, message);
    hooks.done(message);
  };
  if (action === "confirm") {
    const rid = uid("rating");
    const fid = uid("feedback");
    const rating = h(
      "select",
      { id: rid, name: "rating" },
      h("option", { value: "" }, "No rating"),
      [5, 4, 3, 2, 1].map((n) => h("option", { value: String(n) }, `${n} of 5`)),
    );
    const feedback = h("textarea", { id: fid, name: "feedback", rows: 2, maxlength: 2000 });
    const send = h("button", { type: "submit" }, "Confirm result");
    return h(
      "form",
      {
        class: "widget-inline",
        "aria-label": `Confirm the result: ${subject}`,
        onsubmit: async (e: Event) => {
          e.preventDefault();
          send.disabled = true;
          replace(problem);
          try {
            const res = await review.storeLifecycle({
              action: "confirm",
              executionId,
              rating: rating.value ? Number(rating.value) : undefined,
              feedback: feedback.value.trim() || undefined,
            });
            const rs = res.execution?.reviewStatus;
            done(`Result ${rs ? termLabel("review_status", rs).toLowerCase() : "confirmed"}.`);
            announce(...queueChanged(QueueStatus.DoneToday));
          } catch (err) {
            showError(err);
            send.disabled = false;
          }
        },
      },
      h("div", { class: "field" }, h("label", { for: rid }, "Rating (optional)"), rating),
      h("div", { class: "field" }, h("label", { for: fid }, "Feedback (optional)"), feedback),
      send,
    );
  }
  const rid = uid("reason");
  const cid = uid("category");
  // Checked in onsubmit, so the refusal is said in the page's words.
  const reason = h("textarea", { id: rid, name: "reason", rows: 2, "aria-required": "true", maxlength: 2000 });
  const category = h(
    "select",
    { id: cid, name: "category" },
    values("denial_category").map((c) => h("option", { value: c }, termLabel("denial_category", c))),
  );
  const send = h("button", { type: "submit", class: "danger" }, "Deny and requeue");
  return h(
    "form",
    {
      class: "widget-inline",
      "aria-label": `Deny the result: ${subject}`,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        if (!reason.value.trim()) {
          replace(problem, h("p", { class: "error", role: "alert" }, "Say why the result is denied."));
          reason.focus();
          return;
        }
        send.disabled = true;
        replace(problem);
        try {
          const res = await review.storeLifecycle({
            action: "deny",
            executionId,
            reason: reason.value.trim(),
            category: category.value,
          });
          done(res.requeued ? "Result denied; the task is queued again with the agent." : "Result denied.");
          announce(...queueChanged(QueueStatus.InProgress));
        } catch (err) {
          showError(err);
          send.disabled = false;
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: rid }, "Why (required)"), reason),
    h("div", { class: "field" }, h("label", { for: cid }, "Category"), category),
    send,
  );
}

function widgetEl(w: Widget, meta: Meta, subject: string, itemId: string): HTMLElement {
  const kind = kindOf(w, meta);
  if (!kind && itemId && widgetTypes.has(w.type)) return answerableEl(w, meta, subject, itemId);
  const executionId = str(meta.executionId);
  const status = h("div", { class: "widget-status", role: "status" });
  const problem = h("div", { class: "widget-problem" });
  const form = h("div", { class: "widget-form" });
  const showError = (e: unknown) => {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  };
  const buttons: HTMLButtonElement[] = [];
  const settle = (message: string) => {
    // The decision is made: the buttons go, the server's answer stays.
    for (const b of buttons) b.remove();
    replace(form);
    replace(problem);
    replace(status, h("p", { class: "widget-done" }, message));
  };
  const done = (message: string) => {
    decided.set(`${kind}:${executionId}`, message);
    settle(message);
    toast(message);
  };

  const decide = async (b: HTMLButtonElement, action: string) => {
    b.disabled = true;
    replace(problem);
    try {
      const res = await quotes.decideStoreQuote({ id: str(meta.agentId), executionId, action });
      const st = res.execution?.status;
      done(
        `Quote ${action === "approve" ? PricingPhase.Approved : PricingPhase.Declined}${st ? `; the task is ${termLabel("execution_status", st).toLowerCase()}` : ""}.`,
      );
      announce(...queueChanged());
    } catch (err) {
      showError(err);
      b.disabled = false;
    }
  };

  const actionButton = (item: WidgetItem, action: string): HTMLButtonElement | null => {
    if (kind === "review" && reviewActions.has(action)) {
      const b = h(
        "button",
        {
          type: "button",
          class: action === "deny" ? "secondary" : undefined,
          "aria-label": `${item.label || label(action)}: ${subject}`,
          "aria-expanded": "false",
          onclick: () => {
            const open = b.getAttribute("aria-expanded") === "true";
            for (const o of buttons) o.setAttribute("aria-expanded", "false");
            if (open) {
              replace(form);
              return;
            }
            b.setAttribute("aria-expanded", "true");
            const f = reviewForm(action as ReviewAction, executionId, subject, { problem, done });
            replace(form, f);
            f.querySelector<HTMLElement>("select, textarea")?.focus();
          },
        },
        item.label || label(action),
      );
      return b;
    }
    if (kind === "quote" && quoteActions.has(action)) {
      const b: HTMLButtonElement = h(
        "button",
        {
          type: "button",
          class: action === "decline" ? "secondary" : undefined,
          "aria-label": `${termLabel("quote_action", action)}: ${subject}`,
          onclick: () => void decide(b, action),
        },
        termLabel("quote_action", action),
      );
      return b;
    }
    return null;
  };

  const items = w.items.map((item) => {
    const acts = item.actions.map((a) => actionButton(item, a)).filter((b): b is HTMLButtonElement => b !== null);
    buttons.push(...acts);
    // The review items' descriptions are the API call, written for agents;
    // the button says it to the operator.
    const showDescription = item.description && !(kind === "review" && item.actions.some((a) => reviewActions.has(a)));
    return h(
      "li",
      { class: "widget-item", "data-item": item.id },
      acts.length === 0 || kind === "quote" ? h("span", { class: "widget-label" }, item.label) : null,
      showDescription && h("span", { class: "widget-desc" }, item.description),
      // Read-only: the actions an unknown widget offers are named, not offered.
      acts.length === 0 && item.actions.length > 0 && h("span", { class: "widget-acts muted" }, item.actions.map(label).join(" · ")),
      acts.length > 0 && h("span", { class: "widget-buttons" }, acts),
    );
  });

  // A decision made here earlier, or one the server recorded on the item
  // (reviewStatus), shows instead of the buttons.
  const stored = kind === "review" ? str(meta.reviewStatus) : "";
  const earlier =
    (kind ? decided.get(`${kind}:${executionId}`) : undefined) ??
    (stored ? `Result ${termLabel("review_status", stored).toLowerCase()}.` : undefined);
  if (earlier) settle(earlier);

  return h(
    "section",
    { class: `widget widget-${w.type || "unknown"} layout-${w.layout || "vertical"}`, "data-type": w.type, "aria-label": w.title || "Widget" },
    w.title && h("h4", { class: "widget-title" }, w.title),
    w.subtitle && h("p", { class: "widget-subtitle" }, w.subtitle),
    items.length > 0 && h("ul", { class: "widget-items" }, items),
    form,
    status,
    problem,
  );
}

// The four widget types of AgentWidgetData (vocabulary widget_type); another
// type is shown read-only.
const widgetTypes = new Set(values("widget_type"));

// The actions that complete the item (vocabulary widget_terminal_action): an
// answer with one of them settles the widget.
const terminalActions = new Set(values("widget_terminal_action"));

type Recorded = { widgetId: string; widgetItemId?: string; action: string; respondedAt?: string };

// recordedOf reads the responses the server recorded on the item
// (metadata.widgetResponses) for one widget, oldest first.
function recordedOf(meta: Meta, widgetId: string): Recorded[] {
  if (!Array.isArray(meta.widgetResponses)) return [];
  const out: Recorded[] = [];
  for (const r of meta.widgetResponses as unknown[]) {
    if (!r || typeof r !== "object") continue;
    const o = r as Meta;
    if (str(o.widgetId) !== widgetId || !str(o.action)) continue;
    out.push({ widgetId, widgetItemId: str(o.widgetItemId) || undefined, action: str(o.action), respondedAt: str(o.respondedAt) || undefined });
  }
  return out;
}

const clock = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

function answerText(verb: string, action: string, row: WidgetItem | undefined, at?: string): string {
  const d = at ? new Date(at) : undefined;
  const when = d && !Number.isNaN(d.getTime()) ? ` on ${clock.format(d)}` : "";
  return `${verb}: ${label(action)}${row?.label ? ` (${row.label})` : ""}${when}.`;
}

// What this page answered, by item and widget (settled, terminal) and by row
// (the last non-terminal answer): a chat message's metadata does not record
// responses, so its redraw reads them from here.
const answered = new Map<string, string>();
const lastNote = new Map<string, string>();

// answerableEl renders a widget of a queue item whose rows' actions answer
// through WidgetService.RespondToWidget. A terminal answer (recorded on the
// item, or made here) replaces every row's buttons with the answer; a
// non-terminal one is noted on its row, whose buttons stay.
function answerableEl(w: Widget, meta: Meta, subject: string, itemId: string): HTMLElement {
  const status = h("div", { class: "widget-status", role: "status" });
  const problem = h("div", { class: "widget-problem" });
  const buttons: HTMLButtonElement[] = [];
  const notes = new Map<string, HTMLElement>();
  const widgetKey = `${itemId}:${w.key}`;
  const rowOf = (id: string | undefined) => (id ? w.items.find((i) => i.id === id) : undefined);
  // A choice card's option buttons name the options: settled, they give way
  // to the options' labels.
  const options = new Map<HTMLButtonElement, string>();
  const settle = (message: string) => {
    for (const b of buttons) {
      const option = options.get(b);
      if (option) b.replaceWith(h("span", { class: "widget-label" }, option));
      else b.remove();
    }
    for (const n of notes.values()) replace(n);
    replace(problem);
    replace(status, h("p", { class: "widget-done" }, message));
  };

  const respond = async (row: WidgetItem, action: string) => {
    for (const o of buttons) o.disabled = true;
    replace(problem);
    try {
      const res = await responses.respondToWidget({ itemId, widgetId: w.key, widgetItemId: row.id || undefined, action });
      signal("answer_widget", { queueItemId: itemId, widget: w.key, action });
      const terminal = res.completed || terminalActions.has(action);
      const st = res.item?.status;
      let message = answerText(terminal ? "Answered" : "Recorded", action, row);
      if (res.completed) message += " The item is done.";
      else if (terminal && st) message += ` The item is ${termLabel("queue_status", st).toLowerCase()}.`;
      if (res.forwarded) message += " The answer is on its way to the agent.";
      toast(message);
      if (terminal) {
        answered.set(widgetKey, message);
        settle(message);
      } else {
        lastNote.set(`${widgetKey}:${row.id}`, message);
        // The row keeps its buttons (the agent may ask again) and says the
        // last answer.
        const note = notes.get(row.id);
        if (note) replace(note, message);
        replace(status);
        for (const o of buttons) o.disabled = false;
      }
      announce(...queueChanged(st));
    } catch (err) {
      if (isUnauthenticated(err)) reportUnauthenticated();
      replace(problem, h("p", { class: "error", role: "alert" }, errorText(err)));
      for (const o of buttons) o.disabled = false;
    }
  };

  const recorded = recordedOf(meta, w.key);
  const items = w.items.map((row) => {
    // A choice card's option is a choice: with one action (or none, which
    // the server takes as any) its button is the option itself, answering
    // "submit" when it names no action.
    const choice = w.type === "choice_card" && row.actions.length <= 1;
    const acts = choice ? [row.actions[0] ?? "submit"] : row.actions;
    const rowButtons = acts.map((action) => {
      const b: HTMLButtonElement = h(
        "button",
        {
          type: "button",
          class: action === "decline" ? "secondary" : undefined,
          "aria-label": `${choice ? row.label || label(action) : `${label(action)}${row.label ? ` ${row.label}` : ""}`}: ${subject}`,
          onclick: () => void respond(row, action),
        },
        choice ? row.label || label(action) : label(action),
      );
      return b;
    });
    buttons.push(...rowButtons);
    if (choice && row.label) for (const b of rowButtons) options.set(b, row.label);
    const last = [...recorded].reverse().find((r) => r.widgetItemId === row.id && !terminalActions.has(r.action));
    const note = h(
      "span",
      { class: "widget-note muted" },
      lastNote.get(`${widgetKey}:${row.id}`) ?? (last ? answerText("Recorded", last.action, row, last.respondedAt) : ""),
    );
    notes.set(row.id, note);
    return h(
      "li",
      { class: "widget-item", "data-item": row.id },
      !choice && h("span", { class: "widget-label" }, row.label),
      row.description && h("span", { class: "widget-desc" }, row.description),
      rowButtons.length > 0 && h("span", { class: "widget-buttons" }, rowButtons),
      note,
    );
  });

  const final = [...recorded].reverse().find((r) => terminalActions.has(r.action));
  const earlier = answered.get(widgetKey) ?? (final ? answerText("Answered", final.action, rowOf(final.widgetItemId), final.respondedAt) : undefined);
  if (earlier) settle(earlier);

  return h(
    "section",
    { class: `widget widget-${w.type} layout-${w.layout || "vertical"}`, "data-type": w.type, "data-widget": w.key, "aria-label": w.title || "Widget" },
    w.title && h("h4", { class: "widget-title" }, w.title),
    w.subtitle && h("p", { class: "widget-subtitle" }, w.subtitle),
    items.length > 0 && h("ul", { class: "widget-items" }, items),
    status,
    problem,
  );
}
