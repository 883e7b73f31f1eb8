// Shared pieces of the views: loading and error states, pagers, chips, toasts.
import { errorText, isUnauthenticated, toDate } from "./api";
import { h, replace, type Child } from "./dom";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import { termLabel, values } from "./vocabulary";

// sessionEvents says "ended" when a call answers unauthenticated; main.ts shows the login page.
export const sessionEvents = new EventTarget();

export function reportUnauthenticated(): void {
  sessionEvents.dispatchEvent(new Event("ended"));
}

// Region is a part of a view that loads: "Loading…" the first time, the
// content once loaded, an error with a Retry button when loading fails. A
// refresh keeps the old content on screen (marked busy) until the new one is
// there, and a stale answer never overwrites a newer one.
export class Region {
  readonly el: HTMLElement;
  private seq = 0;
  private loaded = false;
  private last?: () => Promise<Child>;

  constructor(label: string, tag: "div" | "section" = "div") {
    this.el = h(tag, { class: "region", "aria-label": label });
  }

  async load(fn: () => Promise<Child>): Promise<void> {
    this.last = fn;
    const my = ++this.seq;
    this.el.setAttribute("aria-busy", "true");
    if (!this.loaded) replace(this.el, h("p", { class: "loading", role: "status" }, "Loading…"));
    try {
      const content = await fn();
      if (my !== this.seq) return;
      // A view that renders into its own element hands it back: keep it in
      // place (moving it would lose its scroll position).
      if (!(content instanceof Node && this.el.childNodes.length === 1 && this.el.firstChild === content)) {
        replace(this.el, content);
      }
      this.loaded = true;
    } catch (e) {
      if (my !== this.seq) return;
      if (isUnauthenticated(e)) reportUnauthenticated();
      this.loaded = false;
      replace(this.el, errorBox(e, () => void this.reload()));
    } finally {
      if (my === this.seq) this.el.removeAttribute("aria-busy");
    }
  }

  reload(): Promise<void> {
    return this.last ? this.load(this.last) : Promise.resolve();
  }
}

// act runs one action: its button waits, a refusal shows in problem, and
// done runs on success.
export async function act(button: HTMLButtonElement | null, problem: HTMLElement, call: () => Promise<unknown>, done: () => void): Promise<void> {
  if (button) button.disabled = true;
  replace(problem);
  try {
    await call();
    done();
  } catch (e) {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  } finally {
    if (button) button.disabled = false;
  }
}

export function errorBox(e: unknown, retry?: () => void): HTMLElement {
  return h(
    "div",
    { class: "error", role: "alert" },
    h("p", null, errorText(e)),
    retry && h("button", { type: "button", class: "secondary", onclick: retry, "data-focus-key": "retry" }, "Retry"),
  );
}

export type Page = { offset: number; limit: number; total: number; hasMore: boolean };

// pager is the previous/next control under every offset list.
export function pager(p: Page, go: (offset: number) => void, key = "pager"): HTMLElement | null {
  if (p.total <= p.limit && p.offset === 0) return null;
  const first = p.total === 0 ? 0 : p.offset + 1;
  const last = Math.min(p.offset + p.limit, p.total);
  return h(
    "nav",
    { class: "pager", "aria-label": "Pages" },
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        disabled: p.offset === 0,
        "data-focus-key": `${key}-prev`,
        onclick: () => go(Math.max(0, p.offset - p.limit)),
      },
      "Previous",
    ),
    h("span", { class: "pager-status" }, `${first}–${last} of ${p.total}`),
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        disabled: !p.hasMore,
        "data-focus-key": `${key}-next`,
        onclick: () => go(p.offset + p.limit),
      },
      "Next",
    ),
  );
}

// pageOf cuts a page out of a list the server answers whole.
export function pageOf<T>(all: T[], offset: number, limit: number): { items: T[]; page: Page } {
  const items = all.slice(offset, offset + limit);
  return { items, page: { offset, limit, total: all.length, hasMore: offset + limit < all.length } };
}

// The value sets the views offer, from the contract (vocabulary.ts).
export const queueStatuses = values("queue_status");
// Highest first, as the operator reads them.
export const priorities = values("priority").reverse();
export const queueTypes = values("queue_type");
export const cardStatuses = values("card_status");

// label turns free text from the wire (a chat role, say) into words; values
// of a vocabulary take the contract's words from termLabel instead.
export function label(value: string): string {
  const s = value.replace(/_/g, " ");
  return s.charAt(0).toUpperCase() + s.slice(1);
}

// chip shows a vocabulary's value in its words, styled by kind and value.
export function chip(kind: string, vocabulary: string, value: string): HTMLElement {
  return h("span", { class: `chip ${kind}-${value}` }, termLabel(vocabulary, value));
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });
const timeOnly = new Intl.DateTimeFormat(undefined, { timeStyle: "short" });

export function timeOf(ts: Timestamp | undefined): Child {
  const d = toDate(ts);
  if (!d) return null;
  const today = new Date().toDateString() === d.toDateString();
  return h("time", { datetime: d.toISOString(), title: dateTime.format(d) }, today ? timeOnly.format(d) : dateTime.format(d));
}

// Due dates are days: stored as UTC midnight and shown in UTC, so a date picked
// is the date shown everywhere.
export function dueDate(ts: Timestamp | undefined): Child {
  const d = toDate(ts);
  if (!d) return null;
  const overdue = d.getTime() + 86_400_000 < Date.now();
  return h(
    "span",
    { class: overdue ? "due overdue" : "due" },
    h("time", { datetime: d.toISOString().slice(0, 10) }, `Due ${dateOnly.format(d)}`),
  );
}

export function dateInputValue(ts: Timestamp | undefined): string {
  const d = toDate(ts);
  return d ? d.toISOString().slice(0, 10) : "";
}

let toastTimer: ReturnType<typeof setTimeout> | undefined;

// toast says what just happened, politely (a live region).
export function toast(message: string): void {
  const el = document.getElementById("toast");
  if (!el) return;
  el.textContent = message;
  el.classList.add("shown");
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => el.classList.remove("shown"), 5000);
}

export function emptyState(text: string): HTMLElement {
  return h("p", { class: "empty" }, text);
}

// A view mounts into the main element and cleans up its listeners on unmount.
export type View = { el: HTMLElement; unmount(): void };

// stillAt tells whether the address still shows path (a view's own, without
// its query). A view's delayed work (a filter applied after a pause) checks
// it first: a navigation changes the address at once but its hashchange is
// handled later, and a view that wrote its own address over the new one
// would send the app back to it.
export function stillAt(path: string): boolean {
  return location.hash.split("?")[0] === path;
}

// confirmStep is a button that asks before it acts: a first press shows
// "yes" and "no" in its place; "yes" runs act, "no" puts the button back.
export function confirmStep(
  text: string,
  question: { ask: string; yes: string; no: string },
  act: () => Promise<void>,
  attrs: Record<string, unknown> = {},
): HTMLElement {
  const slot = h("span", { class: "confirm-step" });
  const ask: HTMLButtonElement = h(
    "button",
    {
      type: "button",
      class: "danger subtle",
      ...attrs,
      onclick: () => {
        const yes: HTMLButtonElement = h(
          "button",
          {
            type: "button",
            class: "danger",
            onclick: async () => {
              yes.disabled = true;
              no.disabled = true;
              try {
                await act();
              } finally {
                yes.disabled = false;
                no.disabled = false;
              }
            },
          },
          question.yes,
        );
        const no: HTMLButtonElement = h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: () => {
              replace(slot, ask);
              ask.focus();
            },
          },
          question.no,
        );
        replace(slot, h("span", { class: "confirm-question" }, question.ask), yes, no);
        no.focus();
      },
    },
    text,
  );
  slot.append(ask);
  return slot;
}

// facts is a definition list of label and value pairs; a null value is left out.
export function facts(label: string, rows: [string, Child][]): HTMLElement {
  return h(
    "dl",
    { class: "facts", "aria-label": label },
    rows.filter(([, v]) => v !== null && v !== undefined && v !== false).map(([k, v]) => [h("dt", null, k), h("dd", null, v)]),
  );
}

// copyButton copies value, or selects shown (where value is written) when
// the page may not use the clipboard.
export function copyButton(shown: HTMLElement, value: string, label: string): HTMLButtonElement {
  const copy = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        try {
          await navigator.clipboard.writeText(value);
          copy.textContent = "Copied";
        } catch {
          // No clipboard permission: select the text for a manual copy.
          getSelection()?.selectAllChildren(shown);
          copy.textContent = "Selected: press Ctrl+C";
        }
      },
    },
    label,
  );
  return copy;
}
