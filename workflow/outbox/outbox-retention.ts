import type { Sql } from "../../runtime/database.ts";
import { deleteDeliveredEvents } from "./outbox-store.ts";

/** Rows one delete takes, and the most deletes of one pass: a pass never holds many locks or runs long. */
const RETENTION_BATCH = 1000;
const RETENTION_BATCHES = 20;

/**
 * Deletes the events every one of `subscribers` has accepted that are older than `retainSeconds`;
 * returns how many. Events without a position, or past any of these subscribers' cursors, stay;
 * with no subscriber, every event stays (docs/outbox-relay.md says why).
 */
export async function pruneDeliveredEvents(
  sql: Sql,
  subscribers: readonly string[],
  retainSeconds: number,
): Promise<number> {
  if (subscribers.length === 0) return 0;
  let pruned = 0;
  for (let batch = 0; batch < RETENTION_BATCHES; batch++) {
    const deleted = await deleteDeliveredEvents(sql, subscribers, retainSeconds, RETENTION_BATCH);
    pruned += deleted;
    if (deleted < RETENTION_BATCH) break;
  }
  return pruned;
}
