import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { deliverBatches } from "./outbox-delivery.ts";
import { pruneDeliveredEvents } from "./outbox-retention.ts";
import { sequenceEvents } from "./outbox-sequencer.ts";
import { addCursors, readOutboxHead } from "./outbox-store.ts";
import type { OutboxSubscriber } from "./outbox-subscriber.ts";

/** A pause that starts at `first` and doubles each time up to `most`. */
export interface Backoff {
  first: number;
  most: number;
}

export interface OutboxRelayOptions {
  /** Delivered events older than this are deleted (WORKFLOW_EVENTS_RETAIN_SECONDS). */
  retainSeconds: number;
  /** Events one sequencing step numbers, and one subscriber is offered at once. */
  batchSize?: number;
  /**
   * The pause after a round that found nothing to do. Polling, not a notification from the
   * engine's writes: a `NOTIFY` in every command would serialize their commits on Postgres's
   * notification queue lock, for a wake-up a 100 ms poll gives as well.
   */
  idlePauseMs?: Backoff;
  /** The pause after a round that moved less than a full batch, so the next one finds more. */
  gatherPauseMs?: number;
  /** The pause before a subscriber that threw is offered its batch again. */
  retryPauseMs?: Backoff;
  /** How often the delivered events past their age are deleted. */
  pruneIntervalMs?: number;
}

export interface OutboxRelay {
  /** Resolves once the round in flight has ended; nothing of the relay runs after. */
  stop(): Promise<void>;
}

const DEFAULTS = {
  batchSize: 500,
  idlePauseMs: { first: 10, most: 100 },
  gatherPauseMs: 50,
  retryPauseMs: { first: 1000, most: 60_000 },
  pruneIntervalMs: 60_000,
};

const doubled = (pause: number, backoff: Backoff) => Math.min(pause * 2, backoff.most);

/**
 * Hands every event of the outbox to each subscriber, at least once and in position order, and
 * deletes what all of them accepted once it is old. Several processes may run it over the same
 * database: they share the sequencing, and each subscriber's batches go to one of them at a time.
 * With no subscriber it does nothing at all.
 */
export function startOutboxRelay(
  deps: { sql: Sql; log: Logger },
  subscribers: readonly OutboxSubscriber[],
  options: OutboxRelayOptions,
): OutboxRelay {
  const { sql, log } = deps;
  const settings = { ...DEFAULTS, ...options };
  const names = subscribers.map((subscriber) => subscriber.name);
  if (new Set(names).size !== names.length)
    throw new Error(`outbox subscribers share a name: ${names.join(", ")}`);
  const failures = new Map<string, { pause: number; retryAt: number }>();
  let cursorsMade = false;
  let nextPruneAt = 0;
  let idlePause = settings.idlePauseMs.first;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** Offers the due subscribers their next batches; a failure is logged and retried later, never thrown. */
  async function offer(due: readonly OutboxSubscriber[]): Promise<number[]> {
    if (due.length === 0) return [];
    const { accepted, failed } = await deliverBatches(sql, due, settings.batchSize, log);
    const now = Date.now();
    for (const subscriber of due) {
      const error = failed.get(subscriber.name);
      if (!error) {
        failures.delete(subscriber.name);
        continue;
      }
      const before = failures.get(subscriber.name);
      const pause = before ? doubled(before.pause, settings.retryPauseMs) : settings.retryPauseMs.first;
      failures.set(subscriber.name, { pause, retryAt: now + pause });
      log.warn(
        { subscriber: subscriber.name, retryInMs: pause, err: error.message },
        "outbox subscriber failed; its batch is offered again",
      );
    }
    return [...accepted.values()];
  }

  /**
   * One pass: number what committed, offer each subscriber behind the head its batch. How much
   * moved: "full" when a batch was full (more is waiting), "some", or "none".
   */
  async function round(): Promise<"full" | "some" | "none"> {
    if (!cursorsMade) {
      await addCursors(sql, names);
      cursorsMade = true;
    }
    const head = await readOutboxHead(sql, names);
    const sequenced = head.unsequenced ? await sequenceEvents(sql, settings.batchSize) : 0;
    const now = Date.now();
    const due = subscribers.filter(
      (subscriber) =>
        (failures.get(subscriber.name)?.retryAt ?? 0) <= now &&
        (sequenced > 0 || (head.cursors.get(subscriber.name) ?? 0) < head.head),
    );
    const accepted = await offer(due);
    if (now >= nextPruneAt) {
      nextPruneAt = now + settings.pruneIntervalMs;
      const pruned = await pruneDeliveredEvents(sql, names, settings.retainSeconds);
      if (pruned > 0) log.info({ pruned }, "delivered outbox events deleted");
    }
    const most = Math.max(sequenced, ...accepted);
    return most >= settings.batchSize ? "full" : most > 0 ? "some" : "none";
  }

  async function loop(): Promise<void> {
    let pause: number;
    try {
      const moved = await round();
      idlePause = moved !== "none" ? settings.idlePauseMs.first : doubled(idlePause, settings.idlePauseMs);
      // Under a steady trickle, a short gathering pause makes a few batches of many events out of
      // what would be a transaction per subscriber for every handful.
      pause = moved === "full" ? 0 : moved === "some" ? settings.gatherPauseMs : idlePause;
    } catch (error) {
      // The database out of reach, say: try again after the longest idle pause.
      log.warn({ err: (error as Error).message }, "outbox relay round failed");
      pause = settings.idlePauseMs.most;
    }
    if (!stopped) schedule(pause);
  }

  function schedule(pause: number): void {
    timer = setTimeout(() => {
      timer = undefined;
      running = loop().finally(() => {
        running = undefined;
      });
    }, pause);
    timer.unref();
  }

  if (subscribers.length > 0) schedule(0);
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
