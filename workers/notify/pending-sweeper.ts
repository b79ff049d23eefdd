import type { Broker } from "../../contracts/broker.ts";
import { type SweepPolicy, sweepLostTasks } from "../../notifications/delivery-service.ts";
import type { JobClient } from "../../runtime/broker/job-client.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";

/**
 * Publishes again, every `intervalMs`, the jobs of delivery tasks that lost theirs (see
 * `sweepLostTasks`); a sweep waits while the broker is not connected.
 */
export function startPendingSweeper(
  deps: { sql: Sql; broker: Broker; jobs: JobClient; log: Logger },
  policy: SweepPolicy,
  intervalMs: number,
): () => void {
  const sweep = async () => {
    if (!deps.broker.isConnected()) return;
    await sweepLostTasks(deps, policy);
  };
  return runPeriodically(sweep, intervalMs, deps.log, "pending sweep");
}
