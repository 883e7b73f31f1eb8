// Admin → Disputes (EconomyAdminService): the engagements of this instance's
// clients that a side disputed, their payment frozen, each with the admin's
// three outcomes: pay the provider (the price less the fee), refund the
// client, or split at the provider's percent. A decided dispute closes its
// contract and leaves the list; both sides are told.
import { api } from "../api";
import { h, uid } from "../dom";
import type { Contract } from "../gen/switchboard/v1/economy_pb";
import { DisputeOutcome } from "../gen/vocabulary_terms";
import { centsText } from "../money";
import { announce } from "../refresh";
import { Region, act, confirmStep, emptyState, facts, pager, timeOf, toast } from "../ui";
import { termLabel } from "../vocabulary";
import { partyEl } from "./contractSides";

const pageSize = 10;

function disputeRow(c: Contract, decided: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const resolve = (outcome: string, providerPercent?: number) =>
    act(null, problem, () => api.economyAdmin.resolveDispute({ id: c.id, outcome, providerPercent }), () => {
      toast(`Settled "${c.title}": ${termLabel("dispute_outcome", outcome).toLowerCase()}${providerPercent ? ` (${providerPercent} percent to the provider)` : ""}.`);
      announce("activity");
      decided();
    });
  const outcome = (o: string, ask: string) =>
    confirmStep(termLabel("dispute_outcome", o), { ask, yes: termLabel("dispute_outcome", o), no: "Cancel" }, () => resolve(o), {
      "aria-label": `${termLabel("dispute_outcome", o)}: ${c.title}`,
      "data-outcome": o,
    });
  const percentId = uid("percent");
  const percent = h("input", { id: percentId, name: "providerPercent", type: "number", min: 1, max: 99, step: 1, required: true, value: "50" });
  const split = h("button", { type: "submit", class: "secondary" }, termLabel("dispute_outcome", DisputeOutcome.Split));
  const provider = c.provider?.name || "the provider";
  const client = c.client?.name || "the client";
  return h(
    "li",
    { class: "store-review-row dispute-row", "data-contract-id": c.id },
    h("div", { class: "key-main" }, h("span", { class: "store-review-name" }, c.title), h("span", null, centsText(c.priceCents, c.currency))),
    facts("Dispute", [
      ["Client", partyEl(c.client)],
      ["Provider", partyEl(c.provider)],
      ["Why", c.disputeReason ?? null],
      ["Disputed", timeOf(c.updatedAt)],
    ]),
    h(
      "div",
      { class: "widget-buttons" },
      outcome(DisputeOutcome.Release, `Pay ${provider} the price less the fee?`),
      outcome(DisputeOutcome.Refund, `Give ${client} the whole price back?`),
    ),
    h(
      "form",
      {
        class: "dispute-split",
        "aria-label": `Split: ${c.title}`,
        onsubmit: (e: Event) => {
          e.preventDefault();
          void act(split, problem, () => resolve(DisputeOutcome.Split, Number(percent.value)), () => {});
        },
      },
      h("div", { class: "field" }, h("label", { for: percentId }, `${provider}'s share (percent)`), percent),
      h("div", { class: "field" }, split),
    ),
    problem,
  );
}

export function disputesSection(): HTMLElement {
  const region = new Region("Disputes");
  let offset = 0;
  const load = (): Promise<void> =>
    region.load(async () => {
      const res = await api.economyAdmin.listDisputes({ limit: pageSize, offset });
      const p = res.pagination;
      if (res.disputes.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(() => void load());
      }
      if (res.disputes.length === 0) return emptyState("No dispute is open.");
      return [
        h("ul", { class: "store-review-list dispute-list", "aria-label": "Open disputes" }, res.disputes.map((c) => disputeRow(c, () => void load()))),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "disputes"),
      ];
    });
  void load();
  return h(
    "section",
    { class: "panel disputes", "aria-labelledby": "disputes-title" },
    h("h2", { id: "disputes-title" }, "Disputes"),
    h("p", { class: "hint" }, "Engagements a side disputed: the price stays frozen on the client's ledger until you decide."),
    region.el,
  );
}
