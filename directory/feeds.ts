import { tenantByDomain } from "../identity/tenants.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import type { Queryable } from "../runtime/database.ts";
import { type FeedReject, type FeedRun, feedRun, queueFeedRun, recentFeedRuns } from "./feed-run-store.ts";
import {
  claimDueFeeds,
  enqueueFeedSync,
  type FeedListing,
  type FeedSettings,
  feedPage,
  feedSettings,
} from "./feed-store.ts";

export type { FeedListing, FeedRun, FeedSettings };

/**
 * A tenant's enterprise feed as operators see it, by the tenant's domain: undefined when no tenant
 * has that domain, `feed` undefined when the tenant has no feed.
 */
export async function tenantFeed(
  sql: Queryable,
  domain: string,
): Promise<{ tenantId: string; feed: FeedSettings | undefined } | undefined> {
  const tenant = await tenantByDomain(sql, domain);
  return tenant ? { tenantId: tenant.id, feed: await feedSettings(sql, tenant.id) } : undefined;
}

/** A feed as operators read it: its settings and its latest `runs` runs, newest first. */
export async function feedWithRuns(
  sql: Queryable,
  feed: FeedSettings,
  runs: number,
): Promise<Omit<FeedSettings, "tenantId"> & { runs: FeedRun[] }> {
  const { tenantId, ...settings } = feed;
  return { ...settings, runs: await recentFeedRuns(sql, tenantId, runs) };
}

/** One run of a tenant's feed with the rows it rejected, as many as were recorded. */
export async function feedRunOf(
  sql: Queryable,
  feed: FeedSettings,
  runId: string,
): Promise<(FeedRun & { rejects: FeedReject[] }) | undefined> {
  return feedRun(sql, feed.tenantId, runId);
}

/** The feeds by tenant domain after `after`, at most `limit`, each with its latest run. */
export async function feedList(
  sql: Queryable,
  page: { after: string | null; limit: number },
): Promise<FeedListing[]> {
  return feedPage(sql, page.after, page.limit);
}

/**
 * Queues a run of an enabled feed now, and asks a worker for it; undefined for a disabled feed.
 * While a run waits for a worker, asking again answers with that run and sends its job again: a
 * job lost before a worker took it does not leave the run waiting forever, and a second job for a
 * started run does nothing.
 */
export async function runFeedNow(
  deps: { sql: Queryable; jobs: JobClient },
  feed: FeedSettings,
): Promise<FeedRun | undefined> {
  if (!feed.enabled) return undefined;
  const run = await queueFeedRun(deps.sql, feed.tenantId, "manual");
  await enqueueFeedSync(deps.jobs, { tenantId: feed.tenantId, trigger: "manual", runId: run.id });
  return run;
}

/**
 * Queues the scheduled runs of every tenant's feed whose time has come, and the retries of failed
 * ones. Claiming a due feed moves it to its next time, so each run is queued once however many
 * workers look; a run already waiting for a worker covers a due one.
 */
export async function queueDueFeedRuns(deps: { sql: Queryable; jobs: JobClient }): Promise<void> {
  for (const { tenantId, trigger } of await claimDueFeeds(deps.sql)) {
    const run = await queueFeedRun(deps.sql, tenantId, trigger);
    await enqueueFeedSync(deps.jobs, { tenantId, trigger, runId: run.id });
  }
}
