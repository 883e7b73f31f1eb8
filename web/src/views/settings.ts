// Settings: the queue's auto-approve switch, the account's API keys
// (create: the value is shown once; list; revoke), how MCP and A2A clients
// connect, and (for the admin) federation.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { ApiKey } from "../gen/switchboard/v1/keys_pb";
import { announce } from "../refresh";
import { Region, copyButton, emptyState, pageOf, pager, reportUnauthenticated, timeOf, toast, type View } from "../ui";
import { termLabel, terms, values } from "../vocabulary";
import { federationSection } from "./federation";
import { inboundSection } from "./inbound";
import { spriteSection } from "./spriteSettings";
import { ProfileVisibility } from "../gen/vocabulary_terms";

const scopes = values("key_scope");
const keyPageSize = 10;

function autoApprove(): HTMLElement {
  const region = new Region("Queue settings");
  const problem = h("div");
  void region.load(async () => {
    const s = await api.settings.getSettings({});
    const id = uid("auto");
    const box: HTMLInputElement = h("input", {
      id,
      type: "checkbox",
      role: "switch",
      checked: s.queueAutoApprove,
      "aria-describedby": `${id}-hint`,
      onchange: async () => {
        const want = box.checked;
        box.disabled = true;
        replace(problem);
        try {
          const res = await api.settings.updateSettings({ queueAutoApprove: want });
          box.checked = res.queueAutoApprove ?? want;
          toast(box.checked ? "New queue items start ready" : "New queue items wait for your approval");
          announce("activity");
        } catch (e) {
          if (isUnauthenticated(e)) reportUnauthenticated();
          box.checked = !want;
          replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
        } finally {
          box.disabled = false;
        }
      },
    });
    return [
      h("div", { class: "switch-row" }, box, h("label", { for: id }, "Auto-approve new queue items")),
      h(
        "p",
        { id: `${id}-hint`, class: "hint" },
        "On: items that agents add start ready. Off: they wait in Now for your Approve or Reject.",
      ),
      problem,
    ];
  });
  return h("section", { class: "panel", "aria-labelledby": "settings-queue" }, h("h2", { id: "settings-queue" }, "Queue"), region.el);
}

// profileSection edits what the operator's profile shows and to whom: the
// bio and the profile's visibility, saved as the other settings are
// (UpdateSettings), with a link to the profile as others see it.
function profileSection(account: { username: string; id?: string } | null): HTMLElement {
  const region = new Region("Profile settings");
  const link = h("a", { class: "profile-link", href: account?.id ? `#/profile/${encodeURIComponent(account.id)}` : "#/settings", hidden: !account?.id }, "View my profile");
  // An account kept by an older dashboard has no id: the handle resolves it.
  if (account && !account.id && account.username) {
    api.accounts.resolveUsers({ usernames: account.username }).then(
      (r) => {
        const u = r.users[account.username];
        if (u?.id) {
          link.href = `#/profile/${encodeURIComponent(u.id)}`;
          link.hidden = false;
        }
      },
      () => {},
    );
  }
  void region.load(async () => {
    const s = await api.settings.getSettings({});
    const bioId = uid("bio");
    const visId = uid("vis");
    const bio = h("textarea", { id: bioId, name: "bio", rows: 4, maxlength: 2000 });
    bio.value = s.bio;
    const visibility = h(
      "select",
      { id: visId, name: "profileVisibility", "aria-describedby": `${visId}-hint` },
      terms("profile_visibility").map((t) => h("option", { value: t.value, selected: t.value === s.profileVisibility }, t.label)),
    );
    const status = h("div", { class: "form-status" });
    const submit = h("button", { type: "submit" }, "Save profile");
    return h(
      "form",
      {
        class: "key-form",
        "aria-label": "Profile",
        onsubmit: async (e: Event) => {
          e.preventDefault();
          submit.disabled = true;
          replace(status);
          try {
            const res = await api.settings.updateSettings({ bio: bio.value.trim(), profileVisibility: visibility.value });
            bio.value = res.bio ?? bio.value.trim();
            if (res.profileVisibility) visibility.value = res.profileVisibility;
            toast("Saved your profile");
            announce("activity");
          } catch (err) {
            if (isUnauthenticated(err)) reportUnauthenticated();
            replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
          } finally {
            submit.disabled = false;
          }
        },
      },
      h("div", { class: "field" }, h("label", { for: bioId }, "Bio"), bio),
      h(
        "div",
        { class: "field" },
        h("label", { for: visId }, "Who may see your profile"),
        visibility,
        h(
          "p",
          { id: `${visId}-hint`, class: "hint" },
          `${termLabel("profile_visibility", ProfileVisibility.Public)}: anyone, signed in or not. ${termLabel("profile_visibility", ProfileVisibility.Network)}: people signed in here and connected instances. ${termLabel("profile_visibility", ProfileVisibility.Private)}: only you.`,
        ),
      ),
      status,
      submit,
    );
  });
  return h(
    "section",
    { class: "panel", "aria-labelledby": "settings-profile" },
    h("h2", { id: "settings-profile" }, "Profile"),
    region.el,
    h("p", null, link),
  );
}

function keyRow(k: ApiKey, revoked: () => void): HTMLElement {
  const problem = h("div");
  const actions = h("div", { class: "key-actions" });
  if (k.active) {
    const ask = h(
      "button",
      {
        type: "button",
        class: "danger subtle",
        "data-focus-key": `revoke-${k.id}`,
        "aria-label": `Revoke ${k.label}`,
        onclick: () => {
          const yes = h(
            "button",
            {
              type: "button",
              class: "danger",
              onclick: async () => {
                yes.disabled = true;
                try {
                  await api.keys.deleteKey({ id: k.id });
                  toast(`Revoked "${k.label}"`);
                  revoked();
                } catch (e) {
                  if (isUnauthenticated(e)) reportUnauthenticated();
                  replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
                  yes.disabled = false;
                }
              },
            },
            "Yes, revoke",
          );
          const no = h("button", { type: "button", class: "secondary", onclick: () => { replace(actions, ask); ask.focus(); } }, "Keep");
          replace(actions, yes, no);
          no.focus();
        },
      },
      "Revoke",
    );
    actions.append(ask);
  }
  return h(
    "li",
    { class: `key-row${k.active ? "" : " inactive"}`, "data-id": k.id },
    h(
      "div",
      { class: "key-main" },
      h("span", { class: "key-label" }, k.label),
      h("code", { class: "key-prefix", "aria-label": "Key starts with" }, `${k.prefix}…`),
      h("span", { class: `chip ${k.active ? "active" : "inactive"}` }, k.active ? "Active" : "Revoked"),
    ),
    h(
      "p",
      { class: "key-sub" },
      `Scopes: ${k.scopes.length ? k.scopes.join(", ") : "all"} · Created `,
      timeOf(k.createdAt),
      " · ",
      k.lastUsedAt ? ["Last used ", timeOf(k.lastUsedAt)] : "Never used",
    ),
    actions,
    problem,
  );
}

function apiKeys(): HTMLElement {
  const list = new Region("API keys");
  let offset = 0;
  const load = () =>
    list.load(async () => {
      const res = await api.keys.listKeys({});
      if (res.keys.length === 0) return emptyState("No API keys yet.");
      if (offset >= res.keys.length) offset = 0;
      const { items, page } = pageOf(res.keys, offset, keyPageSize);
      return [
        h("ul", { class: "key-list" }, items.map((k) => keyRow(k, () => void load()))),
        pager(page, (o) => {
          offset = o;
          void load();
        }, "keys"),
      ];
    });

  const labelId = uid("key");
  const labelInput = h("input", { id: labelId, name: "label", required: true, maxlength: 100 });
  const boxes = scopes.map((s) => {
    const id = uid("scope");
    const box = h("input", { id, type: "checkbox", name: "scopes", value: s });
    return { box, el: h("div", { class: "field check" }, box, h("label", { for: id }, termLabel("key_scope", s))) };
  });
  const created = h("div", { class: "created-slot" });
  const status = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, "Create key");

  const showOnce = (value: string, labelText: string) => {
    const out = h("output", { class: "secret", "aria-label": "The new API key" }, value);
    const copy = copyButton(out, value, "Copy");
    const done = h(
      "button",
      {
        type: "button",
        onclick: () => {
          // Gone from the page for good: the server keeps only a hash.
          replace(created);
          labelInput.focus();
        },
      },
      "Done, I have saved it",
    );
    replace(
      created,
      h(
        "div",
        { class: "once", role: "alert", "aria-labelledby": "once-title" },
        h("h3", { id: "once-title" }, `Your new key "${labelText}"`),
        h("p", null, "Copy it now: it is shown only this once and cannot be shown again."),
        h("div", { class: "secret-row" }, out, copy),
        done,
      ),
    );
    done.focus();
  };

  const form = h(
    "form",
    {
      class: "key-form",
      "aria-label": "Create an API key",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        submit.disabled = true;
        replace(status);
        try {
          const chosen = boxes.filter((b) => b.box.checked).map((b) => b.box.value);
          const res = await api.keys.createKey({ label: labelInput.value.trim(), scopes: chosen });
          showOnce(res.apiKey, res.key?.label ?? labelInput.value.trim());
          labelInput.value = "";
          boxes.forEach((b) => (b.box.checked = false));
          offset = 0;
          void load();
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: labelId }, "Label"), labelInput),
    h("fieldset", { class: "scopes" }, h("legend", null, "Scopes (none checked: all)"), boxes.map((b) => b.el)),
    status,
    submit,
  );
  void load();
  return h(
    "section",
    { class: "panel", "aria-labelledby": "settings-keys" },
    h("h2", { id: "settings-keys" }, "API keys"),
    h("p", { class: "hint" }, "Agents call the API with a key. The key is shown once, when it is created."),
    form,
    created,
    h("h3", null, "Your keys"),
    list.el,
  );
}

// connectAgents says how an MCP client and an A2A client reach this
// instance: the endpoints, the scopes their key needs, a client config.
function connectAgents(): HTMLElement {
  const origin = location.origin;
  const block = (title: string, text: string) => {
    const pre = h("pre", { class: "config", tabindex: "0", "aria-label": title }, text);
    return h("div", { class: "config-block" }, pre, copyButton(pre, text, `Copy ${title.toLowerCase()}`));
  };
  const mcpConfig = JSON.stringify(
    { mcpServers: { switchboard: { type: "http", url: `${origin}/api/mcp`, headers: { Authorization: "Bearer <your API key>" } } } },
    null,
    2,
  );
  const a2aConfig = JSON.stringify(
    { agentCard: `${origin}/.well-known/agent-card.json`, url: `${origin}/api/a2a`, headers: { Authorization: "Bearer <your API key>" } },
    null,
    2,
  );
  return h(
    "section",
    { class: "panel connect", "aria-labelledby": "settings-connect" },
    h("h2", { id: "settings-connect" }, "Connect an agent"),
    h("h3", null, "MCP"),
    h(
      "p",
      null,
      "Streamable HTTP at ",
      h("code", null, `${origin}/api/mcp`),
      ". Give its key the ",
      h("strong", null, "MCP"),
      " scope and the scopes of what it may touch (Queue for queue_add, Store for the store's tools), or no scope for all. Server card: ",
      h("code", null, `${origin}/.well-known/mcp/server-card.json`),
      ".",
    ),
    block("MCP client config", mcpConfig),
    h("h3", null, "A2A"),
    h(
      "p",
      null,
      "JSON-RPC at ",
      h("code", null, `${origin}/api/a2a`),
      " (v0.3, and v1.0 with the header A2A-Version: 1.0); its key needs the ",
      h("strong", null, "A2A"),
      " scope. Agent card: ",
      h("code", null, `${origin}/.well-known/agent-card.json`),
      ".",
    ),
    block("A2A client config", a2aConfig),
    h("p", { class: "hint" }, "Items these agents add show where they came from: mcp:<key label> or a2a:<key label>."),
  );
}

export function settingsView(account: { username: string; name: string; id?: string } | null, logout: () => void): View {
  const el = h(
    "div",
    { class: "view settings" },
    h("h1", null, "Settings"),
    autoApprove(),
    profileSection(account),
    spriteSection(),
    apiKeys(),
    connectAgents(),
    inboundSection(),
    federationSection(),
    h(
      "section",
      { class: "panel", "aria-labelledby": "settings-account" },
      h("h2", { id: "settings-account" }, "Account"),
      account?.username && h("p", null, "Logged in as ", h("strong", null, account.name || account.username), ` (@${account.username})`),
      h("button", { type: "button", class: "secondary", onclick: logout }, "Log out"),
    ),
  );
  return { el, unmount() {} };
}
