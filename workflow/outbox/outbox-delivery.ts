import { type Sql, transaction } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { eventsAfter, lockCursor, moveCursor } from "./outbox-store.ts";
import type { AfterCommit, OutboxSubscriber } from "./outbox-subscriber.ts";

/**
 * Offers the subscriber the next batch after its cursor and moves the cursor past it, in one
 * transaction; returns how many events it accepted (0: none waiting, or another worker holds its
 * cursor). What `accept` throws rolls the batch back and is thrown here; the cursor stays.
 *
 * The cursor's row lock (`for update skip locked`) is what keeps two workers from offering the
 * same events to one subscriber: a session advisory lock would be held by one pooled connection
 * of postgres.js while the work ran on others, and the transaction is needed anyway, so the
 * subscriber's own writes commit with the cursor's move, or neither does.
 */
export async function deliverBatch(
  sql: Sql,
  subscriber: OutboxSubscriber,
  limit: number,
  log: Logger,
): Promise<number> {
  let afterCommit: AfterCommit | undefined;
  const accepted = await transaction(sql, async (tx) => {
    const cursor = await lockCursor(tx, subscriber.name);
    if (cursor === undefined) return 0;
    const read = await eventsAfter(tx, cursor.position, limit);
    if (read.length === 0) return 0;
    // Written before the subscriber's cursor was made: passed over, and the cursor moves past them.
    const events = read.filter((event) => Number(event.id) > cursor.startsAfterId);
    if (events.length > 0) afterCommit = await subscriber.accept(events, tx);
    await moveCursor(tx, subscriber.name, read.at(-1)!.position);
    return read.length;
  });
  if (afterCommit) {
    // The batch is committed and will not be offered again: what runs after commit must be
    // something whose loss is tolerable (a wake-up of readers who also poll), see docs/outbox-relay.md.
    await afterCommit().catch((error: unknown) =>
      log.warn(
        { subscriber: subscriber.name, err: (error as Error).message },
        "outbox after-commit step failed",
      ),
    );
  }
  return accepted;
}
