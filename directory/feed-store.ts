import type { BootstrapFeed, FeedRunTrigger } from "../contracts/feed.ts";
import { tenantIdOf } from "../identity/tenants.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import type { Queryable } from "../runtime/database.ts";

/** A tenant's feed as a worker pulls it. */
export interface FeedSettings {
  tenantId: string;
  url: string;
  addresses: string;
  authorizationEnv: string | null;
  intervalSeconds: number;
  timeoutSeconds: number;
  enabled: boolean;
  /** The `timestamp` the next run asks from: the start of the last successful run, Unix seconds. */
  syncedSince: number | null;
  /** When the schedule queues its next run; null for a feed run on the admin API only. */
  nextRunAt: string | null;
  /** When a failed run is tried again before then, if it is. */
  retryAt: string | null;
}

/** A feed's settings as columns; no name of them is also a column of `tenants`. */
const FIELDS = `base_url as url, address_pattern as addresses,
  authorization_env as "authorizationEnv", interval_seconds as "intervalSeconds",
  timeout_seconds as "timeoutSeconds", enabled, synced_since::float8 as "syncedSince",
  case when enabled and interval_seconds > 0 then next_run_at end as "nextRunAt",
  case when enabled and interval_seconds > 0 then retry_at end as "retryAt"`;
const SETTINGS = `tenant_id as "tenantId", ${FIELDS}`;

/**
 * Creates or updates a tenant's feed. A feed moved to another address starts again from a full
 * pull, since the new provider's timestamps say nothing about what the old one sent. A new
 * interval takes effect at once: the next run comes no later than one new interval from now.
 */
export async function upsertFeed(sql: Queryable, feed: BootstrapFeed): Promise<void> {
  const tenantId = await tenantIdOf(sql, feed.tenant, "feed");
  await sql`
    insert into tenant_feeds (tenant_id, base_url, address_pattern, authorization_env, interval_seconds,
                              timeout_seconds, enabled)
    values (${tenantId}, ${feed.url}, ${feed.addresses}, ${feed.authorizationEnv ?? null},
            ${feed.intervalSeconds}, ${feed.timeoutSeconds}, ${feed.enabled})
    on conflict (tenant_id) do update set
      base_url = excluded.base_url, address_pattern = excluded.address_pattern,
      authorization_env = excluded.authorization_env, interval_seconds = excluded.interval_seconds,
      timeout_seconds = excluded.timeout_seconds, enabled = excluded.enabled,
      synced_since = case
        when (tenant_feeds.base_url, tenant_feeds.address_pattern)
             = (excluded.base_url, excluded.address_pattern) then tenant_feeds.synced_since
      end,
      next_run_at = least(tenant_feeds.next_run_at, now() + make_interval(secs => excluded.interval_seconds)),
      updated_at = now()
    where (tenant_feeds.base_url, tenant_feeds.address_pattern, tenant_feeds.authorization_env,
           tenant_feeds.interval_seconds, tenant_feeds.timeout_seconds, tenant_feeds.enabled)
      is distinct from (excluded.base_url, excluded.address_pattern, excluded.authorization_env,
                        excluded.interval_seconds, excluded.timeout_seconds, excluded.enabled)`;
}

export async function feedSettings(sql: Queryable, tenantId: string): Promise<FeedSettings | undefined> {
  const [row] = await sql<FeedSettings[]>`
    select ${sql.unsafe(SETTINGS)} from tenant_feeds where tenant_id = ${tenantId}`;
  return row;
}

/**
 * The enabled, scheduled feeds whose time (or the time of a failed run's retry) has come, each
 * moved to its next time in the same statement, so of several schedulers exactly one queues each run.
 */
export async function claimDueFeeds(
  sql: Queryable,
): Promise<{ tenantId: string; trigger: FeedRunTrigger }[]> {
  return sql<{ tenantId: string; trigger: FeedRunTrigger }[]>`
    with due as (
      select tenant_id, next_run_at <= now() as scheduled from tenant_feeds
      where enabled and interval_seconds > 0 and (next_run_at <= now() or retry_at <= now())
      for update skip locked)
    update tenant_feeds feed set
      next_run_at = case when due.scheduled then now() + make_interval(secs => feed.interval_seconds)
                         else feed.next_run_at end,
      retry_at = null
    from due where feed.tenant_id = due.tenant_id
    returning feed.tenant_id as "tenantId", case when due.scheduled then 'schedule' else 'retry' end as trigger`;
}

/**
 * Tries a scheduled feed's failed run again after `delaySeconds`, when that comes before its next
 * scheduled run; null leaves it to the schedule. A feed run on the admin API only is not tried again.
 */
export async function scheduleFeedRetry(
  sql: Queryable,
  tenantId: string,
  delaySeconds: number | null,
): Promise<void> {
  await sql`
    update tenant_feeds set retry_at = case
      when enabled and interval_seconds > 0
           and next_run_at > now() + make_interval(secs => ${delaySeconds ?? 0})
      then now() + make_interval(secs => ${delaySeconds}) end
    where tenant_id = ${tenantId}`;
}

/** Asks a worker to start a queued run of a tenant's feed. */
export async function enqueueFeedSync(
  jobs: JobClient,
  run: { tenantId: string; trigger: FeedRunTrigger; runId: string },
): Promise<void> {
  const requestedAt = Date.now();
  await jobs.enqueue("feedSync", { ...run, requestedAt }, { messageId: `${run.tenantId}:${requestedAt}` });
}

/**
 * Where the tenant's next run starts from: the start of its last successful run, Unix seconds. A
 * retry still pending is no longer needed.
 */
export async function setFeedSyncedSince(sql: Queryable, tenantId: string, since: number): Promise<void> {
  await sql`update tenant_feeds set synced_since = ${since}, retry_at = null where tenant_id = ${tenantId}`;
}

/** A feed as the operators' list shows it: its tenant's domain, settings and latest run. */
export interface FeedListing extends Omit<FeedSettings, "tenantId"> {
  tenant: string;
  lastRun: {
    id: string;
    status: string;
    trigger: string;
    queuedAt: string;
    finishedAt: string | null;
  } | null;
}

/** The feeds by tenant domain after `afterDomain`, `limit` of them, each with its latest run. */
export async function feedPage(
  sql: Queryable,
  afterDomain: string | null,
  limit: number,
): Promise<FeedListing[]> {
  return sql<FeedListing[]>`
    select t.domain as tenant, ${sql.unsafe(FIELDS)},
           (select json_build_object('id', r.id, 'status', r.status, 'trigger', r.trigger,
                                     'queuedAt', r.queued_at, 'finishedAt', r.finished_at)
            from feed_runs r where r.tenant_id = f.tenant_id order by r.queued_at desc limit 1) as "lastRun"
    from tenant_feeds f join tenants t on t.id = f.tenant_id
    where ${afterDomain === null} or t.domain > ${afterDomain ?? ""}
    order by t.domain limit ${limit}`;
}
