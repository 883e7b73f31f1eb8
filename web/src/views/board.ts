// Board: one column per card status, each paged on its own, less the columns
// the operator hides (boardColumns.ts). Cards show their checklist progress,
// labels, due date, contacts, the pending-review badge and, while a linked
// queue item waits for approval, that; a card moves by dragging it (mouse,
// touch, or the keyboard on its grip: boardDrag.ts) or with its Move control.
// Live refreshes wait while a card is in hand.
import { signal } from "../signal";
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { KanbanCard } from "../gen/switchboard/v1/kanban_pb";
import type { BoardInsight } from "../gen/switchboard/v1/board_pb";
import { announce, onRefresh } from "../refresh";
import { Region, cardStatuses, chip, dueDate, emptyState, pager, reportUnauthenticated, stillAt, toast, type View } from "../ui";
import { openCardEditor } from "./cardEditor";
import { BoardDrag } from "./boardDrag";
import { columnChooser, loadHidden, scrollCue } from "./boardColumns";
import { termLabel } from "../vocabulary";
import { CardStatus } from "../gen/vocabulary_terms";

const pageSize = 10;

async function moveCard(card: KanbanCard, status: string, problem: HTMLElement): Promise<void> {
  if (status === card.status) return;
  try {
    await api.kanban.updateCard({ id: card.id, card: { status } });
    signal("move", { cardId: card.id, from: card.status, to: status });
    toast(`"${card.title}" moved to ${termLabel("card_status", status)}`);
    announce("board", "now", "activity");
  } catch (e) {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  }
}

// awaiting says that queue items linked to the card still wait for the
// operator's approval (Now is where they are approved): such a card sits in
// the active column, but nothing on it is under way yet.
function awaiting(card: KanbanCard): HTMLElement | null {
  const n = card.itemsAwaitingApproval;
  if (n <= 0) return null;
  return h(
    "a",
    { class: "chip awaiting-approval", href: "#/now", title: "Approve or reject in Now" },
    n === 1 ? "Awaiting approval" : `${n} awaiting approval`,
  );
}

function cardEl(card: KanbanCard, drag: BoardDrag): HTMLElement {
  const problem = h("div", { class: "item-problem" });
  const done = card.checklist.filter((c) => c.completed).length;
  const total = card.checklist.length;
  const selectId = uid("move");
  const select = h(
    "select",
    { id: selectId, "data-focus-key": `card-move-select-${card.id}` },
    cardStatuses.map((s) => h("option", { value: s, selected: s === card.status }, termLabel("card_status", s))),
  );
  const el = h(
    "article",
    {
      class: `kcard priority-${card.priority}${card.itemsAwaitingApproval > 0 ? " awaiting" : ""}`,
      "data-id": card.id,
      "aria-label": card.title,
    },
    h(
      "h3",
      null,
      drag.grip(card.id, card.title, card.status),
      h(
        "button",
        {
          type: "button",
          class: "linklike",
          "data-focus-key": `card-${card.id}`,
          onclick: () => openCardEditor({ id: card.id }),
        },
        card.title,
      ),
    ),
    h(
      "div",
      { class: "chips" },
      awaiting(card),
      chip("priority", "priority", card.priority),
      card.pendingReview && h("span", { class: "chip pending-review" }, "Pending review"),
      card.assignee === "agent" && chip("assignee", "assignee", "agent"),
      dueDate(card.dueDate),
    ),
    total > 0 &&
      h(
        "div",
        { class: "progress" },
        h("progress", { value: done, max: total, "aria-label": `Checklist: ${done} of ${total} done` }),
        h("span", { "aria-hidden": "true" }, `${done}/${total}`),
      ),
    card.labels.length > 0 && h("ul", { class: "labels", "aria-label": "Labels" }, card.labels.map((l) => h("li", null, l))),
    card.contacts.length > 0 &&
      h(
        "p",
        { class: "card-contacts" },
        h("span", { class: "muted" }, "Contacts: "),
        card.contacts.map((c) => c.contact?.name ?? "").filter(Boolean).join(", "),
      ),
    h(
      "div",
      { class: "mover" },
      h("label", { for: selectId, class: "visually-hidden" }, `Move ${card.title} to column`),
      select,
      h(
        "button",
        {
          type: "button",
          class: "secondary small",
          "data-focus-key": `card-move-${card.id}`,
          onclick: () => void moveCard(card, select.value, problem),
        },
        "Move",
      ),
    ),
    problem,
  );
  drag.attach(el, card.id, card.title, card.status);
  return el;
}

// The Insights panel: what the board scan noticed (POST|GET /api/board/cortex),
// each with its reason, applied or dismissed in place; "Scan now" runs the
// full scan.
function insightsPanel(): { el: HTMLElement; load: () => void } {
  const region = new Region("Insights");
  const problem = h("div");
  const decide = async (ins: BoardInsight, status: string) => {
    try {
      await api.board.updateBoardInsight({ id: ins.id, status });
      toast(status === "applied" ? "Insight applied" : "Insight dismissed");
      announce("board", "activity");
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
    }
  };
  const row = (ins: BoardInsight) =>
    h(
      "li",
      { class: "insight", "data-id": ins.id, "data-type": ins.type },
      h("span", { class: "insight-type" }, termLabel("insight_type", ins.type)),
      " ",
      h("span", { class: "insight-reason" }, ins.reason),
      " ",
      h("button", { type: "button", onclick: () => void decide(ins, "applied") }, "Apply"),
      " ",
      h("button", { type: "button", class: "secondary", onclick: () => void decide(ins, "dismissed") }, "Dismiss"),
    );
  const load = () =>
    void region.load(async () => {
      const d = await api.board.getBoardDigest({});
      return d.insights.length === 0 ? emptyState("No insights") : h("ul", { class: "insights" }, d.insights.map(row));
    });
  const scan = async () => {
    try {
      const r = await api.board.scanBoard({});
      toast(`Scanned ${r.scanned} cards: ${r.insightsCreated} new insights`);
      announce("board", "activity");
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
    }
  };
  const el = h(
    "section",
    { class: "insights-panel", "aria-label": "Insights" },
    h("div", { class: "column-head" }, h("h2", null, "Insights"), h("button", { type: "button", onclick: () => void scan() }, "Scan now")),
    problem,
    region.el,
  );
  return { el, load };
}

export function boardView(params: URLSearchParams): View {
  let search = params.get("search") ?? "";
  const offsets = new Map<string, number>(cardStatuses.map((s) => [s, 0]));
  const regions = new Map<string, Region>();
  const counts = new Map<string, HTMLElement>();
  const cards = new Map<string, KanbanCard>();
  // Until the settings answer, every column counts as hidden: none loads twice.
  let hidden = new Set<string>(cardStatuses);
  const shownStatuses = () => cardStatuses.filter((s) => !hidden.has(s));
  // The card a keyboard drop moved and the column it went to: its grip takes
  // the focus once it shows there (a refresh of the column it left, which
  // may still list it, does not count).
  let refocus: { id: string; status: string } | null = null;

  const drag = new BoardDrag({
    strip: () => strip,
    columns: () => columns.filter((c) => !c.hidden),
    drop: (cardId, status) => {
      const card = cards.get(cardId);
      if (!card) return;
      refocus = document.activeElement?.classList.contains("grip") ? { id: cardId, status } : null;
      const problem = h("div");
      void moveCard(card, status, problem).then(() => {
        if (problem.childElementCount) regions.get(status)?.el.prepend(problem);
      });
    },
  });

  // After a column's load: the focus of a keyboard drop, the scroll cue.
  const loaded = (status: string) => {
    const region = regions.get(status)!;
    if (refocus?.status === status) {
      const grip = region.el.querySelector<HTMLElement>(`[data-focus-key="card-grip-${CSS.escape(refocus.id)}"]`);
      if (grip) {
        refocus = null;
        grip.focus();
      }
    }
    cue.update();
  };
  const loadColumn = (status: string): Promise<void> => {
    const region = regions.get(status)!;
    return region.load(async () => {
      const res = await api.kanban.listCards({ status, search, limit: pageSize, offset: offsets.get(status) ?? 0 });
      const p = res.pagination;
      counts.get(status)!.textContent = String(p?.total ?? res.cards.length);
      if (res.cards.length === 0 && (offsets.get(status) ?? 0) > 0) {
        offsets.set(status, 0);
        queueMicrotask(() => void loadColumn(status));
      }
      // A card in the operator's hand keeps its element, its focus and its
      // grab: the column is drawn once the card is dropped or put back (its
      // count above already tells of the change).
      await drag.idle();
      // Archived cards (a merge's source, an applied archive candidate) leave the board.
      const shown = res.cards.filter((c) => !c.isArchived);
      for (const c of shown) cards.set(c.id, c);
      return [
        shown.length === 0 ? emptyState("No cards") : h("div", { class: "cards" }, shown.map((c) => cardEl(c, drag))),
        p &&
          pager(
            { offset: p.offset, limit: p.limit, total: p.total, hasMore: p.hasMore },
            (o) => {
              offsets.set(status, o);
              void loadColumn(status);
            },
            `col-${status}`,
          ),
      ];
    }).then(() => loaded(status));
  };
  const insights = insightsPanel();
  const loadAll = () => {
    shownStatuses().forEach((s) => void loadColumn(s));
    insights.load();
  };

  const columns = cardStatuses.map((status) => {
    const region = new Region(`${termLabel("card_status", status)} cards`);
    regions.set(status, region);
    const count = h("span", { class: "count" });
    counts.set(status, count);
    const headId = uid("col");
    return h(
      "section",
      { class: "column", "aria-labelledby": headId, "data-status": status, hidden: true },
      h(
        "div",
        { class: "column-head" },
        h("h2", { id: headId }, termLabel("card_status", status), " ", count),
        h(
          "button",
          {
            type: "button",
            class: "icon",
            "aria-label": `New card in ${termLabel("card_status", status)}`,
            onclick: () => openCardEditor({ status }),
          },
          "+",
        ),
      ),
      region.el,
    );
  });
  const columnOf = (status: string) => columns[cardStatuses.indexOf(status)];

  const strip = h("div", { class: "columns" }, columns);
  const cue = scrollCue(strip);
  const allHidden = h("p", { class: "empty", hidden: true }, "Every column is hidden: choose columns to show under Columns.");

  const searchInput = h("input", {
    type: "search",
    name: "search",
    value: search,
    placeholder: "Search cards",
    "aria-label": "Search cards",
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  searchInput.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      if (!stillAt("#/board")) return;
      search = searchInput.value.trim();
      cardStatuses.forEach((s) => offsets.set(s, 0));
      history.replaceState(null, "", search ? `#/board?search=${encodeURIComponent(search)}` : "#/board");
      loadAll();
    }, 300);
  });

  const chooserSlot = h("span", { class: "column-chooser-slot" });
  const el = h(
    "div",
    { class: "view board" },
    h(
      "div",
      { class: "view-head" },
      h("h1", null, "Board"),
      h(
        "form",
        { class: "toolbar", role: "search", onsubmit: (e: Event) => e.preventDefault() },
        searchInput,
        chooserSlot,
        h("button", { type: "button", onclick: () => openCardEditor({ status: CardStatus.Active }) }, "New card"),
      ),
    ),
    insights.el,
    drag.help,
    drag.status,
    allHidden,
    cue.el,
  );
  insights.load();
  const showColumns = () => {
    for (const s of cardStatuses) columnOf(s).hidden = hidden.has(s);
    allHidden.hidden = shownStatuses().length > 0;
    cue.update();
  };
  void loadHidden().then((saved) => {
    hidden = saved;
    showColumns();
    replace(
      chooserSlot,
      columnChooser(hidden, (status, shown) => {
        showColumns();
        if (shown) void loadColumn(status);
      }),
    );
    // The first view starts at the first column that holds cards, so a board
    // whose work sits in later columns does not open on empty ones. Later
    // refreshes leave the operator's scroll alone.
    const visible = shownStatuses();
    void Promise.all(visible.map(loadColumn)).then(() => {
      const first = visible.findIndex((s) => (counts.get(s)?.textContent ?? "0") !== "0");
      if (first > 0 && strip.scrollLeft === 0) strip.scrollLeft = columnOf(visible[first]).offsetLeft - columnOf(visible[0]).offsetLeft;
      cue.update();
    });
  });
  const open = params.get("card");
  if (open) queueMicrotask(() => openCardEditor({ id: open }));
  const off = onRefresh("board", loadAll);
  return {
    el,
    unmount() {
      off();
      drag.stop();
      cue.stop();
      clearTimeout(timer);
    },
  };
}
