import type { Queryable } from "../../runtime/database.ts";
import { outboxLag } from "../../workflow/outbox/outbox-lag.ts";
import { waitFor } from "./wait.ts";

/** Waits until every event of the outbox has a position and every subscriber's cursor is past it. */
export function waitUntilRelayed(sql: Queryable, timeoutMs: number, what: string): Promise<void> {
  return waitFor(
    async () => {
      const lag = await outboxLag(sql);
      return (
        lag.unsequenced === 0 &&
        lag.subscribers.length > 0 &&
        lag.subscribers.every((subscriber) => subscriber.eventsBehind === 0)
      );
    },
    timeoutMs,
    what,
  );
}
