import { queueDueFeedRuns } from "../../directory/feeds.ts";
import type { JobClient } from "../../runtime/broker/job-client.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";

/** How often feed workers look for feeds whose scheduled time has come. */
export const FEED_SCHEDULE_TICK_MS = 5_000;

/** Queues the scheduled runs of every tenant's feed, and the retries of failed ones; every `feed.sync` worker runs it. */
export function startFeedScheduler(
  deps: { sql: Sql; jobs: JobClient; log: Logger },
  tickMs = FEED_SCHEDULE_TICK_MS,
) {
  return runPeriodically(() => queueDueFeedRuns(deps), tickMs, deps.log, "feed schedule");
}
