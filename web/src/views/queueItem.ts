// One queue item as Now and Queue show it, with its actions: Approve / Reject
// while it waits for confirmation, and (on Queue) a move to another status.
// An invite reads as one: a local project invite is answered as an invite;
// an invite relay from a connection (a project or a team on their instance)
// is accepted or declined by approving or rejecting its item, which answers
// it over the network.
import { signal } from "../signal";
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import type { QueueItem } from "../gen/switchboard/v1/queue_pb";
import { announce, queueChanged } from "../refresh";
import { chip, queueStatuses, reportUnauthenticated, timeOf, toast } from "../ui";
import { termLabel } from "../vocabulary";
import { widgetsEl } from "../widgets";
import { ConfirmAction, InviteAction, NotificationType, QueueStatus, QueueType } from "../gen/vocabulary_terms";

function summaryOf(item: QueueItem): string {
  // The prompt optimizer's short summary, when it wrote one (document 1, "QueueItem").
  if (item.metadata) {
    try {
      const m = JSON.parse(item.metadata) as Record<string, unknown>;
      if (typeof m.displaySummary === "string" && m.displaySummary) return m.displaySummary;
    } catch {
      // Not JSON: nothing to show from it.
    }
  }
  return item.description ?? "";
}

// projectInviteOf is the project invite a queue item stands for (a
// notification whose metadata names projectInviteId), or "".
function projectInviteOf(item: QueueItem): string {
  if (item.type !== QueueType.Notification || !item.metadata) return "";
  try {
    const m = JSON.parse(item.metadata) as Record<string, unknown>;
    return typeof m.projectInviteId === "string" ? m.projectInviteId : "";
  } catch {
    return "";
  }
}

// A relayInvite is an invite relay's item as a person reads it: what it asks
// to join, who asks, in which role, with their note.
interface RelayInvite {
  title: string;
  from: string;
  summary: string;
}

function relayInviteOf(item: QueueItem): RelayInvite | null {
  if (!item.metadata) return null;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(item.metadata) as Record<string, unknown>;
  } catch {
    return null;
  }
  const p = m.relayPayload;
  if (!p || typeof p !== "object") return null;
  const payload = p as Record<string, unknown>;
  const text = (k: string) => (typeof payload[k] === "string" ? (payload[k] as string).trim() : "");
  const peer = typeof m.peer === "string" ? m.peer : "";
  const inviter = text("inviterName");
  const from = inviter && peer ? `${inviter} (${peer})` : inviter || peer || item.requesterName || item.source || "";
  const as = (vocabulary: string) => (text("role") ? `As ${termLabel(vocabulary, text("role"))}.` : "");
  const note = text("message");
  const summary = (role: string) => [role, note].filter(Boolean).join(" ");
  switch (text("kind")) {
    case NotificationType.ProjectInvite:
      return { title: `Join project ${text("projectName") || "a shared project"}`, from, summary: summary(as("project_role")) };
    case NotificationType.TeamInvite:
      return { title: `Join team ${text("teamName") || "a shared team"}`, from, summary: summary(as("team_role")) };
    default:
      return null;
  }
}

// The queue statuses an item never leaves (docs/decisions.md "Queue").
const terminalStatuses = new Set<string>([QueueStatus.DoneToday]);

export function queueItemRow(item: QueueItem, opts: { move: boolean }): HTMLElement {
  const problem = h("div", { class: "item-problem" });
  const showError = (e: unknown) => {
    if (isUnauthenticated(e)) reportUnauthenticated();
    replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
  };
  const clearError = () => replace(problem);

  const actions = h("div", { class: "item-actions" });
  const pending = item.status === QueueStatus.PendingConfirmation;

  const inviteId = pending ? projectInviteOf(item) : "";
  // An invite relay: Approve accepts it, Reject declines it (the confirm
  // route answers the relay; the inviting side then lists them as a member).
  const relayInvite = relayInviteOf(item);
  const words = relayInvite && pending
    ? { approve: "Accept", reject: "Decline", ask: "Decline this invite?", yes: "Yes, decline", no: "Keep it" }
    : { approve: "Approve", reject: "Reject", ask: "Remove this item?", yes: "Yes, reject and remove", no: "Keep it" };
  const title = relayInvite?.title ?? item.title;
  if (inviteId) {
    // A project invite is answered as one (PATCH /api/project-invites): the
    // server deletes the item either way.
    const answer = (action: string, label: string, secondary: boolean): HTMLButtonElement => {
      const b: HTMLButtonElement = h(
        "button",
        {
          type: "button",
          class: secondary ? "secondary" : undefined,
          "data-focus-key": `${action}-${item.id}`,
          "aria-label": `${label}: ${item.title}`,
          onclick: async () => {
            clearError();
            b.disabled = true;
            try {
              const res = await api.projects.answerProjectInvite({ inviteId, action });
              const name = res.project?.name ?? res.invite?.projectName ?? "the project";
              toast(action === InviteAction.Accept ? `You joined ${name}.` : `You declined the invite to ${name}.`);
              announce(...queueChanged(), "activity");
            } catch (e) {
              showError(e);
              b.disabled = false;
            }
          },
        },
        label,
      );
      return b;
    };
    actions.append(answer(InviteAction.Accept, "Accept", false), answer(InviteAction.Decline, "Decline", true));
  } else if (pending) {
    const approve = h(
      "button",
      {
        type: "button",
        "data-focus-key": `approve-${item.id}`,
        "aria-label": `${words.approve} ${title}`,
        onclick: async () => {
          clearError();
          approve.disabled = true;
          try {
            const res = await api.queue.confirmQueueItem({ id: item.id, action: ConfirmAction.Approve });
            signal("approve", { queueItemId: item.id, type: item.type });
            toast(relayInvite ? `Accepted: ${relayInvite.title}. Its lead hears of it over the network.` : res.message);
            announce(...queueChanged(QueueStatus.Ready));
          } catch (e) {
            showError(e);
            approve.disabled = false;
          }
        },
      },
      words.approve,
    );
    const reject = h(
      "button",
      {
        type: "button",
        class: "secondary",
        "data-focus-key": `reject-${item.id}`,
        "aria-label": `${words.reject} ${title}`,
        onclick: () => {
          clearError();
          // A rejected item is deleted: ask once more, in place.
          const yes = h(
            "button",
            {
              type: "button",
              class: "danger",
              onclick: async () => {
                yes.disabled = true;
                try {
                  const res = await api.queue.confirmQueueItem({ id: item.id, action: ConfirmAction.Reject });
                  signal("reject", { queueItemId: item.id, type: item.type });
                  toast(relayInvite ? `Declined: ${relayInvite.title}.` : res.message);
                  announce(...queueChanged());
                } catch (e) {
                  showError(e);
                  yes.disabled = false;
                }
              },
            },
            words.yes,
          );
          const no = h(
            "button",
            {
              type: "button",
              class: "secondary",
              onclick: () => {
                replace(actions, approve, reject, mover);
                reject.focus();
              },
            },
            words.no,
          );
          replace(actions, h("span", { class: "confirm-text" }, words.ask), yes, no);
          no.focus();
        },
      },
      words.reject,
    );
    actions.append(approve, reject);
  }

  let mover: HTMLElement | null = null;
  // A done item has no legal move (server/queue/rules.go: done_today's row of
  // the transition table is empty), so it offers none; the other statuses
  // offer every target and the server says why an illegal one is refused.
  if (opts.move && !terminalStatuses.has(item.status)) {
    const id = uid("move");
    const select = h(
      "select",
      { id, "data-focus-key": `move-select-${item.id}` },
      queueStatuses.filter((s) => s !== item.status).map((s) => h("option", { value: s }, termLabel("queue_status", s))),
    );
    const go = h(
      "button",
      {
        type: "button",
        class: "secondary",
        "data-focus-key": `move-${item.id}`,
        onclick: async () => {
          clearError();
          go.disabled = true;
          try {
            const res = await api.queue.updateQueueItemStatus({ id: item.id, status: select.value });
            toast(`"${item.title}" moved to ${termLabel("queue_status", res.item?.status ?? select.value)}`);
            announce(...queueChanged(select.value));
          } catch (e) {
            // An illegal move: the server says why (RULINGS "Queue", every refusal says why).
            showError(e);
          } finally {
            go.disabled = false;
          }
        },
      },
      "Move",
    );
    mover = h("div", { class: "mover" }, h("label", { for: id }, "Move to"), select, go);
    actions.append(mover);
  }

  const summary = relayInvite ? relayInvite.summary || summaryOf(item) : summaryOf(item);
  const who = relayInvite?.from || item.requesterName || item.source;
  return h(
    "article",
    { class: `item priority-${item.priority}`, "data-id": item.id, "aria-label": title, "data-invite": relayInvite ? "relay" : undefined },
    h(
      "div",
      { class: "item-head" },
      h("h3", { class: "item-title" }, title),
      h(
        "div",
        { class: "item-meta" },
        chip("priority", "priority", item.priority),
        chip("status", "queue_status", item.status),
        item.type !== "task" && chip("type", "queue_type", item.type),
      ),
    ),
    summary && h("p", { class: "item-summary" }, summary),
    widgetsEl(item.metadata, item.title, item.id),
    h(
      "p",
      { class: "item-sub" },
      // Who asked: the request's source, X-Agent-Name or the key's label
      // (docs/decisions.md "Who asked, who wrote, first run").
      who && h("span", { class: "item-source" }, `From ${who}`),
      who ? " · " : "",
      timeOf(item.createdAt),
    ),
    actions,
    problem,
  );
}
