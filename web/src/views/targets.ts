// Who an invite or a new member is: someone by email, or one of the
// operator's active connections on the operator network (their instance
// then carries the invite as a relay, which their operator answers from
// their Now). The Teams and Projects views share the choice, and the way a
// remote member (a connection's peer, with no user here) is named.
import { api } from "../api";
import { h, replace, uid } from "../dom";
import type { NetworkConnection } from "../gen/switchboard/v1/network_pb";
import { ConnectionFilter } from "../gen/vocabulary_terms";

// hostOf is an instance's address as a person reads it: its host and port.
export function hostOf(url: string): string {
  try {
    return new URL(url).host || url;
  } catch {
    return url;
  }
}

// peerLabel names a connection's peer with their instance: "Bob · b.example:8443".
export function peerLabel(c: NetworkConnection): string {
  return `${c.peerUserName || c.peerUserEmail || c.peer} · ${hostOf(c.peerInstanceUrl)}`;
}

// remoteLabel names a remote member (no user here, a connection's peer).
export function remoteLabel(name: string, instanceUrl: string | undefined): string {
  return instanceUrl ? `${name} · ${hostOf(instanceUrl)}` : name;
}

// activeConnections answers the operator's active connections; none while
// the network is off or refused to the operator (the choice then offers
// email alone).
export async function activeConnections(): Promise<NetworkConnection[]> {
  try {
    return (await api.network.listConnections({ status: ConnectionFilter.Active })).connections;
  } catch {
    return [];
  }
}

export type Target = { email?: string; connectionId?: string };

export interface TargetPicker {
  el: HTMLElement;
  // The target chosen: an email (trimmed; absent when empty) or a connection.
  value(): Target;
  // How the chosen target is named in a toast.
  label(): string;
  reset(): void;
}

// targetPicker is a choice of "By email" or "One of your connections",
// with the email field or the select of active connections under it.
// emailTitle labels the email field; emailRequired says whether it may be
// left empty (a team's open invite link).
export function targetPicker(opts: { emailTitle: string; emailRequired: boolean; connections: Promise<NetworkConnection[]> }): TargetPicker {
  const name = uid("target");
  const emailId = uid("target-email");
  const connId = uid("target-connection");
  const email = h("input", { id: emailId, name: "email", type: "email", required: opts.emailRequired, autocomplete: "off" });
  const select = h("select", { id: connId, name: "connectionId", required: true, disabled: true }, h("option", { value: "" }, "Loading your connections…"));
  const byEmail = h("input", { type: "radio", name, value: "email", checked: true, id: uid("by-email") });
  const byConn = h("input", { type: "radio", name, value: "connection", id: uid("by-connection"), disabled: true });
  const byConnLabel = h("label", { for: byConn.id }, "One of your connections");
  const emailField = h("div", { class: "field" }, h("label", { for: emailId }, opts.emailTitle), email);
  const connNote = h("p", { class: "hint" });
  const connField = h("div", { class: "field", hidden: true }, h("label", { for: connId }, "Connection"), select, connNote);
  let list: NetworkConnection[] = [];

  const show = () => {
    const conn = byConn.checked;
    emailField.hidden = conn;
    connField.hidden = !conn;
    // A hidden required control would block the form's submission.
    email.disabled = conn;
    select.disabled = !conn || list.length === 0;
  };
  byEmail.addEventListener("change", show);
  byConn.addEventListener("change", show);

  void opts.connections.then((cs) => {
    list = cs;
    if (cs.length === 0) {
      replace(select, h("option", { value: "" }, "No active connection"));
      byConn.disabled = true;
      replace(connNote);
      byConnLabel.append(h("span", { class: "muted" }, " (none yet: connect with someone in Network)"));
    } else {
      replace(select, cs.map((c) => h("option", { value: c.id }, peerLabel(c))));
      byConn.disabled = false;
      replace(connNote, "Their instance carries the invite; they answer it from their Now.");
    }
    show();
  });

  const el = h(
    "fieldset",
    { class: "target-choice" },
    h("legend", null, "Who"),
    h("div", { class: "target-options" }, h("span", { class: "field check" }, byEmail, h("label", { for: byEmail.id }, "By email")), h("span", { class: "field check" }, byConn, byConnLabel)),
    emailField,
    connField,
  );

  return {
    el,
    value() {
      if (byConn.checked) return { connectionId: select.value || undefined };
      return { email: email.value.trim() || undefined };
    },
    label() {
      if (byConn.checked) {
        const c = list.find((x) => x.id === select.value);
        return c ? peerLabel(c) : "your connection";
      }
      return email.value.trim();
    },
    reset() {
      email.value = "";
    },
  };
}
