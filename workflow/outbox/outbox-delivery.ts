import { type Queryable, type Sql, transaction } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import {
  type CursorAt,
  eventsAfter,
  lockCursors,
  moveCursors,
  rollbackToSavepoint,
  savepoint,
} from "./outbox-store.ts";
import type { AfterCommit, OutboxEvent, OutboxSubscriber } from "./outbox-subscriber.ts";

/** What one delivery did for each subscriber it was given. */
export interface DeliveryOutcome {
  /** Events each subscriber moved past (accepted, or passed over as older than its cursor). */
  accepted: Map<string, number>;
  /** The subscribers whose `accept` threw: their batch is undone and their cursor stays. */
  failed: Map<string, Error>;
}

/**
 * Offers each subscriber the next batch after its cursor and moves the cursors past them, in one
 * transaction for all: one commit, and one read of the outbox for the subscribers at the same
 * position (all of them, unless one fell behind). Subscribers whose cursor another worker holds are
 * left out; a subscriber whose `accept` throws is rolled back to a savepoint taken before it, so
 * the others' work commits without it.
 *
 * The cursors' row locks (`for update skip locked`) keep two workers from offering the same events
 * to one subscriber: a session advisory lock would be held by one pooled connection of postgres.js
 * while the work ran on others, and the transaction is needed anyway, so a subscriber's own writes
 * commit with its cursor's move, or neither does.
 */
export async function deliverBatches(
  sql: Sql,
  subscribers: readonly OutboxSubscriber[],
  limit: number,
  log: Logger,
): Promise<DeliveryOutcome> {
  const outcome: DeliveryOutcome = { accepted: new Map(), failed: new Map() };
  const afterCommits: { subscriber: string; step: AfterCommit }[] = [];
  if (subscribers.length === 0) return outcome;
  await transaction(sql, async (tx) => {
    const cursors = await lockCursors(
      tx,
      subscribers.map((subscriber) => subscriber.name),
    );
    const batches = await batchesAt(tx, cursors, limit);
    const moves: CursorAt[] = [];
    for (const subscriber of subscribers) {
      const cursor = cursors.get(subscriber.name);
      const read = cursor && batches.get(cursor.position);
      if (!cursor || !read || read.length === 0) continue;
      // Written before the subscriber's cursor was made: passed over, and the cursor moves past them.
      const events = read.filter((event) => Number(event.id) > cursor.startsAfterId);
      if (events.length > 0) {
        const accepted = await acceptWithin(tx, subscriber, events);
        if (accepted instanceof Error) {
          outcome.failed.set(subscriber.name, accepted);
          continue;
        }
        if (accepted) afterCommits.push({ subscriber: subscriber.name, step: accepted });
      }
      moves.push({ subscriber: subscriber.name, position: read.at(-1)!.position });
      outcome.accepted.set(subscriber.name, read.length);
    }
    await moveCursors(tx, moves);
  });
  for (const { subscriber, step } of afterCommits) {
    // The batch is committed and will not be offered again: what runs after commit must be
    // something whose loss is tolerable (a wake-up of readers who also poll), see docs/outbox-relay.md.
    await step().catch((error: unknown) =>
      log.warn({ subscriber, err: (error as Error).message }, "outbox after-commit step failed"),
    );
  }
  return outcome;
}

/** One read per distinct cursor position, sent together on the transaction's connection. */
async function batchesAt(
  tx: Queryable,
  cursors: ReadonlyMap<string, { position: number }>,
  limit: number,
): Promise<Map<number, OutboxEvent[]>> {
  const positions = [...new Set([...cursors.values()].map((cursor) => cursor.position))];
  const reads = await Promise.all(positions.map((position) => eventsAfter(tx, position, limit)));
  return new Map(positions.map((position, i) => [position, reads[i]!]));
}

/**
 * The subscriber's `accept` behind a savepoint: what it returns, or what it threw once the
 * transaction is back where it was before it.
 */
async function acceptWithin(
  tx: Queryable,
  subscriber: OutboxSubscriber,
  events: readonly OutboxEvent[],
): Promise<AfterCommit | undefined | Error> {
  // Sent ahead of the subscriber's first statement, on the same connection: no round trip of its own.
  const saved = savepoint(tx);
  try {
    const [, step] = await Promise.all([saved, subscriber.accept(events, tx)]);
    return step;
  } catch (error) {
    await rollbackToSavepoint(tx);
    return error instanceof Error ? error : new Error(String(error));
  }
}
