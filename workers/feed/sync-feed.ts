import {
  ENTITY_PLACEHOLDER,
  FEED_ENTITIES,
  type FeedEntity,
  type FeedSyncJob,
} from "../../contracts/feed.ts";
import { readFeedRow } from "../../directory/feed-rows.ts";
import {
  abandonStoppedRun,
  applyFeedRun,
  beatRun,
  claimFeedRun,
  type EntityCounts,
  enabledFeed,
  endFeedRun,
  type FeedSettings,
  failRun,
  failRunForProvider,
  feedStage,
  heartbeatMs,
  MAX_RECORDED_REJECTS,
  type Reject,
} from "../../directory/feed-runs.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";
import { FeedFormatError, feedEntities } from "./feed-response-stream.ts";

export interface FeedDeps {
  sql: Sql;
  log: Logger;
  /** Where `authorizationEnv` names are looked up: the worker's environment. */
  env: Readonly<Record<string, string | undefined>>;
  /** A run whose heartbeat is older than this lost its worker and may be taken over. */
  staleAfterSeconds: number;
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

/**
 * Pulls users, departments, posts and occupancies (in that order) from the tenant's feed into the
 * staging tables, then applies them together in one transaction: a feed that fails anywhere
 * changes nothing. Each run is recorded with its counts, rejected rows and error.
 */
export function syncFeed(deps: FeedDeps) {
  const { sql } = deps;
  return async (job: FeedSyncJob, context: JobContext): Promise<JobOutcome> => {
    const settings = await enabledFeed(sql, job);
    if (!settings) {
      context.log.info({ tenantId: job.tenantId }, "no enabled feed for this tenant; nothing to sync");
      return { outcome: "done" };
    }
    const claim = await claimFeedRun(deps, job, settings.syncedSince, context);
    if ("covered" in claim) return { outcome: "done" };
    if ("busy" in claim) return { outcome: "retry", reason: "another run of this feed is in progress" };

    const { runId } = claim;
    const log = context.log.child({ runId, tenantId: job.tenantId });
    const heartbeat = setInterval(() => {
      beatRun(sql, runId).catch(() => {});
    }, heartbeatMs(deps.staleAfterSeconds));
    heartbeat.unref();
    const counts = {} as Record<FeedEntity, EntityCounts>;
    const rejects: Reject[] = [];
    try {
      for (const entity of FEED_ENTITIES) {
        counts[entity] = await pullEntity(deps, settings, entity, runId, rejects, context.signal);
        log.debug({ entity, ...counts[entity] }, "feed address read");
      }
      await applyFeedRun(sql, { tenantId: job.tenantId, runId, startedAt: claim.startedAt, counts, rejects });
      log.info({ counts }, "feed synced");
      return { outcome: "done" };
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (context.signal.aborted) {
        // The worker is stopping: the job goes back to the queue and another worker runs it anew.
        await abandonStoppedRun(sql, runId);
        return { outcome: "retry", reason: message };
      }
      if (!(error instanceof FeedUnavailable)) {
        await failRun(sql, runId, message, counts);
        throw error;
      }
      const failures = await failRunForProvider(sql, {
        tenantId: job.tenantId,
        runId,
        error: message,
        counts,
      });
      log.warn({ err: message, failures }, "feed run failed; the directory is unchanged");
      return { outcome: "done" };
    } finally {
      clearInterval(heartbeat);
      await endFeedRun(sql, { tenantId: job.tenantId, runId });
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
    const stage = feedStage(deps.sql, runId, entity);
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
