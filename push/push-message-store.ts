import type { Queryable } from "../runtime/database.ts";

/** Spec 001's push event types: `task` (to-do) and `cc` (copy). */
export type PushType = "task" | "cc";

/** A push message as stored: for one user, in one data mode, at its time (Unix ms). */
export interface StoredPushMessage {
  tenantId: string;
  userId: string;
  test: boolean;
  type: PushType;
  eid: string;
  time: number;
}

export type NewPushMessage = Omit<StoredPushMessage, "time">;

/**
 * Stores the messages in one statement, each user's in the order given. Each user's clock row is
 * taken (and kept locked to the end of the caller's transaction) in user id order, so two batches
 * never deadlock: the user's `n` messages get the times `last + 1 …` from
 * `greatest(now, clock + 1)`, strictly after every message of theirs already committed.
 */
export async function insertPushMessages(
  tx: Queryable,
  messages: readonly NewPushMessage[],
): Promise<StoredPushMessage[]> {
  if (messages.length === 0) return [];
  return tx<StoredPushMessage[]>`
    with input as (
      select * from unnest(
        -- As text: the client sends an array of booleans as one boolean.
        ${messages.map((m) => m.tenantId)}::uuid[], ${messages.map((m) => String(m.test))}::text[]::boolean[],
        ${messages.map((m) => m.userId)}::uuid[], ${messages.map((m) => m.type)}::text[],
        ${messages.map((m) => m.eid)}::text[]
      ) with ordinality as m (tenant_id, test, user_id, type, eid, ord)
    ),
    -- The database's clock, one for every process.
    clock as (select floor(extract(epoch from clock_timestamp()) * 1000)::bigint as now_ms),
    counts as (select user_id, count(*)::bigint as n from input group by user_id),
    clocks as (
      insert into push_clocks as c (user_id, last_time)
      select counts.user_id, clock.now_ms + counts.n - 1 from counts, clock order by counts.user_id
      on conflict (user_id) do update
        set last_time = greatest(excluded.last_time, c.last_time + excluded.last_time - (select now_ms from clock) + 1)
      returning c.user_id, c.last_time
    )
    insert into push_messages (user_id, time, tenant_id, test, type, eid)
    select input.user_id,
           clocks.last_time - counts.n + row_number() over (partition by input.user_id order by input.ord),
           input.tenant_id, input.test, input.type, input.eid
    from input join clocks using (user_id) join counts using (user_id)
    returning tenant_id as "tenantId", user_id as "userId", test, type, eid, time::float8 as time`;
}

/** What a subscriber reads: one user's messages of one data mode and of some types. */
export interface PushQuery {
  userId: string;
  test: boolean;
  types: readonly PushType[];
  /** Exclusive, Unix ms. */
  since: number;
  limit: number;
}

/** The user's messages after `since`, oldest first, at most `limit`. */
export function pushMessagesAfter(sql: Queryable, query: PushQuery): Promise<StoredPushMessage[]> {
  return sql<StoredPushMessage[]>`
    select tenant_id as "tenantId", user_id as "userId", test, type, eid, time::float8 as time
    from push_messages
    where user_id = ${query.userId} and time > ${query.since}
      and test = ${query.test} and type = any(${query.types as string[]}::text[])
    order by time limit ${query.limit}`;
}

/**
 * Makes the user's clock row when they have none; when a first store of theirs is in flight, its
 * key check waits for that store to end.
 */
export async function ensurePushClock(tx: Queryable, userId: string): Promise<void> {
  await tx`insert into push_clocks (user_id, last_time) values (${userId}, 0) on conflict do nothing`;
}

/**
 * The user's clock (made by `ensurePushClock`) once every store of theirs in flight has committed:
 * the share lock waits for a store's row lock, and a store that starts later waits for this one.
 * With the database's now: every later message of the user gets a time above both `lastTime` and
 * `now - 1`.
 */
export async function settledPushClock(
  tx: Queryable,
  userId: string,
): Promise<{ lastTime: number; now: number }> {
  const [row] = await tx<{ lastTime: number; now: number }[]>`
    select last_time::float8 as "lastTime", floor(extract(epoch from clock_timestamp()) * 1000)::float8 as now
    from push_clocks where user_id = ${userId} for share`;
  return row ?? { lastTime: 0, now: Date.now() };
}

/** Deletes up to `limit` messages older than `before` (Unix ms), oldest first; resolves with how many. */
export async function deletePushMessagesBefore(
  sql: Queryable,
  before: number,
  limit: number,
): Promise<number> {
  const rows = await sql`
    delete from push_messages where (user_id, time) in (
      select user_id, time from push_messages where time < ${before} order by time limit ${limit}
    )`;
  return rows.count;
}

/**
 * For up to `users` users whose clock moved after `after` (Unix ms), from user id `from` on, deletes
 * their messages older than their newest `keep`. Resolves with the last user looked at (none: no
 * more) and how many messages went.
 */
export async function trimPushMessagesPerUser(
  sql: Queryable,
  options: { after: number; from: string; users: number; keep: number },
): Promise<{ lastUser: string | null; deleted: number }> {
  const [row] = await sql<{ lastUser: string | null; deleted: number }[]>`
    with chosen as (
      select user_id from push_clocks
      where last_time > ${options.after} and user_id > ${options.from}
      order by user_id limit ${options.users}
    ),
    cut as (
      select chosen.user_id, oldest_kept.time from chosen cross join lateral (
        select time from push_messages m where m.user_id = chosen.user_id
        order by time desc offset ${options.keep - 1} limit 1
      ) oldest_kept
    ),
    gone as (
      delete from push_messages m using cut where m.user_id = cut.user_id and m.time < cut.time
      returning 1
    )
    select (select user_id from chosen order by user_id desc limit 1) as "lastUser",
           (select count(*) from gone)::int as deleted`;
  return row!;
}
