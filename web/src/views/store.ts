// Store: browse and search the listings (StoreService; the scope choice reads
// this instance's store, the hub's global store, or both, and a global
// listing runs through this instance with its result in the queue), a
// listing's detail with its integration kit, install/uninstall and subscribe,
// and running an installed agent with an input (StoreExecutionService): the
// result, or a dynamic price's quote with Approve/Decline. "My listings" shows
// the operator's own listings with their earnings and the store's fees;
// capability packs follow the listings (packs.ts).
import { api, errorText, isUnauthenticated } from "../api";
import { centsText } from "../money";
import { h, replace, uid, type Child } from "../dom";
import type { GetStoreAgentResponse, StoreAgent } from "../gen/switchboard/v1/store_pb";
import type { ExecuteStoreAgentResponse } from "../gen/switchboard/v1/store_execution_pb";
import { Region, chip, emptyState, pager, reportUnauthenticated, stillAt, toast, type View } from "../ui";
import { termLabel, terms } from "../vocabulary";
import { packsSection } from "./packs";
import { reviewsSection } from "./storeReviews";
import { onRefresh } from "../refresh";
import { ExecutionStatus, ListingStatus, QuoteAction, StoreScope } from "../gen/vocabulary_terms";

const pageSize = 20;

// The sorts ListStoreAgents accepts (proto/switchboard/v1/store.proto).
const sorts: [string, string][] = [
  ["newest", "Newest"],
  ["name", "Name"],
  ["rating", "Rating"],
  ["popular", "Most installed"],
  ["price_asc", "Price, low to high"],
  ["price_desc", "Price, high to low"],
];

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: currency || "USD" }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

export function priceText(a: StoreAgent): string {
  if (a.pricingModel === "free") return "Free";
  if (a.pricingModel === "per_task") return `${money(a.pricePerTask, a.currency)} per task`;
  const model = termLabel("pricing_model", a.pricingModel);
  return a.pricePerTask > 0 ? `${model}, from ${money(a.pricePerTask, a.currency)}` : model;
}

function rating(a: StoreAgent): HTMLElement {
  if (a.ratingCount === 0) return h("span", { class: "muted rating" }, "No ratings yet");
  const words = `Rated ${a.ratingAvg.toFixed(1)} of 5 from ${a.ratingCount} rating${a.ratingCount === 1 ? "" : "s"}`;
  return h("span", { class: "rating", "aria-label": words, title: words }, `★ ${a.ratingAvg.toFixed(1)} (${a.ratingCount})`);
}

function listingRow(a: StoreAgent, selected: boolean): HTMLElement {
  // A global listing lives in the hub's store: it has no detail here, and
  // runs through this instance from its row.
  const global = a.origin === "global";
  return h(
    "li",
    { class: "store-row", "data-id": a.id, "data-origin": a.origin },
    global
      ? h("span", { class: "store-name" }, a.name)
      : h(
          "a",
          { href: `#/store/${encodeURIComponent(a.id)}`, "data-focus-key": `listing-${a.id}`, "aria-current": selected ? "true" : undefined },
          h("span", { class: "store-name" }, a.name),
        ),
    a.description && h("p", { class: "store-desc" }, a.description),
    h(
      "div",
      { class: "store-sub" },
      a.category && chip("store-category", "store_category", a.category),
      h("span", { class: "price" }, priceText(a)),
      rating(a),
      a.installed && h("span", { class: "chip installed" }, "Installed"),
      a.subscribed && h("span", { class: "chip subscribed" }, "Subscribed"),
      a.status !== ListingStatus.Active && chip("listing-status", "listing_status", a.status),
      a.origin && chip("store-origin", "store_origin", a.origin),
    ),
    global && h("details", { class: "store-run" }, h("summary", null, `Run ${a.name}`), executeForm(a)),
  );
}

// The integration kit: what installing writes into the assistant's memory.
function kit(a: StoreAgent): HTMLElement | null {
  const parts: Child[] = [];
  const text = (title: string, v: string | undefined) => {
    if (v) parts.push(h("h4", null, title), h("p", { class: "kit-text" }, v));
  };
  text("Install guide", a.installGuide);
  if (a.commands.length > 0) {
    parts.push(
      h("h4", null, "Commands"),
      h(
        "ul",
        { class: "kit-commands" },
        a.commands.map((c) => h("li", null, h("code", null, c.usage || c.name), c.description && ` · ${c.description}`)),
      ),
    );
  }
  if (a.taskTypes.length > 0) parts.push(h("h4", null, "Task types"), h("ul", { class: "labels" }, a.taskTypes.map((t) => h("li", null, t))));
  text("Context instructions", a.contextInstructions);
  text("Usage examples", a.usageExamples);
  text("Context preparation", a.contextPreparation);
  text("Execution notes", a.executionNotes);
  if (parts.length === 0) return null;
  return h("section", { class: "kit", "aria-labelledby": "kit-title" }, h("h3", { id: "kit-title" }, "Integration kit"), parts);
}

// executionResult shows what running the agent answered: the output, the
// reason it failed, where it waits in the queue, or a quote to decide.
function executionResult(listingId: string, x: ExecuteStoreAgentResponse, show: (x: ExecuteStoreAgentResponse) => void): HTMLElement {
  const status = h("div", { class: "form-status" });
  const decide = async (action: QuoteAction, buttons: HTMLButtonElement[]) => {
    buttons.forEach((b) => (b.disabled = true));
    try {
      const res = await api.storeExecution.decideStoreQuote({ id: listingId, executionId: x.executionId, action });
      toast(action === QuoteAction.Approve ? "Quote approved" : "Quote declined");
      if (res.execution) show(res.execution);
    } catch (err) {
      if (isUnauthenticated(err)) reportUnauthenticated();
      replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
      buttons.forEach((b) => (b.disabled = false));
    }
  };
  let quote: Child = null;
  if (x.quote && x.pricingPhase === "quoted") {
    const approve = h("button", { type: "button" }, "Approve");
    const decline = h("button", { type: "button", class: "secondary" }, "Decline");
    approve.addEventListener("click", () => void decide(QuoteAction.Approve, [approve, decline]));
    decline.addEventListener("click", () => void decide(QuoteAction.Decline, [approve, decline]));
    quote = h(
      "div",
      { class: "quote" },
      h("p", null, "The agent asks ", h("strong", null, money(x.quote.amount, x.quote.currency)), " for this task."),
      x.quote.breakdown && h("p", { class: "muted" }, x.quote.breakdown),
      h("div", { class: "editor-actions" }, approve, decline),
    );
  }
  return h(
    "section",
    { class: "execution-result", "aria-label": "Result", "data-execution-id": x.executionId },
    h("h4", null, "Result ", chip("execution-status", "execution_status", x.status)),
    x.output !== undefined && h("pre", { class: "output" }, x.output),
    x.error && h("p", { class: "error" }, x.error),
    x.queuePosition !== undefined && h("p", { class: "muted" }, `Queued, position ${x.queuePosition}.`),
    x.status === ExecutionStatus.Running && !quote && h("p", { class: "muted" }, "The agent took the task and will answer later."),
    x.taskOrigin === "federation" && h("p", { class: "muted" }, "It runs on the hub; the result arrives in your queue."),
    x.responseTimeMs !== undefined && h("p", { class: "muted" }, `Answered in ${x.responseTimeMs} ms.`),
    quote,
    status,
  );
}

function executeForm(a: StoreAgent): HTMLElement {
  const inputId = uid("task");
  const input = h("textarea", { id: inputId, name: "input", rows: 3, required: true });
  const run = h("button", { type: "submit" }, "Run");
  const status = h("div", { class: "form-status" });
  const result = h("div", { "aria-live": "polite" });
  const show = (x: ExecuteStoreAgentResponse) => replace(result, executionResult(a.id, x, show));
  return h(
    "form",
    {
      class: "execute",
      "aria-label": `Run ${a.name}`,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        if (!input.value.trim()) return;
        run.disabled = true;
        replace(status, h("p", { class: "loading", role: "status" }, "Running…"));
        try {
          const x = await api.storeExecution.executeStoreAgent({ id: a.id, input: input.value }, { timeoutMs: 60_000 });
          replace(status);
          show(x);
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
        } finally {
          run.disabled = false;
        }
      },
    },
    h("h3", null, "Run this agent"),
    h("div", { class: "field" }, h("label", { for: inputId }, "Task for the agent"), input),
    h("div", { class: "editor-actions" }, run),
    status,
    result,
  );
}

function detail(res: GetStoreAgentResponse, changed: () => void): HTMLElement {
  const a = res.agent!;
  const status = h("div", { class: "form-status" });
  const act = async (btn: HTMLButtonElement, call: () => Promise<unknown>, done: string) => {
    btn.disabled = true;
    try {
      await call();
      toast(done);
      changed();
    } catch (err) {
      if (isUnauthenticated(err)) reportUnauthenticated();
      replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
      btn.disabled = false;
    }
  };
  const install = h("button", { type: "button", class: a.installed ? "secondary" : undefined }, a.installed ? "Uninstall" : "Install");
  install.addEventListener("click", () =>
    void act(
      install,
      () => (a.installed ? api.store.uninstallStoreAgent({ id: a.id }) : api.store.installStoreAgent({ id: a.id })),
      a.installed ? `Uninstalled ${a.name}` : `Installed ${a.name}`,
    ),
  );
  const subscribe = h("button", { type: "button", class: "secondary" }, a.subscribed ? "Unsubscribe" : "Subscribe");
  subscribe.addEventListener("click", () =>
    void act(
      subscribe,
      () => (a.subscribed ? api.store.unsubscribeStoreAgent({ id: a.id }) : api.store.subscribeStoreAgent({ id: a.id })),
      a.subscribed ? `Unsubscribed from ${a.name}` : `Subscribed to ${a.name}`,
    ),
  );
  const rows: [string, Child][] = [
    ["Category", a.category ? termLabel("store_category", a.category) : undefined],
    ["Price", priceText(a)],
    ["Rating", rating(a)],
    ["Developer", a.developerName],
    ["Version", a.version],
    ["Availability", termLabel("availability", a.availability)],
    ["Installs", String(a.installCount)],
    ["Subscribers", String(a.subscriberCount)],
  ];
  const st = res.stats;
  return h(
    "article",
    { class: "store-detail", "aria-labelledby": "listing-title" },
    h("h2", { id: "listing-title", tabindex: -1 }, a.name),
    a.description && h("p", null, a.description),
    h("dl", null, rows.filter(([, v]) => v).map(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    st && st.executionCount > 0 && h("p", { class: "muted" }, `${st.executionCount} runs, ${st.completedCount} completed, ${st.failedCount} failed.`),
    h("div", { class: "editor-actions" }, install, subscribe),
    status,
    a.installed ? executeForm(a) : h("p", { class: "muted" }, "Install the agent to run it."),
    kit(a),
  );
}

// mine shows the operator's fees and earnings above their own listings.
async function earnings(): Promise<HTMLElement> {
  const [fees, earned, ledger] = await Promise.all([
    api.store.getStoreFeeInfo({}),
    api.store.getStoreEarnings({}),
    // Engagement income sits beside the store's (issue 29): the ledger's totals.
    api.economy.listEconomyLedger({ limit: 1 }),
  ]);
  const engaged = ledger.totals.filter((t) => t.engagementCents !== 0);
  return h(
    "section",
    { class: "panel earnings", "aria-labelledby": "earnings-title" },
    h("h2", { id: "earnings-title" }, "Earnings"),
    h(
      "p",
      { class: "muted" },
      `The store keeps ${fees.storeFeePercent}% of each paid task; you receive ${fees.developerSharePercent}%. ` +
        `Payouts follow a ${fees.reviewWindowHours}-hour review window.`,
    ),
    earned.totals.length === 0
      ? emptyState("No paid tasks yet.")
      : h(
          "ul",
          { class: "earnings-totals" },
          earned.totals.map((t) =>
            h(
              "li",
              null,
              h("strong", null, money(t.developerPayout, t.currency)),
              ` earned from ${t.paidExecutionCount} paid task${t.paidExecutionCount === 1 ? "" : "s"} `,
              h("span", { class: "muted" }, `(${money(t.gross, t.currency)} gross, ${money(t.platformFee, t.currency)} fees, ${money(t.pendingPayout, t.currency)} pending)`),
            ),
          ),
        ),
    engaged.length > 0 &&
      h(
        "ul",
        { class: "earnings-engagements", "aria-label": "Engagement earnings" },
        engaged.map((t) => h("li", null, h("strong", null, centsText(t.engagementCents, t.currency)), " earned from engagements")),
      ),
    earned.agents.length > 0 &&
      h(
        "table",
        { class: "earnings-agents" },
        h("caption", null, "By listing"),
        h(
          "thead",
          null,
          h("tr", null, ["Listing", "Paid tasks", "Gross", "Fees", "Earned", "Pending"].map((c) => h("th", { scope: "col" }, c))),
        ),
        h(
          "tbody",
          null,
          earned.agents.map((a) =>
            h(
              "tr",
              { "data-id": a.agentId },
              // A removed listing's earnings come without an agent id: its name alone.
              h(
                "th",
                { scope: "row" },
                a.agentId ? h("a", { href: `#/store/${encodeURIComponent(a.agentId)}?mine=1` }, a.name) : a.name,
              ),
              h("td", null, String(a.paidExecutionCount)),
              h("td", null, money(a.gross, a.currency)),
              h("td", null, money(a.platformFee, a.currency)),
              h("td", null, money(a.developerPayout, a.currency)),
              h("td", null, money(a.pendingPayout, a.currency)),
            ),
          ),
        ),
      ),
  );
}

// hubJoined is what the last browse said of this instance: joined to a hub
// or not (ListStoreAgentsResponse.hubJoined).
let hubJoined = false;

export function storeView(params: URLSearchParams, id?: string): View {
  let search = params.get("search") ?? "";
  let category = params.get("category") ?? "";
  let pricing = params.get("pricing") ?? "";
  let sort = params.get("sort") ?? "newest";
  let scope = params.get("scope") ?? "";
  let mine = params.get("mine") === "1";
  let offset = 0;
  const list = new Region("Listings");
  const side = new Region("Listing");
  const earningsRegion = new Region("Earnings");

  const ask = (asked: string) => api.store.listStoreAgents({ search, category, pricing, sort, scope: asked, mine, limit: pageSize, offset });
  const load = () =>
    list.load(async () => {
      // Default on an instance joined to a hub is everywhere: the network's
      // listings beside this instance's (the API's own default stays local,
      // document 2; docs/decisions.md "The network from the dashboard").
      let res = await ask(scope || (hubJoined ? StoreScope.All : ""));
      if (!scope && res.hubJoined !== hubJoined) {
        hubJoined = res.hubJoined;
        if (hubJoined) res = await ask(StoreScope.All);
      }
      const p = res.pagination;
      if (res.agents.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(load);
      }
      if (res.agents.length === 0) {
        return emptyState(mine ? "You have no listings yet." : search || category || pricing ? "No listings match." : "The store has no listings yet.");
      }
      return [
        res.note && h("p", { class: "muted" }, res.note),
        h("ul", { class: "store-list" }, res.agents.map((a) => listingRow(a, a.id === id))),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "listings"),
      ];
    });

  const loadDetail = () => {
    if (!id) return;
    const listingId = id;
    void side.load(async () => {
      const res = await api.store.getStoreAgent({ id: listingId });
      if (!res.agent) throw new Error("The listing was not found.");
      return detail(res, () => {
        loadDetail();
        void load();
      });
    });
  };

  const field = (title: string, control: HTMLInputElement | HTMLSelectElement) => {
    control.id = uid("store");
    return h("div", { class: "field inline" }, h("label", { for: control.id }, title), control);
  };
  const options = (all: [string, string][], value: string) =>
    all.map(([v, label]) => h("option", { value: v, selected: v === value }, label));
  const searchInput = h("input", { type: "search", name: "search", value: search });
  const categorySelect = h("select", { name: "category" }, options([["", "Any"], ...terms("store_category").map((t): [string, string] => [t.value, t.label])], category));
  const pricingSelect = h(
    "select",
    { name: "pricing" },
    options([["", "Any"], ["paid", "Paid"], ...terms("pricing_model").map((t): [string, string] => [t.value, t.label])], pricing),
  );
  const sortSelect = h("select", { name: "sort" }, options(sorts, sort));
  // Empty is the default: everywhere on a hub or an instance joined to one,
  // else this instance's store.
  const scopeSelect = h(
    "select",
    { name: "scope" },
    options([["", "Default"], ...terms("store_scope").map((t): [string, string] => [t.value, t.label])], scope),
  );
  const mineId = uid("mine");
  const mineBox = h("input", { type: "checkbox", id: mineId, name: "mine", checked: mine });

  const path = `#/store${id ? `/${encodeURIComponent(id)}` : ""}`;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const apply = (delay: number) => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!stillAt(path)) return;
      search = searchInput.value.trim();
      category = categorySelect.value;
      pricing = pricingSelect.value;
      sort = sortSelect.value;
      scope = scopeSelect.value;
      mine = mineBox.checked;
      offset = 0;
      const q = new URLSearchParams(
        Object.entries({ search, category, pricing, sort: sort === "newest" ? "" : sort, scope, mine: mine ? "1" : "" }).filter(([, v]) => v),
      );
      history.replaceState(null, "", `${path}${q.size ? `?${q}` : ""}`);
      showEarnings();
      void load();
    }, delay);
  };
  searchInput.addEventListener("input", () => apply(300));
  for (const s of [categorySelect, pricingSelect, sortSelect, scopeSelect, mineBox]) s.addEventListener("change", () => apply(0));

  const earningsSlot = h("div");
  const showEarnings = () => {
    if (!mine) {
      replace(earningsSlot);
      return;
    }
    replace(earningsSlot, earningsRegion.el);
    void earningsRegion.load(earnings);
  };

  const reviews = reviewsSection();
  const el = h(
    "div",
    { class: `view store${id ? " has-detail" : ""}` },
    h("div", { class: "view-head" }, h("h1", null, "Store")),
    earningsSlot,
    reviews.el,
    h(
      "div",
      { class: "split" },
      h(
        "div",
        { class: "split-main" },
        h(
          "form",
          { class: "filters", role: "search", onsubmit: (e: Event) => e.preventDefault() },
          field("Search", searchInput),
          field("Category", categorySelect),
          field("Pricing", pricingSelect),
          field("Sort", sortSelect),
          field("Store", scopeSelect),
          h("div", { class: "field inline check" }, mineBox, h("label", { for: mineId }, "My listings")),
        ),
        list.el,
        packsSection(),
      ),
      id &&
        h(
          "aside",
          { class: "split-side panel", "aria-label": "Listing detail" },
          h("a", { class: "back", href: "#/store" }, "← All listings"),
          side.el,
        ),
    ),
  );
  showEarnings();
  void load();
  loadDetail();
  // Live: a result arrived or the installs changed (issue 31).
  const off = onRefresh("store", () => {
    reviews.reload();
    void load();
  });
  return {
    el,
    unmount: () => {
      clearTimeout(timer);
      off();
    },
  };
}
