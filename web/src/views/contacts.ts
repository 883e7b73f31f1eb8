// Contacts: search (name, email, company) and a tag filter over a paged list;
// a contact's detail shows its fields and the cards it is linked to, and
// edits or deletes it (contactEdit.ts).
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { Contact, ContactDetail } from "../gen/switchboard/v1/contacts_pb";
import { announce, onRefresh } from "../refresh";
import { Region, chip, dueDate, emptyState, pageOf, pager, reportUnauthenticated, stillAt, toast, type View } from "../ui";
import { termLabel } from "../vocabulary";
import { contactEditForm, deleteContact } from "./contactEdit";

const pageSize = 20;

function contactRow(c: Contact, selected: boolean): HTMLElement {
  return h(
    "li",
    { class: "contact-row" },
    h(
      "a",
      {
        href: `#/contacts/${encodeURIComponent(c.id)}`,
        "data-focus-key": `contact-${c.id}`,
        "aria-current": selected ? "true" : undefined,
      },
      h("span", { class: "contact-name" }, c.name),
      c.company && h("span", { class: "muted" }, ` · ${c.company}`),
    ),
    h(
      "div",
      { class: "contact-sub" },
      c.email && h("span", null, c.email),
      c.tags.length > 0 && h("ul", { class: "labels", "aria-label": "Tags" }, c.tags.map((t) => h("li", null, t))),
      c.cards.length > 0 && h("span", { class: "muted" }, `${c.cards.length} card${c.cards.length === 1 ? "" : "s"}`),
    ),
  );
}

function detail(c: ContactDetail): HTMLElement {
  let offset = 0;
  const cardsEl = h("div");
  const renderCards = () => {
    const { items, page } = pageOf(c.cards, offset, 10);
    replace(
      cardsEl,
      c.cards.length === 0
        ? emptyState("Not linked to any card.")
        : h(
            "ul",
            { class: "linked-cards" },
            items.map((link) =>
              h(
                "li",
                null,
                h("a", { href: `#/board?card=${encodeURIComponent(link.cardId)}` }, link.card?.title ?? link.cardId),
                " ",
                link.card && chip("card-status", "card_status", link.card.status),
                " ",
                link.card && chip("priority", "priority", link.card.priority),
                " ",
                link.card && h("span", { class: "muted" }, termLabel("assignee", link.card.assignee)),
                " ",
                dueDate(link.card?.dueDate),
                link.role && h("span", { class: "muted" }, ` · ${link.role}`),
              ),
            ),
          ),
      pager(page, (o) => {
        offset = o;
        renderCards();
      }, "linked"),
    );
  };
  renderCards();
  const rows: [string, string | undefined][] = [
    ["Email", c.email],
    ["Phone", c.phone],
    ["Company", c.company],
    ["Role", c.role],
    ["Preferred channel", c.preferredChannel],
    ["Source", c.source],
    ["Notes", c.notes],
  ];
  return h(
    "article",
    { class: "contact-detail", "aria-labelledby": "contact-title" },
    h("h2", { id: "contact-title", tabindex: -1 }, c.name),
    h(
      "dl",
      null,
      rows.filter(([, v]) => v).map(([k, v]) => [h("dt", null, k), h("dd", null, v!)]),
      c.tags.length > 0 && [h("dt", null, "Tags"), h("dd", null, h("ul", { class: "labels" }, c.tags.map((t) => h("li", null, t))))],
    ),
    h("h3", null, "Linked cards"),
    cardsEl,
  );
}

function newContactForm(done: (id: string) => void, cancel: () => void): HTMLElement {
  const f = (name: string, title: string, type = "text") => {
    const id = uid("contact");
    const input = h("input", { id, name, type });
    return { input, el: h("div", { class: "field" }, h("label", { for: id }, title), input) };
  };
  const name = f("name", "Name");
  name.input.required = true;
  const email = f("email", "Email", "email");
  const company = f("company", "Company");
  const phone = f("phone", "Phone", "tel");
  const tags = f("tags", "Tags (comma separated)");
  const status = h("div", { class: "form-status" });
  const save = h("button", { type: "submit" }, "Create contact");
  const form = h(
    "form",
    {
      class: "panel new-contact",
      "aria-label": "New contact",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        save.disabled = true;
        try {
          const tagList = tags.input.value.split(",").map((s) => s.trim()).filter(Boolean);
          const res = await api.contacts.createContact({
            contact: {
              name: name.input.value.trim(),
              email: email.input.value.trim() || undefined,
              company: company.input.value.trim() || undefined,
              phone: phone.input.value.trim() || undefined,
              tags: tagList,
            },
          });
          toast(`Created contact ${res.contact?.name ?? ""}`);
          announce("board", "activity");
          done(res.contact?.id ?? "");
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(status, h("p", { class: "error", role: "alert" }, errorText(err)));
          save.disabled = false;
        }
      },
    },
    h("h2", null, "New contact"),
    name.el,
    email.el,
    company.el,
    phone.el,
    tags.el,
    status,
    h("div", { class: "editor-actions" }, save, h("button", { type: "button", class: "secondary", onclick: cancel }, "Cancel")),
  );
  queueMicrotask(() => name.input.focus());
  return form;
}

export function contactsView(params: URLSearchParams, id?: string): View {
  let search = params.get("search") ?? "";
  let tag = params.get("tag") ?? "";
  let offset = 0;
  const list = new Region("Contacts");
  const side = new Region("Contact");
  const formSlot = h("div");

  const load = () =>
    list.load(async () => {
      const res = await api.contacts.listContacts({ search, tag, limit: pageSize, offset });
      const p = res.pagination;
      if (res.contacts.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(load);
      }
      if (res.contacts.length === 0) return emptyState(search || tag ? "No contacts match." : "No contacts yet.");
      return [
        h("ul", { class: "contact-list" }, res.contacts.map((c) => contactRow(c, c.id === id))),
        p &&
          pager({ offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore }, (o) => {
            offset = o;
            void load();
          }, "contacts"),
      ];
    });

  const searchId = uid("search");
  const tagId = uid("tag");
  const searchInput = h("input", { id: searchId, type: "search", name: "search", value: search });
  const tagInput = h("input", { id: tagId, type: "search", name: "tag", value: tag });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const apply = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const path = `#/contacts${id ? `/${encodeURIComponent(id)}` : ""}`;
      if (!stillAt(path)) return;
      search = searchInput.value.trim();
      tag = tagInput.value.trim();
      offset = 0;
      const q = new URLSearchParams(Object.entries({ search, tag }).filter(([, v]) => v));
      history.replaceState(null, "", `${path}${q.size ? `?${q}` : ""}`);
      void load();
    }, 300);
  };
  searchInput.addEventListener("input", apply);
  tagInput.addEventListener("input", apply);

  const el = h(
    "div",
    { class: `view contacts${id ? " has-detail" : ""}` },
    h(
      "div",
      { class: "view-head" },
      h("h1", null, "Contacts"),
      h(
        "button",
        {
          type: "button",
          onclick: () =>
            replace(
              formSlot,
              newContactForm(
                (newId) => {
                  replace(formSlot);
                  if (newId) location.hash = `#/contacts/${encodeURIComponent(newId)}`;
                  else void load();
                },
                () => replace(formSlot),
              ),
            ),
        },
        "New contact",
      ),
    ),
    formSlot,
    h(
      "div",
      { class: "split" },
      h(
        "div",
        { class: "split-main" },
        h(
          "form",
          { class: "filters", role: "search", onsubmit: (e: Event) => e.preventDefault() },
          h("div", { class: "field inline" }, h("label", { for: searchId }, "Search"), searchInput),
          h("div", { class: "field inline" }, h("label", { for: tagId }, "Tag"), tagInput),
        ),
        list.el,
      ),
      id &&
        h(
          "aside",
          { class: "split-side panel", "aria-label": "Contact detail" },
          h("a", { class: "back", href: "#/contacts" }, "← All contacts"),
          side.el,
        ),
    ),
  );
  void load();
  // The operator is working in the detail: focus inside, or its edit form open.
  const working = () => side.el.contains(document.activeElement) || side.el.querySelector("form") !== null;
  // live: a refresh the stream asked for, which leaves alone a detail the
  // operator began working in while its read was under way (Region keeps the
  // element handed back).
  const loadSide = (contactId: string, live = false) =>
    side.load(async () => {
      const res = await api.contacts.getContact({ id: contactId });
      const shown = side.el.firstElementChild;
      if (live && working() && shown instanceof HTMLElement && side.el.childNodes.length === 1) return shown;
      if (!res.contact) throw new Error("The contact was not found.");
      const c = res.contact;
      const box = h("div");
      const problem = h("div");
      const show = () => {
        const d = detail(c);
        replace(
          box,
          d,
          h(
            "div",
            { class: "editor-actions contact-actions" },
            h("button", { type: "button", class: "secondary", onclick: () => edit() }, "Edit contact"),
            deleteContact(c, problem, () => {
              location.hash = "#/contacts";
            }),
          ),
          problem,
        );
        queueMicrotask(() => d.querySelector<HTMLElement>("#contact-title")?.focus());
      };
      const edit = () =>
        replace(
          box,
          contactEditForm(
            c,
            () => {
              void loadSide(contactId);
              void load();
            },
            show,
          ),
        );
      show();
      return box;
    });
  if (id) void loadSide(id);
  // Live: a contact made or changed anywhere (issue 31). The open detail is
  // read again unless the operator is working in it, when the refresh asks
  // and when its answer comes.
  const off = onRefresh("contacts", () => {
    void load();
    if (id && !working()) void loadSide(id, true);
  });
  return {
    el,
    unmount: () => {
      clearTimeout(timer);
      off();
    },
  };
}
