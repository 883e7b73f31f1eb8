// Editing and deleting a contact from its detail. An edit sends only what
// changed and names emptied fields in clearFields, as UpdateContact asks.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import { ContactInputSchema, type ContactDetail } from "../gen/switchboard/v1/contacts_pb";
import { announce } from "../refresh";
import { confirmStep, reportUnauthenticated, toast } from "../ui";

type ContactInit = MessageInitShape<typeof ContactInputSchema>;

// The optional text fields the form edits, by their JSON names.
const textFields = [
  { key: "email", title: "Email", type: "email" },
  { key: "phone", title: "Phone", type: "tel" },
  { key: "company", title: "Company", type: "text" },
  { key: "role", title: "Role", type: "text" },
  { key: "preferredChannel", title: "Preferred channel", type: "text" },
  { key: "notes", title: "Notes", type: "textarea" },
] as const;
type TextKey = (typeof textFields)[number]["key"];

function splitTags(s: string): string[] {
  return s.split(",").map((t) => t.trim()).filter(Boolean);
}

// contactEditForm edits c; done runs once the server has the change.
export function contactEditForm(c: ContactDetail, done: () => void, cancel: () => void): HTMLElement {
  const control = (key: string, title: string, type: string, value: string) => {
    const id = uid("contact-edit");
    const input =
      type === "textarea"
        ? h("textarea", { id, name: key, rows: 3 })
        : h("input", { id, name: key, type, value });
    if (input instanceof HTMLTextAreaElement) input.value = value;
    return { input, el: h("div", { class: "field" }, h("label", { for: id }, title), input) };
  };
  const name = control("name", "Name", "text", c.name);
  name.input.required = true;
  const fields = textFields.map((f) => ({ ...f, ...control(f.key, f.title, f.type, c[f.key] ?? "") }));
  const tags = control("tags", "Tags (comma separated)", "text", c.tags.join(", "));
  const status = h("div", { class: "form-status" });
  const save = h("button", { type: "submit" }, "Save contact");

  const build = (): ContactInit => {
    const input: ContactInit = {};
    const clear: string[] = [];
    if (name.input.value.trim() !== c.name) input.name = name.input.value.trim();
    for (const f of fields) {
      const v = f.input.value.trim();
      if (v === (c[f.key as TextKey] ?? "")) continue;
      if (v) input[f.key] = v;
      else clear.push(f.key);
    }
    const tagList = splitTags(tags.input.value);
    if (tagList.join("\u0000") !== c.tags.join("\u0000")) {
      if (tagList.length) input.tags = tagList;
      else clear.push("tags");
    }
    if (clear.length) input.clearFields = clear;
    return input;
  };

  const form = h(
    "form",
    {
      class: "contact-edit",
      "aria-label": `Edit ${c.name}`,
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const input = build();
        if (Object.keys(input).length === 0) {
          cancel();
          return;
        }
        save.disabled = true;
        replace(status, h("p", { role: "status" }, "Saving…"));
        try {
          const res = await api.contacts.updateContact({ id: c.id, contact: input });
          toast(`Saved contact ${res.contact?.name ?? c.name}`);
          announce("board", "activity");
          done();
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
          save.disabled = false;
        }
      },
    },
    h("h2", null, `Edit ${c.name}`),
    name.el,
    fields.map((f) => f.el),
    tags.el,
    status,
    h("div", { class: "editor-actions" }, save, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel")),
  );
  queueMicrotask(() => name.input.focus());
  return form;
}

// deleteContact is the detail's Delete, asked once more before it acts; done
// runs once the contact is gone.
export function deleteContact(c: ContactDetail, problem: HTMLElement, done: () => void): HTMLElement {
  return confirmStep(
    "Delete contact",
    { ask: `Delete ${c.name}? Their card links go too.`, yes: "Yes, delete", no: "Keep" },
    async () => {
      try {
        await api.contacts.deleteContact({ id: c.id });
        toast(`Deleted contact ${c.name}`);
        announce("board", "activity");
        done();
      } catch (e) {
        if (isUnauthenticated(e)) reportUnauthenticated();
        replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
      }
    },
  );
}
