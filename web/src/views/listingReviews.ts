// Admin → Listings waiting for review: the store listings in pending_review
// (on a hub, the spokes' synced agents wait there under its review policy),
// each with where it came from and Approve, Reject and Disable
// (DeveloperService; on a hub each decision goes back to the spoke through
// its webhook). A decided listing leaves the list.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import { create } from "@bufbuild/protobuf";
import type { MarketplaceReview } from "../gen/switchboard/v1/developer_pb";
import { StoreAgentSchema, type StoreAgent } from "../gen/switchboard/v1/store_pb";
import { ListingOrigin, ListingStatus, ReviewKind } from "../gen/vocabulary_terms";
import { Region, chip, emptyState, pager, reportUnauthenticated, timeOf, toast, type Page } from "../ui";
import { termLabel } from "../vocabulary";

const pageSize = 10;

// PendingListing is a listing or capability pack waiting for review, where
// it came from (a synced one: its instance), and its kind.
export type PendingListing = { agent: StoreAgent; origin: string; kind: string };

// originOf words where a review item came from: a synced one names the
// instance that synced it (the name it joined with).
function originOf(r: MarketplaceReview): string {
  if (r.origin !== ListingOrigin.Synced) return "Listed on this instance";
  return `From instance ${r.instanceName || r.instanceId || "that is no longer joined"}`;
}

// pendingListings is the review queue of every account's listings and packs
// (`GET /api/admin/marketplace`, ListMarketplaceReviews, oldest first), each
// with its origin; an agent's details (price, description, version) come
// from its listing, which the admin may read (synced agents are theirs).
export async function pendingListings(offset: number, limit: number): Promise<{ items: PendingListing[]; page: Page }> {
  const res = await api.developer.listMarketplaceReviews({ status: ListingStatus.PendingReview, limit, offset });
  const items = await Promise.all(
    res.items.map(async (r): Promise<PendingListing> => {
      let agent: StoreAgent | undefined;
      if (r.kind === ReviewKind.Agent) agent = await api.store.getStoreAgent({ id: r.id }).then((d) => d.agent, () => undefined);
      agent ??= create(StoreAgentSchema, { id: r.id, name: r.name, slug: r.slug ?? "", status: r.status, createdAt: r.createdAt });
      return { agent, origin: originOf(r), kind: r.kind };
    }),
  );
  const p = res.pagination;
  return { items, page: { offset: p?.offset ?? offset, limit: p?.limit ?? limit, total: p?.total ?? items.length, hasMore: p?.hasMore ?? false } };
}

type Decision = "reject" | "disable";

function reasonForm(decision: Decision, a: StoreAgent, problem: HTMLElement, done: () => void, cancel: () => void): HTMLElement {
  const id = uid("reason");
  const reason = h("textarea", { id, name: "reason", rows: 2, maxlength: 2000 });
  const verb = decision === "reject" ? "Reject" : "Disable";
  const submit = h("button", { type: "submit", class: "danger" }, `${verb} listing`);
  return h(
    "form",
    {
      class: "widget-form",
      "aria-label": `${verb} ${a.name}`,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        replace(problem);
        try {
          const why = reason.value.trim() || undefined;
          if (decision === "reject") await api.developer.rejectStoreAgent({ id: a.id, reason: why });
          else await api.developer.disableStoreAgent({ id: a.id, reason: why });
          toast(`${decision === "reject" ? "Rejected" : "Disabled"} "${a.name}"`);
          done();
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(problem, h("p", { class: "error", role: "alert" }, errorText(err)));
          submit.disabled = false;
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: id }, "Reason (optional, the owner sees it)"), reason),
    h("div", { class: "widget-buttons" }, submit, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel")),
  );
}

function listingRow({ agent: a, origin, kind }: PendingListing, decided: () => void): HTMLElement {
  const form = h("div");
  const problem = h("div", { class: "widget-problem" });
  const approve: HTMLButtonElement = h(
    "button",
    {
      type: "button",
      "aria-label": `Approve ${a.name}`,
      onclick: async () => {
        approve.disabled = true;
        replace(problem);
        try {
          await api.developer.approveStoreAgent({ id: a.id });
          toast(`Approved "${a.name}"`);
          decided();
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(problem, h("p", { class: "error", role: "alert" }, errorText(err)));
          approve.disabled = false;
        }
      },
    },
    "Approve",
  );
  const opener = (decision: Decision, text: string) => {
    const b: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: "secondary",
        "aria-expanded": "false",
        "aria-label": `${text} ${a.name}`,
        onclick: () => {
          const open = b.getAttribute("aria-expanded") === "true";
          for (const o of [reject, disable]) o.setAttribute("aria-expanded", "false");
          replace(problem);
          if (open) {
            replace(form);
            return;
          }
          b.setAttribute("aria-expanded", "true");
          const f = reasonForm(decision, a, problem, decided, () => {
            b.setAttribute("aria-expanded", "false");
            replace(form);
            b.focus();
          });
          replace(form, f);
          f.querySelector("textarea")?.focus();
        },
      },
      text,
    );
    return b;
  };
  const reject = opener("reject", "Reject");
  const disable = opener("disable", "Disable");
  const price =
    kind !== ReviewKind.Agent || !a.pricingModel ? "" : a.pricingModel === "free" ? "Free" : `${termLabel("pricing_model", a.pricingModel)} · ${a.pricePerTask} ${a.currency}`;
  return h(
    "li",
    { class: "store-review-row listing-review-row", "data-id": a.id, "data-slug": a.slug },
    h(
      "div",
      { class: "key-main" },
      h("span", { class: "store-review-name" }, a.name),
      h("code", { class: "key-prefix" }, a.slug),
      chip("listing", "listing_status", a.status),
    ),
    h("p", { class: "key-sub listing-origin" }, origin),
    h(
      "p",
      { class: "key-sub" },
      [kind === ReviewKind.Capability && "Capability pack", a.developerName && `By ${a.developerName}`, a.category && termLabel("store_category", a.category), price, a.version && `Version ${a.version}`]
        .filter(Boolean)
        .join(" · "),
      " · Listed ",
      timeOf(a.createdAt),
    ),
    a.description && h("p", { class: "review-input" }, a.description),
    h("div", { class: "widget-buttons" }, approve, reject, disable),
    form,
    problem,
  );
}

export function listingReviewsSection(): HTMLElement {
  const region = new Region("Listings waiting for review");
  let offset = 0;
  const load = (): Promise<void> =>
    region.load(async () => {
      let { items, page } = await pendingListings(offset, pageSize);
      if (items.length === 0 && offset > 0) {
        offset = 0;
        ({ items, page } = await pendingListings(offset, pageSize));
      }
      if (items.length === 0) return emptyState("No listing waits for review.");
      return [
        h("ul", { class: "store-review-list listing-review-list" }, items.map((x) => listingRow(x, () => void load()))),
        pager(page, (o) => {
          offset = o;
          void load();
        }, "listings"),
      ];
    });
  void load();
  return h(
    "section",
    { class: "panel listing-reviews", "aria-labelledby": "listing-reviews-title" },
    h("h2", { id: "listing-reviews-title" }, "Listings waiting for review"),
    h("p", { class: "hint" }, "Approve lists an agent in the store; Reject and Disable keep it out. On a hub, the instance that synced it is told."),
    region.el,
  );
}
