// The spec's dashboard refresh events (document 1, "Other event channels"):
// browser-only DOM events on the window. The page dispatches them after every
// change it makes, so embedded widgets and the other views refresh, and its
// views listen to them.
import { QueueStatus } from "./gen/vocabulary_terms";

// The spec's five, and those of the views the live stream's dashboard kinds
// refresh (issue 31): contacts, network, store.
export type Topic = "now" | "board" | "queue" | "comms" | "activity" | "contacts" | "network" | "store";

export function eventName(topic: Topic): string {
  return `service:${topic}-refresh`;
}

// announce dispatches service:<topic>-refresh for each topic, once each.
export function announce(...topics: Topic[]): void {
  for (const t of new Set(topics)) window.dispatchEvent(new CustomEvent(eventName(t)));
}

// onRefresh calls fn on service:<topic>-refresh and returns the unsubscribe.
export function onRefresh(topic: Topic, fn: () => void): () => void {
  const name = eventName(topic);
  window.addEventListener(name, fn);
  return () => window.removeEventListener(name, fn);
}

export const navigateEvent = "service:navigate-tab";

// The topics a queue change touches: the queue and Now, the board (the
// queue-to-board bridge moves checklist items) and the activity feed; a move to
// in_progress or done_today also writes a comms message.
export function queueChanged(status?: string): Topic[] {
  const topics: Topic[] = ["queue", "now", "board", "activity"];
  if (status === QueueStatus.InProgress || status === QueueStatus.DoneToday) topics.push("comms");
  return topics;
}
