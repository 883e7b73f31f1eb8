// The Network view while the operator network is off (RULINGS "Onboarding,
// sprite, admin views, the developer portal", Details: Network off): the
// forms that reach other instances are disabled, with the reason beside
// them, instead of failing on submit. The admin is shown the switch (and the
// way to the allowlist in Admin); anyone else is told to ask their admin.
// Whether the network is on comes with the connections
// (ListConnectionsResponse.networkEnabled); only the admin may read the
// settings, so their answer also tells who is the admin.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { NetworkSettings } from "../gen/switchboard/v1/network_pb";
import { reportUnauthenticated } from "../ui";
import { turnNetwork } from "./networkSettings";

export type NetworkGate = {
  // notice is the reason, shown while the network is off.
  notice: HTMLElement;
  // guard wraps a part of the view in a fieldset that is disabled while the
  // network is off.
  guard(el: HTMLElement): HTMLElement;
  // set tells the gate the switch as the server answered it.
  set(enabled: boolean): void;
};

// networkGate makes the gate; changed runs once the admin turned the
// network on from here (to read the switch again).
export function networkGate(changed: () => void): NetworkGate {
  const id = uid("network-off");
  const notice = h("div", { id, class: "notice network-off", role: "status", hidden: true });
  const fieldsets: HTMLFieldSetElement[] = [];
  let settings: Promise<NetworkSettings | null> | undefined;
  const adminSettings = () => (settings ??= api.network.getNetworkSettings({}).then((r) => r.settings ?? null, () => null));

  const adminSwitch = (s: NetworkSettings): HTMLElement => {
    const problem = h("div", { class: "form-status" });
    const on: HTMLButtonElement = h(
      "button",
      {
        type: "button",
        onclick: async () => {
          on.disabled = true;
          replace(problem);
          try {
            await turnNetwork(true, s.allowlist);
            settings = undefined;
            changed();
          } catch (e) {
            if (isUnauthenticated(e)) reportUnauthenticated();
            replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
          } finally {
            on.disabled = false;
          }
        },
      },
      "Turn the operator network on",
    );
    return h(
      "div",
      { class: "network-off-admin" },
      h("div", { class: "widget-buttons" }, on, h("a", { href: "#/admin" }, "Switch and allowed instances in Admin")),
      problem,
    );
  };

  let seq = 0;
  const set = (enabled: boolean) => {
    for (const f of fieldsets) f.disabled = !enabled;
    notice.hidden = enabled;
    const my = ++seq;
    if (enabled) {
      replace(notice);
      return;
    }
    replace(notice, h("p", null, "The operator network is off on this instance: connecting, relays and jobs are disabled until it is on."));
    void adminSettings().then((s) => {
      if (my !== seq) return;
      notice.append(s ? adminSwitch(s) : h("p", { class: "network-ask-admin" }, "Ask your admin to turn it on."));
    });
  };

  return {
    notice,
    guard(el) {
      const f = h("fieldset", { class: "network-guard", "aria-describedby": id }, el);
      fieldsets.push(f);
      return f;
    },
    set,
  };
}
