import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { runPeriodically } from "../runtime/periodic-task.ts";
import { deletePushMessagesBefore, trimPushMessagesPerUser } from "./push-message-store.ts";

export interface PushRetentionOptions {
  /** Messages older than this are deleted. */
  maxAgeMs: number;
  /** Each user keeps at most their newest this many. */
  keepPerUser: number;
  intervalMs: number;
}

/** Rows one delete takes, so no statement holds locks or grows its WAL for long. */
const DELETE_BATCH = 1_000;
/** Users one trimming statement looks at. */
const TRIM_USERS = 500;
/** Statements one pass runs at most; what is left waits for the next pass. */
const MAX_STATEMENTS_PER_PASS = 100;
/**
 * How far before the previous pass's start a pass looks for users with new messages: the
 * gateway's clock and the database's (which times messages) may disagree by this much.
 */
const CLOCK_SKEW_MS = 5 * 60_000;
const FIRST_USER = "00000000-0000-0000-0000-000000000000";

/**
 * One pass: messages past their age deleted, oldest first, and each user whose messages arrived
 * since `changedAfter` (Unix ms) trimmed to their newest `keepPerUser`, in batches. Resolves with
 * how many went, and whether it got through every user (a pass cut short leaves the rest for the
 * next).
 */
export async function prunePushMessages(
  sql: Sql,
  options: PushRetentionOptions,
  changedAfter: number,
  now = Date.now(),
): Promise<{ deleted: number; complete: boolean }> {
  let deleted = 0;
  let statements = 0;
  for (; statements < MAX_STATEMENTS_PER_PASS; statements++) {
    const count = await deletePushMessagesBefore(sql, now - options.maxAgeMs, DELETE_BATCH);
    deleted += count;
    if (count < DELETE_BATCH) break;
  }
  let from = FIRST_USER;
  for (; statements < MAX_STATEMENTS_PER_PASS; statements++) {
    const trimmed = await trimPushMessagesPerUser(sql, {
      after: changedAfter,
      from,
      users: TRIM_USERS,
      keep: options.keepPerUser,
    });
    deleted += trimmed.deleted;
    if (trimmed.lastUser === null) return { deleted, complete: true };
    from = trimmed.lastUser;
  }
  return { deleted, complete: false };
}

/**
 * Runs the retention every `intervalMs` in this process; returns its stop. Every gateway runs it
 * (a deployment always has a gateway, not always a given worker); passes of two gateways at once
 * only delete the same rows, each batch once.
 */
export function startPushRetention(sql: Sql, options: PushRetentionOptions, log: Logger): () => void {
  // The first pass looks at every user; later ones at those with messages since the pass before.
  let changedAfter = 0;
  return runPeriodically(
    async () => {
      const started = Date.now();
      const { deleted, complete } = await prunePushMessages(sql, options, changedAfter, started);
      if (complete) changedAfter = started - CLOCK_SKEW_MS;
      if (deleted > 0) log.debug({ deleted }, "old push messages deleted");
    },
    options.intervalMs,
    log,
    "push retention",
  );
}
