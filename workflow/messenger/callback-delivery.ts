import type { Agent } from "undici";
import { type Queryable, type Sql, transaction } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import {
  pinnedLookup,
  type Resolve,
  reachableAddress,
  systemResolve,
  UnreachableAddress,
} from "../../runtime/outbound-address.ts";
import { HostAllowlist } from "../../runtime/template-hosts.ts";
import type { ActivityRecord } from "../engine/engine-result.ts";
import { recordActivity } from "../result-writer.ts";
import { CallbackKeyMismatch, type CallbackSecrets } from "./callback-secrets.ts";
import { signatureHeaders } from "./callback-signature.ts";
import {
  type AttemptOutcome,
  type ClaimedDelivery,
  type ClaimLimits,
  claimDueDeliveries,
  finishAttempt,
} from "./callback-store.ts";

export type { ClaimedDelivery } from "./callback-store.ts";

/** What one post came to: the receiver's status when it answered, else why not. */
export interface PostResult {
  httpStatus: number | null;
  error: string | null;
  /** Posting again cannot help: the URL is not one a post may be made to. */
  refused: boolean;
}

export interface CallbackPosterOptions {
  /** CALLBACK_ALLOWED_HOSTS: hosts whose internal addresses may be reached. */
  allowedHosts: readonly string[];
  timeoutMs: number;
  /** Every address of a name; the system resolver's unless a test stands in for it. */
  resolve?: Resolve;
}

/** Longest error text kept of one post. */
const ERROR_MAX = 500;

/**
 * Posts callbacks: to http and https URLs only, to public addresses unless the operator allowed
 * the host (CALLBACK_ALLOWED_HOSTS), connecting to the address checked, redirects not followed,
 * the whole post within the timeout. A URL is the app deployer's input, so it is treated like any
 * other a caller chose (runtime/outbound-address.ts).
 */
export class CallbackPoster {
  private readonly allowlist: HostAllowlist;
  private readonly resolve: Resolve;
  private readonly closing = new AbortController();
  private readonly inFlight = new Set<Agent>();

  constructor(private readonly options: CallbackPosterOptions) {
    this.allowlist = new HostAllowlist(options.allowedHosts);
    this.resolve = options.resolve ?? systemResolve;
  }

  async post(target: string, body: string, headers: Record<string, string>): Promise<PostResult> {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return { httpStatus: null, error: "not a URL", refused: true };
    }
    if (url.protocol !== "http:" && url.protocol !== "https:")
      return { httpStatus: null, error: "only http and https URLs are posted to", refused: true };
    const signal = AbortSignal.any([AbortSignal.timeout(this.options.timeoutMs), this.closing.signal]);
    const undici = await import("undici");
    let agent: Agent | undefined;
    try {
      const pinned = await reachableAddress(
        url,
        this.resolve,
        (address) => this.allowlist.allows(url) || this.allowlist.listsAddress(address, url),
        "not allowed by CALLBACK_ALLOWED_HOSTS",
      );
      agent = new undici.Agent({
        connect: { timeout: this.options.timeoutMs, lookup: pinnedLookup(pinned) },
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
      });
      this.inFlight.add(agent);
      // Redirects are not followed (undici does not unless asked): a 3xx is a failed post.
      const response = await undici.request(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "user-agent": "open-platform-callbacks", ...headers },
        dispatcher: agent,
        signal,
      });
      // What the receiver says is not read, only drained: past 64 KiB the connection is closed.
      await response.body.dump({ limit: 65_536, signal });
      const ok = response.statusCode >= 200 && response.statusCode < 300;
      return {
        httpStatus: response.statusCode,
        error: ok ? null : `answered ${response.statusCode}`,
        refused: false,
      };
    } catch (error) {
      const refused = error instanceof UnreachableAddress && error.refused;
      const reason =
        signal.aborted && !refused ? `no answer within ${this.options.timeoutMs} ms` : errorText(error);
      return { httpStatus: null, error: reason.slice(0, ERROR_MAX), refused };
    } finally {
      if (agent) {
        this.inFlight.delete(agent);
        await agent.destroy().catch(() => {});
      }
    }
  }

  /** Ends the posts under way; they count as failed and are posted again later. */
  async close(): Promise<void> {
    this.closing.abort();
    await Promise.all([...this.inFlight].map((agent) => agent.destroy().catch(() => {})));
  }
}

function errorText(error: unknown): string {
  const cause = (error as { cause?: { message?: unknown } } | null)?.cause?.message;
  const message = error instanceof Error ? error.message : String(error);
  return typeof cause === "string" && cause !== message ? `${message}: ${cause}` : message;
}

/** What delivering a claimed callback takes. */
export interface CallbackDeliveryDeps {
  sql: Sql;
  secrets: CallbackSecrets;
  poster: CallbackPoster;
  log: Logger;
  /** CALLBACK_RETRY_DELAYS_MS: a callback is posted one time more than there are delays. */
  retryDelaysMs: readonly number[];
}

/** Claims due callbacks for a worker (see `claimDueDeliveries`). */
export function claimCallbacks(sql: Queryable, limits: ClaimLimits): Promise<ClaimedDelivery[]> {
  return claimDueDeliveries(sql, limits);
}

/** What a post came to for the delivery: delivered, due again after its delay, or dead. */
function outcomeOf(
  delivery: ClaimedDelivery,
  result: PostResult,
  retryDelaysMs: readonly number[],
  startedAt: Date,
): AttemptOutcome {
  const durationMs = Date.now() - startedAt.getTime();
  const base = { startedAt, durationMs, httpStatus: result.httpStatus, error: result.error };
  if (result.error === null) return { ...base, status: "delivered" };
  const delay = retryDelaysMs[delivery.attempts - 1];
  if (result.refused || delay === undefined) return { ...base, status: "dead" };
  return { ...base, status: "pending", retryAt: new Date(Date.now() + delay) };
}

/** The process's MESSENGER activity of a delivery's final outcome. */
function outcomeActivity(delivery: ClaimedDelivery, outcome: AttemptOutcome): ActivityRecord {
  const tries = `${delivery.attempts} ${delivery.attempts === 1 ? "attempt" : "attempts"}`;
  // The host only: a callback URL may carry the receiver's own token in its path or query.
  const about = `callback ${delivery.type} to ${delivery.host || "an invalid URL"} (delivery ${delivery.id})`;
  return outcome.status === "delivered"
    ? {
        category: "MESSENGER",
        level: "INFO",
        tags: "CALLBACK_DELIVERED",
        description: `${about} delivered after ${tries}`,
        user: null,
        task: delivery.taskId,
      }
    : {
        category: "MESSENGER",
        level: "WARNING",
        tags: "CALLBACK_DEAD",
        description: `${about} dead after ${tries}: ${outcome.error}`,
        user: null,
        task: delivery.taskId,
      };
}

/**
 * Posts one claimed callback, signed with its app's secret, and records what came of it: the
 * attempt, the delivery's new state, and on a final outcome the process's MESSENGER activity, all
 * in one transaction. The activity writes no outbox event, so an outcome makes no callback itself.
 */
export async function deliverCallback(deps: CallbackDeliveryDeps, delivery: ClaimedDelivery): Promise<void> {
  const startedAt = new Date();
  let result: PostResult;
  try {
    const secret = await deps.secrets.secretFor(deps.sql, delivery.appId);
    const headers = {
      ...signatureHeaders(secret, delivery.body, new Date()),
      "X-Platform-Event-Id": delivery.eventId,
      "X-Platform-Event": delivery.type,
    };
    result = await deps.poster.post(delivery.url, delivery.body, headers);
  } catch (error) {
    if (error instanceof CallbackKeyMismatch) deps.log.error({ app: delivery.appId }, error.message);
    else throw error;
    result = { httpStatus: null, error: error.message, refused: false };
  }
  const outcome = outcomeOf(delivery, result, deps.retryDelaysMs, startedAt);
  await transaction(deps.sql, async (tx) => {
    const applied = await finishAttempt(tx, delivery, outcome);
    if (!applied || outcome.status === "pending") return;
    const process = {
      id: delivery.processId,
      tenantId: delivery.tenantId,
      test: delivery.test,
      appId: delivery.appId,
    };
    await recordActivity(tx, process, outcomeActivity(delivery, outcome));
  });
  if (outcome.status === "dead")
    deps.log.warn({ delivery: delivery.id, host: delivery.host, reason: outcome.error }, "callback dead");
}
