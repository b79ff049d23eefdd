import type { Queryable } from "../database.ts";

export interface FeedRun {
  id: string;
  trigger: string;
  status: string;
  since: number | null;
  startedAt: string;
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

const RUN_COLUMNS = `id, trigger, status, since::float8 as since, started_at as "startedAt",
  finished_at as "finishedAt", counts, error`;

/** The latest runs of a tenant's feed, newest first. */
export async function recentFeedRuns(sql: Queryable, tenantId: string, limit: number): Promise<FeedRun[]> {
  return sql<FeedRun[]>`
    select ${sql.unsafe(RUN_COLUMNS)} from feed_runs where tenant_id = ${tenantId}
    order by started_at desc limit ${limit}`;
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
    insert into feed_runs (tenant_id, trigger, status, since)
    values (${run.tenantId}, ${run.trigger}, 'running', ${run.since})
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

/** Ends a run whose worker stopped beating, if it is still running. */
export async function abandonFeedRun(sql: Queryable, runId: string): Promise<void> {
  await sql`
    update feed_runs set status = 'abandoned', finished_at = now(), error = 'its worker stopped answering'
    where id = ${runId} and status = 'running'`;
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

/** Marks a run failed with its error (its first 2,000 characters) and the counts so far. */
export async function failFeedRun(
  sql: Queryable,
  runId: string,
  error: string,
  counts: object,
): Promise<void> {
  await sql`
    update feed_runs set status = 'failed', finished_at = now(), error = ${error.slice(0, 2000)},
           counts = ${sql.json(counts as never)}
    where id = ${runId}`;
}

/** Deletes the tenant's finished runs but the latest `kept`. */
export async function pruneFeedRuns(sql: Queryable, tenantId: string, kept: number): Promise<void> {
  await sql`
    delete from feed_runs where tenant_id = ${tenantId} and status <> 'running' and id not in (
      select id from feed_runs where tenant_id = ${tenantId} order by started_at desc limit ${kept})`;
}
