// Hiring (EconomyService.HireProvider): the small form a user's profile and
// a Find providers result open. It names the work (title, task type, scope
// lines) and the price; the server holds the price on the operator's ledger
// and sends the offer, and the new contract's page opens. A refused hold is
// the server's 402, said in its words.
import { api } from "../api";
import { h, uid } from "../dom";
import { centsOf, unitsOf } from "../money";
import { announce } from "../refresh";
import { act, toast } from "../ui";
import { terms } from "../vocabulary";

// Provider is who is hired: a user of this instance or a connection's peer.
export type Provider = { userId?: string; connectionId?: string; name: string };

// Terms a result suggests (a capability's task type and price).
export type Suggested = { taskType?: string; priceCents?: number; currency?: string };

function field(title: string, control: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement, hint?: string): HTMLElement {
  control.id ||= uid("hire");
  return h("div", { class: "field" }, h("label", { for: control.id }, title), control, hint && h("p", { class: "hint" }, hint));
}

// hireForm is the form; cancel closes it. Hired, it opens the contract.
export function hireForm(provider: Provider, suggested: Suggested, cancel: () => void): HTMLFormElement {
  const title = h("input", { name: "title", required: true, maxlength: 200, autocomplete: "off" });
  const taskType = h(
    "select",
    { name: "taskType" },
    terms("job_task_type").map((t) => h("option", { value: t.value, selected: t.value === suggested.taskType }, t.label)),
  );
  const scope = h("textarea", { name: "scope", rows: 3 });
  const price = h("input", {
    name: "price",
    type: "number",
    required: true,
    min: "0.01",
    step: "0.01",
    inputmode: "decimal",
    value: suggested.priceCents ? unitsOf(suggested.priceCents) : "",
  });
  const currency = h("input", {
    name: "currency",
    maxlength: 3,
    pattern: "[A-Za-z]{3}",
    autocomplete: "off",
    autocapitalize: "characters",
    placeholder: "USD",
    value: suggested.currency ?? "",
  });
  const problem = h("div", { class: "form-status" });
  const submit = h("button", { type: "submit" }, `Hire ${provider.name}`);
  return h(
    "form",
    {
      class: "panel key-form hire-form",
      "aria-label": `Hire ${provider.name}`,
      onsubmit: (e: Event) => {
        e.preventDefault();
        let id = "";
        void act(
          submit,
          problem,
          async () => {
            const res = await api.economy.hireProvider({
              provider: { userId: provider.userId, connectionId: provider.connectionId, name: provider.name },
              taskType: taskType.value,
              title: title.value.trim(),
              // One scope item a line; blank lines are no item.
              scope: scope.value.split("\n").map((s) => s.trim()).filter(Boolean),
              priceCents: centsOf(price.value),
              currency: currency.value.trim().toUpperCase(),
            });
            id = res.contract?.id ?? "";
            toast(`Offered the work to ${provider.name}: the price is held until the contract ends.`);
            announce("activity");
          },
          () => {
            if (id) location.hash = `#/engagements/${encodeURIComponent(id)}`;
          },
        );
      },
    },
    h("h3", null, `Hire ${provider.name}`),
    field("Title", title),
    field("Task type", taskType),
    field("Scope (one item a line)", scope),
    h(
      "div",
      { class: "field-row" },
      field("Price", price),
      field("Currency", currency, "A three-letter code; the instance's currency when left empty."),
    ),
    problem,
    h("div", { class: "widget-buttons" }, submit, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel")),
  );
}

// hireButton is a Hire button that opens the form in slot (and closes it).
export function hireButton(provider: Provider, suggested: Suggested, slot: HTMLElement, attrs: Record<string, unknown> = {}): HTMLButtonElement {
  const b: HTMLButtonElement = h(
    "button",
    {
      type: "button",
      "aria-expanded": "false",
      ...attrs,
      onclick: () => {
        if (b.getAttribute("aria-expanded") === "true") {
          close();
          return;
        }
        b.setAttribute("aria-expanded", "true");
        const form = hireForm(provider, suggested, () => {
          close();
          b.focus();
        });
        slot.replaceChildren(form);
        form.querySelector<HTMLElement>("input")?.focus();
      },
    },
    "Hire",
  );
  const close = () => {
    b.setAttribute("aria-expanded", "false");
    slot.replaceChildren();
  };
  return b;
}
