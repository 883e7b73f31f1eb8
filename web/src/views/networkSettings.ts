// Admin → Operator network: the admin's switch and origin allowlist
// (NetworkService.GetNetworkSettings and UpdateNetworkSettings, `GET|PUT
// /api/admin/federation/settings`). --federation and --federation-allowlist
// only give their first values; what the admin saves here wins. Whether
// peers may be plain http or private addresses is a flag alone
// (--federation-allow-private): shown, not edited. The Network view offers
// the same switch to the admin while the network is off (networkSwitch).
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { NetworkSettings } from "../gen/switchboard/v1/network_pb";
import { Region, act, reportUnauthenticated, toast } from "../ui";

// turnNetwork sets the switch, keeping the saved allowlist, and says what
// it did.
export async function turnNetwork(enabled: boolean, allowlist: string[]): Promise<NetworkSettings> {
  const res = await api.network.updateNetworkSettings({ enabled, allowlist });
  toast(enabled ? "The operator network is on." : "The operator network is off.");
  return res.settings!;
}

// onText says what the switch's position means.
function onText(enabled: boolean): string {
  return enabled
    ? "On: people here may connect and relay to people on other instances, and those instances may reach them."
    : "Off: no one here can connect or relay, and every other instance is refused.";
}

// settingsForm edits s in place: a save updates what it shows from the
// server's answer and never draws the form again, so what the admin types
// after a save is not replaced by the reload of an earlier one.
function settingsForm(s: NetworkSettings): HTMLElement[] {
  const ids = { on: uid("network-on"), hint: uid("network-on-hint"), list: uid("allowlist") };
  const problem = h("div", { class: "form-status" });
  const hint = h("p", { id: ids.hint, class: "hint" }, onText(s.enabled));
  const onSwitch: HTMLInputElement = h("input", {
    id: ids.on,
    type: "checkbox",
    role: "switch",
    name: "enabled",
    checked: s.enabled,
    "aria-describedby": ids.hint,
    onchange: async () => {
      const want = onSwitch.checked;
      onSwitch.disabled = true;
      replace(problem);
      try {
        s = await turnNetwork(want, s.allowlist);
        onSwitch.checked = s.enabled;
        hint.textContent = onText(s.enabled);
      } catch (e) {
        if (isUnauthenticated(e)) reportUnauthenticated();
        // A refusal leaves the switch as the server has it.
        onSwitch.checked = !want;
        replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
      } finally {
        onSwitch.disabled = false;
      }
    },
  });
  const list = h("textarea", { id: ids.list, name: "allowlist", rows: 4, spellcheck: false, placeholder: "https://team.example" }, s.allowlist.join("\n"));
  const submit = h("button", { type: "submit" }, "Save allowlist");
  const form = h(
    "form",
    {
      class: "key-form network-allowlist",
      "aria-label": "Allowed instances",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const origins = list.value
          .split("\n")
          .map((o) => o.trim())
          .filter((o) => o !== "");
        void act(
          submit,
          problem,
          async () => {
            s = (await api.network.updateNetworkSettings({ enabled: s.enabled, allowlist: origins })).settings!;
          },
          () => toast(origins.length ? `${origins.length} instance${origins.length === 1 ? "" : "s"} allowed.` : "Any instance is allowed."),
        );
      },
    },
    h("label", { for: ids.list }, "Allowed instances, one origin a line (empty: any instance)"),
    list,
    submit,
  );
  return [
    h("div", { class: "switch-row" }, onSwitch, h("label", { for: ids.on }, "Operator network")),
    hint,
    form,
    h(
      "p",
      { class: "hint network-private" },
      s.allowPrivate
        ? "Peers may be plain http:// and private or loopback addresses (--federation-allow-private)."
        : "Peers must be public https:// addresses; the server flag --federation-allow-private admits plain http:// and private or loopback ones.",
    ),
    problem,
  ];
}

export function networkSettingsSection(): HTMLElement {
  const region = new Region("Operator network settings");
  void region.load(async () => settingsForm((await api.network.getNetworkSettings({})).settings!));
  const el = h(
    "section",
    { class: "panel network-settings", "aria-labelledby": "network-settings-title" },
    h("h2", { id: "network-settings-title" }, "Operator network"),
    region.el,
  );
  return el;
}
