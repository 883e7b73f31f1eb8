// signal records one thing the operator did as a behavior signal
// (BehaviorSignalService), the data the learnings' analysis reads. It never
// waits and never fails the action it records: a refused or lost signal is
// dropped.
import type { JsonObject } from "@bufbuild/protobuf";
import { api } from "./api";

export function signal(action: string, context: JsonObject = {}): void {
  try {
    api.signals.recordBehaviorSignal({ action, context }).catch(() => undefined);
  } catch {
    // Even a synchronous failure (no transport) is not the UI's.
  }
}
