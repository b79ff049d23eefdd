import type { BootstrapFeed, FeedSyncJob } from "../../contracts/feed.ts";
import type { JobClient } from "../broker/job-client.ts";
import { ConfigError } from "../config.ts";
import type { Queryable } from "../database.ts";
import { tenantByDomain } from "./tenants.ts";

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
}

const SETTINGS = `tenant_id as "tenantId", base_url as url, address_pattern as addresses,
  authorization_env as "authorizationEnv", interval_seconds as "intervalSeconds",
  timeout_seconds as "timeoutSeconds", enabled, synced_since::float8 as "syncedSince"`;

/**
 * Creates or updates a tenant's feed. A feed moved to another address starts again from a full
 * pull, since the new provider's timestamps say nothing about what the old one sent.
 */
export async function upsertFeed(sql: Queryable, feed: BootstrapFeed): Promise<void> {
  const tenant = await tenantByDomain(sql, feed.tenant);
  if (!tenant) throw new ConfigError(`feed: no tenant with domain ${feed.tenant}`);
  await sql`
    insert into tenant_feeds (tenant_id, base_url, address_pattern, authorization_env, interval_seconds,
                              timeout_seconds, enabled)
    values (${tenant.id}, ${feed.url}, ${feed.addresses}, ${feed.authorizationEnv ?? null},
            ${feed.intervalSeconds}, ${feed.timeoutSeconds}, ${feed.enabled})
    on conflict (tenant_id) do update set
      base_url = excluded.base_url, address_pattern = excluded.address_pattern,
      authorization_env = excluded.authorization_env, interval_seconds = excluded.interval_seconds,
      timeout_seconds = excluded.timeout_seconds, enabled = excluded.enabled,
      synced_since = case
        when (tenant_feeds.base_url, tenant_feeds.address_pattern)
             = (excluded.base_url, excluded.address_pattern) then tenant_feeds.synced_since
      end,
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
 * The enabled, scheduled feeds whose time has come, each moved to its next time in the same
 * statement, so of several schedulers exactly one starts each run.
 */
export async function claimDueFeeds(sql: Queryable): Promise<string[]> {
  const rows = await sql<{ tenantId: string }[]>`
    update tenant_feeds set next_run_at = now() + make_interval(secs => interval_seconds)
    where tenant_id in (
      select tenant_id from tenant_feeds
      where enabled and interval_seconds > 0 and next_run_at <= now()
      for update skip locked)
    returning tenant_id as "tenantId"`;
  return rows.map((row) => row.tenantId);
}

/** Queues a run of a tenant's feed; a run already in progress when it is picked up covers it. */
export async function enqueueFeedSync(
  jobs: JobClient,
  tenantId: string,
  trigger: FeedSyncJob["trigger"],
): Promise<void> {
  const requestedAt = Date.now();
  await jobs.enqueue(
    "feedSync",
    { tenantId, trigger, requestedAt },
    { messageId: `${tenantId}:${requestedAt}` },
  );
}

/** Where the tenant's next run starts from: the start of its last successful run, Unix seconds. */
export async function setFeedSyncedSince(sql: Queryable, tenantId: string, since: number): Promise<void> {
  await sql`update tenant_feeds set synced_since = ${since} where tenant_id = ${tenantId}`;
}
