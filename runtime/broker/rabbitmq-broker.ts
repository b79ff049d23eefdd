import { randomUUID } from "node:crypto";
import {
  type Channel,
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  connect,
  type GetMessage,
} from "amqplib";
import {
  type Broker,
  type ConsumeOptions,
  type Consumer,
  type DeadLetter,
  MAX_DEAD_LETTERS_HELD,
  type MessageHandler,
  type NoticeHandler,
  type PublishOptions,
  type QueueDefinition,
  type QueueStats,
  type ReplyEnvelope,
  type StopListening,
} from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { Logger } from "../logger.ts";
import { jobsHandled } from "../platform-metrics.ts";
import { maxAttempts, RunningHandlers, replyFor } from "./delivery.ts";
import {
  deadQueueName,
  declarationsFor,
  JOBS_EXCHANGE,
  NOTICE_QUEUE_ARGUMENTS,
  NOTICES_EXCHANGE,
  retryQueueName,
} from "./topology.ts";

const DIRECT_REPLY_TO = "amq.rabbitmq.reply-to";
const ATTEMPT_HEADER = "x-attempt";
/** Set on a message an operator put back from the dead queue; kept through its retries. */
const REPLAYED_HEADER = "x-replayed";
const DEADLINE_HEADER = "x-deadline";
const REASON_HEADER = "x-failure-reason";

export interface RabbitMqOptions {
  url: string;
  /** How long a publish may wait for the broker's confirm before it fails. */
  confirmTimeoutMs?: number;
  /** Ceiling of the exponential backoff between reconnect attempts. */
  maxReconnectDelayMs?: number;
  connectionName?: string;
}

interface PendingReply {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

function unavailable(what: string, cause?: unknown): PlatformError {
  return new PlatformError(ErrorCode.Unavailable, `message broker unavailable: ${what}`, { cause });
}

function encode(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

/**
 * The broker on RabbitMQ: confirmed persistent publishes to quorum queues, retries through TTL'd
 * retry queues, dead queues, direct reply-to for request/reply, and reconnection with backoff.
 * While disconnected nothing is buffered: publishes fail at once and consumers resume on reconnect.
 */
export class RabbitMqBroker implements Broker {
  readonly kind = "rabbitmq";
  private connection: ChannelModel | undefined;
  private publishChannel: ConfirmChannel | undefined;
  private replyChannel: Channel | undefined;
  private readonly definitions = new Map<string, QueueDefinition>();
  private readonly consumers = new Set<RabbitConsumer>();
  private readonly listeners = new Set<RabbitListener>();
  private readonly pendingReplies = new Map<string, PendingReply>();
  private readonly returned = new Set<string>();
  private connecting: Promise<void> | undefined;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private reconnectAttempt = 0;
  private closed = false;
  private readonly confirmTimeoutMs: number;
  private readonly maxReconnectDelayMs: number;

  private constructor(
    private readonly options: RabbitMqOptions,
    private readonly log: Logger,
  ) {
    this.confirmTimeoutMs = options.confirmTimeoutMs ?? 10_000;
    this.maxReconnectDelayMs = options.maxReconnectDelayMs ?? 30_000;
  }

  /** Connects once; when the broker is down the broker keeps trying in the background. */
  static async start(options: RabbitMqOptions, log: Logger): Promise<RabbitMqBroker> {
    const broker = new RabbitMqBroker(options, log);
    await broker.connectOrSchedule();
    return broker;
  }

  isConnected(): boolean {
    return this.publishChannel !== undefined;
  }

  /** Resolves when connected, or rejects after `timeoutMs`. */
  async waitUntilConnected(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.isConnected()) {
      if (Date.now() > deadline) throw unavailable(`not connected after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async declare(queues: readonly QueueDefinition[]): Promise<void> {
    for (const queue of queues) this.definitions.set(queue.name, queue);
    if (this.connection) await this.assertTopology(this.connection, queues);
  }

  async publish(queue: string, message: unknown, options: PublishOptions = {}): Promise<void> {
    this.definitionOf(queue);
    // No attempt header on a first publish: its absence means attempt 1, and tables cost encoding time.
    await this.confirmedPublish(JOBS_EXCHANGE, queue, encode(message), {
      messageId: options.messageId ?? randomUUID(),
      mandatory: true,
    });
  }

  async request(queue: string, message: unknown, options: { timeoutMs: number }): Promise<unknown> {
    this.definitionOf(queue);
    const channel = this.replyChannel;
    if (!channel) throw unavailable("not connected");
    const correlationId = randomUUID();
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pendingReplies.delete(correlationId);
        reject(
          new PlatformError(
            ErrorCode.DeadlineExceeded,
            `no worker answered on queue ${queue} within ${options.timeoutMs} ms`,
          ),
        );
      }, options.timeoutMs);
      this.pendingReplies.set(correlationId, { resolve, reject, timer });
    });
    channel.publish(JOBS_EXCHANGE, queue, encode(message), {
      persistent: true,
      contentType: "application/json",
      messageId: correlationId,
      correlationId,
      replyTo: DIRECT_REPLY_TO,
      mandatory: true,
      expiration: String(options.timeoutMs),
      headers: { [ATTEMPT_HEADER]: 1, [DEADLINE_HEADER]: Date.now() + options.timeoutMs },
    });
    return reply;
  }

  async consume(queue: string, handler: MessageHandler, options: ConsumeOptions): Promise<Consumer> {
    const definition = this.definitionOf(queue);
    const consumer = new RabbitConsumer(this, definition, handler, options, this.log.child({ queue }));
    this.consumers.add(consumer);
    if (this.connection) await consumer.attach(this.connection);
    return consumer;
  }

  async broadcast(topic: string, notice: unknown): Promise<void> {
    // Not mandatory: a topic nobody listens to is not a failure.
    await this.confirmedPublish(NOTICES_EXCHANGE, topic, encode(notice), { messageId: randomUUID() });
  }

  async listen(topic: string, handler: NoticeHandler): Promise<StopListening> {
    const listener = new RabbitListener(topic, handler, this.log.child({ topic }));
    this.listeners.add(listener);
    if (this.connection) await listener.attach(this.connection);
    return async () => {
      this.listeners.delete(listener);
      await listener.stop();
    };
  }

  async takeDeadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return this.onDeadQueue(queue, async (messages, channel) => {
      const taken = messages.slice(0, limit);
      for (const message of taken) channel.ack(message);
      return taken.map(deadLetterOf);
    });
  }

  async peekDeadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    this.definitionOf(queue);
    return this.onDeadQueue(queue, async (messages) => messages.slice(0, limit).map(deadLetterOf));
  }

  async replayDeadLetters(queue: string, options: { messageId?: string; limit: number }): Promise<number> {
    this.definitionOf(queue);
    return this.onDeadQueue(queue, async (messages, channel) => {
      const chosen =
        options.messageId === undefined
          ? messages.slice(0, options.limit)
          : messages.filter((message) => message.properties.messageId === options.messageId).slice(0, 1);
      for (const message of chosen) {
        await this.confirmedPublish(JOBS_EXCHANGE, queue, message.content, {
          messageId: String(message.properties.messageId ?? randomUUID()),
          headers: { [REPLAYED_HEADER]: 1 },
          mandatory: true,
        });
        channel.ack(message);
      }
      return chosen.length;
    });
  }

  async purgeDeadLetters(queue: string): Promise<number> {
    this.definitionOf(queue);
    return this.onOwnChannel(
      async (channel) => (await channel.purgeQueue(deadQueueName(queue))).messageCount,
    );
  }

  /**
   * Runs `work` over the messages of a queue's dead queue (its first MAX_DEAD_LETTERS_HELD, oldest
   * first), taken without acknowledging them. What `work` does not acknowledge goes back when the
   * channel closes, all together and in order: a dead queue read only in part would put the part
   * read behind the rest.
   */
  private onDeadQueue<T>(
    queue: string,
    work: (messages: GetMessage[], channel: Channel) => Promise<T>,
  ): Promise<T> {
    return this.onOwnChannel(async (channel) => {
      const messages: GetMessage[] = [];
      while (messages.length < MAX_DEAD_LETTERS_HELD) {
        const message = await channel.get(deadQueueName(queue), { noAck: false });
        if (message === false) break;
        messages.push(message);
      }
      return work(messages, channel);
    });
  }

  /**
   * Runs `work` on a channel of its own, closed after. A queue deleted by hand closes the channel:
   * that call fails, the process carries on.
   */
  private async onOwnChannel<T>(work: (channel: Channel) => Promise<T>): Promise<T> {
    const connection = this.connection;
    if (!connection) throw unavailable("not connected");
    const channel = await connection.createChannel();
    channel.on("error", () => {});
    try {
      return await work(channel);
    } finally {
      await channel.close().catch(() => {});
    }
  }

  async queueStats(): Promise<QueueStats[]> {
    return this.onOwnChannel(async (channel) => {
      const stats: QueueStats[] = [];
      for (const name of this.definitions.keys()) {
        const queue = await channel.checkQueue(name);
        const dead = await channel.checkQueue(deadQueueName(name));
        stats.push({
          queue: name,
          ready: queue.messageCount,
          dead: dead.messageCount,
          consumers: queue.consumerCount,
        });
      }
      return stats;
    });
  }

  async close(drainMs = 0): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    await Promise.all([...this.consumers].map((consumer) => consumer.stop(drainMs)));
    this.listeners.clear();
    this.failPendingReplies(unavailable("closing"));
    const connection = this.connection;
    this.dropConnection();
    await connection?.close().catch(() => {});
  }

  // ---- used by consumers ----

  /** Moves a message to the retry queue of its delay, or to the dead queue, before it is acked. */
  async forward(
    routingKey: string,
    source: ConsumeMessage,
    headers: Record<string, unknown>,
    expiration?: string,
  ): Promise<void> {
    await this.confirmedPublish("", routingKey, source.content, {
      messageId: source.properties.messageId,
      correlationId: source.properties.correlationId,
      replyTo: source.properties.replyTo,
      headers: { ...source.properties.headers, ...headers },
      ...(expiration === undefined ? {} : { expiration }),
    });
  }

  forgetConsumer(consumer: RabbitConsumer): void {
    this.consumers.delete(consumer);
  }

  // ---- connection lifecycle ----

  private async connectOrSchedule(): Promise<void> {
    this.connecting ??= this.connectOnce().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connectOnce(): Promise<void> {
    let connection: ChannelModel | undefined;
    try {
      connection = await connect(this.options.url, {
        clientProperties: { connection_name: this.options.connectionName ?? "open-platform" },
        // A publish is several small frames; with Nagle on, each waits on the broker's delayed ack.
        noDelay: true,
      });
      connection.on("error", (error: Error) =>
        this.log.warn({ err: error.message }, "broker connection error"),
      );
      connection.on("close", () => this.onConnectionLost(connection));
      const setupChannel = await connection.createChannel();
      await this.assertTopology(connection, [...this.definitions.values()], setupChannel);
      await setupChannel.close();
      const publishChannel = await connection.createConfirmChannel();
      publishChannel.on("return", (message: ConsumeMessage) => {
        if (message.properties.messageId) this.returned.add(String(message.properties.messageId));
      });
      publishChannel.on("error", (error: Error) =>
        this.log.warn({ err: error.message }, "publish channel error"),
      );
      const replyChannel = await connection.createChannel();
      replyChannel.on("return", (message: ConsumeMessage) => this.onReturnedRequest(message));
      replyChannel.on("error", (error: Error) =>
        this.log.warn({ err: error.message }, "reply channel error"),
      );
      await replyChannel.consume(DIRECT_REPLY_TO, (message) => message && this.onReply(message), {
        noAck: true,
      });
      this.connection = connection;
      for (const consumer of this.consumers) await consumer.attach(connection);
      // A listener's queue went with the old connection: each gets a new one.
      for (const listener of this.listeners) await listener.attach(connection);
      this.publishChannel = publishChannel;
      this.replyChannel = replyChannel;
      if (this.reconnectAttempt > 0) this.log.info({ attempts: this.reconnectAttempt }, "broker reconnected");
      this.reconnectAttempt = 0;
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, "broker connection failed");
      this.dropConnection();
      await connection?.close().catch(() => {});
      this.scheduleReconnect();
    }
  }

  private onConnectionLost(connection: ChannelModel | undefined): void {
    if (connection !== this.connection && this.connection !== undefined) return;
    this.dropConnection();
    this.failPendingReplies(unavailable("connection lost"));
    if (this.closed) return;
    this.log.warn("broker connection lost; reconnecting");
    this.scheduleReconnect();
  }

  private dropConnection(): void {
    this.connection = undefined;
    this.publishChannel = undefined;
    this.replyChannel = undefined;
    for (const consumer of this.consumers) consumer.detach();
    for (const listener of this.listeners) listener.detach();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.reconnectTimer) return;
    const base = Math.min(this.maxReconnectDelayMs, 200 * 2 ** this.reconnectAttempt);
    const delay = base / 2 + Math.random() * (base / 2);
    this.reconnectAttempt += 1;
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = undefined;
      void this.connectOrSchedule();
    }, delay);
  }

  private async assertTopology(
    connection: ChannelModel,
    queues: readonly QueueDefinition[],
    channel?: Channel,
  ): Promise<void> {
    const ch = channel ?? (await connection.createChannel());
    await ch.assertExchange(JOBS_EXCHANGE, "direct", { durable: true });
    await ch.assertExchange(NOTICES_EXCHANGE, "topic", { durable: true });
    for (const definition of queues) {
      for (const declaration of declarationsFor(definition)) {
        await ch.assertQueue(declaration.name, { durable: true, arguments: declaration.arguments });
        if (declaration.bindTo) await ch.bindQueue(declaration.name, JOBS_EXCHANGE, declaration.bindTo);
      }
    }
    if (!channel) await ch.close();
  }

  private confirmedPublish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    properties: {
      messageId: string;
      headers?: Record<string, unknown>;
      mandatory?: boolean;
      correlationId?: string;
      replyTo?: string;
      expiration?: string;
    },
  ): Promise<void> {
    const channel = this.publishChannel;
    if (!channel) return Promise.reject(unavailable("not connected"));
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(unavailable(`no confirm within ${this.confirmTimeoutMs} ms`)),
        this.confirmTimeoutMs,
      );
      try {
        channel.publish(
          exchange,
          routingKey,
          content,
          Object.assign(properties, { persistent: true, contentType: "application/json" }),
          (error) => {
            clearTimeout(timer);
            if (error) return reject(unavailable("publish not confirmed", error));
            if (this.returned.delete(properties.messageId)) {
              return reject(new PlatformError(ErrorCode.Internal, `no queue is bound for ${routingKey}`));
            }
            resolve();
          },
        );
      } catch (error) {
        clearTimeout(timer);
        reject(unavailable("publish failed", error));
      }
    });
  }

  private onReply(message: ConsumeMessage): void {
    const pending = this.pendingReplies.get(String(message.properties.correlationId));
    if (!pending) return;
    this.pendingReplies.delete(String(message.properties.correlationId));
    clearTimeout(pending.timer);
    const reply = JSON.parse(message.content.toString()) as ReplyEnvelope;
    if (reply.ok) pending.resolve(reply.value);
    else pending.reject(new PlatformError(reply.code ?? ErrorCode.Unprocessable, reply.error));
  }

  private onReturnedRequest(message: ConsumeMessage): void {
    const pending = this.pendingReplies.get(String(message.properties.correlationId));
    if (!pending) return;
    this.pendingReplies.delete(String(message.properties.correlationId));
    clearTimeout(pending.timer);
    pending.reject(
      new PlatformError(ErrorCode.Internal, `no queue is bound for ${message.fields.routingKey}`),
    );
  }

  private failPendingReplies(error: Error): void {
    for (const [id, pending] of this.pendingReplies) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pendingReplies.delete(id);
    }
  }

  private definitionOf(queue: string): QueueDefinition {
    const definition = this.definitions.get(queue);
    if (!definition) throw new PlatformError(ErrorCode.Internal, `queue ${queue} is not declared`);
    return definition;
  }
}

function deadLetterOf(message: GetMessage): DeadLetter {
  const headers = message.properties.headers ?? {};
  return {
    messageId: String(message.properties.messageId ?? ""),
    message: JSON.parse(message.content.toString()),
    reason: String(headers[REASON_HEADER] ?? deadLetterReason(headers)),
    attempts: Number(headers[ATTEMPT_HEADER] ?? 1),
  };
}

function deadLetterReason(headers: Record<string, unknown>): string {
  const deaths = headers["x-death"];
  if (Array.isArray(deaths) && deaths[0] && typeof deaths[0] === "object") {
    return `dead-lettered by the broker: ${String((deaths[0] as { reason?: unknown }).reason)}`;
  }
  return "dead-lettered by the broker";
}

/**
 * One listener on its own channel: a server-named queue, exclusive to the connection (deleted with
 * it), bound to the notices exchange by its topic, consumed without acknowledgements.
 */
class RabbitListener {
  private channel: Channel | undefined;
  private stopped = false;

  constructor(
    private readonly topic: string,
    private readonly handler: NoticeHandler,
    private readonly log: Logger,
  ) {}

  async attach(connection: ChannelModel): Promise<void> {
    if (this.stopped) return;
    const channel = await connection.createChannel();
    channel.on("error", (error: Error) => this.log.warn({ err: error.message }, "listener channel error"));
    await channel.assertExchange(NOTICES_EXCHANGE, "topic", { durable: true });
    const { queue } = await channel.assertQueue("", {
      exclusive: true,
      autoDelete: true,
      durable: false,
      arguments: NOTICE_QUEUE_ARGUMENTS,
    });
    await channel.bindQueue(queue, NOTICES_EXCHANGE, this.topic);
    await channel.consume(queue, (message) => message && this.deliver(message), { noAck: true });
    // Stopped while it was being attached: nothing else would close this channel.
    if (this.stopped) await channel.close().catch(() => {});
    else this.channel = channel;
  }

  detach(): void {
    this.channel = undefined;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const channel = this.channel;
    this.detach();
    // Closing the channel deletes the queue (auto-delete: its only consumer is gone).
    await channel?.close().catch(() => {});
  }

  private deliver(message: ConsumeMessage): void {
    if (this.stopped) return;
    try {
      this.handler(JSON.parse(message.content.toString()));
    } catch (error) {
      this.log.warn({ err: (error as Error).message }, "notice listener failed");
    }
  }
}

/** One consumer on its own channel, with prefetch equal to its concurrency. */
class RabbitConsumer implements Consumer {
  private channel: Channel | undefined;
  private consumerTag: string | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly handlers: RunningHandlers;
  private stopped = false;

  constructor(
    private readonly broker: RabbitMqBroker,
    private readonly definition: QueueDefinition,
    private readonly handler: MessageHandler,
    private readonly options: ConsumeOptions,
    private readonly log: Logger,
  ) {
    this.handlers = new RunningHandlers(definition);
  }

  get queue(): string {
    return this.definition.name;
  }

  async attach(connection: ChannelModel): Promise<void> {
    if (this.stopped) return;
    const channel = await connection.createChannel();
    channel.on("error", (error: Error) => this.log.warn({ err: error.message }, "consumer channel error"));
    await channel.prefetch(this.options.concurrency);
    this.channel = channel;
    const { consumerTag } = await channel.consume(this.queue, (message) => {
      if (message) this.track(this.handle(channel, message));
    });
    this.consumerTag = consumerTag;
  }

  detach(): void {
    this.channel = undefined;
    this.consumerTag = undefined;
  }

  async stop(drainMs: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const channel = this.channel;
    if (channel && this.consumerTag) await channel.cancel(this.consumerTag).catch(() => {});
    await drain(this.inFlight, drainMs);
    this.handlers.abortAll("consumer stopped");
    this.detach();
    // Closing the channel hands every unacked message back to the queue for another consumer.
    await channel?.close().catch(() => {});
    this.broker.forgetConsumer(this);
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work));
  }

  private async handle(channel: Channel, message: ConsumeMessage): Promise<void> {
    const headers = message.properties.headers ?? {};
    const attempt = Number(headers[ATTEMPT_HEADER] ?? 1);
    const messageId = String(message.properties.messageId ?? "");
    const replyTo: string | undefined = message.properties.replyTo;
    const deadline = Number(headers[DEADLINE_HEADER] ?? Number.POSITIVE_INFINITY);
    if (Date.now() >= deadline) {
      // The caller of a request/reply has given up; doing the work would answer nobody.
      channel.ack(message);
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(message.content.toString());
    } catch {
      jobsHandled.inc([this.queue, "dead"]);
      await this.settle(channel, message, { step: "dead", reason: "message is not valid JSON" }, attempt);
      return;
    }
    const step = await this.handlers.run(
      this.handler,
      body,
      {
        messageId,
        attempt,
        maxAttempts: maxAttempts(this.definition),
        redelivered: message.fields.redelivered,
        replayed: message.properties.headers?.[REPLAYED_HEADER] === 1,
      },
      this.options.timeoutMs,
    );
    const reply = replyTo ? replyFor(step) : undefined;
    if (replyTo && reply && channel === this.channel) {
      channel.sendToQueue(replyTo, encode(reply), { correlationId: message.properties.correlationId });
    }
    await this.settle(channel, message, step, attempt);
  }

  private async settle(
    channel: Channel,
    message: ConsumeMessage,
    step:
      | { step: "ack" }
      | { step: "retry"; delayMs: number; nextAttempt: number }
      | { step: "dead"; reason: string },
    attempt: number,
  ): Promise<void> {
    // A message whose channel is gone was already handed back to the queue; acking would fail.
    if (channel !== this.channel) return;
    try {
      if (step.step === "retry") {
        const deadline = Number(message.properties.headers?.[DEADLINE_HEADER]);
        const expiration = Number.isFinite(deadline) ? String(Math.max(1, deadline - Date.now())) : undefined;
        await this.broker.forward(
          retryQueueName(this.queue, step.delayMs),
          message,
          { [ATTEMPT_HEADER]: step.nextAttempt },
          expiration,
        );
      } else if (step.step === "dead") {
        this.log.warn(
          { messageId: message.properties.messageId, attempt, reason: step.reason },
          "job dead-lettered",
        );
        await this.broker.forward(deadQueueName(this.queue), message, {
          [ATTEMPT_HEADER]: attempt,
          [REASON_HEADER]: step.reason,
        });
      }
      if (channel === this.channel) channel.ack(message);
    } catch (error) {
      // The retry or dead queue did not take it: leave the message unacked so the broker redelivers it.
      this.log.warn({ err: (error as Error).message }, "could not move message; it will be redelivered");
      if (channel === this.channel) channel.nack(message, false, true);
    }
  }
}

async function drain(inFlight: Set<Promise<void>>, drainMs: number): Promise<void> {
  if (inFlight.size === 0 || drainMs <= 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...inFlight]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, drainMs);
    }),
  ]);
  clearTimeout(timer);
}
