import type { ErrorCode } from "./errors.ts";

/** A queue of the topology, declared as data: its name and the delays between attempts. */
export interface QueueDefinition {
  name: string;
  /** Delay before each retry; a message is tried `retryDelaysMs.length + 1` times, then dead-lettered. */
  retryDelaysMs: readonly number[];
}

export interface PublishOptions {
  /** Stable id of the message (the row it works on); defaults to a random one. */
  messageId?: string;
}

/**
 * What a handler decides about one message: done; refused (the job cannot be done as asked, a
 * mistake of its caller, whose outcome the handler recorded where the caller reads it: acknowledged,
 * the caller answered with the error); retry (a later attempt may help); fail (a fault nobody
 * expected: the message goes to the dead queue for an operator).
 */
export type HandlerOutcome =
  | { outcome: "done"; reply?: unknown }
  | { outcome: "refused"; reason: string; code: ErrorCode }
  | { outcome: "retry"; reason: string }
  | { outcome: "fail"; reason: string; code?: ErrorCode };

export interface DeliveryContext {
  messageId: string;
  /** 1 on the first try, counted across retries. */
  attempt: number;
  maxAttempts: number;
  /** True when the broker hands the message out again after a consumer died holding it. */
  redelivered: boolean;
  /** True when an operator put the message back from the dead queue (on each of its attempts). */
  replayed: boolean;
  /** Aborted when the job's timeout passes or the consumer is stopped without draining. */
  signal: AbortSignal;
}

export type MessageHandler = (message: unknown, context: DeliveryContext) => Promise<HandlerOutcome>;

export interface ConsumeOptions {
  /** Messages handled at once; also the prefetch. */
  concurrency: number;
  /** A handler still running after this long counts as a retry. */
  timeoutMs: number;
}

export interface Consumer {
  readonly queue: string;
  /** Stops taking messages, waits up to `drainMs` for those in hand, then gives the rest back. */
  stop(drainMs: number): Promise<void>;
}

/** The dead letters of a queue one operator's call reads at most: its oldest. */
export const MAX_DEAD_LETTERS_HELD = 10_000;

/** A message that used up its attempts, taken off `<queue>.dead`. */
export interface DeadLetter {
  messageId: string;
  message: unknown;
  reason: string;
  attempts: number;
}

/** How full a queue is, as a scrape of `/metrics` reports it. */
export interface QueueStats {
  queue: string;
  /** Messages waiting for a worker. */
  ready: number;
  /** Messages in its dead queue. */
  dead: number;
  consumers: number;
}

/** Called with each notice broadcast on a topic a process listens to. */
export type NoticeHandler = (notice: unknown) => void;

/** Stops a listener: no notice reaches its handler once it resolves. */
export type StopListening = () => Promise<void>;

/** Reply of a request/reply call as carried on the wire. */
export type ReplyEnvelope = { ok: true; value: unknown } | { ok: false; error: string; code?: ErrorCode };

export interface Broker {
  readonly kind: "rabbitmq" | "embedded";
  /** Declares the queues (and their retry and dead queues); kept and re-declared after a reconnect. */
  declare(queues: readonly QueueDefinition[]): Promise<void>;
  /** Resolves once the broker has taken responsibility for the message; fails fast when unreachable. */
  publish(queue: string, message: unknown, options?: PublishOptions): Promise<void>;
  /** Publishes and waits for the handler's reply until the deadline. */
  request(queue: string, message: unknown, options: { timeoutMs: number }): Promise<unknown>;
  consume(queue: string, handler: MessageHandler, options: ConsumeOptions): Promise<Consumer>;
  /** Takes up to `limit` dead letters of a queue off its dead queue. */
  takeDeadLetters(queue: string, limit: number): Promise<DeadLetter[]>;
  /** Up to `limit` dead letters of a queue, oldest first, left in its dead queue. */
  peekDeadLetters(queue: string, limit: number): Promise<DeadLetter[]>;
  /**
   * Moves dead letters back to their queue as new jobs (a first attempt): the one with `messageId`,
   * or the oldest `limit`. Resolves with how many moved.
   */
  replayDeadLetters(queue: string, options: { messageId?: string; limit: number }): Promise<number>;
  /** Deletes every dead letter of a queue; resolves with how many there were. */
  purgeDeadLetters(queue: string): Promise<number>;
  /** Depth and consumers of every declared queue. */
  queueStats(): Promise<QueueStats[]>;
  /**
   * Tells every process listening on `topic` (this one too) a small notice: at most once, never
   * stored, lost when a listener is disconnected. For hints whose facts live in Postgres (a push
   * message was stored): a listener that misses one reads the facts again, never the notice.
   * Resolves once the broker has taken it; fails fast when unreachable.
   */
  broadcast(topic: string, notice: unknown): Promise<void>;
  /**
   * Calls `handler` with every notice broadcast on `topic` from now on, by any process; a
   * reconnect listens again (what was broadcast while disconnected is lost). Resolves once
   * listening, with the function that stops it.
   */
  listen(topic: string, handler: NoticeHandler): Promise<StopListening>;
  isConnected(): boolean;
  /** Stops consumers (draining up to `drainMs`), then closes the connection. */
  close(drainMs?: number): Promise<void>;
}
