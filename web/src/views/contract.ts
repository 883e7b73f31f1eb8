// An engagement's page (EconomyService.GetContract): its terms, its money in
// the contract's currency, the moves the caller's side may make in its state
// (contractMoves.ts), the amendments (the provider answers them), the thread
// of moves and exchanges in the order they happened, and, once closed, the
// two reviews (contractReviews.ts). Every move answers with the contract;
// the page then loads again, so the thread shows what the server recorded.
import { api } from "../api";
import { h, replace, uid, type Child } from "../dom";
import type { Contract, ContractAmendment, ContractEntry, GetContractResponse } from "../gen/switchboard/v1/economy_pb";
import { AmendmentStatus, ContractMove as M, ContractRole, ContractStatus } from "../gen/vocabulary_terms";
import { centsOf, centsText } from "../money";
import { announce } from "../refresh";
import { act, chip, emptyState, facts, timeOf, toast } from "../ui";
import { termLabel } from "../vocabulary";
import { may, movesOf } from "./contractMoves";
import { reviewsPanel } from "./contractReviews";
import { nameOf, otherSide, partyEl } from "./contractSides";

// final says whether the contract has ended (nothing but reviews moves it).
function final(status: string): boolean {
  return status === ContractStatus.Closed || status === ContractStatus.Declined || status === ContractStatus.Withdrawn;
}

function termsFacts(c: Contract): HTMLElement {
  return facts("Terms", [
    ["Client", partyEl(c.client)],
    ["Provider", partyEl(c.provider)],
    ["Task type", termLabel("job_task_type", c.taskType)],
    ["Scope", c.scope.length ? h("ul", { class: "contract-scope" }, c.scope.map((s) => h("li", null, s))) : null],
    ["Due", timeOf(c.dueAt)],
    ["Offered", timeOf(c.createdAt)],
    ["Delivered", timeOf(c.deliveredAt)],
    ["Closed", timeOf(c.closedAt)],
    ["Dispute", c.disputeReason ?? null],
    [
      "Outcome",
      c.disputeOutcome
        ? `${termLabel("dispute_outcome", c.disputeOutcome)}${c.providerPercent ? `: ${c.providerPercent} percent to the provider` : ""}`
        : null,
    ],
  ]);
}

// moneyFacts shows the amounts; what the provider will receive is the
// price less the fee the server quotes (its capture), until it is paid.
function moneyFacts(c: Contract): HTMLElement {
  const cur = c.currency;
  const due =
    c.providerEarnedCents > 0
      ? centsText(c.providerEarnedCents, cur)
      : final(c.status)
        ? null
        : `${centsText(c.priceCents - c.feeCents, cur)} when the contract closes`;
  return facts("Money", [
    ["Price", centsText(c.priceCents, cur)],
    ["Fee", `${centsText(c.feeCents, cur)}, taken when the contract closes`],
    [c.providerEarnedCents > 0 ? "Paid to the provider" : "The provider receives", due],
    ["Refunded to the client", c.refundedCents > 0 ? centsText(c.refundedCents, cur) : null],
    ["Payment", chip("hold", "contract_hold_status", c.paymentHoldStatus)],
  ]);
}

// safeLink is a deliverable's URL as a link, when it is a web address (a
// javascript: or data: URL from the other side is shown as text).
function safeLink(url: string): Child {
  try {
    const u = new URL(url);
    if (u.protocol === "https:" || u.protocol === "http:") return h("a", { href: u.href, target: "_blank", rel: "noopener noreferrer" }, url);
  } catch {
    // Not a URL: shown as written.
  }
  return h("span", null, url);
}

// questionOf is the question an answer's ref names: its id here, or, for a
// question the other instance asked, its id there (kept as the entry's ref).
function questionOf(all: ContractEntry[], ref: string): ContractEntry | undefined {
  return all.find((q) => q.kind === M.Question && (q.id === ref || q.ref === ref));
}

// unanswered says whether a question to the caller's side waits for its answer.
function unanswered(c: Contract, all: ContractEntry[]): boolean {
  const answered = new Set(all.filter((e) => e.kind === M.Answer && e.ref).map((e) => questionOf(all, e.ref!)?.id));
  return all.some((q) => q.kind === M.Question && q.by === otherSide(c) && !answered.has(q.id));
}

function entryRow(c: Contract, e: ContractEntry, all: ContractEntry[]): HTMLElement {
  // The admin's resolution and the timer's close have no side.
  const who = e.by ? `${nameOf(c, e.by)} (${termLabel("contract_role", e.by)})` : "Switchboard";
  const asked = e.kind === M.Answer && e.ref ? questionOf(all, e.ref)?.text : undefined;
  return h(
    "li",
    { class: "contract-entry", "data-kind": e.kind, "data-by": e.by },
    h("div", { class: "entry-head" }, h("span", { class: "entry-who" }, who), " ", chip("move", "contract_move", e.kind), " ", timeOf(e.createdAt)),
    asked && h("p", { class: "muted entry-ref" }, `To: ${asked}`),
    (e.kind === M.ScopeAccept || e.kind === M.ScopeDecline) && e.ref && h("p", { class: "muted entry-ref" }, `Amendment ${e.ref}`),
    e.text && h("p", { class: "entry-text" }, e.text),
    e.url && h("p", { class: "entry-link" }, safeLink(e.url)),
    e.documentId && h("p", { class: "muted" }, "Document ", h("code", null, e.documentId)),
  );
}

function threadPanel(c: Contract, thread: ContractEntry[]): HTMLElement {
  return h(
    "section",
    { class: "panel", "aria-labelledby": "contract-thread" },
    h("h3", { id: "contract-thread" }, "Thread"),
    thread.length === 0
      ? emptyState("Nothing has happened on this contract yet.")
      : h("ol", { class: "contract-thread", "aria-label": "Thread" }, thread.map((e) => entryRow(c, e, thread))),
    // A question is answered on its queue item (ItemMoved on the server): the
    // thread names no item, so the page cannot answer it itself.
    unanswered(c, thread) && h("p", { class: "hint" }, "A question to you is an item in your Queue: the result reported on it is the answer."),
  );
}

// moved is what a successful move does: say so, reload the page, and tell
// the other views (an offer's queue item is settled by accepting, say).
function moved(changed: () => void): (res: { contract?: Contract }) => void {
  return (res) => {
    const c = res.contract;
    toast(c ? `Done: the contract is ${termLabel("contract_status", c.status).toLowerCase()}.` : "Done.");
    announce("now", "queue", "activity");
    changed();
  };
}

function field(title: string, control: HTMLInputElement | HTMLTextAreaElement): HTMLElement {
  control.id ||= uid("move");
  return h("div", { class: "field" }, h("label", { for: control.id }, title), control);
}

type MoveForm = { fields: HTMLElement[]; send: () => Promise<{ contract?: Contract }>; danger?: boolean };

// formOf is the form a move needs, or null for a move made at once.
function formOf(c: Contract, move: string): MoveForm | null {
  const id = c.id;
  const text = (name: string, required: boolean, max: number) => h("textarea", { name, rows: 3, required, maxlength: max });
  switch (move) {
    case M.Deliver: {
      const summary = text("summary", true, 10000);
      const url = h("input", { name: "url", type: "url", maxlength: 2048, autocomplete: "off" });
      return {
        fields: [field("Summary", summary), field("Link (optional)", url)],
        send: () => api.economy.deliverContract({ id, summary: summary.value.trim(), url: url.value.trim() || undefined }),
      };
    }
    case M.Update: {
      const t = text("text", true, 10000);
      return { fields: [field("Update", t)], send: () => api.economy.postContractUpdate({ id, text: t.value.trim() }) };
    }
    case M.Question: {
      const q = text("question", true, 5000);
      return { fields: [field("Question", q)], send: () => api.economy.askContractQuestion({ id, question: q.value.trim() }) };
    }
    case M.Scope: {
      const item = text("item", true, 2000);
      const price = h("input", { name: "price", type: "number", min: "0", step: "0.01", inputmode: "decimal" });
      return {
        fields: [field("Item", item), field(`Adds to the price (${c.currency})`, price)],
        send: () => api.economy.proposeContractScope({ id, item: item.value.trim(), priceCents: price.value ? centsOf(price.value) : 0 }),
      };
    }
    case M.Dispute: {
      const reason = text("reason", true, 5000);
      return {
        fields: [field("Why", reason), h("p", { class: "hint" }, "The payment is frozen until the instance admin decides.")],
        send: () => api.economy.disputeContract({ id, reason: reason.value.trim() }),
        danger: true,
      };
    }
    case M.Decline:
    case M.Withdraw: {
      const reason = text("reason", false, 2000);
      const call = move === M.Decline ? api.economy.declineContract : api.economy.withdrawContract;
      return {
        fields: [field("Why (optional)", reason), h("p", { class: "hint" }, "The held price goes back to the client.")],
        send: () => call({ id, reason: reason.value.trim() || undefined }),
        danger: true,
      };
    }
  }
  return null;
}

// direct is the call of a move made at once, without a form.
function direct(c: Contract, move: string): (() => Promise<{ contract?: Contract }>) | null {
  switch (move) {
    case M.Accept:
      return () => api.economy.acceptContract({ id: c.id });
    case M.Close:
      return () => api.economy.closeContract({ id: c.id });
    case M.SuggestClose:
      return () => api.economy.suggestCloseContract({ id: c.id });
  }
  return null;
}

// movesPanel offers the caller's moves: a move made at once is a button, a
// move with words opens its form under the buttons (one at a time).
function movesPanel(c: Contract, changed: () => void): HTMLElement | null {
  // Amendments are answered on their rows, reviews in their panel.
  const moves = movesOf(c.role, c.status).filter((m) => m !== M.Review && m !== M.ScopeAccept && m !== M.ScopeDecline);
  if (moves.length === 0) return null;
  const slot = h("div", { class: "move-form" });
  const problem = h("div", { class: "form-status" });
  const openers: HTMLButtonElement[] = [];
  const buttons = moves.map((move) => {
    const words = termLabel("contract_move", move);
    const call = direct(c, move);
    if (call) {
      const b: HTMLButtonElement = h(
        "button",
        { type: "button", class: move === M.SuggestClose ? "secondary" : undefined, "data-move": move, onclick: () => void act(b, problem, async () => moved(changed)(await call()), () => {}) },
        words,
      );
      return b;
    }
    const b: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: "secondary",
        "data-move": move,
        "aria-expanded": "false",
        onclick: () => {
          const open = b.getAttribute("aria-expanded") === "true";
          for (const o of openers) o.setAttribute("aria-expanded", "false");
          replace(problem);
          if (open) {
            replace(slot);
            return;
          }
          const f = formOf(c, move);
          if (!f) return;
          b.setAttribute("aria-expanded", "true");
          const submit = h("button", { type: "submit", class: f.danger ? "danger" : undefined }, words);
          const form = h(
            "form",
            {
              class: "key-form",
              "aria-label": words,
              onsubmit: (e: Event) => {
                e.preventDefault();
                void act(submit, problem, async () => moved(changed)(await f.send()), () => {});
              },
            },
            f.fields,
            h("div", { class: "widget-buttons" }, submit, h("button", { type: "button", class: "secondary", onclick: () => b.click() }, "Cancel")),
          );
          replace(slot, form);
          form.querySelector<HTMLElement>("textarea, input")?.focus();
        },
      },
      words,
    );
    openers.push(b);
    return b;
  });
  return h(
    "section",
    { class: "panel contract-moves", "aria-labelledby": "contract-moves" },
    h("h3", { id: "contract-moves" }, "What you can do"),
    h("div", { class: "widget-buttons" }, buttons),
    slot,
    problem,
  );
}

function amendmentRow(c: Contract, a: ContractAmendment, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const answer = (move: string, call: () => Promise<{ contract?: Contract }>) => {
    const b: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: move === M.ScopeDecline ? "secondary" : undefined,
        "aria-label": `${termLabel("contract_move", move)}: ${a.item}`,
        onclick: () => void act(b, problem, async () => moved(changed)(await call()), () => {}),
      },
      termLabel("contract_move", move === M.ScopeAccept ? M.Accept : M.Decline),
    );
    return b;
  };
  const open = a.status === AmendmentStatus.Proposed && may(M.ScopeAccept, c.role, c.status);
  return h(
    "li",
    { class: "amendment-row", "data-n": a.n, "data-status": a.status },
    h("span", { class: "group-name" }, `${a.n}. ${a.item}`),
    " ",
    h("span", { class: "muted" }, `+${centsText(a.priceCents, c.currency)}`),
    " ",
    chip("amendment", "amendment_status", a.status),
    h("div", { class: "muted" }, "Proposed ", timeOf(a.createdAt)),
    open &&
      h(
        "div",
        { class: "widget-buttons" },
        answer(M.ScopeAccept, () => api.economy.acceptContractScope({ id: c.id, n: a.n })),
        answer(M.ScopeDecline, () => api.economy.declineContractScope({ id: c.id, n: a.n })),
      ),
    problem,
  );
}

function amendmentsPanel(c: Contract, list: ContractAmendment[], changed: () => void): HTMLElement | null {
  if (list.length === 0) return null;
  return h(
    "section",
    { class: "panel", "aria-labelledby": "contract-amendments" },
    h("h3", { id: "contract-amendments" }, "More scope"),
    c.role === ContractRole.Provider && h("p", { class: "hint" }, "Accepting raises the held price by the item's amount first."),
    h("ul", { class: "member-list", "aria-label": "Amendments" }, list.map((a) => amendmentRow(c, a, changed))),
  );
}

// contractPage is the page of one contract; changed loads it again.
export function contractPage(res: GetContractResponse, changed: () => void): HTMLElement {
  const c = res.contract!;
  return h(
    "article",
    { class: "contract-detail", "aria-labelledby": "contract-title", "data-status": c.status, "data-role": c.role },
    h("h2", { id: "contract-title", tabindex: -1 }, c.title),
    h(
      "div",
      { class: "group-sub" },
      chip("contract-status", "contract_status", c.status),
      h("span", { class: "muted" }, `You are the ${termLabel("contract_role", c.role).toLowerCase()}; the ${termLabel("contract_role", otherSide(c)).toLowerCase()} is ${nameOf(c, otherSide(c))}.`),
    ),
    h("section", { class: "panel", "aria-labelledby": "contract-terms" }, h("h3", { id: "contract-terms" }, "Terms"), termsFacts(c)),
    h("section", { class: "panel", "aria-labelledby": "contract-money" }, h("h3", { id: "contract-money" }, "Money"), moneyFacts(c)),
    movesPanel(c, changed),
    amendmentsPanel(c, res.amendments, changed),
    threadPanel(c, res.thread),
    c.status === ContractStatus.Closed && reviewsPanel(c, res.reviews, res.counterpartReviewed, changed),
  );
}
