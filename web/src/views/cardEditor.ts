// The card editor: a modal dialog to create a card or edit one (fields,
// labels, checklist, linked contacts). An update sends only what changed, and
// names emptied fields in clearFields, as UpdateCard asks.
import type { MessageInitShape } from "@bufbuild/protobuf";
import { api, errorText, fromDate, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import { CardInputSchema, type KanbanCardDetail } from "../gen/switchboard/v1/kanban_pb";
import { announce } from "../refresh";
import { cardStatuses, dateInputValue, priorities, reportUnauthenticated, toast } from "../ui";
import { termLabel, values } from "../vocabulary";
import { CardStatus } from "../gen/vocabulary_terms";

type CardInit = MessageInitShape<typeof CardInputSchema>;

type ChecklistRow = { id?: string; text: string; completed: boolean };
type ContactRow = { contactId: string; name: string; company?: string; role?: string; involvement: string; canDelegate: boolean };

function field(labelText: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = uid("card");
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, labelText), control, hint && h("p", { class: "hint" }, hint));
}

function options(vocabulary: string, values: string[], current: string): HTMLOptionElement[] {
  return values.map((v) => h("option", { value: v, selected: v === current }, termLabel(vocabulary, v)));
}

function sameList<T>(a: T[], b: T[], key: (x: T) => string): boolean {
  return a.length === b.length && a.every((x, i) => key(x) === key(b[i]));
}

export function openCardEditor(opts: { id?: string; status?: string }): void {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const dialog = h("dialog", { class: "editor", "aria-labelledby": "editor-title" });
  const close = () => {
    dialog.close();
  };
  // Leaving the page (Back, a link, a tab) leaves the editor too: a modal
  // left open would cover the next view.
  window.addEventListener("hashchange", close);
  dialog.addEventListener("close", () => {
    window.removeEventListener("hashchange", close);
    dialog.remove();
    if (opener && document.contains(opener)) opener.focus();
  });
  const body = h("div", { class: "editor-body" }, h("p", { class: "loading", role: "status" }, "Loading…"));
  dialog.append(
    h(
      "div",
      { class: "editor-head" },
      h("h2", { id: "editor-title" }, opts.id ? "Edit card" : "New card"),
      h("button", { type: "button", class: "icon", "aria-label": "Close", onclick: close }, "×"),
    ),
    body,
  );
  document.body.append(dialog);
  dialog.showModal();

  if (!opts.id) {
    replace(body, editorForm(undefined, opts.status ?? CardStatus.Active, close));
    return;
  }
  api.kanban
    .getCard({ id: opts.id })
    .then((res) => {
      if (!res.card) throw new Error("The card was not found.");
      replace(body, editorForm(res.card, res.card.status, close));
    })
    .catch((e) => {
      if (isUnauthenticated(e)) reportUnauthenticated();
      replace(
        body,
        h("div", { class: "error", role: "alert" }, h("p", null, errorText(e))),
        h("button", { type: "button", class: "secondary", onclick: close }, "Close"),
      );
    });
}

function editorForm(card: KanbanCardDetail | undefined, status: string, close: () => void): HTMLElement {
  const title = h("input", { name: "title", required: true, value: card?.title ?? "" });
  const description = h("textarea", { name: "description", rows: 3 });
  description.value = card?.description ?? "";
  const statusSel = h("select", { name: "status" }, options("card_status", cardStatuses, status));
  const prioritySel = h("select", { name: "priority" }, options("priority", priorities, card?.priority ?? "medium"));
  const assigneeSel = h("select", { name: "assignee" }, options("assignee", values("assignee"), card?.assignee ?? "human"));
  const due = h("input", { name: "dueDate", type: "date", value: dateInputValue(card?.dueDate) });
  const labels = h("input", { name: "labels", value: (card?.labels ?? []).join(", ") });

  // Checklist rows, edited in place.
  const checklist: ChecklistRow[] = (card?.checklist ?? []).map((c) => ({ id: c.id, text: c.text, completed: c.completed }));
  const checklistEl = h("ul", { class: "checklist-edit" });
  const renderChecklist = () => {
    replace(
      checklistEl,
      checklist.map((row, i) => {
        const box = h("input", {
          type: "checkbox",
          checked: row.completed,
          "aria-label": `Done: ${row.text || `item ${i + 1}`}`,
          onchange: () => (row.completed = box.checked),
        });
        const text = h("input", {
          value: row.text,
          "aria-label": `Checklist item ${i + 1}`,
          oninput: () => (row.text = text.value),
        });
        return h(
          "li",
          null,
          box,
          text,
          h(
            "button",
            {
              type: "button",
              class: "icon",
              "aria-label": `Remove checklist item ${i + 1}`,
              onclick: () => {
                checklist.splice(i, 1);
                renderChecklist();
              },
            },
            "×",
          ),
        );
      }),
    );
  };
  renderChecklist();
  const newItem = h("input", { "aria-label": "New checklist item", placeholder: "New checklist item" });
  const addItem = () => {
    const text = newItem.value.trim();
    if (!text) return;
    checklist.push({ text, completed: false });
    newItem.value = "";
    renderChecklist();
    newItem.focus();
  };
  newItem.addEventListener("keydown", (e) => {
    if (e.key === "Enter") {
      e.preventDefault();
      addItem();
    }
  });

  // Linked contacts, and a search to link more.
  const contacts: ContactRow[] = (card?.contacts ?? []).map((c) => ({
    contactId: c.contactId,
    name: c.contact?.name ?? c.contactId,
    company: c.contact?.company,
    role: c.role,
    involvement: c.involvement,
    canDelegate: c.canDelegate,
  }));
  const contactsEl = h("ul", { class: "contacts-edit" });
  const renderContacts = () => {
    replace(
      contactsEl,
      contacts.length === 0 && h("li", { class: "hint" }, "No contacts linked."),
      contacts.map((c, i) =>
        h(
          "li",
          null,
          h("span", null, c.name, c.company ? ` (${c.company})` : ""),
          h(
            "button",
            {
              type: "button",
              class: "icon",
              "aria-label": `Unlink ${c.name}`,
              onclick: () => {
                contacts.splice(i, 1);
                renderContacts();
              },
            },
            "×",
          ),
        ),
      ),
    );
  };
  renderContacts();
  const contactSearch = h("input", { type: "search", "aria-label": "Find a contact to link", placeholder: "Find a contact to link" });
  const contactResults = h("ul", { class: "contact-results", "aria-live": "polite" });
  let searchTimer: ReturnType<typeof setTimeout> | undefined;
  contactSearch.addEventListener("input", () => {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(async () => {
      const q = contactSearch.value.trim();
      if (!q) return replace(contactResults);
      try {
        const res = await api.contacts.listContacts({ search: q, limit: 5 });
        const found = res.contacts.filter((c) => !contacts.some((x) => x.contactId === c.id));
        replace(
          contactResults,
          found.length === 0 && h("li", { class: "hint" }, "No match."),
          found.map((c) =>
            h(
              "li",
              null,
              h(
                "button",
                {
                  type: "button",
                  class: "secondary",
                  onclick: () => {
                    contacts.push({ contactId: c.id, name: c.name, company: c.company, involvement: "related", canDelegate: false });
                    renderContacts();
                    contactSearch.value = "";
                    replace(contactResults);
                    contactSearch.focus();
                  },
                },
                `Link ${c.name}`,
                c.company ? ` (${c.company})` : "",
              ),
            ),
          ),
        );
      } catch (e) {
        replace(contactResults, h("li", { class: "error", role: "alert" }, errorText(e)));
      }
    }, 250);
  });

  const status_ = h("div", { class: "form-status" });
  const save = h("button", { type: "submit" }, card ? "Save" : "Create card");

  const build = (): { input: CardInit; changed: boolean } => {
    const input: CardInit = {};
    const clear: string[] = [];
    const labelList = labels.value
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const rows = checklist.filter((r) => r.text.trim() !== "");
    const desc = description.value.trim();
    if (!card) {
      input.title = title.value.trim();
      if (desc) input.description = desc;
      input.status = statusSel.value;
      input.priority = prioritySel.value;
      input.assignee = assigneeSel.value;
      if (due.value) input.dueDate = fromDate(new Date(`${due.value}T00:00:00Z`));
      if (labelList.length) input.labels = labelList;
      if (rows.length) input.checklist = rows.map((r, i) => ({ text: r.text.trim(), completed: r.completed, order: i }));
      if (contacts.length)
        input.contacts = contacts.map((c) => ({ contactId: c.contactId, canDelegate: c.canDelegate }));
      return { input, changed: true };
    }
    if (title.value.trim() !== card.title) input.title = title.value.trim();
    if (desc !== (card.description ?? "")) {
      if (desc) input.description = desc;
      else clear.push("description");
    }
    if (statusSel.value !== card.status) input.status = statusSel.value;
    if (prioritySel.value !== card.priority) input.priority = prioritySel.value;
    if (assigneeSel.value !== card.assignee) input.assignee = assigneeSel.value;
    if (due.value !== dateInputValue(card.dueDate)) {
      if (due.value) input.dueDate = fromDate(new Date(`${due.value}T00:00:00Z`));
      else clear.push("dueDate");
    }
    if (!sameList(labelList, card.labels, (s) => s)) {
      if (labelList.length) input.labels = labelList;
      else clear.push("labels");
    }
    const before = card.checklist.map((c) => ({ id: c.id, text: c.text, completed: c.completed }));
    if (!sameList(rows, before, (r) => `${r.id ?? ""}\u0000${r.text.trim()}\u0000${r.completed}`)) {
      if (rows.length)
        input.checklist = rows.map((r, i) => ({ id: r.id, text: r.text.trim(), completed: r.completed, order: i }));
      else clear.push("checklist");
    }
    if (!sameList(contacts, card.contacts.map((c) => ({ contactId: c.contactId })), (c) => c.contactId)) {
      if (contacts.length)
        input.contacts = contacts.map((c) => ({
          contactId: c.contactId,
          role: c.role,
          involvement: c.involvement,
          canDelegate: c.canDelegate,
        }));
      else clear.push("contacts");
    }
    if (clear.length) input.clearFields = clear;
    return { input, changed: Object.keys(input).length > 0 };
  };

  const form = h(
    "form",
    {
      class: "editor-form",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const { input, changed } = build();
        if (!changed) {
          close();
          return;
        }
        save.disabled = true;
        replace(status_, h("p", { role: "status" }, "Saving…"));
        try {
          if (card) {
            await api.kanban.updateCard({ id: card.id, card: input });
            toast(`Saved "${title.value.trim()}"`);
          } else {
            await api.kanban.createCard({ card: input });
            toast(`Created "${title.value.trim()}"`);
          }
          announce("board", "now", "activity");
          close();
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(status_, h("p", { class: "error", role: "alert" }, errorText(err)));
          save.disabled = false;
        }
      },
    },
    field("Title", title),
    field("Description", description),
    h(
      "div",
      { class: "field-row" },
      field("Column", statusSel),
      field("Priority", prioritySel),
      field("Assignee", assigneeSel),
      field("Due date", due),
    ),
    field("Labels", labels, "Separate labels with commas."),
    h(
      "fieldset",
      null,
      h("legend", null, "Checklist"),
      checklistEl,
      h("div", { class: "add-row" }, newItem, h("button", { type: "button", class: "secondary", onclick: addItem }, "Add item")),
    ),
    h("fieldset", null, h("legend", null, "Contacts"), contactsEl, contactSearch, contactResults),
    status_,
    h(
      "div",
      { class: "editor-actions" },
      save,
      h("button", { type: "button", class: "secondary", onclick: close }, "Cancel"),
      card && deleteButton(card, status_, close),
    ),
  );
  queueMicrotask(() => title.focus());
  return form;
}

function deleteButton(card: KanbanCardDetail, status_: HTMLElement, close: () => void): HTMLElement {
  const wrap = h("span", { class: "delete-wrap" });
  const ask = h(
    "button",
    {
      type: "button",
      class: "danger subtle",
      onclick: () => {
        const yes = h(
          "button",
          {
            type: "button",
            class: "danger",
            onclick: async () => {
              yes.disabled = true;
              try {
                await api.kanban.deleteCard({ id: card.id });
                toast(`Deleted "${card.title}"`);
                announce("board", "now", "activity");
                close();
              } catch (e) {
                replace(status_, h("p", { class: "error", role: "alert" }, errorText(e)));
                yes.disabled = false;
              }
            },
          },
          "Yes, delete",
        );
        replace(wrap, h("span", { class: "confirm-text" }, "Delete this card?"), yes);
        yes.focus();
      },
    },
    "Delete card",
  );
  wrap.append(ask);
  return wrap;
}
