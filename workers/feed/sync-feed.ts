import {
  ENTITY_PLACEHOLDER,
  FEED_ENTITIES,
  type FeedEntity,
  type FeedSyncJob,
} from "../../contracts/feed.ts";
import { analyzeDirectory, mergeFeed } from "../../directory/feed-merge-store.ts";
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
} from "../../directory/feed-run-store.ts";
import { clearStage, FeedStage } from "../../directory/feed-stage-store.ts";
import {
  type FeedSettings,
  feedSettings,
  scheduleFeedRetry,
  setFeedSyncedSince,
} from "../../directory/feed-store.ts";
import { type Sql, transaction } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";
import { FeedFormatError, feedEntities } from "./feed-response-stream.ts";
import { readFeedRow } from "./feed-rows.ts";

export interface FeedDeps {
  sql: Sql;
  log: Logger;
  /** Where `authorizationEnv` names are looked up: the worker's environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** A run whose heartbeat is older than this lost its worker and may be taken over. */
  staleAfterSeconds: number;
}

/** How often a run refreshes its heartbeat: several times within the stale limit. */
function heartbeatMs(staleAfterSeconds: number): number {
  return Math.min(5_000, (staleAfterSeconds * 1000) / 4);
}
/** Rejected rows recorded one by one per entity and run; the count covers them all. */
const MAX_RECORDED_REJECTS = 1000;
/** A run that changed this many rows refreshes the planner's statistics of the directory. */
const ANALYZE_AFTER_ROWS = 10_000;
/** Runs kept per tenant for the admin API. */
const RUNS_KEPT = 200;
/**
 * After the first and the second failure in a row, a scheduled feed is tried again this much later
 * (when that comes before its next scheduled run); after more, at its next scheduled run.
 */
const RETRY_DELAYS_SECONDS = [30, 300];

export interface EntityCounts {
  received: number;
  rejected: number;
  applied: number;
  disabled: number;
  /** The provider sent every timestamp null: a full pull, in which absent entries are disabled. */
  full: boolean;
}

interface Reject {
  entity: FeedEntity;
  index: number;
  key: string | null;
  reason: string;
}

/** A failure of the provider (HTTP, JSON, time): the run changes nothing and is tried again later. */
class FeedUnavailable extends Error {}

export function addressOf(
  settings: Pick<FeedSettings, "url" | "addresses">,
  entity: FeedEntity,
  since: number | null,
) {
  const base = settings.url.endsWith("/") ? settings.url : `${settings.url}/`;
  const url = new URL(settings.addresses.replace(ENTITY_PLACEHOLDER, entity), base);
  if (since !== null) url.searchParams.set("timestamp", String(since));
  return url;
}

type Claim = { runId: string; startedAt: number } | { covered: true } | { busy: true };

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
  deps: FeedDeps,
  job: FeedSyncJob & { runId: string },
  since: number | null,
  context: JobContext,
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
      if (!context.redelivered) return { covered: true };
      await runEnd(deps, job.runId, context.signal);
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
async function claimRun(
  deps: FeedDeps,
  job: FeedSyncJob,
  since: number | null,
  context: JobContext,
): Promise<Claim> {
  if (job.runId) {
    const claimed = await claimQueuedRun(deps, { ...job, runId: job.runId }, since, context);
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
    if (!context.redelivered) return covers ? { covered: true } : { busy: true };
    const ended = await runEnd(deps, running.id, context.signal);
    if (ended === "succeeded" && covers) return { covered: true };
  }
  return { busy: true };
}

/** Waits until a run is no longer running (its final status) or has gone stale. */
async function runEnd(deps: FeedDeps, runId: string, signal: AbortSignal): Promise<string> {
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

/**
 * Pulls users, departments, posts and occupancies (in that order) from the tenant's feed into the
 * staging tables, then applies them together in one transaction: a feed that fails anywhere
 * changes nothing. Each run is recorded with its counts, rejected rows and error.
 */
export function syncFeed(deps: FeedDeps) {
  const { sql } = deps;
  return async (job: FeedSyncJob, context: JobContext): Promise<JobOutcome> => {
    const settings = await feedSettings(sql, job.tenantId);
    if (!settings?.enabled) {
      context.log.info({ tenantId: job.tenantId }, "no enabled feed for this tenant; nothing to sync");
      if (job.runId) await failFeedRun(sql, job.runId, "the feed was disabled before the run started", {});
      return { outcome: "done" };
    }
    const claim = await claimRun(deps, job, settings.syncedSince, context);
    if ("covered" in claim) return { outcome: "done" };
    if ("busy" in claim) return { outcome: "retry", reason: "another run of this feed is in progress" };

    const { runId } = claim;
    const log = context.log.child({ runId, tenantId: job.tenantId });
    const heartbeat = setInterval(() => {
      beatFeedRun(sql, runId).catch(() => {});
    }, heartbeatMs(deps.staleAfterSeconds));
    heartbeat.unref();
    const counts = {} as Record<FeedEntity, EntityCounts>;
    const rejects: Reject[] = [];
    try {
      for (const entity of FEED_ENTITIES) {
        counts[entity] = await pullEntity(deps, settings, entity, runId, rejects, context.signal);
        log.debug({ entity, ...counts[entity] }, "feed address read");
      }
      const full = new Set(FEED_ENTITIES.filter((entity) => counts[entity].full));
      await transaction(sql, async (tx) => {
        const merged = await mergeFeed(tx, {
          tenantId: job.tenantId,
          runId,
          full,
          maxRejects: MAX_RECORDED_REJECTS,
        });
        for (const entity of FEED_ENTITIES) {
          counts[entity].applied = merged[entity].applied;
          counts[entity].disabled = merged[entity].disabled;
          counts[entity].rejected += merged[entity].unresolved;
        }
        if (rejects.length > 0) {
          await insertFeedRejects(tx, runId, rejects);
        }
        await setFeedSyncedSince(tx, job.tenantId, claim.startedAt);
        await succeedFeedRun(tx, runId, counts);
      });
      const applied = FEED_ENTITIES.reduce(
        (sum, entity) => sum + counts[entity].applied + counts[entity].disabled,
        0,
      );
      // Fresh statistics at once, or searches plan for the directory as it was before a large change.
      if (applied >= ANALYZE_AFTER_ROWS) await analyzeDirectory(sql);
      log.info({ counts }, "feed synced");
      return { outcome: "done" };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (context.signal.aborted) {
        // The worker is stopping: the job goes back to the queue and another worker runs it anew.
        await abandonFeedRun(sql, runId, "its worker stopped before the run ended");
        return { outcome: "retry", reason: message };
      }
      if (!(error instanceof FeedUnavailable)) {
        await failFeedRun(sql, runId, message, counts);
        throw error;
      }
      // A provider's failure is the run's outcome, recorded with its retry in one step, so whoever
      // sees the failed run sees when it is tried again.
      const failures = await transaction(sql, async (tx) => {
        await failFeedRun(tx, runId, message, counts);
        const inARow = await failedFeedRunsInARow(tx, job.tenantId);
        await scheduleFeedRetry(tx, job.tenantId, RETRY_DELAYS_SECONDS[inARow - 1] ?? null);
        return inARow;
      });
      log.warn({ err: message, failures }, "feed run failed; the directory is unchanged");
      return { outcome: "done" };
    } finally {
      clearInterval(heartbeat);
      await clearStage(sql, runId);
      await pruneFeedRuns(sql, job.tenantId, RUNS_KEPT);
    }
  };
}

/** Reads one address into the staging table; the rows it rejects are added to `rejects`. */
async function pullEntity(
  deps: FeedDeps,
  settings: FeedSettings,
  entity: FeedEntity,
  runId: string,
  rejects: Reject[],
  signal: AbortSignal,
): Promise<EntityCounts> {
  const url = addressOf(settings, entity, settings.syncedSince);
  const headers: Record<string, string> = { accept: "application/json" };
  if (settings.authorizationEnv) {
    const authorization = deps.env[settings.authorizationEnv];
    if (!authorization)
      throw new FeedUnavailable(`${settings.authorizationEnv} is not set in the feed worker`);
    headers.authorization = authorization;
  }
  const deadline = AbortSignal.any([signal, AbortSignal.timeout(settings.timeoutSeconds * 1000)]);
  const counts: EntityCounts = { received: 0, rejected: 0, applied: 0, disabled: 0, full: false };
  let allTimestampsNull = true;
  try {
    const response = await fetch(url, { headers, signal: deadline, redirect: "error" });
    if (!response.ok || !response.body) {
      await response.body?.cancel();
      throw new FeedUnavailable(`${entity}: the feed answered HTTP ${response.status}`);
    }
    const stage = new FeedStage(deps.sql, runId, entity);
    const entities = feedEntities(response.body);
    let next = await entities.next();
    for (; !next.done; next = await entities.next()) {
      const index = counts.received++;
      const result = readFeedRow(entity, next.value);
      if (!result.ok) {
        if (counts.rejected++ < MAX_RECORDED_REJECTS)
          rejects.push({ entity, index, key: result.key, reason: result.reason });
        continue;
      }
      if (result.row.timestamp !== null) allTimestampsNull = false;
      await stage.add(result.row, index);
    }
    await stage.flush();
    const envelope = next.value;
    if (envelope.errno !== null && envelope.errno !== 0) {
      throw new FeedUnavailable(
        `${entity}: the feed answered errno ${envelope.errno}: ${envelope.error ?? ""}`,
      );
    }
  } catch (error) {
    if (error instanceof FeedUnavailable) throw error;
    if (error instanceof FeedFormatError) throw new FeedUnavailable(`${entity}: ${error.message}`);
    if (deadline.aborted && !signal.aborted)
      throw new FeedUnavailable(`${entity}: the feed did not answer within ${settings.timeoutSeconds} s`);
    if (error instanceof TypeError) throw new FeedUnavailable(`${entity}: ${describeFetchError(error)}`);
    throw error;
  }
  // Only a provider that sent something and dated none of it is taken as a full listing.
  counts.full = allTimestampsNull && counts.received - counts.rejected > 0;
  return counts;
}

function describeFetchError(error: TypeError): string {
  const cause = error.cause as { code?: string; message?: string } | undefined;
  return cause?.code ?? cause?.message ?? error.message;
}
