// "Waiting for your review": the caller's delivered store executions still
// pending_review (StoreExecutionService.ListStoreExecutions), each with
// Confirm (rating, feedback) and Deny (reason, category). The forms are the
// Queue widget's (widgets.ts reviewForm), so both act the same way through
// StoreReviewService.StoreLifecycle; a decided execution leaves the list.
import { api } from "../api";
import { h, replace } from "../dom";
import type { ListedStoreExecution } from "../gen/switchboard/v1/store_execution_pb";
import { Region, emptyState, pager, timeOf, toast } from "../ui";
import { reviewForm, type ReviewAction } from "../widgets";

const pageSize = 10;

function headline(text: string, max = 80): string {
  const line = text.split("\n", 1)[0].trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function reviewRow(x: ListedStoreExecution, reviewed: () => void): HTMLElement {
  const ex = x.execution!;
  const subject = `${x.agentName}: ${headline(ex.input)}`;
  const form = h("div", { class: "widget-form" });
  const problem = h("div", { class: "widget-problem" });
  const buttons: HTMLButtonElement[] = [];
  const done = (message: string) => {
    toast(message);
    reviewed();
  };
  const toggle = (b: HTMLButtonElement, action: ReviewAction) => {
    const open = b.getAttribute("aria-expanded") === "true";
    for (const o of buttons) o.setAttribute("aria-expanded", "false");
    replace(problem);
    if (open) {
      replace(form);
      return;
    }
    b.setAttribute("aria-expanded", "true");
    const f = reviewForm(action, ex.executionId, subject, { problem, done });
    replace(form, f);
    f.querySelector<HTMLElement>("select, textarea")?.focus();
  };
  for (const [action, text] of [["confirm", "Confirm"], ["deny", "Deny"]] as [ReviewAction, string][]) {
    const b: HTMLButtonElement = h(
      "button",
      { type: "button", class: action === "deny" ? "secondary" : undefined, "aria-expanded": "false", "aria-label": `${text}: ${subject}` },
      text,
    );
    b.addEventListener("click", () => toggle(b, action));
    buttons.push(b);
  }
  return h(
    "li",
    { class: "store-review-row", "data-execution-id": ex.executionId },
    h("span", { class: "store-review-name" }, x.agentName),
    h("p", { class: "review-input" }, headline(ex.input)),
    ex.output && h("pre", { class: "output" }, ex.output),
    h("div", { class: "review-sub muted" }, "Delivered ", timeOf(ex.finishedAt ?? ex.createdAt)),
    h("div", { class: "widget-buttons" }, buttons),
    form,
    problem,
  );
}

// reviewsSection lists the pending reviews, a page at a time.
// reviewsSection is the panel and what reads it again (a live update skips
// it while the operator works in it).
export function reviewsSection(): { el: HTMLElement; reload: () => void } {
  const region = new Region("Waiting for your review");
  let offset = 0;
  const load = (): Promise<void> =>
    region.load(async () => {
      const res = await api.storeExecution.listStoreExecutions({ reviewStatus: "pending_review", limit: pageSize, offset });
      const p = res.pagination;
      if (res.executions.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(() => void load());
      }
      if (res.executions.length === 0) return emptyState("Nothing waits for your review.");
      return [
        h("ul", { class: "store-review-list" }, res.executions.map((x) => reviewRow(x, () => void load()))),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "reviews"),
      ];
    });
  void load();
  const el = h(
    "section",
    { class: "panel store-reviews", "aria-labelledby": "reviews-title" },
    h("h2", { id: "reviews-title" }, "Waiting for your review"),
    region.el,
  );
  return {
    el,
    reload: () => {
      if (!region.el.contains(document.activeElement)) void load();
    },
  };
}
