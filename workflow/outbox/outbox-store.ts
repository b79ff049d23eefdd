import { type Queryable, sendCommitBehind } from "../../runtime/database.ts";
import type { OutboxEvent } from "./outbox-subscriber.ts";

/**
 * Key of the transaction-scoped advisory lock a sequencing step holds (see outbox-sequencer.ts).
 * Other keys of the platform: 7_301_001 (migrations), and those of runtime/ and identity/.
 */
const SEQUENCER_LOCK = 7_301_028;

/** Takes the sequencer's lock for the rest of the transaction; false when another holds it. */
export async function trySequencerLock(tx: Queryable): Promise<boolean> {
  const [row] = await tx<
    { locked: boolean }[]
  >`select pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) as locked`;
  return row!.locked;
}

/** The oldest events without a position, by id: those committed before this statement began. */
export async function unsequencedEventIds(tx: Queryable, limit: number): Promise<string[]> {
  const rows = await tx<{ id: string }[]>`
    select e.id::text as id from workflow_events e where e.position is null order by e.id limit ${limit}`;
  return rows.map((row) => row.id);
}

/**
 * Gives `ids` the next positions, in the order given: one call of the sequence reserves them all.
 * Positions a rolled-back transaction reserved are never used: readers see gaps, never a reorder.
 */
export async function assignPositions(tx: Queryable, ids: readonly string[]): Promise<void> {
  await tx`
    with reserved as (
      select setval('workflow_event_positions', nextval('workflow_event_positions') + ${ids.length - 1}) as last)
    update workflow_events e set position = reserved.last - ${ids.length} + v.ord
    from unnest(${ids as string[]}::bigint[]) with ordinality as v(id, ord), reserved
    where e.id = v.id`;
}

/**
 * Makes the cursors of these subscribers that have none, at the end of the outbox: a subscriber
 * added to a running platform takes the events written from then on, not its history (months of
 * to-dos announced at once, callbacks of long-ended processes).
 */
export async function addCursors(sql: Queryable, subscribers: readonly string[]): Promise<void> {
  await sql`
    insert into workflow_outbox_cursors (subscriber, position, starts_after_id)
    select s, e.head, e.last_id
    from unnest(${subscribers as string[]}::text[]) as s,
         (select coalesce(max(position), 0) as head, coalesce(max(id), 0) as last_id from workflow_events) e
    on conflict do nothing`;
}

/** What an idle relay checks: whether events wait for a position, the last position, and the cursors. */
export interface OutboxHead {
  unsequenced: boolean;
  /** The highest position given, 0 before any. */
  head: number;
  /** Each named subscriber's position; one without a cursor yet is absent. */
  cursors: Map<string, number>;
}

export async function readOutboxHead(sql: Queryable, subscribers: readonly string[]): Promise<OutboxHead> {
  const rows = await sql<
    { unsequenced: boolean; head: number; subscriber: string | null; position: number }[]
  >`
    select h.unsequenced, h.head, c.subscriber, c.position::float8 as position
    from (select exists (select from workflow_events where position is null) as unsequenced,
                 coalesce((select max(position) from workflow_events), 0)::float8 as head) h
    left join workflow_outbox_cursors c on c.subscriber = any(${subscribers as string[]}::text[])`;
  const first = rows[0]!;
  const cursors = new Map<string, number>();
  for (const row of rows) if (row.subscriber !== null) cursors.set(row.subscriber, row.position);
  return { unsequenced: first.unsequenced, head: first.head, cursors };
}

/** A subscriber's cursor: the last position it moved past. */
export interface CursorAt {
  subscriber: string;
  position: number;
}

/**
 * Locks these subscribers' cursors for the transaction and returns their positions; a cursor
 * another transaction holds (another worker delivering to that subscriber) is absent, as is one
 * not made yet.
 */
export async function lockCursors(
  tx: Queryable,
  subscribers: readonly string[],
): Promise<Map<string, { position: number; startsAfterId: number }>> {
  const rows = await tx<{ subscriber: string; position: number; startsAfterId: number }[]>`
    select subscriber, position::float8 as position, starts_after_id::float8 as "startsAfterId"
    from workflow_outbox_cursors
    where subscriber = any(${subscribers as string[]}::text[]) for update skip locked`;
  return new Map(rows.map(({ subscriber, ...cursor }) => [subscriber, cursor]));
}

/** The events after `position`, in position order. */
export async function eventsAfter(tx: Queryable, position: number, limit: number): Promise<OutboxEvent[]> {
  return tx<OutboxEvent[]>`
    select id::text as id, position::float8 as position, tenant_id as "tenantId", test,
           process_id as "processId", type, task_id as "taskId", users, payload, created_at as "createdAt"
    from workflow_events e where e.position > ${position} order by e.position limit ${limit}`;
}

/** Marks where a subscriber's work begins in the relay's transaction; sent at once, awaited by the caller. */
export function savepoint(tx: Queryable): Promise<unknown> {
  return tx`savepoint outbox_subscriber`.execute();
}

/** Undoes what the transaction did since `savepoint`, keeping what came before. */
export async function rollbackToSavepoint(tx: Queryable): Promise<void> {
  await tx`rollback to savepoint outbox_subscriber`;
}

/**
 * Moves each cursor to its new position, in one statement; the last of its transaction, whose
 * commit is sent right behind it.
 */
export async function moveCursors(tx: Queryable, moves: readonly CursorAt[]): Promise<void> {
  if (moves.length === 0) return;
  const moved = tx`
    update workflow_outbox_cursors c set position = m.position, updated_at = now()
    from unnest(${moves.map((move) => move.subscriber)}::text[], ${moves.map((move) => move.position)}::bigint[])
      as m(subscriber, position)
    where c.subscriber = m.subscriber`.execute();
  sendCommitBehind(tx);
  await moved;
}

/**
 * Deletes up to `limit` events every named subscriber has accepted that are older than
 * `olderThanSeconds`, taken from the lowest positions; returns how many. While a named subscriber
 * has no cursor yet, none. Only the lowest `limit` positions are looked at, so a call reads a
 * bounded part of the index however many younger events there are.
 */
export async function deleteDeliveredEvents(
  sql: Queryable,
  subscribers: readonly string[],
  olderThanSeconds: number,
  limit: number,
): Promise<number> {
  const deleted = await sql`
    delete from workflow_events where id in (
      select id from (
        select id, created_at from workflow_events
        where position <= (select min(position) from workflow_outbox_cursors
                           where subscriber = any(${subscribers as string[]}::text[])
                           having count(*) = ${subscribers.length})
        order by position limit ${limit}) oldest
      where created_at < now() - make_interval(secs => ${olderThanSeconds}))`;
  return deleted.count;
}

/** How far one subscriber is behind. */
export interface SubscriberLag {
  subscriber: string;
  position: number;
  /** Events not yet past its cursor: after its position, and those still without one. */
  eventsBehind: number;
  /** Age of its oldest such event; 0 when none. */
  secondsBehind: number;
  updatedAt: Date;
}

/** Every cursor's lag, by subscriber, and the events waiting for a position; one statement. */
export async function readOutboxLag(
  sql: Queryable,
): Promise<{ unsequenced: number; subscribers: SubscriberLag[] }> {
  const rows = await sql<
    (Omit<SubscriberLag, "subscriber"> & { subscriber: string | null; unsequenced: number })[]
  >`
    with pending as (
      select count(*)::float8 as n, min(created_at) as oldest from workflow_events where position is null)
    select p.n as unsequenced, c.subscriber, c.position::float8 as position, c.updated_at as "updatedAt",
           p.n + (select count(*) from workflow_events e where e.position > c.position)::float8 as "eventsBehind",
           coalesce(extract(epoch from now() - least(p.oldest,
             (select e.created_at from workflow_events e where e.position > c.position order by e.position limit 1))),
             0)::float8 as "secondsBehind"
    from pending p left join workflow_outbox_cursors c on true
    order by c.subscriber`;
  const subscribers = rows.flatMap(({ unsequenced: _, subscriber, ...lag }) =>
    subscriber === null ? [] : [{ subscriber, ...lag }],
  );
  return { unsequenced: rows[0]!.unsequenced, subscribers };
}
