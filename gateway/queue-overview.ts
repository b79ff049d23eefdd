import type { Broker, QueueStats } from "../contracts/broker.ts";
import { ALL_JOBS } from "../contracts/jobs.ts";

/** Queues whose jobs a caller waits on: replayed, their answer would reach nobody. */
const REQUEST_REPLY_QUEUES = new Set(
  ALL_JOBS.filter((job) => job.result && !job.family).map((job) => job.queue),
);

export interface QueueOverview extends QueueStats {
  /** False for request/reply jobs, whose callers no longer wait for an answer. */
  replayable: boolean;
}

/** Every declared queue with its depth, consumers and dead letters, by name. */
export async function queueOverview(broker: Broker): Promise<QueueOverview[]> {
  const stats = await broker.queueStats();
  return stats
    .map((stat) => ({ ...stat, replayable: !REQUEST_REPLY_QUEUES.has(stat.queue) }))
    .sort((a, b) => a.queue.localeCompare(b.queue));
}
