import type { Broker, StopListening } from "../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Config } from "../runtime/config.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { listenForPushNotices, type PushNotice } from "./push-notices.ts";
import { messagesAfter, type PushAnswer, type PushSubscription, settledAnswer } from "./push-reads.ts";

export interface PushWaitersOptions {
  /** How long a poll is held when nothing is there for it. */
  holdMs: number;
  /** Polls and streams this process holds at once. */
  maxHeld: number;
  /** Polls and streams one user holds at once on this process. */
  maxHeldPerUser: number;
  /** Messages one answer (or one event of a stream) carries at most. */
  pageSize: number;
}

/** A held poll or stream: what it waits for, from which time, and what wakes it. */
interface Waiter {
  readonly subscription: PushSubscription;
  /** Exclusive; a stream's moves on as it sends. */
  since(): number;
  /** A notice newer than `since` of its user and data mode arrived. */
  wake(): void;
  /** The process is shutting down: answer at once. */
  release(): void;
}

/**
 * A waiter's reads, one at a time: a wake while one runs runs it once more after (a notice during a
 * read may have missed it), and so does a read that says there is more. A failed read is logged;
 * a poll's hold's end answers it still.
 */
function oneReadAtATime(log: Logger, what: string, read: () => Promise<boolean>): () => void {
  let reading = false;
  let again = false;
  const loop = async () => {
    reading = true;
    try {
      do {
        again = false;
        const more = await read();
        again ||= more;
      } while (again);
    } catch (error) {
      log.warn({ err: (error as Error).message }, `${what} could not read its messages`);
    } finally {
      reading = false;
    }
  };
  return () => {
    if (reading) again = true;
    else void loop();
  };
}

/** Messages one answer carries at most: a client behind reads the rest with the answer's `time`. */
export const PUSH_PAGE_SIZE = 100;

/** The waiters of a gateway as configured. */
export function configuredPushWaiters(
  sql: Sql,
  broker: Broker,
  log: Logger,
  config: Config["push"],
): PushWaiters {
  const { holdMs, maxHeld, maxHeldPerUser } = config;
  return new PushWaiters(sql, broker, log, { holdMs, maxHeld, maxHeldPerUser, pageSize: PUSH_PAGE_SIZE });
}

/** Seconds a refused subscriber is asked to wait before it tries again. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The polls and streams a gateway holds, by user, and the notices that wake them. Each gateway
 * listens to every notice (the broker's broadcast), and on one for a user it holds, reads that
 * user's messages from Postgres after each waiter's `since`: any gateway answers any subscriber,
 * whichever gateway stored the message.
 */
export class PushWaiters {
  private readonly byUser = new Map<string, Set<Waiter>>();
  /** Subscriptions admitted and not yet over, in all and by user (a waiter is entered a moment later). */
  private held = 0;
  private readonly heldByUser = new Map<string, number>();
  private draining = false;
  private stopListening: StopListening | undefined;

  constructor(
    private readonly sql: Sql,
    private readonly broker: Broker,
    private readonly log: Logger,
    readonly options: PushWaitersOptions,
  ) {}

  /** Listens for notices; held polls are answered only by their hold's end until it has. */
  async start(): Promise<void> {
    this.stopListening = await listenForPushNotices(this.broker, (notice) => this.wake(notice), this.log);
  }

  /** Polls and streams held now. */
  get size(): number {
    return this.held;
  }

  /**
   * Spec 001's subscription: the messages after `since` at once when there are any, otherwise
   * held until one arrives or the hold passes, then an empty answer with the time to pass back.
   * Without `since`, it waits for what arrives from now on. An aborted `signal` (the client went
   * away) frees the poll at once.
   */
  async poll(
    subscription: PushSubscription,
    given: number | undefined,
    signal: AbortSignal,
  ): Promise<PushAnswer> {
    const release = this.admit(subscription.userId);
    try {
      return await this.heldPoll(subscription, given, signal);
    } finally {
      release();
    }
  }

  private async heldPoll(
    subscription: PushSubscription,
    given: number | undefined,
    signal: AbortSignal,
  ): Promise<PushAnswer> {
    const { pageSize, holdMs } = this.options;
    const since = given ?? (await settledAnswer(this.sql, subscription, undefined, pageSize)).time;
    const first = await messagesAfter(this.sql, subscription, since, pageSize);
    if (first.length > 0) return { messages: first, time: first.at(-1)!.time };
    if (this.draining) return { messages: [], time: since };
    return new Promise<PushAnswer>((resolve) => {
      let answered = false;
      const answer = (result: PushAnswer) => {
        if (answered) return;
        answered = true;
        clearTimeout(timer);
        signal.removeEventListener("abort", abandon);
        this.remove(waiter);
        resolve(result);
      };
      const abandon = () => answer({ messages: [], time: since });
      const read = oneReadAtATime(this.log, "a held poll", async () => {
        if (answered) return false;
        const messages = await messagesAfter(this.sql, subscription, since, pageSize);
        if (messages.length > 0) answer({ messages, time: messages.at(-1)!.time });
        return false;
      });
      const expire = () => {
        settledAnswer(this.sql, subscription, since, pageSize).then(answer, (error: unknown) => {
          this.log.warn({ err: (error as Error).message }, "a held poll ended without reading");
          answer({ messages: [], time: since });
        });
      };
      const waiter: Waiter = { subscription, since: () => since, wake: read, release: abandon };
      const timer = setTimeout(expire, holdMs);
      this.add(waiter);
      signal.addEventListener("abort", abandon, { once: true });
      if (signal.aborted) abandon();
      // A message stored between the first read and the waiter's entry woke nobody.
      else read();
    });
  }

  /**
   * A stream of the user's messages: `send` gets each page after `since` (the stored ones at
   * once, then each as it arrives), one at a time in time order, until `signal` aborts or the
   * process shuts down, when `ended` resolves. Resolves once the stream is admitted (or refused).
   */
  async stream(
    subscription: PushSubscription,
    given: number | undefined,
    signal: AbortSignal,
    send: (answer: PushAnswer) => void,
  ): Promise<{ ended: Promise<void> }> {
    const release = this.admit(subscription.userId);
    let since: number;
    try {
      since = given ?? (await settledAnswer(this.sql, subscription, undefined, this.options.pageSize)).time;
    } catch (error) {
      release();
      throw error;
    }
    return { ended: this.follow(subscription, since, signal, send).finally(release) };
  }

  private follow(
    subscription: PushSubscription,
    from: number,
    signal: AbortSignal,
    send: (answer: PushAnswer) => void,
  ): Promise<void> {
    const { pageSize } = this.options;
    let since = from;
    if (signal.aborted || this.draining) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let ended = false;
      const end = () => {
        if (ended) return;
        ended = true;
        signal.removeEventListener("abort", end);
        this.remove(waiter);
        resolve();
      };
      const read = oneReadAtATime(this.log, "a push stream", async () => {
        if (ended) return false;
        const messages = await messagesAfter(this.sql, subscription, since, pageSize);
        if (ended || messages.length === 0) return false;
        since = messages.at(-1)!.time;
        send({ messages, time: since });
        // A full page may have more behind it.
        return messages.length === pageSize;
      });
      const waiter: Waiter = { subscription, since: () => since, wake: read, release: end };
      this.add(waiter);
      signal.addEventListener("abort", end, { once: true });
      if (signal.aborted) end();
      else read();
    });
  }

  /** Shutdown begins: every held poll answers at once (empty), every stream ends, none is held again. */
  drain(): void {
    this.draining = true;
    for (const waiters of [...this.byUser.values()]) for (const waiter of [...waiters]) waiter.release();
  }

  /** Stops listening for notices, after `drain`. */
  async stop(): Promise<void> {
    this.drain();
    await this.stopListening?.();
    this.stopListening = undefined;
  }

  /** Takes a place for one subscription of the user, or refuses it; returns the place's release. */
  private admit(userId: string): () => void {
    const ofUser = this.heldByUser.get(userId) ?? 0;
    if (this.held >= this.options.maxHeld)
      throw new PlatformError(ErrorCode.Unavailable, "this gateway holds as many subscriptions as it may", {
        retryAfterSeconds: RETRY_AFTER_SECONDS,
      });
    if (ofUser >= this.options.maxHeldPerUser)
      throw new PlatformError(
        ErrorCode.RateLimited,
        `at most ${this.options.maxHeldPerUser} subscriptions of one user at once`,
        { retryAfterSeconds: RETRY_AFTER_SECONDS },
      );
    this.held += 1;
    this.heldByUser.set(userId, ofUser + 1);
    return () => {
      this.held -= 1;
      const left = (this.heldByUser.get(userId) ?? 1) - 1;
      if (left > 0) this.heldByUser.set(userId, left);
      else this.heldByUser.delete(userId);
    };
  }

  private add(waiter: Waiter): void {
    const userId = waiter.subscription.userId;
    const waiters = this.byUser.get(userId) ?? new Set<Waiter>();
    this.byUser.set(userId, waiters);
    waiters.add(waiter);
  }

  private remove(waiter: Waiter): void {
    const userId = waiter.subscription.userId;
    const waiters = this.byUser.get(userId);
    if (!waiters?.delete(waiter)) return;
    if (waiters.size === 0) this.byUser.delete(userId);
  }

  private wake(notice: PushNotice): void {
    const waiters = this.byUser.get(notice.userId);
    if (!waiters) return;
    for (const waiter of waiters) {
      if (waiter.subscription.test === notice.test && notice.time > waiter.since()) waiter.wake();
    }
  }
}
