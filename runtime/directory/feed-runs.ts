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
