import type { FeedRunTrigger } from "../contracts/feed.ts";
import type { Queryable } from "../runtime/database.ts";

export interface FeedRun {
  id: string;
  trigger: string;
  status: string;
  since: number | null;
  queuedAt: string;
  /** Null while the run waits for a worker. */
  startedAt: string | null;
  finishedAt: string | null;
  counts: Record<string, unknown>;
  error: string | null;
}

export interface FeedReject {
  entity: string;
  index: number;
  key: string | null;
  reason: string;
}

const RUN_COLUMNS = `id, trigger, status, since::float8 as since, queued_at as "queuedAt",
  started_at as "startedAt", finished_at as "finishedAt", counts, error`;

/** The latest runs of a tenant's feed, newest first. */
export async function recentFeedRuns(sql: Queryable, tenantId: string, limit: number): Promise<FeedRun[]> {
  return sql<FeedRun[]>`
    select ${sql.unsafe(RUN_COLUMNS)} from feed_runs where tenant_id = ${tenantId}
    order by queued_at desc limit ${limit}`;
}

/**
 * Records a run of the tenant's feed as asked for, or, when one is already waiting for a worker,
 * returns that one, which covers this request too.
 */
export async function queueFeedRun(
  sql: Queryable,
  tenantId: string,
  trigger: FeedRunTrigger,
): Promise<FeedRun> {
  // A run queued by a transaction that committed after this statement began is not in its
  // snapshot: asked again, the next statement sees it.
  for (;;) {
    const [run] = await sql<FeedRun[]>`
      with queued as (
        insert into feed_runs (tenant_id, trigger, status) values (${tenantId}, ${trigger}, 'queued')
        on conflict (tenant_id) where status = 'queued' do nothing
        returning ${sql.unsafe(RUN_COLUMNS)})
      select * from queued
      union all
      select ${sql.unsafe(RUN_COLUMNS)} from feed_runs where tenant_id = ${tenantId} and status = 'queued'
      limit 1`;
    if (run) return run;
  }
}

/**
 * Moves a queued run to running, unless it is no longer queued or another run of its tenant is
 * running; returns its start (Unix seconds) when it moved.
 */
export async function startQueuedFeedRun(
  sql: Queryable,
  runId: string,
  since: number | null,
): Promise<{ id: string; startedAt: number } | undefined> {
  try {
    const [started] = await sql<{ id: string; startedAt: number }[]>`
      update feed_runs set status = 'running', started_at = now(), heartbeat_at = now(), since = ${since}
      where id = ${runId} and status = 'queued' and not exists (
        select 1 from feed_runs other where other.tenant_id = feed_runs.tenant_id and other.status = 'running')
      returning id, extract(epoch from started_at)::float8 as "startedAt"`;
    return started;
  } catch (error) {
    // The one-running index: another run of the tenant started at the same moment.
    if ((error as { code?: string }).code === "23505") return undefined;
    throw error;
  }
}

/** One run of a tenant's feed with the rows it rejected (as many as were recorded). */
export async function feedRun(
  sql: Queryable,
  tenantId: string,
  runId: string,
): Promise<(FeedRun & { rejects: FeedReject[] }) | undefined> {
  const [run] = await sql<FeedRun[]>`
    select ${sql.unsafe(RUN_COLUMNS)} from feed_runs where id = ${runId} and tenant_id = ${tenantId}`;
  if (!run) return undefined;
  const rejects = await sql<FeedReject[]>`
    select entity, row_index as index, key, reason from feed_rejects where run_id = ${runId}
    order by entity, row_index`;
  return { ...run, rejects };
}

/**
 * Starts a run of the tenant's feed, unless one is running already: returns its id and start
 * (Unix seconds), or undefined.
 */
export async function startFeedRun(
  sql: Queryable,
  run: { tenantId: string; trigger: string; since: number | null },
): Promise<{ id: string; startedAt: number } | undefined> {
  const [claimed] = await sql<{ id: string; startedAt: number }[]>`
    insert into feed_runs (tenant_id, trigger, status, since, started_at)
    values (${run.tenantId}, ${run.trigger}, 'running', ${run.since}, now())
    on conflict (tenant_id) where status = 'running' do nothing
    returning id, extract(epoch from started_at)::float8 as "startedAt"`;
  return claimed;
}

/** The tenant's running run: whether its heartbeat is older than `staleSeconds`, and its start. */
export async function runningFeedRun(
  sql: Queryable,
  tenantId: string,
  staleSeconds: number,
): Promise<{ id: string; stale: boolean; startedMs: number } | undefined> {
  const [running] = await sql<{ id: string; stale: boolean; startedMs: number }[]>`
    select id, heartbeat_at < now() - make_interval(secs => ${staleSeconds}) as stale,
           extract(epoch from started_at)::float8 * 1000 as "startedMs"
    from feed_runs where tenant_id = ${tenantId} and status = 'running'`;
  return running;
}

/** Ends a run that lost its worker (it stopped beating, or is stopping), if it is still running. */
export async function abandonFeedRun(
  sql: Queryable,
  runId: string,
  reason = "its worker stopped answering",
): Promise<void> {
  await sql`
    update feed_runs set status = 'abandoned', finished_at = now(), error = ${reason}
    where id = ${runId} and status = 'running'`;
}

/** How many runs of the tenant's feed failed since its last successful one. */
export async function failedFeedRunsInARow(sql: Queryable, tenantId: string): Promise<number> {
  const [row] = await sql<{ failed: number }[]>`
    select count(*)::int as failed from feed_runs
    where tenant_id = ${tenantId} and status = 'failed' and queued_at > coalesce(
      (select max(queued_at) from feed_runs where tenant_id = ${tenantId} and status = 'succeeded'),
      '-infinity')`;
  return row!.failed;
}

/** A run's status and whether its heartbeat is older than `staleSeconds`. */
export async function feedRunState(
  sql: Queryable,
  runId: string,
  staleSeconds: number,
): Promise<{ status: string; stale: boolean } | undefined> {
  const [run] = await sql<{ status: string; stale: boolean }[]>`
    select status, heartbeat_at < now() - make_interval(secs => ${staleSeconds}) as stale
    from feed_runs where id = ${runId}`;
  return run;
}

/** Records that a run's worker is alive. */
export async function beatFeedRun(sql: Queryable, runId: string): Promise<void> {
  await sql`update feed_runs set heartbeat_at = now() where id = ${runId}`;
}

/** Records rows a run rejected. */
export async function insertFeedRejects(sql: Queryable, runId: string, rejects: FeedReject[]): Promise<void> {
  await sql`insert into feed_rejects ${sql(
    rejects.map((reject) => ({
      run_id: runId,
      entity: reject.entity,
      row_index: reject.index,
      key: reject.key,
      reason: reject.reason,
    })),
  )}`;
}

/** Marks a run succeeded with its counts. */
export async function succeedFeedRun(sql: Queryable, runId: string, counts: object): Promise<void> {
  await sql`
    update feed_runs set status = 'succeeded', finished_at = now(), counts = ${sql.json(counts as never)}
    where id = ${runId}`;
}

/** Marks a run that has not ended failed, with its error (its first 2,000 characters) and the counts so far. */
export async function failFeedRun(
  sql: Queryable,
  runId: string,
  error: string,
  counts: object,
): Promise<void> {
  await sql`
    update feed_runs set status = 'failed', finished_at = now(), error = ${error.slice(0, 2000)},
           counts = ${sql.json(counts as never)}
    where id = ${runId} and status in ('queued', 'running')`;
}

/** Deletes the tenant's finished runs but the latest `kept`. */
export async function pruneFeedRuns(sql: Queryable, tenantId: string, kept: number): Promise<void> {
  await sql`
    delete from feed_runs where tenant_id = ${tenantId} and status not in ('queued', 'running') and id not in (
      select id from feed_runs where tenant_id = ${tenantId} order by queued_at desc limit ${kept})`;
}
