// Network: the operator's connections to people on other instances
// (NetworkService). Ask someone to connect (their instance's address and
// their email), answer the requests that arrived (accept, decline), and keep
// the active connections: the trust level that decides how their relays are
// taken, a new token, removal (told to the peer). The relay preferences
// (auto-accept, muted topics, quiet hours, ambient relays, the open-relay
// limit) are saved as one form. Relays (networkRelays.ts) and the job board
// with the operator's capabilities (networkJobs.ts) follow. While the admin has the network off, the
// forms that reach other instances are disabled with the reason (networkSwitch.ts).
import { api } from "../api";
import { h, uid } from "../dom";
import type { NetworkConnection, NetworkPreferences } from "../gen/switchboard/v1/network_pb";
import { Region, act, chip, confirmStep, emptyState, timeOf, toast, type View } from "../ui";
import { termLabel, terms } from "../vocabulary";
import { onRefresh } from "../refresh";
import { jobsPanel } from "./networkJobs";
import { relaysSection, sendForm } from "./networkRelays";
import { networkGate } from "./networkSwitch";
import { ConnectionStatus } from "../gen/vocabulary_terms";

function who(c: NetworkConnection): string {
  return c.peerUserName ? `${c.peerUserName} (${c.peer})` : c.peer;
}

function connectForm(changed: () => void): HTMLElement {
  const ids = { url: uid("peer-url"), email: uid("peer-email"), message: uid("peer-message") };
  const url = h("input", { id: ids.url, name: "peerInstanceUrl", type: "url", required: true, placeholder: "https://their-instance.example", autocomplete: "off" });
  const email = h("input", { id: ids.email, name: "peerUserEmail", type: "email", required: true, autocomplete: "off" });
  const message = h("input", { id: ids.message, name: "message", maxlength: 500, autocomplete: "off" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Send request");
  return h(
    "form",
    {
      class: "key-form network-connect",
      "aria-label": "Connect with someone",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          async () => {
            const res = await api.network.createConnection({ peerInstanceUrl: url.value.trim(), peerUserEmail: email.value.trim(), message: message.value.trim() || undefined });
            const c = res.connection!;
            // Asking again after a decline answers declined (docs/decisions.md).
            const said = { active: `Connected with ${who(c)}.`, declined: `${who(c)} declined your request.` }[c.status];
            toast(said ?? `Request sent to ${who(c)}.`);
          },
          () => {
            url.value = email.value = message.value = "";
            changed();
          },
        );
      },
    },
    h("label", { for: ids.url }, "Their instance's address"),
    url,
    h("label", { for: ids.email }, "Their email there"),
    email,
    h("label", { for: ids.message }, "Message (optional)"),
    message,
    submit,
    problem,
  );
}

// connectionRow is one connection with what its state allows.
function connectionRow(c: NetworkConnection, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const button = (text: string, call: () => Promise<unknown>, done: string, secondary = false): HTMLButtonElement => {
    const b: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: secondary ? "secondary" : undefined,
        "aria-label": `${text}: ${who(c)}`,
        onclick: () =>
          void act(b, problem, call, () => {
            toast(done);
            changed();
          }),
      },
      text,
    );
    return b;
  };
  const remove = confirmStep(
    c.status === ConnectionStatus.Active ? "Remove" : "Withdraw",
    { ask: `Remove the connection with ${who(c)}?`, yes: "Remove", no: "Keep" },
    () =>
      act(null, problem, () => api.network.removeConnection({ id: c.id }), () => {
        toast(`Removed ${who(c)}.`);
        changed();
      }),
    { "aria-label": `Remove: ${who(c)}` },
  );
  const controls: (HTMLElement | null)[] = [];
  if (c.status === "pending" && c.direction === "inbound") {
    controls.push(
      button("Accept", () => api.network.acceptConnection({ id: c.id }), `Connected with ${who(c)}.`),
      button("Decline", () => api.network.declineConnection({ id: c.id }), `Declined ${who(c)}.`, true),
    );
  } else if (c.status === ConnectionStatus.Active) {
    const id = uid("trust");
    const trust = h(
      "select",
      {
        id,
        name: "trustLevel",
        onchange: () =>
          void act(null, problem, () => api.network.updateConnection({ id: c.id, trustLevel: trust.value }), () => {
            toast(`${who(c)} is now ${termLabel("trust_level", trust.value).toLowerCase()}.`);
            changed();
          }),
      },
      terms("trust_level").map((t) => h("option", { value: t.value, selected: t.value === c.trustLevel }, t.label)),
    );
    controls.push(
      h("label", { for: id, class: "inline-label" }, "Trust"),
      trust,
      button("New token", () => api.network.rotateConnection({ id: c.id }), `New token exchanged with ${who(c)}.`, true),
      remove,
    );
  } else {
    controls.push(remove);
  }
  return h(
    "li",
    { class: "network-connection", "data-connection-id": c.id, "data-status": c.status },
    h("span", { class: "network-peer" }, who(c)),
    " ",
    chip("connection", "connection_status", c.status),
    h(
      "div",
      { class: "muted" },
      c.direction === "inbound" ? "Asked by them " : "Asked by you ",
      timeOf(c.createdAt),
      c.peerInstanceName ? ` · on ${c.peerInstanceName}` : "",
      c.acceptedAt ? [" · connected ", timeOf(c.acceptedAt)] : "",
    ),
    c.message && h("p", { class: "network-message" }, c.message),
    h("div", { class: "widget-buttons" }, controls),
    problem,
  );
}

function connectionsSection(changed: () => void, switched: (enabled: boolean) => void): { el: HTMLElement; reload: () => void } {
  const region = new Region("Connections");
  const load = (): Promise<void> =>
    region.load(async () => {
      changed();
      const res = await api.network.listConnections({ status: "all" });
      switched(res.networkEnabled);
      const requests = res.connections.filter((c) => c.status === "pending" && c.direction === "inbound");
      const rest = res.connections.filter((c) => !(c.status === "pending" && c.direction === "inbound"));
      const list = (label: string, items: NetworkConnection[], empty: string) =>
        items.length === 0
          ? emptyState(empty)
          : h("ul", { class: "network-list", "aria-label": label }, items.map((c) => connectionRow(c, () => void load())));
      return [
        h("h3", null, "Requests to you"),
        list("Requests to you", requests, "No one is waiting for your answer."),
        h("h3", null, "Your connections"),
        list("Your connections", rest, "No connections yet: send a request above."),
      ];
    });
  void load();
  return { el: region.el, reload: () => void load() };
}

function preferencesForm(p: NetworkPreferences): HTMLElement {
  const id = (n: string) => uid(n);
  const ids = { auto: id("auto"), muted: id("muted"), start: id("quiet-start"), end: id("quiet-end"), zone: id("quiet-zone"), ambient: id("ambient"), max: id("max-open") };
  const auto = h("input", { id: ids.auto, type: "checkbox", name: "autoAccept", checked: p.autoAccept });
  const muted = h("textarea", { id: ids.muted, name: "mutedTopics", rows: 3 }, p.mutedTopics.join("\n"));
  const start = h("input", { id: ids.start, name: "quietStart", type: "time", value: p.quietHours?.start ?? "" });
  const end = h("input", { id: ids.end, name: "quietEnd", type: "time", value: p.quietHours?.end ?? "" });
  const zone = h("input", { id: ids.zone, name: "timeZone", value: p.quietHours?.timeZone || Intl.DateTimeFormat().resolvedOptions().timeZone, autocomplete: "off" });
  const ambient = h("input", { id: ids.ambient, type: "checkbox", name: "ambientEnabled", checked: p.ambientEnabled });
  const max = h("input", { id: ids.max, type: "number", name: "maxOpenRelays", min: 1, max: 1000, value: String(p.maxOpenRelays) });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Save preferences");
  return h(
    "form",
    {
      class: "key-form network-preferences",
      "aria-label": "Relay preferences",
      onsubmit: (e: Event) => {
        e.preventDefault();
        void act(
          submit,
          problem,
          () =>
            api.network.updateNetworkPreferences({
              autoAccept: auto.checked,
              mutedTopics: muted.value
                .split("\n")
                .map((t) => t.trim())
                .filter((t) => t !== ""),
              quietHours: start.value && end.value ? { start: start.value, end: end.value, timeZone: zone.value.trim() } : undefined,
              ambientEnabled: ambient.checked,
              maxOpenRelays: Number(max.value),
            }),
          () => toast("Relay preferences saved."),
        );
      },
    },
    h("div", { class: "field check" }, auto, h("label", { for: ids.auto }, "Accept requests at once from instances the admin allows")),
    h("label", { for: ids.muted }, "Muted topics (one a line)"),
    muted,
    h(
      "fieldset",
      null,
      h("legend", null, "Quiet hours: updates wait and arrive as a digest afterwards"),
      h(
        "div",
        { class: "field-row" },
        h("div", { class: "field" }, h("label", { for: ids.start }, "From"), start),
        h("div", { class: "field" }, h("label", { for: ids.end }, "To"), end),
        h("div", { class: "field" }, h("label", { for: ids.zone }, "Time zone"), zone),
      ),
    ),
    h("div", { class: "field check" }, ambient, h("label", { for: ids.ambient }, "Receive updates and introductions")),
    h("label", { for: ids.max }, "Open requests one connection may have in your queue"),
    max,
    submit,
    problem,
  );
}

function preferencesSection(): HTMLElement {
  const region = new Region("Relay preferences");
  void region.load(async () => preferencesForm((await api.network.getNetworkPreferences({})).preferences!));
  return region.el;
}

export function networkView(): View {
  const relays = relaysSection((r) => send.replyTo(r));
  const send = sendForm(relays.reload);
  const jobs = jobsPanel();
  const gate = networkGate(() => connections.reload());
  // A connection accepted or removed changes who relays and jobs can go to.
  const connections = connectionsSection(send.reload, gate.set);
  const el = h(
    "div",
    { class: "view network" },
    h("h1", null, "Network"),
    gate.notice,
    h(
      "section",
      { class: "panel", "aria-labelledby": "network-connect" },
      h("h2", { id: "network-connect" }, "Connect with someone on another instance"),
      gate.guard(connectForm(connections.reload)),
    ),
    h("section", { class: "panel", "aria-labelledby": "network-connections" }, h("h2", { id: "network-connections" }, "Connections"), connections.el),
    h(
      "section",
      { class: "panel", "aria-labelledby": "network-send" },
      h("h2", { id: "network-send" }, "Send a relay"),
      gate.guard(send.el),
    ),
    h("section", { class: "panel", "aria-labelledby": "network-relays" }, h("h2", { id: "network-relays" }, "Relays"), relays.el),
    h("section", { class: "panel", "aria-labelledby": "network-jobs" }, h("h2", { id: "network-jobs" }, "Jobs and capabilities"), gate.guard(jobs.el)),
    h("section", { class: "panel", "aria-labelledby": "network-preferences" }, h("h2", { id: "network-preferences" }, "Relay preferences"), preferencesSection()),
  );
  // Live: a request, an answer, a relay or an ack from the other side
  // (issue 31).
  const off = onRefresh("network", () => {
    connections.reload();
    relays.reload();
  });
  return { el, unmount: off };
}
