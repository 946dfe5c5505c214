import { setImmediate as nextTurn } from "node:timers/promises";
import type { SecurityEventInput, SecurityEvents, SecurityEventType } from "../events.js";
import type { BackgroundTasks } from "../support/background.js";

/**
 * Emits a request route's event once the answer has gone (on the event loop's next turn, as a
 * background task `auth.idle()` waits for): a known address's event writes an activity entry, an
 * unknown one's none, so the answer must not wait for that write (docs/security.md, A2).
 */
export function emitAfterAnswer(
  deps: { events: SecurityEvents; background: BackgroundTasks },
  type: SecurityEventType,
  details: SecurityEventInput,
): void {
  deps.background.run("event.failed", async () => {
    await nextTurn();
    deps.events.emit(type, details);
  });
}
