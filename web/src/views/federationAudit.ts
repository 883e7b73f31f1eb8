// Admin → Federation audit: this instance's log of its federation calls
// (FederationAuditService.ListFederationAudit), filtered by the request's
// fields, 30 rows a page, newest first, or the statistics of every row the
// filters match (view=stats). Payload and response previews are what another
// instance sent: they are shown as text (text nodes, never markup), so a
// preview holding <script> or <img onerror> reads as those characters.
import { api, fromDate } from "../api";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { h, uid } from "../dom";
import type {
  FederationAuditCount,
  FederationAuditEntry,
  FederationAuditStats,
  ListFederationAuditRequestSchema,
} from "../gen/switchboard/v1/federation_audit_pb";
import { Region, chip, emptyState, facts, pager, timeOf } from "../ui";
import { terms, values } from "../vocabulary";

export const auditPageSize = 30;

type Filters = { direction: string; status: string; threatLevel: string; endpoint: string; since: string; until: string };

function select(label: string, name: string, vocabulary: string): { el: HTMLElement; input: HTMLSelectElement } {
  const id = uid(name);
  const input = h(
    "select",
    { id, name },
    h("option", { value: "" }, "Any"),
    terms(vocabulary).map((t) => h("option", { value: t.value }, t.label)),
  );
  return { el: h("div", { class: "field" }, h("label", { for: id }, label), input), input };
}

function text(label: string, name: string, type = "text"): { el: HTMLElement; input: HTMLInputElement } {
  const id = uid(name);
  const input = h("input", { id, name, type, autocomplete: "off" });
  return { el: h("div", { class: "field" }, h("label", { for: id }, label), input), input };
}

// preview is sent text in a <pre>: its textContent, whatever it holds.
function preview(label: string, value: string): HTMLElement | null {
  if (!value) return null;
  const pre = h("pre", { class: "audit-preview", tabindex: "0", "aria-label": label });
  pre.textContent = value;
  return h("div", { class: "audit-preview-block" }, h("h4", null, label), pre);
}

function entryRow(e: FederationAuditEntry): HTMLElement {
  // Inbound rows name their caller, outbound ones their target.
  const who = e.direction === "outbound" ? `to ${e.targetInstanceName || "an unnamed instance"}` : `from ${e.sourceInstanceName || "an unidentified caller"}`;
  return h(
    "li",
    { class: "audit-row", "data-id": e.id, "data-status": e.status },
    h(
      "div",
      { class: "key-main" },
      chip("direction", "federation_direction", e.direction),
      h("code", { class: "audit-endpoint" }, e.endpoint),
      chip("audit", "federation_audit_status", e.status),
      e.threatLevel && e.threatLevel !== "none" && chip("threat", "threat_level", e.threatLevel),
    ),
    h(
      "p",
      { class: "key-sub" },
      timeOf(e.createdAt),
      ` · ${who} · HTTP ${e.statusCode || "none"} · ${e.durationMs} ms`,
      e.callerIp ? ` · IP ${e.callerIp}` : "",
      e.retryCount ? ` · ${e.retryCount} retr${e.retryCount === 1 ? "y" : "ies"}` : "",
      e.moderationScore ? ` · moderation score ${e.moderationScore.toFixed(2)}` : "",
    ),
    e.threatFlags && h("p", { class: "key-sub" }, `Flags: ${e.threatFlags}`),
    e.blocked && h("p", { class: "key-sub audit-blocked" }, `Blocked: ${e.blockReason}`),
    preview("Payload", e.payload),
    preview("Response", e.responsePreview),
  );
}

function countTable(caption: string, rows: FederationAuditCount[]): HTMLElement {
  return h(
    "table",
    { class: "audit-counts" },
    h("caption", null, caption),
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Value"), h("th", { scope: "col" }, "Rows"))),
    h(
      "tbody",
      null,
      rows.length === 0
        ? h("tr", null, h("td", { colspan: "2" }, "None"))
        : rows.map((r) => h("tr", null, h("td", null, r.value || "(none)"), h("td", null, String(r.count)))),
    ),
  );
}

function statsView(s: FederationAuditStats): HTMLElement {
  return h(
    "div",
    { class: "audit-stats" },
    facts("Totals", [
      ["Rows", String(s.total)],
      ["Median duration", `${s.p50DurationMs} ms`],
      ["95th percentile duration", `${s.p95DurationMs} ms`],
    ]),
    countTable("By status", s.byStatus),
    countTable("By threat level", s.byThreatLevel),
    countTable("By endpoint", s.byEndpoint),
  );
}

export function federationAuditSection(): HTMLElement {
  const region = new Region("Federation audit");
  let offset = 0;
  // One of the vocabulary federation_audit_view.
  let view = "rows";
  let filters: Filters = { direction: "", status: "", threatLevel: "", endpoint: "", since: "", until: "" };

  const request = (): MessageInitShape<typeof ListFederationAuditRequestSchema> => ({
    view,
    direction: filters.direction,
    status: filters.status,
    threatLevel: filters.threatLevel,
    endpoint: filters.endpoint,
    since: filters.since ? fromDate(new Date(filters.since)) : undefined,
    until: filters.until ? fromDate(new Date(filters.until)) : undefined,
    limit: view === "rows" ? auditPageSize : 0,
    offset: view === "rows" ? offset : 0,
  });

  const load = (): Promise<void> =>
    region.load(async () => {
      const res = await api.federationAudit.listFederationAudit(request());
      if (view === "stats") return res.stats ? statsView(res.stats) : emptyState("No statistics.");
      const p = res.pagination;
      if (res.entries.length === 0) return emptyState(offset > 0 ? "No rows on this page." : "No federation call matches.");
      return [
        h("ul", { class: "key-list audit-list", "aria-label": "Federation calls" }, res.entries.map(entryRow)),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "audit"),
      ];
    });

  const direction = select("Direction", "direction", "federation_direction");
  const status = select("Status", "status", "federation_audit_status");
  const threat = select("Threat level", "threatLevel", "threat_level");
  const endpoint = text("Endpoint (exact path)", "endpoint");
  const since = text("From", "since", "datetime-local");
  const until = text("Until", "until", "datetime-local");
  const form = h(
    "form",
    {
      class: "audit-filters",
      "aria-label": "Filter the federation audit",
      onsubmit: (e: Event) => {
        e.preventDefault();
        filters = {
          direction: direction.input.value,
          status: status.input.value,
          threatLevel: threat.input.value,
          endpoint: endpoint.input.value.trim(),
          since: since.input.value,
          until: until.input.value,
        };
        offset = 0;
        void load();
      },
    },
    direction.el,
    status.el,
    threat.el,
    endpoint.el,
    since.el,
    until.el,
    h("div", { class: "audit-filter-buttons" }, h("button", { type: "submit" }, "Apply filters")),
  );

  const viewButtons = values("federation_audit_view").map((v) =>
    h(
      "button",
      {
        type: "button",
        class: "secondary",
        "aria-pressed": String(v === view),
        "data-view": v,
        onclick: () => {
          view = v;
          for (const b of viewButtons) b.setAttribute("aria-pressed", String(b.dataset.view === view));
          offset = 0;
          void load();
        },
      },
      v === "rows" ? "Calls" : "Statistics",
    ),
  );
  const bar = h("div", { class: "audit-views", role: "group", "aria-label": "Show" }, viewButtons);
  void load();
  const section = h(
    "section",
    { class: "panel federation-audit", "aria-labelledby": "audit-title" },
    h("h2", { id: "audit-title" }, "Federation audit"),
    h("p", { class: "hint" }, "Every federation call this instance made or answered. Previews are cut at 500 characters, with tokens redacted and personal data masked."),
    form,
    bar,
    region.el,
  );
  return section;
}
