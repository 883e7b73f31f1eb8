// Admin → Agent activity and My agents (StoreAdminService,
// proto/switchboard/v1/store_admin.proto). Agent activity draws the store's
// runs of the last 7, 30 or 90 days as inline SVG: runs per day stacked by
// outcome, the origins (local, federated, A2A, MCP, assistant), and each
// agent's mean duration; then the table per agent and the execution log,
// paged. My agents is the form that creates or updates an agent the
// instance owns, with its kit, and the list of those agents to edit.
import { api } from "../api";
import { h, uid } from "../dom";
import type { StoreAgent } from "../gen/switchboard/v1/store_pb";
import type { AgentActivityDay, GetAgentActivityResponse } from "../gen/switchboard/v1/store_admin_pb";
import { ExecutionStatus, PricingModel, RunOrigin } from "../gen/vocabulary_terms";
import { centsText } from "../money";
import { Region, act, emptyState, pager, timeOf, toast } from "../ui";
import { termLabel, terms } from "../vocabulary";

const svgNS = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const el = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

// titled gives an SVG element the tooltip a pointer shows.
function titled<T extends SVGElement>(el: T, title: string): T {
  el.append(svg("title", {}, title));
  return el;
}

// The outcomes a day's bar stacks, bottom first, each with its class.
const outcomes: { count: (d: AgentActivityDay) => number; label: string; cls: string }[] = [
  { count: (d) => d.completed, label: termLabel("execution_status", ExecutionStatus.Completed), cls: `outcome-${ExecutionStatus.Completed}` },
  { count: (d) => d.failed, label: termLabel("execution_status", ExecutionStatus.Failed), cls: `outcome-${ExecutionStatus.Failed}` },
  { count: (d) => d.timeout, label: termLabel("execution_status", ExecutionStatus.Timeout), cls: `outcome-${ExecutionStatus.Timeout}` },
  { count: (d) => d.pending, label: "Still running", cls: "outcome-pending" },
];

function legend(items: { label: string; cls: string }[]): HTMLElement {
  return h(
    "ul",
    { class: "chart-legend" },
    items.map((i) => h("li", null, h("span", { class: `swatch ${i.cls}`, "aria-hidden": "true" }), i.label)),
  );
}

// dailyChart stacks each day's runs by outcome; the first, middle and last
// days are labelled under the bars. The days are placed in percentages of
// the chart's width and the heights in pixels, so the chart fills its
// column at any width without stretching its text (a scaled viewBox would).
function dailyChart(days: AgentActivityDay[]): HTMLElement {
  const top = 110;
  const height = top + 18;
  const slot = 100 / Math.max(1, days.length);
  const bar = slot * (days.length > 30 ? 0.7 : 0.6);
  const max = Math.max(1, ...days.map((d) => d.completed + d.failed + d.timeout + d.pending));
  const pct = (v: number) => `${v.toFixed(3)}%`;
  const chart = svg("svg", {
    class: "activity-chart daily-chart",
    role: "img",
    "aria-label": "Runs per day by outcome",
    width: "100%",
    height,
  });
  chart.append(svg("line", { class: "axis", x1: "0", x2: "100%", y1: top + 0.5, y2: top + 0.5 }));
  const labelled = new Set([0, Math.floor((days.length - 1) / 2), days.length - 1]);
  days.forEach((d, i) => {
    const x = i * slot + (slot - bar) / 2;
    let y = top;
    const g = svg("g", { class: "day", "data-date": d.date });
    for (const o of outcomes) {
      const n = o.count(d);
      if (n === 0) continue;
      const bh = Math.max(1, Math.round((n / max) * (top - 4)));
      y -= bh;
      g.append(titled(svg("rect", { class: `bar ${o.cls}`, x: pct(x), y, width: pct(bar), height: bh, "data-count": n }), `${d.date}: ${n} ${o.label.toLowerCase()}`));
    }
    chart.append(g);
    if (labelled.has(i)) {
      const anchor = i === 0 ? "start" : i === days.length - 1 ? "end" : "middle";
      const tx = i === 0 ? x : i === days.length - 1 ? x + bar : x + bar / 2;
      chart.append(svg("text", { x: pct(tx), y: height - 3, "text-anchor": anchor, "font-size": 11 }, d.date.slice(5)));
    }
  });
  return h("figure", { class: "chart" }, h("figcaption", null, "Runs per day"), chart, legend(outcomes));
}

// hbars is a horizontal bar chart: one labelled row per entry.
function hbars(label: string, rows: { name: string; value: number; text: string; cls?: string }[], cls: string): HTMLElement {
  const rowH = 22;
  const labelW = 120;
  const barW = 220;
  const max = Math.max(1, ...rows.map((r) => r.value));
  const chart = svg("svg", {
    class: `activity-chart ${cls}`,
    role: "img",
    "aria-label": label,
    // Drawn at its own size from the left, and scaled down (never up) where
    // the column is narrower.
    viewBox: `0 0 ${labelW + barW + 90} ${rows.length * rowH}`,
    width: labelW + barW + 90,
    height: rows.length * rowH,
  });
  rows.forEach((r, i) => {
    const y = i * rowH;
    chart.append(svg("text", { x: 0, y: y + 15, "font-size": 12 }, r.name.length > 18 ? r.name.slice(0, 17) + "…" : r.name));
    const bw = Math.round((r.value / max) * barW);
    chart.append(titled(svg("rect", { class: `bar ${r.cls ?? ""}`, x: labelW, y: y + 4, width: Math.max(bw, r.value > 0 ? 2 : 0), height: rowH - 8, "data-value": r.value }), `${r.name}: ${r.text}`));
    chart.append(svg("text", { x: labelW + bw + 6, y: y + 15, "font-size": 12 }, r.text));
  });
  return h("figure", { class: "chart" }, h("figcaption", null, label), chart);
}

function originChart(res: GetAgentActivityResponse): HTMLElement {
  const o = res.origins;
  const counts: Record<string, number> = {
    [RunOrigin.Local]: o?.local ?? 0,
    [RunOrigin.Federated]: o?.federated ?? 0,
    [RunOrigin.A2A]: o?.a2a ?? 0,
    [RunOrigin.MCP]: o?.mcp ?? 0,
    [RunOrigin.Assistant]: o?.assistant ?? 0,
  };
  const total = Object.values(counts).reduce((a, b) => a + b, 0) || 1;
  return hbars(
    "Where runs came from",
    terms("run_origin").map((t) => ({
      name: t.label,
      value: counts[t.value] ?? 0,
      text: `${counts[t.value] ?? 0} (${Math.round(((counts[t.value] ?? 0) / total) * 100)}%)`,
      cls: `origin-${t.value}`,
    })),
    "origin-chart",
  );
}

function durationText(ms: number): string {
  if (ms >= 60_000) return `${(ms / 60_000).toFixed(1)} min`;
  if (ms >= 1000) return `${(ms / 1000).toFixed(1)} s`;
  return `${ms} ms`;
}

function durationChart(res: GetAgentActivityResponse): HTMLElement {
  return hbars(
    "Mean duration per agent",
    res.agents.map((a) => ({ name: a.name, value: a.avgDurationMs, text: a.avgDurationMs > 0 ? durationText(a.avgDurationMs) : "—" })),
    "duration-chart",
  );
}

function agentTable(res: GetAgentActivityResponse): HTMLElement {
  const head = ["Agent", "Runs", "Completed", "Failed", "Timed out", "Mean duration", "Revenue"];
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "activity-agents", "aria-label": "Runs per agent" },
      h("thead", null, h("tr", null, head.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        null,
        res.agents.map((a) =>
          h(
            "tr",
            { "data-agent-id": a.agentId },
            h("th", { scope: "row" }, a.name),
            h("td", null, String(a.executions)),
            h("td", null, String(a.completed)),
            h("td", null, String(a.failed)),
            h("td", null, String(a.timeout)),
            h("td", null, a.avgDurationMs > 0 ? durationText(a.avgDurationMs) : "—"),
            h("td", null, centsText(a.revenueCents, "USD")),
          ),
        ),
      ),
    ),
  );
}

const logSize = 20;

function logList(res: GetAgentActivityResponse, go: (offset: number) => void): HTMLElement {
  const p = res.pagination;
  return h(
    "div",
    { class: "activity-log" },
    h("h3", null, "Execution log"),
    h(
      "ul",
      { class: "store-review-list", "aria-label": "Execution log" },
      res.executions.map((e) =>
        h(
          "li",
          { class: "activity-log-row", "data-execution-id": e.id, "data-status": e.status, "data-origin": e.origin },
          h("span", { class: "store-review-name" }, e.agentName),
          h("span", { class: `chip outcome-${e.status}` }, termLabel("execution_status", e.status)),
          h("span", { class: "chip" }, termLabel("run_origin", e.origin)),
          h("span", { class: "muted" }, timeOf(e.createdAt)),
          e.durationMs !== undefined && h("span", { class: "muted" }, durationText(e.durationMs)),
          e.revenueCents !== undefined && h("span", null, centsText(e.revenueCents, "USD")),
        ),
      ),
    ),
    p && pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, go, "activity-log"),
  );
}

export function agentActivitySection(): HTMLElement {
  const region = new Region("Agent activity");
  let days = 30;
  let offset = 0;
  const load = (): Promise<void> =>
    region.load(async () => {
      const res = await api.storeAdmin.getAgentActivity({ days, limit: logSize, offset });
      if (res.agents.length === 0) return emptyState(`No store agent ran in the last ${days} days.`);
      return h(
        "div",
        { class: "activity-body" },
        h("div", { class: "activity-charts" }, dailyChart(res.daily), originChart(res), durationChart(res)),
        agentTable(res),
        logList(res, (o) => {
          offset = o;
          void load();
        }),
      );
    });
  const periods = h(
    "div",
    { class: "segmented", role: "group", "aria-label": "Period" },
    [7, 30, 90].map((d) =>
      h(
        "button",
        {
          type: "button",
          class: "secondary",
          "aria-pressed": String(d === days),
          "data-days": d,
          onclick: (e: Event) => {
            days = d;
            offset = 0;
            for (const b of periods.querySelectorAll("button")) b.setAttribute("aria-pressed", String(b === e.currentTarget));
            void load();
          },
        },
        `${d} days`,
      ),
    ),
  );
  void load();
  return h(
    "section",
    { class: "panel agent-activity", "aria-labelledby": "agent-activity-title" },
    h("h2", { id: "agent-activity-title" }, "Agent activity"),
    h("p", { class: "hint" }, "How the store's agents ran: each day's runs by outcome, where they came from, how long they took."),
    periods,
    region.el,
  );
}

// lines reads a textarea of one entry a line.
function lines(v: string): string[] {
  return v
    .split("\n")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  return h("div", { class: "field" }, h("label", { for: input.id }, label), input, hint && h("p", { class: "hint" }, hint));
}

export function myAgentsSection(): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const list = new Region("The instance's agents");
  const ids = { name: uid("ma-name"), slug: uid("ma-slug"), desc: uid("ma-desc"), cat: uid("ma-cat"), pricing: uid("ma-pricing") };
  const name = h("input", { id: ids.name, name: "name", required: true, maxlength: 500 });
  const slug = h("input", { id: ids.slug, name: "slug", maxlength: 64, pattern: "[a-z0-9-]*" });
  const description = h("textarea", { id: ids.desc, name: "description", rows: 2 });
  const category = h("select", { id: ids.cat, name: "category" }, h("option", { value: "" }, "—"), terms("store_category").map((t) => h("option", { value: t.value }, t.label)));
  const pricing = h("select", { id: ids.pricing, name: "pricingModel" }, terms("pricing_model").map((t) => h("option", { value: t.value, selected: t.value === PricingModel.Free }, t.label)));
  const price = h("input", { id: uid("ma-price"), name: "pricePerTaskCents", type: "number", min: 0, step: 1 });
  const endpoint = h("input", { id: uid("ma-endpoint"), name: "endpointUrl", type: "url", placeholder: "https://…" });
  const systemPrompt = h("textarea", { id: uid("ma-prompt"), name: "systemPrompt", rows: 4 });
  const tools = h("textarea", { id: uid("ma-tools"), name: "tools", rows: 3 });
  const samples = h("textarea", { id: uid("ma-samples"), name: "samplePrompts", rows: 3 });
  const context = h("textarea", { id: uid("ma-context"), name: "contextInstructions", rows: 3 });
  let editing: string | undefined;
  const save = h("button", { type: "submit" }, "Save agent");
  const reset = (): void => {
    editing = undefined;
    form.reset();
    save.textContent = "Save agent";
  };
  const edit = (a: StoreAgent): void => {
    editing = a.id;
    name.value = a.name;
    slug.value = a.slug;
    description.value = a.description ?? "";
    category.value = a.category ?? "";
    pricing.value = a.pricingModel;
    price.value = a.pricePerTask > 0 ? String(Math.round(a.pricePerTask * 100)) : "";
    endpoint.value = a.endpointUrl ?? "";
    systemPrompt.value = a.kit?.systemPrompt ?? "";
    tools.value = (a.kit?.tools ?? []).join("\n");
    samples.value = (a.kit?.samplePrompts ?? []).join("\n");
    context.value = a.kit?.contextInstructions ?? a.contextInstructions ?? "";
    save.textContent = `Save ${a.name}`;
    name.focus();
  };
  const form: HTMLFormElement = h(
    "form",
    {
      class: "my-agent-form",
      "aria-label": "Instance agent",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const cents = price.value.trim() === "" ? undefined : Number(price.value);
        void act(
          save,
          problem,
          () =>
            api.storeAdmin.saveMyAgent({
              id: editing,
              name: name.value.trim(),
              slug: slug.value.trim() || undefined,
              description: description.value.trim() || undefined,
              category: category.value || undefined,
              pricingModel: pricing.value,
              pricePerTaskCents: cents,
              endpointUrl: endpoint.value.trim() || (editing ? "" : undefined),
              kit: {
                systemPrompt: systemPrompt.value.trim() || undefined,
                tools: lines(tools.value),
                samplePrompts: lines(samples.value),
                contextInstructions: context.value.trim(),
              },
            }),
          () => {
            toast(editing ? `Saved ${name.value.trim()}.` : `Created ${name.value.trim()}.`);
            reset();
            void loadList();
          },
        );
      },
    },
    h(
      "div",
      { class: "form-grid" },
      field("Name", name),
      field("Slug", slug, "Lowercase words joined by hyphens; made from the name when empty."),
      field("Description", description),
      field("Category", category),
      field("Pricing", pricing),
      field("Price per task (cents)", price, "For per-task and subscription pricing."),
      field("Endpoint URL", endpoint, "Optional for the instance's own agents."),
    ),
    h("h3", null, "Kit"),
    field("System prompt", systemPrompt),
    field("Tools", tools, "One tool name a line."),
    field("Sample prompts", samples, "One prompt a line."),
    field("Context instructions", context),
    h("div", { class: "widget-buttons" }, save, h("button", { type: "button", class: "secondary", onclick: reset }, "New agent")),
    problem,
  );
  const loadList = (): Promise<void> =>
    list.load(async () => {
      const res = await api.store.listStoreAgents({ mine: true, limit: 100 });
      const own = res.agents.filter((a) => a.instanceOwned);
      if (own.length === 0) return emptyState("The instance owns no agent yet.");
      return h(
        "ul",
        { class: "store-review-list my-agents", "aria-label": "The instance's agents" },
        own.map((a) =>
          h(
            "li",
            { class: "store-review-row", "data-agent-id": a.id },
            h("span", { class: "store-review-name" }, a.name),
            h("span", { class: "muted" }, `@${a.slug} · ${a.version} · ${termLabel("listing_status", a.status)}`),
            h(
              "button",
              {
                type: "button",
                class: "secondary",
                "aria-label": `Edit ${a.name}`,
                onclick: async () => {
                  // The detail carries the kit for admins.
                  const full = await api.store.getStoreAgent({ id: a.id });
                  if (full.agent) edit(full.agent);
                },
              },
              "Edit",
            ),
          ),
        ),
      );
    });
  void loadList();
  return h(
    "section",
    { class: "panel my-agents-panel", "aria-labelledby": "my-agents-title" },
    h("h2", { id: "my-agents-title" }, "My agents"),
    h("p", { class: "hint" }, "Agents the instance owns: listed in the store as the instance's; their kit is shown to admins only."),
    list.el,
    form,
  );
}
