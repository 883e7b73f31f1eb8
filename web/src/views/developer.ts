// The developer portal (issue 31 point 8): every signed-in user is a
// developer. One view over DeveloperPortalService and the developer routes
// that already existed: the account (edit, close), developer keys and
// connect tokens (each shown once, revocable), the team (added by email),
// the instances the tokens registered, the agents the caller manages with
// their test runs, executions and earnings, widget templates, and billing.
import { fromJson } from "@bufbuild/protobuf";

import { api } from "../api";
import { h, replace, uid, type Child } from "../dom";
import { AgentWidgetDataSchema, type AgentWidgetData } from "../gen/switchboard/v1/store_execution_pb";
import type { PortalAgent } from "../gen/switchboard/v1/developer_portal_pb";
import { PortalAccess, TokenPurpose, WidgetType } from "../gen/vocabulary_terms";
import { centsText } from "../money";
import { Region, act, copyButton, confirmStep, emptyState, facts, pager, timeOf, toast, type View } from "../ui";
import { termLabel, values } from "../vocabulary";

// field is a labelled input.
function field(label: string, input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement): HTMLElement {
  const id = uid("dev");
  input.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), input);
}

// once shows a secret until the developer says it is saved.
function once(slot: HTMLElement, title: string, label: string, value: string): void {
  const out = h("output", { class: "secret", "aria-label": label }, value);
  const done = h("button", { type: "button", onclick: () => replace(slot) }, "Done, I have saved it");
  replace(
    slot,
    h(
      "div",
      { class: "once", role: "alert" },
      h("h3", null, title),
      h("p", null, "It is shown only this once."),
      h("div", { class: "secret-row" }, out, copyButton(out, value, `Copy ${label.toLowerCase()}`)),
      done,
    ),
  );
  done.focus();
}

// chipOf is the class of a live or spent key's or token's chip.
function chipOf(live: boolean): string {
  return live ? "chip active" : "chip inactive";
}

function section(title: string, ...children: Child[]): HTMLElement {
  return h("section", { class: "panel", "aria-label": title }, h("h2", null, title), ...children);
}

function accountSection(): HTMLElement {
  const region = new Region("Account details");
  const problem = h("div");
  const load = () =>
    region.load(async () => {
      const { account } = await api.developerPortal.getDeveloperAccount({});
      if (!account) return emptyState("No account.");
      const name = h("input", { name: "name", maxlength: 500, value: account.name, required: true });
      const email = h("input", { name: "contactEmail", type: "email", maxlength: 254, value: account.contactEmail, required: true });
      const confirm = h("input", { name: "confirm", maxlength: 500, autocomplete: "off" });
      const closeProblem = h("div");
      return [
        facts("Account", [
          ["Username", account.username],
          ["Created", timeOf(account.createdAt)],
        ]),
        h(
          "form",
          {
            class: "key-form",
            "aria-label": "Edit the developer account",
            onsubmit: (e: Event) => {
              e.preventDefault();
              void act(null, problem, () => api.developerPortal.updateDeveloperAccount({ name: name.value, contactEmail: email.value }), () => {
                toast("Saved the account");
                void load();
              });
            },
          },
          field("Name", name),
          field("Contact email", email),
          h("button", { type: "submit" }, "Save account"),
        ),
        h(
          "form",
          {
            class: "key-form danger-zone",
            "aria-label": "Close the developer account",
            onsubmit: (e: Event) => {
              e.preventDefault();
              void act(null, closeProblem, () => api.developerPortal.deleteDeveloperAccount({ confirm: confirm.value }), () => {
                toast("Closed the developer account: its agents, keys, tokens, team and templates are gone");
                location.reload();
              });
            },
          },
          h("p", { class: "hint" }, "Closing removes your agents (their finished executions and ledger stay), keys, connect tokens, team and widget templates. Your sign-in account stays."),
          field(`Type your username (${account.username}) to confirm`, confirm),
          h("button", { type: "submit", class: "danger" }, "Close developer account"),
          closeProblem,
        ),
      ];
    });
  void load();
  return section("Account", region.el, problem);
}

function keysSection(): HTMLElement {
  const list = new Region("Developer keys");
  const slot = h("div", { class: "created-slot" });
  const problem = h("div");
  const load = () =>
    list.load(async () => {
      const { keys } = await api.developer.listDeveloperKeys({});
      if (keys.length === 0) return emptyState("No developer keys yet.");
      return h(
        "ul",
        { class: "key-list" },
        keys.map((k) =>
          h(
            "li",
            { class: `key-row${k.active ? "" : " inactive"}`, "data-id": k.id },
            h("div", { class: "key-main" }, h("span", { class: "key-label" }, k.label), h("code", null, `${k.prefix}…`),
              h("span", { class: chipOf(k.active) }, k.active ? "Active" : "Revoked")),
            k.active &&
              h("div", { class: "key-actions" },
                confirmStep("Revoke", { ask: `Revoke ${k.label}?`, yes: "Revoke", no: "Keep" }, async () => {
                  await act(null, problem, () => api.developerPortal.revokeDeveloperKey({ id: k.id }), () => void load());
                }, { "aria-label": `Revoke key ${k.label}` })),
          ),
        ),
      );
    });
  const label = h("input", { name: "label", maxlength: 500, required: true });
  const form = h(
    "form",
    {
      class: "key-form",
      "aria-label": "Create a developer key",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(null, problem, async () => {
          const res = await api.developer.createDeveloperKey({ label: label.value });
          once(slot, `Developer key "${label.value}"`, "Developer key", res.developerKey);
          label.value = "";
        }, () => void load());
      },
    },
    field("Label", label),
    h("button", { type: "submit" }, "Create key"),
  );
  void load();
  return section("Developer keys", h("p", { class: "hint" }, "A developer key (sbd_…) registers and changes your agents through the developer API."), form, slot, problem, list.el);
}

function tokensSection(): HTMLElement {
  const list = new Region("Connect tokens");
  const slot = h("div", { class: "created-slot" });
  const problem = h("div");
  const load = () =>
    list.load(async () => {
      const { tokens } = await api.developerPortal.listConnectTokens({});
      if (tokens.length === 0) return emptyState("No connect tokens yet.");
      return h(
        "ul",
        { class: "key-list", "aria-label": "Your connect tokens" },
        tokens.map((t) =>
          h(
            "li",
            { class: `key-row${t.active ? "" : " inactive"}`, "data-id": t.id },
            h("div", { class: "key-main" }, h("code", { class: "key-label" }, `${t.prefix}…`),
              h("span", { class: "chip" }, termLabel("token_purpose", t.purpose)),
              h("span", { class: chipOf(t.active) }, t.usedAt ? "Used" : t.active ? "Active" : "Expired")),
            h("p", { class: "key-sub" }, "Expires ", timeOf(t.expiresAt), t.agentId ? ` · registered agent ${t.agentId}` : ""),
            !t.usedAt &&
              h("div", { class: "key-actions" },
                h("button", {
                  type: "button",
                  class: "danger subtle",
                  "aria-label": `Revoke token ${t.prefix}`,
                  onclick: (e: Event) => void act(e.currentTarget as HTMLButtonElement, problem,
                    () => api.developerPortal.revokeConnectToken({ id: t.id }), () => { toast("Revoked the connect token"); void load(); }),
                }, "Revoke")),
          ),
        ),
      );
    });
  const purpose = h("select", { name: "purpose" }, values("token_purpose").map((p) => h("option", { value: p, selected: p === TokenPurpose.Agent }, termLabel("token_purpose", p))));
  const form = h(
    "form",
    {
      class: "key-form",
      "aria-label": "Create a connect token",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(null, problem, async () => {
          const res = await api.developer.createConnectToken({ purpose: purpose.value });
          if (res.token) once(slot, "Connect token", "Connect token", res.token.token);
        }, () => void load());
      },
    },
    field("Purpose", purpose),
    h("button", { type: "submit" }, "Create token"),
  );
  void load();
  return section("Connect tokens", h("p", { class: "hint" }, "A connect token (fct_…) registers one agent, or one instance with this hub; it lasts 24 hours."), form, slot, problem, list.el);
}

function teamSection(): HTMLElement {
  const list = new Region("Team members");
  const problem = h("div");
  const load = () =>
    list.load(async () => {
      const res = await api.developerPortal.listDeveloperTeam({});
      return [
        res.members.length === 0
          ? emptyState("No team members yet.")
          : h("ul", { class: "key-list", "aria-label": "Your team" }, res.members.map((m) =>
              h("li", { class: "key-row", "data-id": m.userId },
                h("div", { class: "key-main" }, h("span", { class: "key-label" }, m.name), h("span", null, `@${m.username} · ${m.email}`)),
                h("div", { class: "key-actions" }, h("button", {
                  type: "button",
                  class: "danger subtle",
                  "aria-label": `Remove ${m.username}`,
                  onclick: (e: Event) => void act(e.currentTarget as HTMLButtonElement, problem,
                    () => api.developerPortal.removeDeveloperTeamMember({ userId: m.userId }), () => void load()),
                }, "Remove")),
              ))),
        res.memberOf.length > 0 &&
          h("p", { class: "hint" }, "You manage the agents of: ", res.memberOf.map((o) => `@${o.username}`).join(", ")),
      ];
    });
  const email = h("input", { name: "email", type: "email", maxlength: 254, required: true });
  const form = h(
    "form",
    {
      class: "key-form",
      "aria-label": "Add a team member",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(null, problem, () => api.developerPortal.addDeveloperTeamMember({ email: email.value }), () => {
          email.value = "";
          void load();
        });
      },
    },
    field("Email", email),
    h("button", { type: "submit" }, "Add member"),
  );
  void load();
  return section("Team", h("p", { class: "hint" }, "Members change and test your agents; only you delete them."), form, problem, list.el);
}

function instancesSection(): HTMLElement {
  const list = new Region("Registered instances");
  void list.load(async () => {
    const { instances } = await api.developerPortal.listDeveloperInstances({});
    if (instances.length === 0) return emptyState("No instance has registered with your connect tokens.");
    return h("ul", { class: "key-list" }, instances.map((i) =>
      h("li", { class: "key-row", "data-id": i.id },
        h("div", { class: "key-main" }, h("span", { class: "key-label" }, i.name), h("code", null, i.baseUrl),
          h("span", { class: "chip", "data-status": i.status }, termLabel("instance_status", i.status))),
        h("p", { class: "key-sub" }, "Registered ", timeOf(i.registeredAt), i.lastHeartbeatAt ? [" · last heartbeat ", timeOf(i.lastHeartbeatAt)] : ""),
      )));
  });
  return section("Instances", list.el);
}

// agentDetail is what a developer opens under an agent: its test runs (and
// a new one), its executions and its earnings.
function agentDetail(a: PortalAgent): HTMLElement {
  const id = a.agent?.id ?? "";
  const name = a.agent?.name ?? id;
  const runs = new Region(`Test runs of ${name}`);
  const problem = h("div");
  let runsOffset = 0;
  const loadRuns = () =>
    runs.load(async () => {
      const res = await api.developerPortal.listPortalAgentTestRuns({ id, limit: 10, offset: runsOffset });
      if (res.runs.length === 0) return emptyState("No test runs yet.");
      const p = res.pagination;
      return [
        h("ul", { class: "deliveries", "aria-label": `Test runs of ${name}` }, res.runs.map((r) =>
          h("li", { "data-passed": String(r.passed) }, timeOf(r.createdAt), ` · ${r.passed ? "Passed" : "Failed"} · ${r.trigger === "registration" ? "at registration" : "test run"}`,
            r.httpStatus !== undefined ? ` · HTTP ${r.httpStatus}` : "", r.hint ? ` · ${r.hint}` : ""))),
        p && pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => { runsOffset = o; void loadRuns(); }, `runs-${id}`),
      ];
    });
  const money = new Region(`Executions and earnings of ${name}`);
  const loadMoney = () =>
    money.load(async () => {
      const [earned, execs] = await Promise.all([
        api.developerPortal.getPortalAgentEarnings({ id }),
        api.developerPortal.listPortalAgentExecutions({ id, limit: 10 }),
      ]);
      return [
        earned.totals.length === 0
          ? emptyState("No paid executions yet.")
          : h("ul", { class: "deliveries", "aria-label": `Earnings of ${name}` }, earned.totals.map((t) =>
              h("li", null, `${centsText(t.earningsCents, t.currency)} earned · ${centsText(t.feesCents, t.currency)} fees · ${centsText(t.payoutsCents, t.currency)} paid out · ${centsText(t.pendingCents, t.currency)} held · ${t.paidExecutions} paid`))),
        execs.executions.length === 0
          ? emptyState("No executions yet.")
          : h("ul", { class: "deliveries", "aria-label": `Executions of ${name}` }, execs.executions.map((e) =>
              h("li", null, timeOf(e.createdAt), ` · ${termLabel("execution_status", e.status)} · ${termLabel("task_origin", e.taskOrigin)}`,
                e.responseTimeMs !== undefined ? ` · ${e.responseTimeMs} ms` : "",
                e.grossCents !== undefined ? ` · ${centsText(e.grossCents, e.currency ?? "USD")}` : ""))),
      ];
    });
  void loadRuns();
  void loadMoney();
  return h(
    "div",
    { class: "agent-detail" },
    h("h4", null, "Test runs"),
    h("button", {
      type: "button",
      class: "secondary",
      "aria-label": `Run a test of ${name}`,
      onclick: (e: Event) => void act(e.currentTarget as HTMLButtonElement, problem, () => api.developerPortal.runPortalAgentTest({ id }), () => {
        runsOffset = 0;
        void loadRuns();
      }),
    }, "Run a test"),
    problem,
    runs.el,
    h("h4", null, "Executions and earnings"),
    money.el,
  );
}

function agentsSection(): HTMLElement {
  const list = new Region("Agents");
  const problem = h("div");
  const load = () =>
    list.load(async () => {
      const { agents } = await api.developerPortal.listPortalAgents({});
      if (agents.length === 0) return emptyState("No agents yet: register one with a developer key or a connect token.");
      return h("ul", { class: "key-list", "aria-label": "Your agents" }, agents.map((a) => {
        const ag = a.agent;
        const detail = h("div", { class: "agent-detail-slot" });
        let open = false;
        const toggle: HTMLButtonElement = h("button", {
          type: "button",
          class: "secondary",
          "aria-expanded": "false",
          "aria-label": `Details of ${ag?.name ?? ""}`,
          onclick: () => {
            open = !open;
            toggle.setAttribute("aria-expanded", String(open));
            replace(detail, open ? agentDetail(a) : null);
          },
        }, "Details");
        return h(
          "li",
          { class: "key-row", "data-id": ag?.id ?? "" },
          h("div", { class: "key-main" }, h("span", { class: "key-label" }, ag?.name ?? ""), h("code", null, ag?.slug ?? ""),
            h("span", { class: "chip" }, termLabel("listing_status", ag?.status ?? "")),
            a.access === PortalAccess.Member && h("span", { class: "chip" }, `${termLabel("portal_access", a.access)} of @${a.ownerUsername}`)),
          a.lastRun && h("p", { class: "key-sub" }, "Last run ", timeOf(a.lastRun.createdAt), a.lastRun.passed ? " passed" : " failed"),
          h("div", { class: "key-actions" }, toggle,
            a.access === PortalAccess.Owner &&
              confirmStep("Delete", { ask: `Delete ${ag?.name ?? "this agent"}?`, yes: "Delete", no: "Keep" }, async () => {
                await act(null, problem, () => api.developerPortal.deletePortalAgent({ id: ag?.id ?? "" }), () => void load());
              }, { "aria-label": `Delete ${ag?.name ?? ""}` })),
          detail,
        );
      }));
    });
  void load();
  return section("Agents", problem, list.el);
}

// examples are a starting widget of each type, which the form fills in.
const examples: Record<string, object> = {
  [WidgetType.InfoCard]: { type: WidgetType.InfoCard, title: "Summary", items: [{ id: "1", label: "Key finding" }] },
  [WidgetType.ChoiceCard]: { type: WidgetType.ChoiceCard, title: "Pick a variation", layout: "grid", items: [
    { id: "a", label: "Variation A", actions: ["select"] }, { id: "b", label: "Variation B", actions: ["select"] }] },
  [WidgetType.ActionList]: { type: WidgetType.ActionList, title: "Next steps", items: [{ id: "1", label: "Apply the patch", actions: ["apply", "revise"] }] },
  [WidgetType.PaymentPrompt]: { type: WidgetType.PaymentPrompt, title: "Approve $5.00", items: [{ id: "quote", label: "$5.00 per task", actions: values("quote_action") }] },
};

function describe(w: AgentWidgetData | undefined): string {
  if (!w) return "";
  return `${termLabel("widget_type", w.type)} · ${w.title} · ${w.items.length} item${w.items.length === 1 ? "" : "s"}`;
}

function templatesSection(): HTMLElement {
  const list = new Region("Widget templates");
  const problem = h("div");
  const load = () =>
    list.load(async () => {
      const { templates } = await api.developerPortal.listWidgetTemplates({});
      if (templates.length === 0) return emptyState("No widget templates yet.");
      return h("ul", { class: "key-list", "aria-label": "Your widget templates" }, templates.map((t) =>
        h("li", { class: "key-row", "data-id": t.id },
          h("div", { class: "key-main" }, h("span", { class: "key-label" }, t.name), h("span", null, describe(t.widget))),
          h("div", { class: "key-actions" }, h("button", {
            type: "button",
            class: "danger subtle",
            "aria-label": `Delete template ${t.name}`,
            onclick: (e: Event) => void act(e.currentTarget as HTMLButtonElement, problem,
              () => api.developerPortal.deleteWidgetTemplate({ id: t.id }), () => void load()),
          }, "Delete")),
        )));
    });
  const name = h("input", { name: "name", maxlength: 200, required: true });
  const type = h("select", { name: "type" }, values("widget_type").map((v) => h("option", { value: v }, termLabel("widget_type", v))));
  const json = h("textarea", { name: "widget", rows: 8, spellcheck: false });
  const fill = () => {
    json.value = JSON.stringify(examples[type.value] ?? {}, null, 2);
  };
  type.addEventListener("change", fill);
  fill();
  const form = h(
    "form",
    {
      class: "key-form",
      "aria-label": "Add a widget template",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(null, problem, async () => {
          let widget: AgentWidgetData;
          try {
            widget = fromJson(AgentWidgetDataSchema, JSON.parse(json.value));
          } catch (err) {
            throw new Error(`The widget is not valid JSON of a widget: ${err instanceof Error ? err.message : String(err)}`);
          }
          await api.developerPortal.createWidgetTemplate({ name: name.value, widget });
          toast(`Saved the template "${name.value}"`);
          name.value = "";
        }, () => void load());
      },
    },
    field("Name", name),
    field("Type", type),
    field("Widget (JSON)", json),
    h("button", { type: "submit" }, "Add template"),
  );
  void load();
  return section("Widget templates", h("p", { class: "hint" }, "Examples of the widgets your agents return; each is checked against its type."), form, problem, list.el);
}

function billingSection(): HTMLElement {
  const region = new Region("Billing");
  let offset = 0;
  let currency = "";
  const load = () =>
    region.load(async () => {
      const b = await api.developerPortal.getDeveloperBilling({ currency, limit: 20, offset });
      const cur = b.currency;
      const pick =
        b.currencies.length > 1 &&
        h("select", {
          "aria-label": "Currency",
          onchange: (e: Event) => {
            currency = (e.currentTarget as HTMLSelectElement).value;
            offset = 0;
            void load();
          },
        }, b.currencies.map((c) => h("option", { value: c, selected: c === cur }, c)));
      const p = b.pagination;
      return [
        pick,
        facts("Totals", [
          ["Earnings", centsText(b.earningsCents, cur)],
          ["Fees", centsText(b.feesCents, cur)],
          ["Payouts", centsText(b.payoutsCents, cur)],
        ]),
        b.ledger.length === 0
          ? emptyState("No captured payments yet.")
          : h("ul", { class: "deliveries", "aria-label": "Ledger" }, b.ledger.map((l) =>
              h("li", null, timeOf(l.settledAt), ` · ${l.agentName} · ${centsText(l.earningsCents, l.currency)} earned, ${centsText(l.feeCents, l.currency)} fee, ${centsText(l.payoutCents, l.currency)} to you`))),
        p && pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => { offset = o; void load(); }, "billing"),
      ];
    });
  void load();
  return section("Billing", region.el);
}

export function developerView(): View {
  const el = h(
    "div",
    { class: "view developer" },
    h("h1", null, "Developer"),
    accountSection(),
    agentsSection(),
    keysSection(),
    tokensSection(),
    teamSection(),
    instancesSection(),
    templatesSection(),
    billingSection(),
  );
  return { el, unmount() {} };
}
