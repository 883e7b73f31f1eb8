// Settings → Federation (admin only). On a standalone instance: its
// membership (FederationService.GetFederationStatus: hub, joined at, the last
// heartbeat and the hub's answer, store participation, last sync), the join
// form (JoinHub) and, once joined, link or unlink the store, sync now (with
// the result of each listing and capability), announce its health
// (SetFederationHealth), rotate the platform token and leave. On a hub:
// a button minting an instance connect token (shown once) and the instances
// that joined it (FederationAdminService) with deactivate and reactivate. A member is answered permission denied, and the section says
// nothing at all.
import { api, errorText, isForbidden, isUnauthenticated } from "../api";
import { h, replace, uid, type Child } from "../dom";
import type { FederationInstance, FederationStatus, SyncResult } from "../gen/switchboard/v1/federation_pb";
import { Region, chip, confirmStep, copyButton, emptyState, facts, reportUnauthenticated, timeOf, toast } from "../ui";
import { termLabel, terms } from "../vocabulary";

// act runs one action of the section: its button waits, the server's refusal
// shows in problem, and success hands the answer to done.
async function act<T>(button: HTMLButtonElement | null, problem: HTMLElement, call: () => Promise<T>, done: (res: T) => void): Promise<void> {
  if (button) button.disabled = true;
  replace(problem);
  try {
    done(await call());
  } catch (e) {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  } finally {
    if (button) button.disabled = false;
  }
}

function heartbeatText(s: FederationStatus): Child {
  const hb = s.lastHeartbeat;
  if (!hb) return "None yet";
  const when = timeOf(hb.sentAt);
  if (!hb.ok) return [when, " · failed: ", hb.error ?? "no answer"];
  const n = hb.network;
  return [
    when,
    " · answered",
    n ? `: ${n.instances} instance${n.instances === 1 ? "" : "s"}, ${n.users} user${n.users === 1 ? "" : "s"}, ${n.agents} agent${n.agents === 1 ? "" : "s"} in the network` : "",
  ];
}

function statusFacts(s: FederationStatus): HTMLElement {
  return facts("Federation status", [
    ["Role", termLabel("instance_role", s.role)],
    ["Membership", s.role === "hub" ? null : s.joined ? "Joined" : "Not joined to a hub"],
    ["Hub", s.joined && s.hubUrl ? h("code", null, s.hubUrl) : null],
    ["Instance id on the hub", s.joined && s.instanceId ? h("code", null, s.instanceId) : null],
    ["Joined", s.joined ? timeOf(s.joinedAt) : null],
    ["Last heartbeat", s.joined ? heartbeatText(s) : null],
    ["Heartbeat every", s.joined && s.heartbeatIntervalSeconds ? interval(s.heartbeatIntervalSeconds) : null],
    ["Announced health", s.joined && s.health ? termLabel("instance_health", s.health) : null],
    ["Store participation", s.joined ? (s.storeParticipation ? "Linked: this instance's listings go to the hub's store" : "Not linked") : null],
    ["Last sync", s.joined ? (s.lastSyncAt ? timeOf(s.lastSyncAt) : "Never") : null],
  ]);
}

function interval(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

// syncResults names each listing a sync carried (the results name the
// listings by their id here) and what the hub did with it.
async function syncResults(results: SyncResult[], label = "Sync results"): Promise<HTMLElement> {
  const names = new Map<string, string>();
  try {
    if (label === "Sync results") {
      for (let offset = 0; offset < 1000; offset += 100) {
        const res = await api.store.listStoreAgents({ mine: true, limit: 100, offset });
        for (const a of res.agents) names.set(a.id, a.name);
        if (!res.pagination?.hasMore) break;
      }
    } else {
      for (let offset = 0; offset < 1000; offset += 100) {
        const res = await api.capabilities.listCapabilities({ limit: 100, offset });
        for (const c of res.capabilities) names.set(c.capabilityId, c.name);
        if (!res.pagination?.hasMore) break;
      }
    }
  } catch {
    // The names are a help; the ids say the same.
  }
  if (results.length === 0) return emptyState("No listing to sync: this instance has none.");
  return h(
    "ul",
    { class: "sync-results", "aria-label": label },
    results.map((r) =>
      h(
        "li",
        { "data-id": r.id, "data-status": r.status },
        h("span", { class: "sync-name" }, names.get(r.id) ?? r.id),
        " ",
        chip("sync", "sync_result", r.status),
        r.error && h("span", { class: "muted" }, ` ${r.error}`),
        r.marketplaceId && h("span", { class: "muted" }, " · on the hub ", h("code", null, r.marketplaceId)),
      ),
    ),
  );
}

function joinForm(show: (s: FederationStatus) => void): HTMLElement {
  const ids = { hub: uid("hub"), token: uid("token"), name: uid("name"), store: uid("store") };
  const hubUrl = h("input", { id: ids.hub, name: "hubUrl", type: "url", required: true, placeholder: "https://hub.example.com", autocomplete: "off" });
  const token = h("input", { id: ids.token, name: "connectToken", required: true, autocomplete: "off", spellcheck: "false" });
  const name = h("input", { id: ids.name, name: "name", maxlength: 200, autocomplete: "off" });
  const store = h("input", { id: ids.store, type: "checkbox", name: "storeParticipation", checked: true });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Join hub");
  return h(
    "form",
    {
      class: "key-form federation-join",
      "aria-label": "Join a hub",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          () =>
            api.federation.joinHub({
              hubUrl: hubUrl.value.trim(),
              connectToken: token.value.trim(),
              storeParticipation: store.checked,
              name: name.value.trim() || undefined,
            }),
          (res) => {
            toast("Joined the hub");
            if (res.status) show(res.status);
          },
        );
      },
    },
    h("h3", null, "Join a hub"),
    h("p", { class: "hint" }, "The hub's admin mints an instance connect token (single use, 24 hours). The hub checks this instance's public address before it answers."),
    h("div", { class: "field" }, h("label", { for: ids.hub }, "Hub URL"), hubUrl),
    h("div", { class: "field" }, h("label", { for: ids.token }, "Connect token"), token),
    h("div", { class: "field" }, h("label", { for: ids.name }, "Name on the hub (optional)"), name),
    h("div", { class: "field check" }, store, h("label", { for: ids.store }, "Take part in the hub's store")),
    problem,
    submit,
  );
}

// healthForm announces this instance's health to its hub (maintenance stops
// the hub's dispatch here); the heartbeat goes at once.
function healthForm(s: FederationStatus, problem: HTMLElement, show: (n: FederationStatus) => void): HTMLElement {
  const id = uid("health");
  const select = h(
    "select",
    { id, name: "health" },
    terms("instance_health").map((t) => h("option", { value: t.value, selected: t.value === (s.health ?? "healthy") }, t.label)),
  );
  const submit = h("button", { type: "submit", class: "secondary" }, "Announce");
  return h(
    "form",
    {
      class: "federation-health",
      "aria-label": "Announce health",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(submit, problem, () => api.federation.setFederationHealth({ status: select.value }), (res) => {
          toast(`The hub was told: ${termLabel("instance_health", res.status?.health ?? select.value)}`);
          if (res.status) show(res.status);
        });
      },
    },
    h("label", { for: id }, "Health announced to the hub"),
    " ",
    select,
    " ",
    submit,
    h("p", { class: "hint" }, "Maintenance stops the hub from sending executions here until this instance is healthy again."),
  );
}

// spoke is the section of an instance that may join a hub.
function spoke(first: FederationStatus): HTMLElement {
  const el = h("div", { class: "federation-spoke" });
  const show = (s: FederationStatus, extra?: Child) => {
    if (!s.joined) {
      replace(el, statusFacts(s), extra, joinForm((n) => show(n)));
      return;
    }
    const problem = h("div", { class: "form-status" });
    const results = h("div", { class: "sync-slot", "aria-live": "polite" });
    const link: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () =>
          void act(link, problem, () => api.federation.linkMarketplace({ action: s.storeParticipation ? "disable" : "enable" }), (res) => {
            toast(res.status?.storeParticipation ? "The store is linked to the hub" : "The store is unlinked from the hub");
            if (res.status) show(res.status);
          }),
      },
      s.storeParticipation ? "Unlink store" : "Link store",
    );
    const sync: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        onclick: () =>
          void act(sync, problem, () => api.federation.syncMarketplace({}), async (res) => {
            const caps = res.capabilityResults;
            toast(`Synced ${res.results.length} listing${res.results.length === 1 ? "" : "s"} and ${caps.length} capabilit${caps.length === 1 ? "y" : "ies"}`);
            const list = await syncResults(res.results);
            const capList = caps.length ? [h("h3", null, "Capabilities"), await syncResults(caps, "Capability sync results")] : [];
            if (res.status) show(res.status, [h("h3", null, "Last sync"), list, ...capList]);
          }),
      },
      "Sync now",
    );
    const rotate: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: "secondary",
        onclick: () =>
          void act(rotate, problem, () => api.federation.rotateFederationToken({}), (res) => {
            toast("The platform token was replaced");
            if (res.status) show(res.status);
          }),
      },
      "Rotate token",
    );
    const leave = confirmStep(
      "Leave hub",
      { ask: "Leave the hub? Its store stops showing this instance's listings.", yes: "Yes, leave", no: "Stay" },
      () =>
        act(null, problem, () => api.federation.leaveFederation({}), (res) => {
          toast(res.hubTold ? "Left the hub" : "Left the hub (the hub could not be told)");
          if (res.status) show(res.status);
        }),
    );
    replace(results, extra);
    replace(el, statusFacts(s), h("div", { class: "federation-actions" }, link, sync, rotate, leave), healthForm(s, problem, (n) => show(n)), problem, results);
  };
  show(first);
  return el;
}

function instanceRow(i: FederationInstance, changed: (n: FederationInstance) => void): HTMLElement {
  const problem = h("div", { class: "form-status" });
  const active = i.status !== "deactivated" && i.status !== "left";
  let action: Child = null;
  if (active) {
    action = confirmStep(
      "Deactivate",
      { ask: `Deactivate ${i.name}? Its agents and capabilities are suspended.`, yes: "Yes, deactivate", no: "Keep" },
      () =>
        act(null, problem, () => api.federationAdmin.deactivateFederationInstance({ id: i.id }), (res) => {
          toast(`Deactivated ${i.name}`);
          if (res.instance) changed(res.instance);
        }),
      { "aria-label": `Deactivate ${i.name}` },
    );
  } else if (i.status === "deactivated") {
    const b: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: "secondary",
        "aria-label": `Reactivate ${i.name}`,
        onclick: () =>
          void act(b, problem, () => api.federationAdmin.reactivateFederationInstance({ id: i.id }), (res) => {
            toast(`Reactivated ${i.name}`);
            if (res.instance) changed(res.instance);
          }),
      },
      "Reactivate",
    );
    action = b;
  }
  return h(
    "li",
    { class: "key-row instance-row", "data-id": i.id, "data-status": i.status },
    h(
      "div",
      { class: "key-main" },
      h("span", { class: "key-label" }, i.name),
      h("code", { class: "key-prefix" }, i.baseUrl),
      chip("instance", "instance_status", i.status),
      chip("health", "instance_health", i.health),
    ),
    h(
      "p",
      { class: "key-sub" },
      "Last heartbeat ",
      i.lastHeartbeatAt ? timeOf(i.lastHeartbeatAt) : "never",
      ` · ${i.agentCount} agent${i.agentCount === 1 ? "" : "s"} · ${i.userCount} user${i.userCount === 1 ? "" : "s"}`,
      ` · Store: ${i.storeParticipation ? "linked" : "not linked"}`,
      i.version ? ` · Version ${i.version}` : "",
      " · Registered ",
      timeOf(i.registeredAt),
      ` · Token ${i.tokenPrefix}…`,
    ),
    h("div", { class: "key-actions" }, action),
    problem,
  );
}

// instanceToken mints a connect token of purpose instance, shown once, for
// another instance's admin to join this hub with.
function instanceToken(): HTMLElement {
  const slot = h("div", { class: "created-slot" });
  const problem = h("div", { class: "form-status" });
  const mint: HTMLButtonElement = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: () =>
        void act(mint, problem, () => api.developer.createConnectToken({ purpose: "instance" }), (res) => {
          const value = res.token?.token ?? "";
          const out = h("output", { class: "secret", "aria-label": "The new instance connect token" }, value);
          replace(
            slot,
            h(
              "div",
              { class: "once", role: "alert" },
              h("p", null, "Give this token to the other instance's admin: it is shown only this once, registers one instance, and expires in 24 hours."),
              h("div", { class: "secret-row" }, out, copyButton(out, value, "Copy")),
              h("button", { type: "button", onclick: () => { replace(slot); mint.focus(); } }, "Done"),
            ),
          );
        }),
    },
    "Create an instance connect token",
  );
  return h("div", { class: "instance-token" }, mint, problem, slot);
}

// hub is the section of a hub: the instances that joined it.
function hub(s: FederationStatus): HTMLElement {
  const list = new Region("Instances");
  const load = () =>
    list.load(async () => {
      const res = await api.federationAdmin.listFederationInstances({});
      if (res.instances.length === 0) return emptyState("No instance has joined this hub yet.");
      return h("ul", { class: "key-list instance-list" }, res.instances.map((i) => instanceRow(i, () => void load())));
    });
  void load();
  return h("div", { class: "federation-hub" }, statusFacts(s), instanceToken(), h("h3", null, "Instances"), list.el);
}

// federationSection is Settings' Federation panel, or nothing for a member.
export function federationSection(): HTMLElement {
  const region = new Region("Federation");
  const section = h(
    "section",
    { class: "panel federation", "aria-labelledby": "settings-federation", hidden: true },
    h("h2", { id: "settings-federation" }, "Federation"),
    region.el,
  );
  void region.load(async () => {
    try {
      const res = await api.federation.getFederationStatus({});
      section.hidden = false;
      const s = res.status!;
      return s.role === "hub" ? hub(s) : spoke(s);
    } catch (e) {
      if (isForbidden(e)) return null; // a member: the section stays hidden
      section.hidden = false;
      throw e;
    }
  });
  return section;
}
