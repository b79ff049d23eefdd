import { queueFeedRun } from "../../directory/feed-run-store.ts";
import { claimDueFeeds, enqueueFeedSync } from "../../directory/feed-store.ts";
import type { JobClient } from "../../runtime/broker/job-client.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";

/** How often feed workers look for feeds whose scheduled time has come. */
export const FEED_SCHEDULE_TICK_MS = 5_000;

/**
 * Queues the scheduled runs of every tenant's feed, and the retries of failed ones. Every
 * `feed.sync` worker runs it; claiming a due feed moves it to its next time, so each run is queued
 * once however many workers look. A run already waiting for a worker covers a due one.
 */
export function startFeedScheduler(
  deps: { sql: Sql; jobs: JobClient; log: Logger },
  tickMs = FEED_SCHEDULE_TICK_MS,
) {
  return runPeriodically(
    async () => {
      for (const { tenantId, trigger } of await claimDueFeeds(deps.sql)) {
        const run = await queueFeedRun(deps.sql, tenantId, trigger);
        await enqueueFeedSync(deps.jobs, { tenantId, trigger, runId: run.id });
      }
    },
    tickMs,
    deps.log,
    "feed schedule",
  );
}
