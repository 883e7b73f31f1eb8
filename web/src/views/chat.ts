// Chat: the shared chat, paged back through older messages, live through the
// Connect event stream, with the agent-activity filter (the comms view).
import { api, errorText, isUnauthenticated } from "../api";
import { h, replace, uid } from "../dom";
import { create } from "@bufbuild/protobuf";
import { ChatMessageSchema, type ChatMessage } from "../gen/switchboard/v1/chat_pb";
import { agentActivityTypes, live, metadataOf } from "../live";
import { announce, onRefresh } from "../refresh";
import { Region, emptyState, label, reportUnauthenticated, timeOf, type View } from "../ui";
import { widgetsEl } from "../widgets";

const pageSize = 30;

function order(a: ChatMessage, b: ChatMessage): number {
  const as = a.createdAt, bs = b.createdAt;
  const d = Number((as?.seconds ?? 0n) - (bs?.seconds ?? 0n)) || (as?.nanos ?? 0) - (bs?.nanos ?? 0);
  return d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

function author(m: ChatMessage): string {
  if (m.agentName) return m.agentName;
  if (m.role === "user") return "You";
  return label(m.role);
}

function messageEl(m: ChatMessage): HTMLElement {
  const meta = metadataOf(m);
  return h(
    "article",
    { class: `msg role-${m.role}${meta.type ? " comms" : ""}`, "data-id": m.id },
    h(
      "header",
      null,
      h("span", { class: "msg-author" }, author(m)),
      meta.type && h("span", { class: "chip comms-type" }, label(meta.type)),
      h("span", { class: "msg-time" }, timeOf(m.createdAt)),
    ),
    h("p", { class: "msg-text" }, m.content),
    widgetsEl(m.metadata, m.content.slice(0, 80)),
  );
}

export function chatView(params: URLSearchParams): View {
  let agentOnly = params.get("filter") === "agent_activity";
  let messages: ChatMessage[] = [];
  let cursor: string | undefined;
  let hasMore = false;
  let generation = 0;
  // Messages the stream brought while a first page was loading: the page's
  // answer may predate them, and it replaces what is shown.
  let arrived: ChatMessage[] | undefined;
  const region = new Region("Messages");
  const log = h("div", { class: "msg-log", role: "log", "aria-live": "polite", "aria-label": "Chat messages", tabindex: 0 });
  const olderStatus = h("div", { class: "older" });

  const passes = (m: ChatMessage) => !agentOnly || agentActivityTypes.has(metadataOf(m).type);
  const query = () => ({ limit: pageSize, metadataType: agentOnly ? ["agent_activity"] : [] });

  const nearBottom = () => log.scrollHeight - log.scrollTop - log.clientHeight < 80;
  const render = (stick: boolean) => {
    const older = hasMore
      ? h(
          "button",
          {
            type: "button",
            class: "secondary",
            "data-focus-key": "older",
            onclick: async (e: Event) => {
              const b = e.currentTarget as HTMLButtonElement;
              b.disabled = true;
              const gen = generation;
              try {
                const res = await api.chat.listMessages({ ...query(), cursor });
                if (gen !== generation) return;
                const before = log.scrollHeight - log.scrollTop;
                merge(res.messages);
                cursor = res.pagination?.cursor;
                hasMore = !!res.pagination?.hasMore && !!cursor;
                render(false);
                log.scrollTop = log.scrollHeight - before;
              } catch (err) {
                if (isUnauthenticated(err)) reportUnauthenticated();
                replace(olderStatus, h("p", { class: "error", role: "alert" }, errorText(err)));
                b.disabled = false;
              }
            },
          },
          "Load older messages",
        )
      : messages.length > 0 && h("p", { class: "muted start" }, "This is the start of the chat.");
    replace(olderStatus, older);
    replace(
      log,
      olderStatus,
      messages.length === 0 ? emptyState(agentOnly ? "No agent activity yet." : "No messages yet.") : messages.map(messageEl),
    );
    if (stick) log.scrollTop = log.scrollHeight;
  };

  const merge = (incoming: ChatMessage[]) => {
    const byId = new Map(messages.map((m) => [m.id, m]));
    for (const m of incoming) if (passes(m)) byId.set(m.id, m);
    messages = [...byId.values()].sort(order);
  };

  const loadLatest = async (reset: boolean) => {
    let stick = false;
    await region.load(async () => {
      const gen = reset ? ++generation : generation;
      if (reset) arrived = [];
      const res = await api.chat.listMessages(query());
      if (gen !== generation) return log;
      stick = reset || nearBottom();
      if (reset) {
        messages = [];
        merge(arrived ?? []);
        arrived = undefined;
        cursor = res.pagination?.cursor;
        hasMore = !!res.pagination?.hasMore && !!cursor;
      }
      merge(res.messages);
      render(stick);
      return log;
    });
    // The first time, the log is on the page only now: scroll it to the newest.
    if (stick) log.scrollTop = log.scrollHeight;
  };

  const onMessage = (e: Event) => {
    const m = (e as CustomEvent<ChatMessage>).detail;
    if (!passes(m) || messages.some((x) => x.id === m.id)) return;
    arrived?.push(m);
    const stick = nearBottom();
    merge([m]);
    render(stick);
  };
  live.addEventListener("message", onMessage);

  const stateEl = h("span", { class: "live-state", role: "status" });
  const showState = () => {
    stateEl.dataset.state = live.state;
    stateEl.textContent = live.state === "live" ? "Live" : live.state === "connecting" ? "Connecting…" : "Reconnecting…";
  };
  showState();
  live.addEventListener("state", showState);

  const filterId = uid("filter");
  const filter = h("input", {
    id: filterId,
    type: "checkbox",
    checked: agentOnly,
    onchange: () => {
      agentOnly = filter.checked;
      history.replaceState(null, "", agentOnly ? "#/chat?filter=agent_activity" : "#/chat");
      void loadLatest(true);
    },
  });

  const text = h("textarea", {
    name: "content",
    rows: 2,
    required: true,
    placeholder: "Write to the shared chat",
    "aria-label": "Message",
  });
  const sendStatus = h("div", { class: "form-status" });
  const send = h("button", { type: "submit" }, "Send");
  const form = h(
    "form",
    {
      class: "composer",
      onsubmit: async (e: Event) => {
        e.preventDefault();
        const content = text.value.trim();
        if (!content) return;
        send.disabled = true;
        try {
          const res = await api.chat.sendMessage({ content });
          text.value = "";
          replace(sendStatus);
          // The stream brings it too; merging by id keeps it once.
          if (!agentOnly)
            merge([
              create(ChatMessageSchema, {
                id: res.id,
                role: res.role,
                content: res.content,
                agentName: res.agentName,
                createdAt: res.createdAt,
              }),
            ]);
          render(true);
          announce("comms");
        } catch (err) {
          if (isUnauthenticated(err)) reportUnauthenticated();
          replace(sendStatus, h("p", { class: "error", role: "alert" }, errorText(err)));
        } finally {
          send.disabled = false;
          text.focus();
        }
      },
    },
    text,
    send,
  );
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  const el = h(
    "div",
    { class: "view chat" },
    h(
      "div",
      { class: "view-head" },
      h("h1", null, "Chat"),
      h(
        "div",
        { class: "toolbar" },
        h("div", { class: "field check" }, filter, h("label", { for: filterId }, "Agent activity only")),
        stateEl,
      ),
    ),
    region.el,
    h("p", { class: "hint" }, "Enter sends; Shift+Enter starts a new line."),
    form,
    sendStatus,
  );
  void loadLatest(true);
  const off = onRefresh("comms", () => void loadLatest(false));
  return {
    el,
    unmount() {
      off();
      live.removeEventListener("message", onMessage);
      live.removeEventListener("state", showState);
    },
  };
}
