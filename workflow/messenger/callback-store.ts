import type { MessengerEventType } from "../../contracts/workflow-definition.ts";
import type { Queryable } from "../../runtime/database.ts";

/** The callbacks a process's version names, with what a receiver is told of its app and version. */
export interface CallbackTarget {
  processId: string;
  appId: string;
  appCode: string;
  versionNumber: number;
  events: { on: MessengerEventType; url: string }[];
}

/** The versions' callbacks of those of `processIds` whose version names any, in one read. */
export async function callbackTargetsOf(
  sql: Queryable,
  processIds: readonly string[],
): Promise<CallbackTarget[]> {
  if (processIds.length === 0) return [];
  return sql<CallbackTarget[]>`
    select p.id as "processId", p.app_id as "appId", a.code as "appCode", v.number as "versionNumber",
           v.callback_events as events
    from workflow_processes p
    join workflow_versions v on v.id = p.version_id
    join workflow_apps a on a.id = p.app_id
    where p.id = any(${processIds as string[]}::uuid[])
      and v.callback_events is not null`;
}

/** A delivery to make: an event's body for one URL. */
export interface NewDelivery {
  eventId: string;
  url: string;
  host: string;
  tenantId: string;
  test: boolean;
  appId: string;
  processId: string;
  taskId: string | null;
  type: MessengerEventType;
  body: string;
}

/** Adds the deliveries not made before: an event offered again makes none twice. */
export async function insertDeliveries(sql: Queryable, rows: readonly NewDelivery[]): Promise<void> {
  if (rows.length === 0) return;
  await sql`
    insert into workflow_callback_deliveries (event_id, url, host, tenant_id, test, app_id, process_id, task_id, type, body)
    select r."eventId", r.url, r.host, r."tenantId", r.test, r."appId", r."processId", r."taskId", r.type, r.body
    from jsonb_to_recordset(${sql.json(rows as never)}) as r(
      "eventId" bigint, url text, host text, "tenantId" uuid, test boolean, "appId" uuid, "processId" uuid,
      "taskId" uuid, type text, body text)
    order by r."eventId"
    on conflict (event_id, url) do nothing`;
}

/** A delivery a worker has claimed: its post is under way until `finishAttempt`. */
export interface ClaimedDelivery extends NewDelivery {
  id: string;
  /** This post's number since the delivery was made or last replayed, from 1. */
  attempts: number;
  replays: number;
}

/** How a claim is bounded: the posts the worker may start, and those it has under way per host. */
export interface ClaimLimits {
  limit: number;
  perHost: number;
  busy: ReadonlyMap<string, number>;
  /** How long the claim holds: past it, another worker may post the delivery again. */
  leaseMs: number;
}

/** How many due deliveries a claim looks at, so a large backlog costs one bounded scan. */
const CLAIM_SCAN = 1000;

/**
 * Claims due deliveries, at most `perHost` under way per host counting those already busy. A
 * delivery is due at its time when no earlier one of its process and URL is still pending, so each
 * receiver gets a process's events in order; dead ones do not hold the later back. Locked rows are
 * skipped, so workers claiming together take different ones; the claim counts as an attempt.
 */
export async function claimDueDeliveries(sql: Queryable, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  if (limits.limit <= 0) return [];
  const hosts = [...limits.busy.keys()];
  const counts = hosts.map((host) => limits.busy.get(host)!);
  // Hosts with every slot taken are left out of the scan, so their backlog cannot fill it.
  const full = hosts.filter((host) => limits.busy.get(host)! >= limits.perHost);
  return sql<ClaimedDelivery[]>`
    with due as (
      select d.id, d.host, d.next_attempt_at from workflow_callback_deliveries d
      where d.status = 'pending' and d.next_attempt_at <= now() and d.host <> all(${full}::text[])
        and not exists (
          select 1 from workflow_callback_deliveries e
          where e.status = 'pending' and e.process_id = d.process_id and e.url = d.url and e.event_id < d.event_id)
      order by d.next_attempt_at, d.id
      limit ${CLAIM_SCAN}
    ), ranked as (
      select due.id, due.next_attempt_at,
             row_number() over (partition by due.host order by due.next_attempt_at, due.id) + coalesce(b.n, 0) as place
      from due left join unnest(${hosts}::text[], ${counts}::int[]) as b(host, n) on b.host = due.host
    ), chosen as (
      select d.id from workflow_callback_deliveries d
      where d.id in (select id from ranked where place <= ${limits.perHost} order by next_attempt_at, id limit ${limits.limit})
        and d.status = 'pending' and d.next_attempt_at <= now()
      for update skip locked
    )
    update workflow_callback_deliveries d
    set attempts = d.attempts + 1, next_attempt_at = now() + ${limits.leaseMs} * interval '1 millisecond'
    from chosen where d.id = chosen.id
    returning d.id::text, d.event_id::text as "eventId", d.url, d.host, d.tenant_id as "tenantId", d.test,
              d.app_id as "appId", d.process_id as "processId", d.task_id as "taskId", d.type, d.body, d.attempts,
              d.replays`;
}

/** What one post came to: the delivery delivered, due again at `retryAt`, or dead. */
export interface AttemptOutcome {
  status: "delivered" | "pending" | "dead";
  retryAt?: Date;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

/**
 * Records a post and what it came to, unless the delivery's claim was lost meanwhile (it lapsed and
 * another worker posted it again, or an operator replayed it): then nothing, and false.
 */
export async function finishAttempt(
  sql: Queryable,
  delivery: Pick<ClaimedDelivery, "id" | "attempts" | "replays">,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const rows = await sql`
    with finished as (
      update workflow_callback_deliveries
      set status = ${outcome.status}, next_attempt_at = coalesce(${outcome.retryAt ?? null}::timestamptz, next_attempt_at),
          last_error = ${outcome.error}, ended_at = case when ${outcome.status} = 'pending' then null else now() end
      where id = ${delivery.id} and status = 'pending' and attempts = ${delivery.attempts} and replays = ${delivery.replays}
      returning id)
    insert into workflow_callback_attempts (delivery_id, replay, attempt, started_at, duration_ms, http_status, error)
    select id, ${delivery.replays}, ${delivery.attempts}, ${outcome.startedAt}, ${outcome.durationMs},
           ${outcome.httpStatus}, ${outcome.error}
    from finished
    returning delivery_id`;
  return rows.length > 0;
}

/** A delivery as the admin API shows it. */
export interface DeliveryRow {
  id: string;
  eventId: string;
  url: string;
  tenantDomain: string;
  appCode: string;
  processId: string;
  taskId: string | null;
  type: string;
  status: "pending" | "delivered" | "dead";
  attempts: number;
  replays: number;
  nextAttemptAt: Date;
  lastError: string | null;
  createdAt: Date;
  endedAt: Date | null;
}

const DELIVERY_COLUMNS = `d.id::text, d.event_id::text as "eventId", d.url, t.domain as "tenantDomain",
  a.code as "appCode", d.process_id as "processId", d.task_id as "taskId", d.type, d.status, d.attempts,
  d.replays, d.next_attempt_at as "nextAttemptAt", d.last_error as "lastError", d.created_at as "createdAt",
  d.ended_at as "endedAt"`;

/** Dead deliveries, newest first, those of one tenant or one app when given, after the id `before`. */
export async function deadDeliveryPage(
  sql: Queryable,
  filter: { tenantId: string | null; appId: string | null },
  before: string | null,
  limit: number,
): Promise<DeliveryRow[]> {
  return sql<DeliveryRow[]>`
    select ${sql.unsafe(DELIVERY_COLUMNS)}
    from workflow_callback_deliveries d
    join workflow_apps a on a.id = d.app_id
    join tenants t on t.id = d.tenant_id
    where d.status = 'dead'
      and (${filter.tenantId}::uuid is null or d.tenant_id = ${filter.tenantId})
      and (${filter.appId}::uuid is null or d.app_id = ${filter.appId})
      and (${before}::bigint is null or d.id < ${before}::bigint)
    order by d.id desc
    limit ${limit}`;
}

export async function deliveryById(sql: Queryable, id: string): Promise<DeliveryRow | undefined> {
  const [row] = await sql<DeliveryRow[]>`
    select ${sql.unsafe(DELIVERY_COLUMNS)}
    from workflow_callback_deliveries d
    join workflow_apps a on a.id = d.app_id
    join tenants t on t.id = d.tenant_id
    where d.id = ${id}::bigint`;
  return row;
}

/** One post of a delivery. */
export interface AttemptRow {
  replay: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  httpStatus: number | null;
  error: string | null;
}

/** A delivery's latest posts, newest first. */
export async function attemptsOf(sql: Queryable, deliveryId: string, limit: number): Promise<AttemptRow[]> {
  return sql<AttemptRow[]>`
    select replay, attempt, started_at as "startedAt", duration_ms as "durationMs", http_status as "httpStatus", error
    from workflow_callback_attempts where delivery_id = ${deliveryId}::bigint
    order by id desc limit ${limit}`;
}

/**
 * Makes dead deliveries due again, with a new count of attempts: the one `id`, or at most `limit`
 * of an app's, oldest first. Answers the ids replayed.
 */
export async function replayDead(
  sql: Queryable,
  which: { id: string } | { appId: string; limit: number },
): Promise<string[]> {
  const chosen =
    "id" in which
      ? sql`select id from workflow_callback_deliveries where id = ${which.id}::bigint and status = 'dead'`
      : sql`select id from workflow_callback_deliveries where app_id = ${which.appId} and status = 'dead'
            order by id limit ${which.limit}`;
  const rows = await sql<{ id: string }[]>`
    update workflow_callback_deliveries d
    set status = 'pending', attempts = 0, replays = d.replays + 1, next_attempt_at = now(), ended_at = null
    from (${chosen} for update) as chosen
    where d.id = chosen.id
    returning d.id::text`;
  return rows.map((row) => row.id);
}
