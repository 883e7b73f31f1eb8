// The live event stream: EventService.StreamEvents over Connect-Web, kept open
// while the operator is logged in and resumed with last_event_id after a drop,
// so no message is lost across reconnects.
import { api, isAbort, isUnauthenticated } from "./api";
import type { ChatMessage, QueueItemBrief, RecordChange, WakeMetadata } from "./gen/switchboard/v1/chat_pb";
import { StreamEvent } from "./gen/vocabulary_terms";

// RecordEvent is one of the dashboard's kinds (card_changed, contact_changed,
// the connection and relay kinds, store_changed, economy_changed): which,
// and the record that changed. Dispatched as "record".
export type RecordEvent = { type: string; record?: RecordChange };

// The types every stream carries; any other the server sends is one of the
// dashboard's kinds.
const agentTypes = new Set<string>([
  StreamEvent.Connected,
  StreamEvent.Heartbeat,
  StreamEvent.NewMessage,
  StreamEvent.Wake,
  StreamEvent.QueueUpdated,
  StreamEvent.Error,
]);

export type LiveState = "connecting" | "live" | "down";

export class Live extends EventTarget {
  state: LiveState = "down";
  private lastId = "";
  private abort?: AbortController;
  private wakeUp?: () => void;

  start(): void {
    if (this.abort) return;
    this.abort = new AbortController();
    void this.loop(this.abort.signal);
  }

  stop(): void {
    this.abort?.abort();
    this.abort = undefined;
    this.lastId = "";
    this.setState("down");
  }

  // retryNow skips the wait before the next reconnect attempt.
  retryNow(): void {
    this.wakeUp?.();
  }

  private setState(s: LiveState): void {
    if (this.state === s) return;
    this.state = s;
    this.dispatchEvent(new Event("state"));
  }

  private async loop(signal: AbortSignal): Promise<void> {
    let delay = 1000;
    while (!signal.aborted) {
      this.setState("connecting");
      try {
        const stream = api.events.streamEvents({ lastEventId: this.lastId }, { signal, timeoutMs: 0 });
        for await (const res of stream) {
          if (res.id) this.lastId = res.id;
          const ev = res.event;
          if (!ev) continue;
          switch (ev.type) {
            case StreamEvent.Connected:
              delay = 1000;
              this.setState("live");
              break;
            case StreamEvent.NewMessage:
              if (ev.message) this.dispatchEvent(new CustomEvent<ChatMessage>("message", { detail: ev.message }));
              break;
            case StreamEvent.Wake:
              this.dispatchEvent(new CustomEvent<WakeMetadata | undefined>("wake", { detail: ev.metadata }));
              break;
            case StreamEvent.QueueUpdated:
              this.dispatchEvent(new CustomEvent<QueueItemBrief | undefined>("queue", { detail: ev.item }));
              break;
            default:
              if (!agentTypes.has(ev.type)) {
                this.dispatchEvent(new CustomEvent<RecordEvent>("record", { detail: { type: ev.type, record: ev.record } }));
              }
          }
        }
      } catch (e) {
        if (signal.aborted || isAbort(e)) return;
        if (isUnauthenticated(e)) {
          this.setState("down");
          this.dispatchEvent(new Event("unauthenticated"));
          return;
        }
      }
      if (signal.aborted) return;
      this.setState("down");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        this.wakeUp = () => {
          clearTimeout(t);
          resolve();
        };
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
      this.wakeUp = undefined;
      delay = Math.min(delay * 2, 30_000);
    }
  }
}

export const live = new Live();

// metadataOf reads a chat message's metadata: its comms type
// (agent_execution_started, task_completed, contract_move, …), the queue item
// and the engagement contract it is about; "" for what it does not name.
export function metadataOf(m: ChatMessage): { type: string; queueItemId: string; contractId: string } {
  const none = { type: "", queueItemId: "", contractId: "" };
  if (!m.metadata) return none;
  try {
    const v = JSON.parse(m.metadata) as unknown;
    if (v && typeof v === "object") {
      const o = v as Record<string, unknown>;
      const text = (k: string) => (typeof o[k] === "string" ? (o[k] as string) : "");
      return { type: text("type"), queueItemId: text("queueItemId"), contractId: text("contractId") };
    }
  } catch {
    // Metadata stored as given over REST may not be JSON.
  }
  return none;
}

// The agent-activity filter (RULINGS "Shared chat and events").
export const agentActivityTypes = new Set(["agent_execution_started", "task_completed"]);
