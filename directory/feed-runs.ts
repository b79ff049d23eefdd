import { FEED_ENTITIES, type FeedEntity, type FeedSyncJob } from "../contracts/feed.ts";
import { type Sql, transaction } from "../runtime/database.ts";
import { analyzeDirectory, mergeFeed } from "./feed-merge-store.ts";
import {
  abandonFeedRun,
  beatFeedRun,
  failedFeedRunsInARow,
  failFeedRun,
  feedRunState,
  insertFeedRejects,
  pruneFeedRuns,
  runningFeedRun,
  startFeedRun,
  startQueuedFeedRun,
  succeedFeedRun,
} from "./feed-run-store.ts";
import { clearStage, FeedStage } from "./feed-stage-store.ts";
import { type FeedSettings, feedSettings, scheduleFeedRetry, setFeedSyncedSince } from "./feed-store.ts";

export type { FeedSettings, FeedStage };

/**
 * A feed run's life in the directory: claimed (one per tenant at a time), its rows staged, then
 * applied together or failed, and what it staged dropped. The worker pulls the provider's answers
 * between these steps.
 */
export interface FeedRunDeps {
  sql: Sql;
  /** A run whose heartbeat is older than this lost its worker and may be taken over. */
  staleAfterSeconds: number;
}

/** What a job's worker knows of its delivery; `signal` is read only when a wait needs it. */
export interface FeedJobDelivery {
  readonly redelivered: boolean;
  readonly signal: AbortSignal;
}

export interface EntityCounts {
  received: number;
  rejected: number;
  applied: number;
  disabled: number;
  /** The provider sent every timestamp null: a full pull, in which absent entries are disabled. */
  full: boolean;
}

export interface Reject {
  entity: FeedEntity;
  index: number;
  key: string | null;
  reason: string;
}

/** Rejected rows recorded one by one per entity and run; the count covers them all. */
export const MAX_RECORDED_REJECTS = 1000;
/** A run that changed this many rows refreshes the planner's statistics of the directory. */
const ANALYZE_AFTER_ROWS = 10_000;
/** Runs kept per tenant for the admin API. */
const RUNS_KEPT = 200;
/**
 * After the first and the second failure in a row, a scheduled feed is tried again this much later
 * (when that comes before its next scheduled run); after more, at its next scheduled run.
 */
const RETRY_DELAYS_SECONDS = [30, 300];

/** How often a run refreshes its heartbeat: several times within the stale limit. */
export function heartbeatMs(staleAfterSeconds: number): number {
  return Math.min(5_000, (staleAfterSeconds * 1000) / 4);
}

/**
 * The tenant's feed when it is enabled. A disabled (or removed) one ends the run its job queued,
 * which never started.
 */
export async function enabledFeed(sql: Sql, job: FeedSyncJob): Promise<FeedSettings | undefined> {
  const settings = await feedSettings(sql, job.tenantId);
  if (settings?.enabled) return settings;
  if (job.runId) await failFeedRun(sql, job.runId, "the feed was disabled before the run started", {});
  return undefined;
}

export type Claim = { runId: string; startedAt: number } | { covered: true } | { busy: true };

/** Ends a run whose worker stopped beating, and drops the rows it had staged. */
async function abandonDeadRun(sql: Sql, runId: string): Promise<void> {
  await abandonFeedRun(sql, runId);
  await clearStage(sql, runId);
}

/**
 * Starts the queued run a job names. A run already started by another job for it, or ended,
 * covers the job; a run abandoned by its worker is followed by a new one (undefined).
 */
async function claimQueuedRun(
  deps: FeedRunDeps,
  job: FeedSyncJob & { runId: string },
  since: number | null,
  delivery: FeedJobDelivery,
): Promise<Claim | undefined> {
  const { sql, staleAfterSeconds } = deps;
  for (let attempt = 0; attempt < 10; attempt++) {
    const run = await feedRunState(sql, job.runId, staleAfterSeconds);
    if (!run || run.status === "abandoned") return undefined;
    if (run.status === "succeeded" || run.status === "failed") return { covered: true };
    if (run.status === "running") {
      if (run.stale) {
        await abandonDeadRun(sql, job.runId);
        return undefined;
      }
      // Handed out again, the job may be the one whose worker died holding the run: it waits for
      // the run to end or go stale rather than trusting it.
      if (!delivery.redelivered) return { covered: true };
      await runEnd(deps, job.runId, delivery.signal);
      continue;
    }
    const running = await runningFeedRun(sql, job.tenantId, staleAfterSeconds);
    if (running?.stale) {
      await abandonDeadRun(sql, running.id);
      continue;
    }
    if (running) return { busy: true };
    const started = await startQueuedFeedRun(sql, job.runId, since);
    if (started) return { runId: started.id, startedAt: Math.floor(started.startedAt) };
  }
  return { busy: true };
}

/**
 * One run per tenant at a time: a unique index admits a single `running` row. A run that stopped
 * beating is abandoned and replaced; a live one started after this job was asked for covers it.
 * A job handed out again may be the one whose worker died holding the live run: it waits for that
 * run to end or go stale rather than trusting it, so a killed worker's run is finished by another.
 */
export async function claimFeedRun(
  deps: FeedRunDeps,
  job: FeedSyncJob,
  since: number | null,
  delivery: FeedJobDelivery,
): Promise<Claim> {
  if (job.runId) {
    const claimed = await claimQueuedRun(deps, { ...job, runId: job.runId }, since, delivery);
    if (claimed) return claimed;
  }
  const { sql, staleAfterSeconds } = deps;
  for (let attempt = 0; attempt < 10; attempt++) {
    const claimed = await startFeedRun(sql, { tenantId: job.tenantId, trigger: job.trigger, since });
    if (claimed) return { runId: claimed.id, startedAt: Math.floor(claimed.startedAt) };
    const running = await runningFeedRun(sql, job.tenantId, staleAfterSeconds);
    if (!running) continue;
    if (running.stale) {
      await abandonDeadRun(sql, running.id);
      continue;
    }
    const covers = running.startedMs >= job.requestedAt;
    if (!delivery.redelivered) return covers ? { covered: true } : { busy: true };
    const ended = await runEnd(deps, running.id, delivery.signal);
    if (ended === "succeeded" && covers) return { covered: true };
  }
  return { busy: true };
}

/** Waits until a run is no longer running (its final status) or has gone stale. */
async function runEnd(deps: FeedRunDeps, runId: string, signal: AbortSignal): Promise<string> {
  const pause = heartbeatMs(deps.staleAfterSeconds);
  for (;;) {
    const run = await feedRunState(deps.sql, runId, deps.staleAfterSeconds);
    if (!run) return "gone";
    if (run.status !== "running") return run.status;
    if (run.stale) return "stale";
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}

/** Records that a run's worker is alive. */
export async function beatRun(sql: Sql, runId: string): Promise<void> {
  await beatFeedRun(sql, runId);
}

/** Where a run's rows of one entity are staged, in batches, before the run is applied. */
export function feedStage(sql: Sql, runId: string, entity: FeedEntity): FeedStage {
  return new FeedStage(sql, runId, entity);
}

/**
 * Applies what a run staged to the directory in one transaction, with its rejects, where the next
 * run starts from and its counts (`counts` is completed with what was applied); a large change
 * refreshes the planner's statistics at once, or searches plan for the directory as it was.
 */
export async function applyFeedRun(
  sql: Sql,
  run: {
    tenantId: string;
    runId: string;
    startedAt: number;
    counts: Record<FeedEntity, EntityCounts>;
    rejects: Reject[];
  },
): Promise<void> {
  const { tenantId, runId, counts, rejects } = run;
  const full = new Set(FEED_ENTITIES.filter((entity) => counts[entity].full));
  await transaction(sql, async (tx) => {
    const merged = await mergeFeed(tx, { tenantId, runId, full, maxRejects: MAX_RECORDED_REJECTS });
    for (const entity of FEED_ENTITIES) {
      counts[entity].applied = merged[entity].applied;
      counts[entity].disabled = merged[entity].disabled;
      counts[entity].rejected += merged[entity].unresolved;
    }
    if (rejects.length > 0) {
      await insertFeedRejects(tx, runId, rejects);
    }
    await setFeedSyncedSince(tx, tenantId, run.startedAt);
    await succeedFeedRun(tx, runId, counts);
  });
  const applied = FEED_ENTITIES.reduce(
    (sum, entity) => sum + counts[entity].applied + counts[entity].disabled,
    0,
  );
  if (applied >= ANALYZE_AFTER_ROWS) await analyzeDirectory(sql);
}

/** Ends a run whose worker is stopping: the job goes back to the queue and another worker runs it anew. */
export async function abandonStoppedRun(sql: Sql, runId: string): Promise<void> {
  await abandonFeedRun(sql, runId, "its worker stopped before the run ended");
}

/** Marks a run that failed for a fault of the platform failed, with its error and the counts so far. */
export async function failRun(sql: Sql, runId: string, error: string, counts: object): Promise<void> {
  await failFeedRun(sql, runId, error, counts);
}

/**
 * A provider's failure is the run's outcome, recorded with its retry in one step, so whoever sees
 * the failed run sees when it is tried again; returns how many runs failed in a row.
 */
export async function failRunForProvider(
  sql: Sql,
  run: { tenantId: string; runId: string; error: string; counts: object },
): Promise<number> {
  return transaction(sql, async (tx) => {
    await failFeedRun(tx, run.runId, run.error, run.counts);
    const inARow = await failedFeedRunsInARow(tx, run.tenantId);
    await scheduleFeedRetry(tx, run.tenantId, RETRY_DELAYS_SECONDS[inARow - 1] ?? null);
    return inARow;
  });
}

/** Drops what a run staged, and the tenant's oldest runs past those kept. */
export async function endFeedRun(sql: Sql, run: { tenantId: string; runId: string }): Promise<void> {
  await clearStage(sql, run.runId);
  await pruneFeedRuns(sql, run.tenantId, RUNS_KEPT);
}
