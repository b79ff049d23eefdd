import { deliveryJobs } from "../contracts/jobs.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import { retryWhileUnavailable, type Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import {
  type ClaimedTask,
  claimDeliveryTasks,
  countOpenTasks,
  failExhaustedTasks,
  type NotificationOfTasks,
  readNotificationsOfTasks,
  recordTaskOutcomes,
  releaseTaskLeases,
  reopenFailedTasks,
  type TaskOutcome,
  takeLostTasks,
} from "./delivery-task-store.ts";

export type { ClaimedTask, NotificationOfTasks, TaskOutcome } from "./delivery-task-store.ts";

/**
 * The delivery tasks' life in the workers: a job's tasks leased so only one worker sends each, the
 * outcomes of its attempts recorded, the leases of tasks it never started given back, and the
 * tasks whose job was lost found again. Delivery is at least once, sending is once.
 */

/** A delivery job's tasks as leased for an attempt. */
export interface LeasedTasks {
  /** The open tasks of the job no other worker held, now leased to this one. */
  tasks: ClaimedTask[];
  /** How many of the job's other tasks are still open: another worker holds them. */
  held: number;
  /** The notifications behind the leased tasks, by id, each read once. */
  notifications: ReadonlyMap<string, NotificationOfTasks>;
}

/**
 * Leases the job's open tasks no other worker holds, for `leaseSeconds`, with their notifications;
 * a task already `sent` (or failed for good) is left alone. A job an operator replays
 * (`reopenFailed`) opens its failed tasks again first.
 */
export async function leaseDeliveryTasks(
  sql: Sql,
  taskIds: string[],
  options: { leaseSeconds: number; reopenFailed: boolean },
): Promise<LeasedTasks> {
  if (options.reopenFailed) await reopenFailedTasks(sql, taskIds);
  const tasks = await claimDeliveryTasks(sql, taskIds, options.leaseSeconds);
  const held = tasks.length < taskIds.length ? await stillOpen(sql, taskIds, tasks) : 0;
  const notifications = tasks.length === 0 ? new Map() : await notificationsOf(sql, tasks);
  return { tasks, held, notifications };
}

/** How many of the job's tasks not claimed are still open (leased by another worker). */
async function stillOpen(sql: Sql, taskIds: string[], claimed: ClaimedTask[]): Promise<number> {
  const claimedIds = new Set(claimed.map((task) => task.id));
  const others = taskIds.filter((id) => !claimedIds.has(id));
  return await countOpenTasks(sql, others);
}

/** The notifications behind the tasks, each read once however many of its tasks the job carries. */
async function notificationsOf(sql: Sql, tasks: ClaimedTask[]): Promise<Map<string, NotificationOfTasks>> {
  const ids = [...new Set(tasks.map((task) => task.notificationId))];
  const rows = await readNotificationsOfTasks(sql, ids);
  return new Map(rows.map((row) => [row.id, row]));
}

/**
 * Records the outcomes of attempted tasks in one statement, ending their leases. The messages are
 * out: their outcomes must be written, or a retry would send them again, so a database unavailable
 * is waited out for up to `retryForMs`.
 */
export function recordDeliveryOutcomes(sql: Sql, outcomes: TaskOutcome[], retryForMs: number): Promise<void> {
  return retryWhileUnavailable(() => recordTaskOutcomes(sql, outcomes), retryForMs);
}

/** Gives back the leases of the tasks the job never attempted, so its retry (or the sweeper) finds them. */
export async function releaseUnattempted(
  sql: Sql,
  tasks: readonly ClaimedTask[],
  attempted: readonly TaskOutcome[],
): Promise<void> {
  const done = new Set(attempted.map((outcome) => outcome.id));
  const ids = tasks.filter((task) => !done.has(task.id)).map((task) => task.id);
  await releaseTaskLeases(sql, ids);
}

const SWEEP_BATCH = 500;

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
 * One sweep of the tasks that lost their job: tasks left `pending` (a gateway that died between
 * its commit and its publish, a broker that refused the publish) and tasks left `retrying` past
 * any retry they were waiting for. A stale task with attempts left has its job published again;
 * one without is marked `fail`. Several sweepers may run; each takes different rows, and a
 * duplicate job is harmless (the worker leases the task and skips what is already sent).
 */
export async function sweepLostTasks(
  deps: { sql: Sql; jobs: JobClient; log: Logger },
  policy: SweepPolicy,
): Promise<void> {
  const { sql, jobs, log } = deps;
  const failed = await failExhaustedTasks(sql, policy.maxAttempts, policy.staleRetryingSeconds, SWEEP_BATCH);
  const due = await takeLostTasks(sql, policy.pendingAgeSeconds, policy.staleRetryingSeconds, SWEEP_BATCH);
  for (const job of deliveryJobs(due)) {
    await jobs.enqueue(job.name, job.payload, { messageId: job.messageId, member: job.member });
  }
  if (due.length > 0) log.warn({ republished: due.length }, "republished jobs of tasks that lost theirs");
  if (failed.length > 0) log.warn({ failed: failed.length }, "stale tasks without attempts left marked fail");
}
