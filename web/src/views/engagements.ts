// Engagements (EconomyService): the operator's contracts in the task
// economy, as client (they hired) or as provider (they were hired), by
// state; Find providers (FindProviders: local users' and connected peers'
// capabilities for a task type, ranked, each with Hire); and a contract's
// page (#/engagements/<id>, contract.ts). The other side's moves write comms
// messages naming the contract: when the live stream carries one, the view
// loads again, unless the operator is writing in one of its forms (a button
// then offers the changes). The economy does not publish them on the stream
// yet (docs/decisions.md), so until it does a move shows on the next load.
import { api } from "../api";
import { h, replace, uid } from "../dom";
import type { Contract, ProviderMatch } from "../gen/switchboard/v1/economy_pb";
import type { ChatMessage } from "../gen/switchboard/v1/chat_pb";
import { live, metadataOf, type RecordEvent } from "../live";
import { StreamEvent } from "../gen/vocabulary_terms";
import { centsOf, centsText } from "../money";
import { Region, act, chip, emptyState, pager, timeOf, type View } from "../ui";
import { termLabel, terms } from "../vocabulary";
import { contractPage } from "./contract";
import { nameOf, otherSide } from "./contractSides";
import { hireButton } from "./hire";
import { hostOf } from "./targets";

const pageSize = 20;

function contractRow(c: Contract): HTMLElement {
  const other = otherSide(c);
  return h(
    "li",
    { class: "group-row contract-row", "data-contract-id": c.id, "data-status": c.status, "data-role": c.role },
    h("a", { href: `#/engagements/${encodeURIComponent(c.id)}`, "data-focus-key": `contract-${c.id}` }, h("span", { class: "group-name" }, c.title)),
    " ",
    h("span", { class: "muted" }, `${termLabel("contract_role", other)}: ${nameOf(c, other)}`),
    h(
      "div",
      { class: "group-sub" },
      chip("contract-status", "contract_status", c.status),
      chip("role", "contract_role", c.role ?? ""),
      h("span", null, centsText(c.priceCents, c.currency)),
      h("span", { class: "muted" }, termLabel("job_task_type", c.taskType)),
      h("span", { class: "muted" }, "Offered ", timeOf(c.createdAt)),
    ),
  );
}

// matchRow is one ranked provider with its Hire (the capability's task type
// and price suggested).
function matchRow(m: ProviderMatch): HTMLElement {
  const p = m.provider;
  const name = p?.name || "A provider";
  const slot = h("div", { class: "hire-slot" });
  const price = m.priceCents !== undefined ? centsText(m.priceCents, m.currency ?? "") : null;
  return h(
    "li",
    { class: "group-row provider-match", "data-capability-id": m.capabilityId },
    h("span", { class: "group-name" }, name),
    p?.instanceUrl && h("span", { class: "member-instance" }, ` · ${hostOf(p.instanceUrl)}`),
    h(
      "div",
      { class: "group-sub" },
      h("span", null, termLabel("job_task_type", m.taskType)),
      price && h("span", null, m.pricingModel ? `${price} · ${termLabel("capability_pricing_model", m.pricingModel)}` : price),
      h("span", { class: "muted" }, `Match ${Math.round(m.score * 100)} of 100`),
    ),
    p &&
      h(
        "div",
        { class: "widget-buttons" },
        hireButton(
          { userId: p.userId, connectionId: p.connectionId, name },
          { taskType: m.taskType, priceCents: m.priceCents || undefined, currency: m.currency || undefined },
          slot,
          { "aria-label": `Hire ${name}` },
        ),
      ),
    slot,
  );
}

// findProviders is the search form and its ranked results.
function findProviders(): HTMLElement {
  const results = h("div", { class: "provider-results" });
  const taskType = h("select", { name: "taskType", id: uid("find-task") }, terms("job_task_type").map((t) => h("option", { value: t.value }, t.label)));
  const maxPrice = h("input", { name: "maxPrice", id: uid("find-max"), type: "number", min: "0", step: "0.01", inputmode: "decimal" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Find providers");
  const form = h(
    "form",
    {
      class: "filters provider-search",
      role: "search",
      "aria-label": "Find providers",
      onsubmit: (e: Event) => {
        e.preventDefault();
        let found: ProviderMatch[] = [];
        void act(
          submit,
          problem,
          async () => {
            const max = maxPrice.value ? centsOf(maxPrice.value) : 0;
            found = (await api.economy.findProviders({ taskType: taskType.value, maxPriceCents: max, limit: 20 })).providers;
          },
          () =>
            replace(
              results,
              found.length === 0
                ? emptyState(`Nobody offers ${termLabel("job_task_type", taskType.value).toLowerCase()} work within that price yet.`)
                : h("ul", { class: "group-list", "aria-label": "Providers found" }, found.map(matchRow)),
            ),
        );
      },
    },
    h("div", { class: "field inline" }, h("label", { for: taskType.id }, "Task type"), taskType),
    h("div", { class: "field inline" }, h("label", { for: maxPrice.id }, "Most you would pay (optional)"), maxPrice),
    submit,
  );
  return h(
    "section",
    { class: "panel find-providers", "aria-labelledby": "find-providers" },
    h("h2", { id: "find-providers" }, "Find providers"),
    h("p", { class: "hint" }, "Users here and your connections who offer a task type, best match first. Hire one to offer them the work."),
    form,
    problem,
    results,
  );
}

// filterSelect is a select of a vocabulary's terms with "Any" first.
function filterSelect(title: string, name: string, vocabulary: string, value: string, change: (v: string) => void): HTMLElement {
  const id = uid(name);
  const select = h(
    "select",
    { id, name, onchange: () => change(select.value) },
    h("option", { value: "" }, "Any"),
    terms(vocabulary).map((t) => h("option", { value: t.value, selected: t.value === value }, t.label)),
  );
  return h("div", { class: "field inline" }, h("label", { for: id }, title), select);
}

// editing says whether the operator has words in one of el's forms, which a
// reload would throw away.
function editing(el: HTMLElement): boolean {
  return [...el.querySelectorAll<HTMLInputElement | HTMLTextAreaElement>("form textarea, form input")].some((i) => i.value.trim() !== "");
}

export function engagementsView(params: URLSearchParams, id?: string): View {
  let role = params.get("role") ?? "";
  let status = params.get("status") ?? "";
  let offset = 0;
  const list = new Region("Contracts");
  const side = new Region("Contract");
  const stale = h("div", { class: "stale-slot" });

  const load = () =>
    list.load(async () => {
      const res = await api.economy.listContracts({ role, status, limit: pageSize, offset });
      const p = res.pagination;
      if (res.contracts.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(load);
      }
      if (res.contracts.length === 0)
        return emptyState(role || status ? "No contract matches." : "No engagements yet: hire someone from their profile or from Find providers below.");
      return [
        h("ul", { class: "group-list", "aria-label": "Contracts" }, res.contracts.map(contractRow)),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "contracts"),
      ];
    });

  let focusTitle = true;
  const loadDetail = () => {
    if (!id) return;
    const contractId = id;
    replace(stale);
    void side.load(async () => {
      const res = await api.economy.getContract({ id: contractId });
      if (!res.contract) throw new Error("The contract was not found.");
      const d = contractPage(res, loadDetail);
      if (focusTitle) {
        focusTitle = false;
        queueMicrotask(() => d.querySelector<HTMLElement>("#contract-title")?.focus());
      }
      return d;
    });
  };

  const setFilter = (r: string, s: string) => {
    role = r;
    status = s;
    offset = 0;
    const q = new URLSearchParams();
    if (role) q.set("role", role);
    if (status) q.set("status", status);
    const qs = q.toString();
    history.replaceState(null, "", `#/engagements${qs ? `?${qs}` : ""}`);
    void load();
  };

  const el = h(
    "div",
    { class: "view engagements" },
    h("div", { class: "view-head" }, h("h1", null, "Engagements")),
    id
      ? h("div", { class: "group-detail" }, h("a", { class: "back", href: "#/engagements" }, "← All engagements"), stale, side.el)
      : h(
          "div",
          null,
          h(
            "form",
            { class: "filters", role: "search", "aria-label": "Filter contracts", onsubmit: (e: Event) => e.preventDefault() },
            filterSelect("Your side", "role", "contract_role", role, (v) => setFilter(v, status)),
            filterSelect("State", "status", "contract_status", status, (v) => setFilter(role, v)),
          ),
          list.el,
          findProviders(),
        ),
  );

  // The other side moved: load again, or, while the operator writes,
  // offer the changes instead of throwing the words away. A move arrives
  // as a comms message to the side that did not make it, and as
  // economy_changed to both (issue 31).
  const onMessage = (e: Event) => changed(metadataOf((e as CustomEvent<ChatMessage>).detail).contractId);
  const onRecord = (e: Event) => {
    const r = (e as CustomEvent<RecordEvent>).detail;
    if (r.type === StreamEvent.EconomyChanged) changed(r.record?.id ?? "");
  };
  const changed = (about: string) => {
    if (!about) return;
    if (!id) {
      void load();
      return;
    }
    if (about !== id) return;
    if (!editing(side.el)) {
      loadDetail();
      return;
    }
    replace(
      stale,
      h(
        "p",
        { class: "notice", role: "status" },
        "The other side changed this contract. ",
        h("button", { type: "button", class: "secondary small", onclick: loadDetail }, "Show the changes"),
      ),
    );
  };
  live.addEventListener("message", onMessage);
  live.addEventListener("record", onRecord);
  if (id) loadDetail();
  else void load();
  return {
    el,
    unmount() {
      live.removeEventListener("message", onMessage);
      live.removeEventListener("record", onRecord);
    },
  };
}
