import type { Broker } from "../../contracts/broker.ts";
import { deliveryJobs } from "../../contracts/jobs.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";

/** Tasks still pending after this long are assumed to have lost their job. */
const PENDING_AGE_SECONDS = 30;
const BATCH = 500;

/**
 * Publishes again the jobs of delivery tasks left `pending`: a gateway that died between its
 * commit and its publish, or a broker that refused the publish, loses no delivery. Several
 * sweepers may run; each takes different rows, and a duplicate job is harmless (the worker
 * leases the task and skips what is already sent).
 */
export function startPendingSweeper(
  deps: { sql: Sql; broker: Broker; log: Logger },
  intervalMs: number,
): () => void {
  const sweep = async () => {
    if (!deps.broker.isConnected()) return;
    const due = await deps.sql<{ id: string; channel: string }[]>`
      update delivery_tasks set updated_at = now()
      where id in (
        select id from delivery_tasks
        where sending_status = 'pending' and updated_at < now() - make_interval(secs => ${PENDING_AGE_SECONDS})
        order by updated_at limit ${BATCH} for update skip locked)
      returning id, channel`;
    for (const job of deliveryJobs(due)) {
      await deps.broker.publish(job.queue, job.message, { messageId: job.messageId });
    }
    if (due.length > 0) deps.log.warn({ republished: due.length }, "republished jobs of tasks left pending");
  };
  return runPeriodically(sweep, intervalMs, deps.log, "pending sweep");
}
