// Queue: every item, filtered by status, priority and type, with status moves
// (the server's reason shown when a move is illegal).
import { api } from "../api";
import { h, uid } from "../dom";
import { onRefresh } from "../refresh";
import { Region, emptyState, pager, priorities, queueStatuses, queueTypes, type View } from "../ui";
import { queueItemRow } from "./queueItem";
import { termLabel } from "../vocabulary";

const pageSize = 20;

function filterSelect(name: string, title: string, vocabulary: string, values: string[], current: string, onchange: (v: string) => void) {
  const id = uid(name);
  const select = h(
    "select",
    { id, name, onchange: () => onchange(select.value) },
    h("option", { value: "" }, "All"),
    values.map((v) => h("option", { value: v, selected: v === current }, termLabel(vocabulary, v))),
  );
  return h("div", { class: "field inline" }, h("label", { for: id }, title), select);
}

export function queueView(params: URLSearchParams): View {
  const filters = {
    status: params.get("status") ?? "",
    priority: params.get("priority") ?? "",
    type: params.get("type") ?? "",
  };
  let offset = 0;
  const list = new Region("Queue items");

  const load = () =>
    list.load(async () => {
      const res = await api.queue.listQueueItems({ ...filters, limit: pageSize, offset });
      const items = res.data?.items ?? [];
      const page = res.data?.pagination;
      if (items.length === 0 && offset > 0) {
        offset = 0;
        queueMicrotask(load);
      }
      if (items.length === 0) {
        return emptyState(filters.status || filters.priority || filters.type ? "No items match these filters." : "The queue is empty.");
      }
      const rows = h("div", { class: "items" }, items.map((it) => queueItemRow(it, { move: true })));
      // A link to one item (#/queue?item=…, as the assistant's chips give)
      // brings it into sight, marked.
      const wanted = params.get("item");
      const row = wanted ? rows.querySelector<HTMLElement>(`[data-id="${CSS.escape(wanted)}"]`) : null;
      if (row) {
        row.classList.add("linked");
        row.setAttribute("aria-current", "true");
        queueMicrotask(() => row.scrollIntoView({ block: "center" }));
      }
      return [
        rows,
        page &&
          pager(
            { offset: page.offset, limit: page.limit, total: page.total, hasMore: page.hasMore },
            (o) => {
              offset = o;
              void load();
            },
            "queue",
          ),
      ];
    });

  const set = (key: keyof typeof filters) => (v: string) => {
    filters[key] = v;
    offset = 0;
    // Keep the filters in the address so a reload or a link shows the same list.
    const q = new URLSearchParams(Object.entries(filters).filter(([, val]) => val !== ""));
    const hash = `#/queue${q.size ? `?${q}` : ""}`;
    history.replaceState(null, "", hash);
    void load();
  };

  const el = h(
    "div",
    { class: "view queue" },
    h("h1", null, "Queue"),
    h(
      "form",
      { class: "filters", "aria-label": "Filters", onsubmit: (e: Event) => e.preventDefault() },
      filterSelect("status", "Status", "queue_status", queueStatuses, filters.status, set("status")),
      filterSelect("priority", "Priority", "priority", priorities, filters.priority, set("priority")),
      filterSelect("type", "Type", "queue_type", queueTypes, filters.type, set("type")),
    ),
    list.el,
  );
  void load();
  const off = onRefresh("queue", () => void load());
  return { el, unmount: off };
}
