// Inbound webhooks in Settings (issue 30 point 10): create one (its URL and
// secret shown once), list them with their mapping and last deliveries,
// enable or disable, take unsigned deliveries, rotate, delete.
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { InboundWebhook } from "../gen/switchboard/v1/inbound_webhooks_pb";
import { Region, copyButton, emptyState, reportUnauthenticated, timeOf, toast } from "../ui";
import { termLabel, values } from "../vocabulary";

const mappingFields = ["title", "description", "priority", "due"] as const;

function failed(slot: HTMLElement, e: unknown) {
  if (isUnauthenticated(e)) reportUnauthenticated();
  replace(slot, h("p", { class: "error", role: "alert" }, errorText(e)));
}

// showOnce puts a URL and secret on the page until the operator is done.
function showOnce(slot: HTMLElement, title: string, url: string, secret: string) {
  const u = h("output", { class: "secret", "aria-label": "Webhook URL" }, url);
  const s = h("output", { class: "secret", "aria-label": "Webhook secret" }, secret);
  const done = h("button", { type: "button", onclick: () => replace(slot) }, "Done, I have saved it");
  replace(
    slot,
    h(
      "div",
      { class: "once", role: "alert" },
      h("h3", null, title),
      h("p", null, "Give the sender this URL and secret. The secret is shown only this once."),
      h("div", { class: "secret-row" }, u, copyButton(u, url, "Copy URL")),
      h("div", { class: "secret-row" }, s, copyButton(s, secret, "Copy secret")),
      done,
    ),
  );
  done.focus();
}

function hookRow(w: InboundWebhook, changed: () => void, once: HTMLElement): HTMLElement {
  const problem = h("div");
  const act = (label: string, run: () => Promise<unknown>, cls = "secondary") =>
    h(
      "button",
      {
        type: "button",
        class: cls,
        "aria-label": `${label} ${w.name}`,
        onclick: async () => {
          try {
            await run();
            changed();
          } catch (e) {
            failed(problem, e);
          }
        },
      },
      label,
    );
  const inputs = mappingFields.map((f) => {
    const id = uid(`map-${f}`);
    const input = h("input", { id, name: f, maxlength: 200, value: w.mapping?.[f] ?? "", placeholder: "dot.path" });
    return { f, input, el: h("div", { class: "field" }, h("label", { for: id }, f), input) };
  });
  const mapping =
    w.kind === "generic"
      ? h(
          "form",
          {
            class: "mapping",
            "aria-label": `Field mapping of ${w.name}`,
            onsubmit: async (e: Event) => {
              e.preventDefault();
              try {
                const m = Object.fromEntries(inputs.map((i) => [i.f, i.input.value.trim()]));
                await api.inbound.updateInboundWebhook({ id: w.id, mapping: m });
                toast(`Saved the mapping of "${w.name}"`);
                changed();
              } catch (err) {
                failed(problem, err);
              }
            },
          },
          h("p", { class: "hint" }, w.mapping ? "Learned from the first delivery; edit the dot paths:" : "Learned from the first delivery."),
          inputs.map((i) => i.el),
          h("button", { type: "submit", class: "secondary" }, "Save mapping"),
        )
      : null;
  return h(
    "li",
    { class: `key-row${w.enabled ? "" : " inactive"}`, "data-id": w.id },
    h(
      "div",
      { class: "key-main" },
      h("span", { class: "key-label" }, w.name),
      h("span", { class: "chip" }, termLabel("inbound_webhook_kind", w.kind)),
      h("span", { class: `chip ${w.enabled ? "active" : "inactive"}` }, w.enabled ? "Enabled" : "Disabled"),
      w.acceptUnsigned && h("span", { class: "chip" }, "Unsigned allowed"),
    ),
    h("p", { class: "key-sub" }, h("code", null, w.url)),
    h(
      "div",
      { class: "key-actions" },
      act(w.enabled ? "Disable" : "Enable", () => api.inbound.updateInboundWebhook({ id: w.id, enabled: !w.enabled })),
      act(w.acceptUnsigned ? "Require signatures" : "Allow unsigned", () =>
        api.inbound.updateInboundWebhook({ id: w.id, acceptUnsigned: !w.acceptUnsigned }),
      ),
      act("Rotate secret", async () => {
        const res = await api.inbound.rotateInboundWebhookSecret({ id: w.id });
        showOnce(once, `New secret for "${w.name}"`, res.url, res.secret);
      }),
      act("Delete", () => api.inbound.deleteInboundWebhook({ id: w.id }), "danger subtle"),
    ),
    mapping,
    h("h4", null, "Last deliveries"),
    w.deliveries.length
      ? h(
          "ul",
          { class: "deliveries" },
          w.deliveries.map((d) =>
            h("li", { "data-outcome": d.outcome }, timeOf(d.receivedAt), ` · ${termLabel("inbound_delivery_outcome", d.outcome)} (${d.status})`, d.webhookId ? ` · ${d.webhookId}` : ""),
          ),
        )
      : h("p", { class: "hint" }, "Nothing delivered yet."),
    problem,
  );
}

export function inboundSection(): HTMLElement {
  const list = new Region("Inbound webhooks");
  const once = h("div", { class: "created-slot" });
  const load = () =>
    list.load(async () => {
      const res = await api.inbound.listInboundWebhooks({});
      if (res.webhooks.length === 0) return emptyState("No inbound webhooks yet.");
      return h("ul", { class: "key-list" }, res.webhooks.map((w) => hookRow(w, () => void load(), once)));
    });
  const nameId = uid("hook-name");
  const kindId = uid("hook-kind");
  const unsignedId = uid("hook-unsigned");
  const name = h("input", { id: nameId, name: "name", required: true, maxlength: 100 });
  const kind = h("select", { id: kindId, name: "kind" }, values("inbound_webhook_kind").map((k) => h("option", { value: k }, termLabel("inbound_webhook_kind", k))));
  const unsigned = h("input", { id: unsignedId, type: "checkbox", name: "acceptUnsigned" });
  const status = h("div", { class: "form-status" });
  const form = h(
    "form",
    {
      class: "key-form",
      "aria-label": "Create an inbound webhook",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        replace(status);
        try {
          const res = await api.inbound.createInboundWebhook({ kind: kind.value, name: name.value.trim(), acceptUnsigned: unsigned.checked });
          showOnce(once, `Your new webhook "${name.value.trim()}"`, res.url, res.secret);
          name.value = "";
          void load();
        } catch (err) {
          failed(status, err);
        }
      },
    },
    h("div", { class: "field" }, h("label", { for: nameId }, "Name"), name),
    h("div", { class: "field" }, h("label", { for: kindId }, "Kind"), kind),
    h("div", { class: "field check" }, unsigned, h("label", { for: unsignedId }, "Accept unsigned deliveries (the URL is then the only secret)")),
    status,
    h("button", { type: "submit" }, "Create webhook"),
  );
  void load();
  return h(
    "section",
    { class: "panel", "aria-labelledby": "settings-inbound" },
    h("h2", { id: "settings-inbound" }, "Inbound webhooks"),
    h("p", { class: "hint" }, "Outside services deliver events here, signed with Standard Webhooks: generic alerts become queue items, emails comms messages, transcripts documents and action items, calendar events events."),
    form,
    once,
    h("h3", null, "Your webhooks"),
    list.el,
  );
}
