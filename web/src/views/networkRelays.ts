// The Network view's relays (NetworkRelayService): sending one to an active
// connection (the peer's answer shown in words), the relays held for review
// because their connection is untrusted (release or discard), and every relay
// sent and received grouped by thread with its state as the peer reported it.
import { api } from "../api";
import { h, replace, uid } from "../dom";
import type { NetworkConnection } from "../gen/switchboard/v1/network_pb";
import type { ReceiveRelayResponse, Relay } from "../gen/switchboard/v1/network_relay_pb";
import { announce } from "../refresh";
import { Region, act, chip, emptyState, timeOf, toast } from "../ui";
import { termLabel, terms } from "../vocabulary";
import { ConnectionFilter, RelayState } from "../gen/vocabulary_terms";

function peerOf(c: NetworkConnection): string {
  return c.peerUserName ? `${c.peerUserName} (${c.peer})` : c.peer;
}

// answerText is the peer's answer to a relay in words: one sentence for each
// variant of ReceiveRelayResponse.
export function answerText(a: ReceiveRelayResponse | undefined, type: string): string {
  if (!a) return "Sent.";
  let s: string;
  if (a.duplicate) s = "Already delivered: they had this relay.";
  else if (a.quarantined) s = "Held for their review: their side does not trust this connection yet.";
  else if (a.filtered) s = `Delivered, but held back by their preferences (${termLabel("relay_filter_reason", a.reason ?? "").toLowerCase()}).`;
  else if (a.task) s = "Delivered: it waits in their queue for their confirmation.";
  else if (a.ambient) s = "Delivered as an update.";
  else if (type === "response") s = "Delivered: added to the thread.";
  else s = "Delivered.";
  if (a.fallback) s += " Their user is gone: it went to their instance's owner.";
  return s;
}

function relayHeadline(r: Relay): string {
  const kind = r.intent ? termLabel("relay_intent", r.intent) : termLabel("relay_type", r.type);
  return `${kind}: ${r.subject}`;
}

function relayRow(r: Relay): HTMLElement {
  const from = r.direction === "outbound" ? `You → ${r.peer || "a removed connection"}` : `${r.peer || "a removed connection"} → you`;
  return h(
    "li",
    { class: "relay", "data-relay-id": r.id, "data-state": r.state, "data-direction": r.direction },
    h("span", { class: "relay-subject" }, relayHeadline(r)),
    " ",
    chip("relay", "relay_state", r.state),
    r.quarantined && [" ", h("span", { class: "chip relay-quarantined" }, "Held for review")],
    r.filteredReason && [" ", h("span", { class: "chip relay-filtered" }, `Held back: ${termLabel("relay_filter_reason", r.filteredReason).toLowerCase()}`)],
    r.digestPending && [" ", h("span", { class: "chip relay-digest" }, "In the next digest")],
    h(
      "div",
      { class: "muted" },
      from,
      " · ",
      termLabel("relay_type", r.type),
      " · ",
      `${termLabel("relay_priority", r.priority)} priority`,
      " · ",
      timeOf(r.createdAt),
      r.updatedAt && r.state !== RelayState.Delivered ? [" · updated ", timeOf(r.updatedAt)] : "",
    ),
    r.reason && h("p", { class: "relay-reason" }, r.state === RelayState.Blocked ? "Blocked: " : "Reason: ", r.reason),
    r.result && h("p", { class: "relay-result" }, "Result: ", r.result),
    typeof r.payload?.message === "string" && h("p", { class: "network-message" }, r.payload.message),
  );
}

// threads groups relays (newest first) by thread: the thread with the latest
// relay first, its relays oldest first as a conversation reads. A thread is
// its connection's: relays of two connections never share one, whatever ids
// their senders chose.
function threads(relays: Relay[]): Relay[][] {
  const by = new Map<string, Relay[]>();
  for (const r of relays) {
    const key = `${r.connectionId} ${r.threadId || r.relayId || r.id}`;
    const list = by.get(key) ?? [];
    list.push(r);
    by.set(key, list);
  }
  return [...by.values()].map((list) => list.slice().reverse());
}

function threadItem(list: Relay[], reply: (r: Relay) => void): HTMLElement {
  const first = list[0];
  const last = list[list.length - 1];
  // The thread's state is its latest request's: responses stay delivered.
  const lead = list.filter((r) => r.type !== "response").pop() ?? last;
  const id = uid("thread");
  // A reply answers the thread's latest relay, through its connection (a
  // removed connection takes no replies).
  return h(
    "li",
    { class: "relay-thread", "data-thread-id": first.threadId ?? first.id, "aria-labelledby": id },
    h("h4", { id }, first.subject, h("span", { class: "muted" }, ` · with ${first.peer || "a removed connection"}`), " ", chip("relay", "relay_state", lead.state)),
    h("ul", { class: "relay-list", "aria-label": `Relays in ${first.subject}` }, list.map(relayRow)),
    last.peer &&
      h(
        "div",
        { class: "widget-buttons" },
        h("button", { type: "button", class: "secondary", "aria-label": `Reply: ${first.subject}`, onclick: () => reply(last) }, "Reply"),
      ),
  );
}

function quarantineRow(r: Relay, changed: () => void): HTMLElement {
  const problem = h("div", { class: "widget-problem" });
  const button = (text: string, call: () => Promise<unknown>, done: string, secondary: boolean): HTMLButtonElement => {
    const b: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        class: secondary ? "secondary" : undefined,
        "aria-label": `${text}: ${r.subject}`,
        onclick: () =>
          void act(b, problem, call, () => {
            toast(done);
            changed();
            // One relay fewer waits for the operator.
            announce("now");
          }),
      },
      text,
    );
    return b;
  };
  return h(
    "li",
    { class: "relay relay-held", "data-relay-id": r.id },
    h("span", { class: "relay-subject" }, relayHeadline(r)),
    h("div", { class: "muted" }, `From ${r.peer} · `, timeOf(r.createdAt)),
    typeof r.payload?.message === "string" && h("p", { class: "network-message" }, r.payload.message),
    h(
      "div",
      { class: "widget-buttons" },
      button("Release", () => api.networkRelay.releaseRelay({ id: r.id }), `Released "${r.subject}".`, false),
      button("Discard", () => api.networkRelay.discardRelay({ id: r.id }), `Discarded "${r.subject}": the sender hears it was declined.`, true),
    ),
    problem,
  );
}

// relaysSection lists the held relays and the threads; reload reads both again.
export function relaysSection(reply: (r: Relay) => void): { el: HTMLElement; reload: () => void } {
  const region = new Region("Relays");
  const load = (): Promise<void> =>
    region.load(async () => {
      const { relays } = await api.networkRelay.listRelays({});
      const held = relays.filter((r) => r.quarantined && r.direction === "inbound");
      return [
        h("h3", null, "Held for your review"),
        h("p", { class: "muted" }, "Relays from connections you do not trust wait here until you release or discard them."),
        held.length === 0
          ? emptyState("Nothing is held for your review.")
          : h("ul", { class: "network-list", "aria-label": "Held for your review" }, held.map((r) => quarantineRow(r, () => void load()))),
        h("h3", null, "Threads"),
        relays.length === 0
          ? emptyState("No relays yet: send one above.")
          : h("ul", { class: "network-list relay-threads", "aria-label": "Relay threads" }, threads(relays).map((t) => threadItem(t, reply))),
      ];
    });
  void load();
  return { el: region.el, reload: () => void load() };
}

function select(id: string, name: string, vocabulary: string, chosen: string, blank?: string): HTMLSelectElement {
  return h(
    "select",
    { id, name },
    blank !== undefined && h("option", { value: "" }, blank),
    terms(vocabulary).map((t) => h("option", { value: t.value, selected: t.value === chosen }, t.label)),
  );
}

// sendForm sends a relay to one of the active connections; sent runs after
// the peer answered. replyTo turns it into a response in a relay's thread.
export function sendForm(sent: () => void): { el: HTMLElement; reload: () => void; replyTo: (r: Relay) => void } {
  const ids = { to: uid("relay-to"), type: uid("relay-type"), intent: uid("relay-intent"), subject: uid("relay-subject"), priority: uid("relay-priority"), message: uid("relay-message") };
  const to = h("select", { id: ids.to, name: "connectionId", required: true });
  const type = select(ids.type, "type", "relay_type", "request");
  const intent = select(ids.intent, "intent", "relay_intent", "assign_task", "None");
  const subject = h("input", { id: ids.subject, name: "subject", required: true, maxlength: 500, autocomplete: "off" });
  const priority = select(ids.priority, "priority", "relay_priority", "normal");
  const message = h("textarea", { id: ids.message, name: "message", rows: 3, maxlength: 10000 });
  const status = h("p", { class: "form-status", role: "status" });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Send relay");
  // The thread a reply joins, and the relay it answers.
  let thread: { threadId: string; parentRelayId: string } | undefined;
  const replying = h("div", { class: "relay-replying", hidden: true });
  const stopReplying = () => {
    thread = undefined;
    replying.hidden = true;
    replace(replying);
  };
  const replyTo = (r: Relay) => {
    thread = { threadId: r.threadId || r.relayId, parentRelayId: r.relayId };
    to.value = r.connectionId;
    type.value = "response";
    intent.value = "";
    if (!subject.value) subject.value = r.subject.startsWith("Re: ") ? r.subject : `Re: ${r.subject}`;
    replace(
      replying,
      h("span", null, `Replying in the thread "${r.subject}" with ${r.peer}. `),
      h("button", { type: "button", class: "secondary", onclick: stopReplying }, "Send a new relay instead"),
    );
    replying.hidden = false;
    subject.scrollIntoView({ block: "center" });
    subject.focus();
  };
  const fill = async (): Promise<void> => {
    const { connections } = await api.network.listConnections({ status: ConnectionFilter.Active });
    const before = to.value;
    replace(
      to,
      connections.length === 0 ? h("option", { value: "" }, "No active connections") : null,
      connections.map((c) => h("option", { value: c.id, selected: c.id === before }, peerOf(c))),
    );
    submit.disabled = connections.length === 0;
  };
  const reload = () => {
    fill().catch(() => {
      // The relays region below says what is wrong with the server.
      submit.disabled = true;
    });
  };
  reload();
  const el = h(
    "form",
    {
      class: "key-form relay-send",
      "aria-label": "Send a relay",
      onsubmit: (e: Event) => {
        e.preventDefault();
        replace(status);
        void act(
          submit,
          problem,
          async () => {
            const text = message.value.trim();
            const res = await api.networkRelay.sendRelay({
              connectionId: to.value,
              type: type.value,
              intent: intent.value,
              subject: subject.value.trim(),
              priority: priority.value,
              payload: text ? { message: text } : undefined,
              threadId: thread?.threadId,
              parentRelayId: thread?.parentRelayId,
            });
            const words = answerText(res.answer, type.value);
            replace(status, words);
            toast(words);
          },
          () => {
            subject.value = message.value = "";
            if (thread) {
              stopReplying();
              type.value = "request";
              intent.value = "assign_task";
            }
            sent();
          },
        );
      },
    },
    replying,
    h("label", { for: ids.to }, "To"),
    to,
    h(
      "div",
      { class: "field-row" },
      h("div", { class: "field" }, h("label", { for: ids.type }, "Type"), type),
      h("div", { class: "field" }, h("label", { for: ids.intent }, "Intent"), intent),
      h("div", { class: "field" }, h("label", { for: ids.priority }, "Priority"), priority),
    ),
    h("label", { for: ids.subject }, "Subject"),
    subject,
    h("label", { for: ids.message }, "Message to them (optional)"),
    message,
    submit,
    status,
    problem,
  );
  return { el, reload, replyTo };
}
