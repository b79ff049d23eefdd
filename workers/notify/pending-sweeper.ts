import type { Broker } from "../../contracts/broker.ts";
import { deliveryJobs } from "../../contracts/jobs.ts";
import { failExhaustedTasks, takeLostTasks } from "../../notifications/delivery-task-store.ts";
import type { JobClient } from "../../runtime/broker/job-client.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";

const BATCH = 500;

export interface SweepPolicy {
  /** A `pending` task untouched for this long has lost its job: its publish never happened. */
  pendingAgeSeconds: number;
  /** Attempts a task gets in all (the retry delays plus one). */
  maxAttempts: number;
  /**
   * A `retrying` task untouched for this long has lost its job (a job that timed out on its last
   * attempt, or was dead-lettered otherwise): its longest retry delay and send timeout are past.
   */
  staleRetryingSeconds: number;
}

/**
 * Publishes again the jobs of delivery tasks that lost theirs: tasks left `pending` (a gateway
 * that died between its commit and its publish, a broker that refused the publish) and tasks left
 * `retrying` past any retry they were waiting for. A stale task with attempts left is published
 * again; one without is marked `fail`. Several sweepers may run; each takes different rows, and a
 * duplicate job is harmless (the worker leases the task and skips what is already sent).
 */
export function startPendingSweeper(
  deps: { sql: Sql; broker: Broker; jobs: JobClient; log: Logger },
  policy: SweepPolicy,
  intervalMs: number,
): () => void {
  const sweep = async () => {
    if (!deps.broker.isConnected()) return;
    const failed = await failExhaustedTasks(deps.sql, policy.maxAttempts, policy.staleRetryingSeconds, BATCH);
    const due = await takeLostTasks(deps.sql, policy.pendingAgeSeconds, policy.staleRetryingSeconds, BATCH);
    for (const job of deliveryJobs(due)) {
      await deps.jobs.enqueue(job.name, job.payload, { messageId: job.messageId, member: job.member });
    }
    if (due.length > 0)
      deps.log.warn({ republished: due.length }, "republished jobs of tasks that lost theirs");
    if (failed.length > 0)
      deps.log.warn({ failed: failed.length }, "stale tasks without attempts left marked fail");
  };
  return runPeriodically(sweep, intervalMs, deps.log, "pending sweep");
}
