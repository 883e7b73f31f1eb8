// Assistant: the operator's private conversation with the assistant
// (AssistantService, AssistantChatService in proto/switchboard/v1/
// assistant.proto). The reply streams in token by token and can be stopped;
// what its action tags did shows as chips linking to what they changed; a
// tag held for confirmation is a widget acting through ExecuteTag; generated
// images show inline from the documents' raw route; the microphone records a
// voice message (MediaRecorder → POST /api/chat/voice) into the message box;
// the documents are listed and opened beside the conversation.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { api, errorText, isAbort, isUnauthenticated } from "../api";
import { h, replace, type Child } from "../dom";
import type { AssistantMessage, ExecutedTag } from "../gen/switchboard/v1/assistant_pb";
import type { Document } from "../gen/switchboard/v1/documents_pb";
import { announce, queueChanged } from "../refresh";
import { sprite } from "../sprite";
import { learningsPanel } from "./learnings";
import { Region, emptyState, label, reportUnauthenticated, timeOf, type View } from "../ui";

const pageSize = 30;

// shown is a reply's prose as the operator reads it: complete tags are
// chips (below the text), and a tag still streaming in is held back.
export function shown(text: string): string {
  let out = text.replace(/\[\[[ \t]*[a-z][a-z0-9_]*[ \t]*(\{[\s\S]*?\})?[ \t]*\]\]/g, "");
  const open = out.lastIndexOf("[[");
  if (open >= 0 && /^\[\[[ \t]*[a-z]/.test(out.slice(open))) out = out.slice(0, open);
  return out.replace(/[ \t]{2,}/g, " ").replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim();
}

const obj = (v: JsonValue | undefined): JsonObject | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
const str = (v: JsonValue | undefined): string => (typeof v === "string" ? v : "");

// link is where a tag's result leads in the dashboard, if anywhere.
function link(result: JsonObject | undefined): { href: string; text: string } | undefined {
  // decompose_task answers {parent, subtasks}: the parent leads to them.
  const item = obj(result?.item) ?? obj(result?.parent);
  if (item && str(item.id)) {
    const q = new URLSearchParams({ item: str(item.id) });
    if (str(item.status)) q.set("status", str(item.status));
    return { href: `#/queue?${q}`, text: str(item.title) || "the item" };
  }
  const card = obj(result?.card);
  if (card && str(card.id)) return { href: `#/board?card=${encodeURIComponent(str(card.id))}`, text: str(card.title) || "the card" };
  // link_cards: the card it links from.
  const linked = obj(result?.link);
  if (linked && str(linked.fromCardId)) return { href: `#/board?card=${encodeURIComponent(str(linked.fromCardId))}`, text: "the linked cards" };
  // relay_send, job_post: the Network view holds threads and jobs.
  const relay = obj(result?.relay), job = obj(result?.job);
  if (relay) return { href: "#/network", text: str(relay.subject) || "the relay" };
  if (job) return { href: "#/network", text: str(job.title) || "the job" };
  return undefined;
}

// images are a generate_image result's documents.
function images(result: JsonObject | undefined): Child {
  const docs = result?.documents;
  if (!Array.isArray(docs)) return null;
  return h(
    "div",
    { class: "assistant-images" },
    docs.map((d) => {
      const doc = obj(d);
      const id = str(doc?.id);
      if (!id || !str(doc?.mimeType).startsWith("image/")) return null;
      const src = `/api/documents/${encodeURIComponent(id)}/raw`;
      return h("a", { href: src, target: "_blank", rel: "noopener" }, h("img", { src, alt: str(doc?.title), loading: "lazy" }));
    }),
  );
}

function tagName(tag: string): string {
  return label(tag);
}

// Where a tag sits: its reply (known once the reply is stored) and its
// place among the reply's tags.
type Place = { reply: () => string | undefined; index: number };

// tagEl is one executed tag: a chip (linking to what it changed), its
// failure, or the confirmation widget of a tag held back.
function tagEl(t: ExecutedTag, at?: Place): HTMLElement {
  if (t.needsConfirmation) return confirmEl(t, at);
  if (!t.ok) {
    return h(
      "li",
      { class: "tag-result failed" },
      h("span", { class: "chip inactive" }, tagName(t.tag)),
      h("span", { class: "tag-error" }, t.error ?? "failed"),
    );
  }
  const w = obj(t.result?.widget);
  if (w) return h("li", { class: "tag-result ok" }, widgetEl(w));
  // A removed item has nowhere to go.
  const to = t.tag.startsWith("remove_") ? undefined : link(t.result);
  return h(
    "li",
    { class: "tag-result ok" },
    to
      ? h("a", { class: "chip active tag-link", href: to.href, title: `Open ${to.text}` }, `${tagName(t.tag)}: ${to.text}`)
      : h("span", { class: "chip active" }, tagName(t.tag)),
    images(t.result),
  );
}

// valueText is a widget row's value in words.
function valueText(v: JsonValue | undefined): string {
  if (v === true) return "On";
  if (v === false) return "Off";
  return typeof v === "string" ? v || "—" : "";
}

// widgetEl is a widget tag's result (show_settings_widget,
// show_google_connect): its rows, and a button on each row that acts, which
// runs the row's execute (a tag and its body) through ExecuteTag and shows
// the widget the tag answers, or its refusal.
function widgetEl(w: JsonObject): HTMLElement {
  const problem = h("div", { class: "item-problem" });
  const section = h("section", { class: "widget assistant-widget", "data-kind": str(w.kind), "aria-label": str(w.title) });
  const draw = (w: JsonObject) => {
    const items = Array.isArray(w.items) ? w.items.map(obj).filter((x): x is JsonObject => !!x) : [];
    replace(
      section,
      h("h3", null, str(w.title)),
      str(w.description) && h("p", { class: "muted" }, str(w.description)),
      h(
        "ul",
        { class: "widget-items" },
        items.map((it) => {
          const exec = obj(it.execute);
          const value = it.value;
          const action = typeof value === "boolean" ? (value ? "Turn off" : "Turn on") : "Connect";
          return h(
            "li",
            null,
            h("span", { class: "widget-label" }, str(it.label)),
            value !== undefined && h("span", { class: "widget-value" }, valueText(value)),
            exec &&
              h(
                "button",
                {
                  type: "button",
                  class: "secondary small",
                  "aria-label": `${action}: ${str(it.label)}`,
                  onclick: async (e: Event) => {
                    const b = e.currentTarget as HTMLButtonElement;
                    b.disabled = true;
                    replace(problem);
                    try {
                      const res = await api.assistant.executeTag({ tag: str(exec.tag), body: obj(exec.body) });
                      const next = obj(res.tag?.result?.widget);
                      if (next) draw(next);
                    } catch (err) {
                      if (isUnauthenticated(err)) reportUnauthenticated();
                      replace(problem, h("p", { class: "error", role: "alert" }, errorText(err)));
                      b.disabled = false;
                    }
                  },
                },
                action,
              ),
          );
        }),
      ),
      problem,
    );
  };
  draw(w);
  return section;
}

// confirmEl is a tag the assistant held back because its prompt held text
// from outside the operator: Run does it through ExecuteTag, Dismiss leaves
// it undone.
function confirmEl(t: ExecutedTag, at?: Place): HTMLElement {
  const problem = h("div", { class: "item-problem" });
  const li = h("li", { class: "tag-result confirm widget", role: "group", "aria-label": `Confirm ${tagName(t.tag)}` });
  const run = h(
    "button",
    {
      type: "button",
      onclick: async () => {
        run.disabled = dismiss.disabled = true;
        replace(problem);
        try {
          // Naming the reply records the approval there (a second one is refused).
          const reply = at?.reply();
          const res = await api.assistant.executeTag({ tag: t.tag, body: t.body, messageId: reply ?? "", tagIndex: at?.index ?? 0 });
          if (res.tag) {
            if (reply && at) approved.set(placeKey(reply, at.index), res.tag);
            replace(li, ...tagEl(res.tag).childNodes);
          }
          li.className = "tag-result ok";
          announce(...queueChanged(), "board");
        } catch (e) {
          if (isUnauthenticated(e)) reportUnauthenticated();
          replace(problem, h("p", { class: "error", role: "alert" }, errorText(e)));
          run.disabled = dismiss.disabled = false;
        }
      },
    },
    "Run it",
  );
  const dismiss = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: () => replace(li, h("span", { class: "chip inactive" }, tagName(t.tag)), h("span", { class: "muted" }, "Not run.")),
    },
    "Dismiss",
  );
  replace(
    li,
    h("p", null, h("strong", null, tagName(t.tag)), " waits for you: the assistant read text from outside your account before asking for it."),
    h("pre", { class: "tag-body" }, JSON.stringify(t.body ?? {}, null, 2)),
    h("div", { class: "item-actions" }, run, dismiss),
    problem,
  );
  return li;
}

// approved holds what the operator ran through a widget since the stored
// conversation was read, by reply and place: a redraw from that copy (older
// pages) shows the run, not the question again.
const approved = new Map<string, ExecutedTag>();
const placeKey = (reply: string, index: number) => `${reply}#${index}`;

function tagList(tags: ExecutedTag[], reply: () => string | undefined): HTMLElement {
  return h(
    "ul",
    { class: "tag-results", "aria-label": "What the assistant did" },
    tags.map((t, index) => {
      const id = reply();
      return tagEl((id && approved.get(placeKey(id, index))) || t, { reply, index });
    }),
  );
}

function tagsEl(tags: ExecutedTag[], reply: () => string | undefined): Child {
  return tags.length > 0 && tagList(tags, reply);
}

function messageEl(m: AssistantMessage): HTMLElement {
  return h(
    "article",
    { class: `msg role-${m.role}`, "data-id": m.id },
    h(
      "header",
      null,
      h("span", { class: "msg-author" }, m.role === "user" ? "You" : "Assistant"),
      h("span", { class: "msg-time" }, timeOf(m.createdAt)),
    ),
    h("p", { class: "msg-text" }, m.role === "user" ? m.content : shown(m.content)),
    tagsEl(m.tags, () => m.id),
  );
}

// documentsPanel lists the operator's documents; Open shows a text's
// content (cut by the server at 8,000 characters) or an image, and links
// the stored bytes.
function documentsPanel(): { el: HTMLElement; reload: () => void } {
  const region = new Region("Documents");
  const viewer = h("div", { class: "document-viewer", "aria-live": "polite" });
  const open = async (d: Document) => {
    const raw = `/api/documents/${encodeURIComponent(d.id)}/raw`;
    if (d.mimeType.startsWith("image/")) {
      replace(viewer, h("h3", null, d.title), h("img", { src: raw, alt: d.title }));
      return;
    }
    try {
      const res = await api.documents.getDocumentContent({ id: d.id });
      replace(
        viewer,
        h("h3", null, d.title),
        res.content ? h("pre", { class: "document-content" }, res.content) : h("p", { class: "muted" }, res.note ?? ""),
        res.truncated && h("p", { class: "muted" }, `Cut at 8,000 of ${res.totalLength} characters.`),
        h("a", { href: raw, target: "_blank", rel: "noopener" }, "Download the file"),
      );
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      replace(viewer, h("p", { class: "error", role: "alert" }, errorText(e)));
    }
  };
  const reload = () =>
    void region.load(async () => {
      const res = await api.documents.listDocuments({ limit: 20 });
      if (res.documents.length === 0) return emptyState("No documents yet.");
      return h(
        "ul",
        { class: "documents" },
        res.documents.map((d) =>
          h(
            "li",
            null,
            h("button", { type: "button", class: "linklike", onclick: () => void open(d), "aria-label": `Open ${d.title}` }, d.title),
            h("span", { class: "muted" }, ` ${d.mimeType}`),
          ),
        ),
      );
    });
  reload();
  return { el: h("section", { class: "assistant-documents", "aria-label": "Documents" }, h("h2", null, "Documents"), region.el, viewer), reload };
}

export function assistantView(): View {
  let messages: AssistantMessage[] = [];
  let cursor: string | undefined;
  let hasMore = false;
  let streaming: AbortController | undefined;
  const region = new Region("Conversation");
  const log = h("div", { class: "msg-log", role: "log", "aria-live": "polite", "aria-label": "Conversation", tabindex: 0 });
  const older = h("div", { class: "older" });
  const docs = documentsPanel();
  const learned = learningsPanel();

  const render = (stick: boolean) => {
    replace(
      older,
      hasMore &&
        h(
          "button",
          {
            type: "button",
            class: "secondary",
            onclick: async (e: Event) => {
              const b = e.currentTarget as HTMLButtonElement;
              b.disabled = true;
              try {
                const res = await api.assistant.listAssistantMessages({ limit: pageSize, cursor });
                const before = log.scrollHeight - log.scrollTop;
                messages = [...res.messages, ...messages];
                cursor = res.pagination?.cursor;
                hasMore = !!res.pagination?.hasMore && !!cursor;
                render(false);
                log.scrollTop = log.scrollHeight - before;
              } catch (err) {
                if (isUnauthenticated(err)) reportUnauthenticated();
                replace(older, h("p", { class: "error", role: "alert" }, errorText(err)));
              }
            },
          },
          "Load older messages",
        ),
    );
    replace(log, older, messages.length === 0 && !streaming ? emptyState("Ask the assistant anything: it can queue work, make cards and more.") : messages.map(messageEl));
    if (stick) log.scrollTop = log.scrollHeight;
  };

  const load = () =>
    region.load(async () => {
      const res = await api.assistant.listAssistantMessages({ limit: pageSize });
      messages = res.messages;
      cursor = res.pagination?.cursor;
      hasMore = !!res.pagination?.hasMore && !!cursor;
      render(true);
      return log;
    });

  const text = h("textarea", { name: "message", rows: 2, required: true, maxlength: 8000, placeholder: "Ask the assistant", "aria-label": "Message" });
  const status = h("div", { class: "form-status", role: "status" });
  const sendButton = h("button", { type: "submit" }, "Send");
  const stopButton = h("button", { type: "button", class: "secondary", hidden: true, onclick: () => streaming?.abort() }, "Stop");

  const ask = async (message: string) => {
    const mine = h("article", { class: "msg role-user" }, h("header", null, h("span", { class: "msg-author" }, "You")), h("p", { class: "msg-text" }, message));
    const replyText = h("p", { class: "msg-text streaming" });
    const reply = h("article", { class: "msg role-assistant", "aria-busy": "true" }, h("header", null, h("span", { class: "msg-author" }, "Assistant")), replyText);
    streaming = new AbortController();
    // What is on screen stays as the operator left it (a widget acted on
    // keeps its answer); only the empty state gives way.
    log.querySelector(".empty")?.remove();
    log.append(mine, reply);
    log.scrollTop = log.scrollHeight;
    sendButton.disabled = true;
    stopButton.hidden = false;
    replace(status);
    let full = "";
    sprite.think(true);
    try {
      for await (const res of api.assistantChat.sendChat({ message }, { signal: streaming.signal, timeoutMs: 0 })) {
        const stick = log.scrollHeight - log.scrollTop - log.clientHeight < 80;
        switch (res.event.case) {
          case "token":
            full += res.event.value.text;
            replyText.textContent = shown(full);
            break;
          case "tagsExecuted":
            if (res.event.value.tags.length > 0) reply.append(tagList(res.event.value.tags, () => reply.dataset.id));
            if (res.event.value.tags.some((t) => t.ok)) {
              announce(...queueChanged(), "board");
              if (res.event.value.tags.some((t) => t.ok && t.tag === "generate_image")) docs.reload();
            }
            break;
          case "done":
            reply.dataset.id = res.event.value.messageId;
            break;
        }
        if (stick) log.scrollTop = log.scrollHeight;
      }
      text.value = "";
    } catch (e) {
      if (isUnauthenticated(e)) reportUnauthenticated();
      const stopped = isAbort(e) || streaming.signal.aborted;
      reply.append(h("p", { class: stopped ? "muted" : "error", role: stopped ? undefined : "alert" }, stopped ? "Stopped: this reply was not kept." : errorText(e)));
      if (!full) text.value = message; // nothing came back: the words stay to send again
    } finally {
      sprite.think(false);
      reply.removeAttribute("aria-busy");
      replyText.classList.remove("streaming");
      streaming = undefined;
      sendButton.disabled = false;
      stopButton.hidden = true;
      text.focus();
    }
    {
      // The stored conversation (the operator's message is kept even when
      // the reply was not), for the next render: older pages, a return to
      // the view. The reply stays on screen as it streamed.
      try {
        const res = await api.assistant.listAssistantMessages({ limit: pageSize });
        messages = res.messages;
        cursor = res.pagination?.cursor;
        hasMore = !!res.pagination?.hasMore && !!cursor;
      } catch {
        // The streamed reply stays on screen.
      }
    }
  };

  const form = h(
    "form",
    {
      class: "composer",
      onsubmit: (e: Event) => {
        e.preventDefault();
        const message = text.value.trim();
        if (message && !streaming) void ask(message);
      },
    },
    text,
    microphone(text, status),
    sendButton,
    stopButton,
  );
  text.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });

  const el = h(
    "div",
    { class: "view assistant" },
    h("div", { class: "view-head" }, h("h1", null, "Assistant")),
    h("div", { class: "assistant-layout" }, h("div", { class: "assistant-main" }, region.el, form, status), h("div", { class: "assistant-side" }, learned.el, docs.el)),
  );
  void load();
  return { el, unmount: () => streaming?.abort() };
}

// microphone records a voice message while pressed once and stopped once,
// and puts what the server heard into the message box. It is disabled, with
// the reason beside it, when the instance has no transcription model
// (GET /api/chat/status) or the browser cannot record.
function microphone(text: HTMLTextAreaElement, status: HTMLElement): Child {
  let recorder: MediaRecorder | undefined;
  const reason = h("span", { class: "hint mic-reason", id: "mic-reason", hidden: true });
  const button = h("button", { type: "button", class: "secondary mic", "aria-pressed": "false", "aria-label": "Record a voice message" }, "Voice");
  const off = (why: string) => {
    button.disabled = true;
    button.title = why;
    button.setAttribute("aria-describedby", reason.id);
    reason.textContent = `Voice is off: ${why}`;
    reason.hidden = false;
  };
  if (typeof MediaRecorder === "undefined" || !navigator.mediaDevices?.getUserMedia) off("this browser cannot record audio here.");
  else {
    api.assistant.getAssistantStatus({}).then(
      (s) => {
        if (!s.voice) off(s.voiceUnavailable ?? "no transcription model is configured.");
      },
      () => {},
    );
  }
  button.addEventListener("click", async () => {
    if (recorder) {
      recorder.stop();
      return;
    }
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    } catch (e) {
      replace(status, h("p", { class: "error", role: "alert" }, `The microphone is not available: ${(e as Error).message}`));
      return;
    }
    const chunks: Blob[] = [];
    recorder = new MediaRecorder(stream);
    recorder.ondataavailable = (e) => chunks.push(e.data);
    recorder.onstop = async () => {
      stream.getTracks().forEach((t) => t.stop());
      recorder = undefined;
      button.setAttribute("aria-pressed", "false");
      button.setAttribute("aria-label", "Record a voice message");
      button.textContent = "Voice";
      replace(status, h("p", { class: "muted" }, "Transcribing…"));
      const form = new FormData();
      form.append("audio", new Blob(chunks, { type: chunks[0]?.type || "audio/webm" }), "voice.webm");
      try {
        const res = await fetch("/api/chat/voice", { method: "POST", body: form, credentials: "same-origin", signal: AbortSignal.timeout(120_000) });
        const body = (await res.json()) as { text?: string; error?: string };
        if (!res.ok) throw new Error(body.error ?? `voice: ${res.status}`);
        text.value = [text.value.trim(), body.text ?? ""].filter(Boolean).join(" ");
        replace(status);
        text.focus();
      } catch (e) {
        replace(status, h("p", { class: "error", role: "alert" }, (e as Error).message));
      }
    };
    recorder.start();
    button.setAttribute("aria-pressed", "true");
    button.setAttribute("aria-label", "Stop recording");
    button.textContent = "Stop recording";
    replace(status, h("p", { class: "muted" }, "Recording… press the microphone again to stop."));
  });
  return [button, reason];
}
