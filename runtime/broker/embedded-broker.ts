import { randomUUID } from "node:crypto";
import type {
  Broker,
  ConsumeOptions,
  Consumer,
  DeadLetter,
  MessageHandler,
  NoticeHandler,
  PublishOptions,
  QueueDefinition,
  QueueStats,
  ReplyEnvelope,
  StopListening,
} from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { Logger } from "../logger.ts";
import { maxAttempts, REDELIVERY_LIMIT, RunningHandlers, replyFor } from "./delivery.ts";

/** Messages a queue holds before publishes are refused, as RabbitMQ's reject-publish overflow would. */
const MAX_QUEUE_LENGTH = 100_000;

interface Envelope {
  messageId: string;
  /** JSON text, so handlers never share objects with the publisher, as over a real broker. */
  body: string;
  attempt: number;
  deliveries: number;
  /** Put back from the dead queue by an operator. */
  replayed?: boolean;
  deadline?: number;
  reply?: (reply: ReplyEnvelope) => void;
}

interface EmbeddedQueue {
  definition: QueueDefinition;
  ready: Envelope[];
  consumers: EmbeddedConsumer[];
  dead: DeadLetter[];
  nextConsumer: number;
}

/**
 * The broker interface in process memory, for the embedded mode: the same attempts, retry delays,
 * dead queue, redelivery and request/reply deadline as RabbitMQ, without its durability (Postgres
 * stays the record of every job, so work still pending can be published again after a restart).
 */
export class EmbeddedBroker implements Broker {
  readonly kind = "embedded";
  private readonly queues = new Map<string, EmbeddedQueue>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly listeners = new Map<string, Set<NoticeHandler>>();
  private closed = false;

  constructor(private readonly log: Logger) {}

  isConnected(): boolean {
    return !this.closed;
  }

  async declare(queues: readonly QueueDefinition[]): Promise<void> {
    for (const definition of queues) {
      const existing = this.queues.get(definition.name);
      if (existing) existing.definition = definition;
      else
        this.queues.set(definition.name, { definition, ready: [], consumers: [], dead: [], nextConsumer: 0 });
    }
  }

  async publish(queue: string, message: unknown, options: PublishOptions = {}): Promise<void> {
    this.enqueue(this.queueOf(queue), {
      messageId: options.messageId ?? randomUUID(),
      body: JSON.stringify(message),
      attempt: 1,
      deliveries: 0,
    });
  }

  request(queue: string, message: unknown, options: { timeoutMs: number }): Promise<unknown> {
    const target = this.queueOf(queue);
    return new Promise((resolve, reject) => {
      const envelope: Envelope = {
        messageId: randomUUID(),
        body: JSON.stringify(message),
        attempt: 1,
        deliveries: 0,
        deadline: Date.now() + options.timeoutMs,
        reply: (reply) => {
          clearTimeout(timer);
          this.timers.delete(timer);
          if (reply.ok) resolve(reply.value);
          else reject(new PlatformError(reply.code ?? ErrorCode.Unprocessable, reply.error));
        },
      };
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        envelope.deadline = 0; // nobody waits any more, whatever the clock says
        reject(
          new PlatformError(
            ErrorCode.DeadlineExceeded,
            `no worker answered on queue ${queue} within ${options.timeoutMs} ms`,
          ),
        );
      }, options.timeoutMs);
      this.timers.add(timer);
      this.enqueue(target, envelope);
    });
  }

  async consume(queue: string, handler: MessageHandler, options: ConsumeOptions): Promise<Consumer> {
    const target = this.queueOf(queue);
    const consumer = new EmbeddedConsumer(this, target, handler, options, this.log.child({ queue }));
    target.consumers.push(consumer);
    this.dispatch(target);
    return consumer;
  }

  async broadcast(topic: string, notice: unknown): Promise<void> {
    if (this.closed) throw new PlatformError(ErrorCode.Unavailable, "message broker unavailable: closed");
    const body = JSON.stringify(notice);
    // Each listener on a later turn of the event loop, with its own copy, as over a real broker: a
    // broadcaster never runs its listeners inside its own call.
    for (const handler of this.listeners.get(topic) ?? []) {
      setImmediate(() => {
        if (this.closed || !this.listeners.get(topic)?.has(handler)) return;
        try {
          handler(JSON.parse(body));
        } catch (error) {
          this.log.warn({ err: (error as Error).message, topic }, "notice listener failed");
        }
      });
    }
  }

  async listen(topic: string, handler: NoticeHandler): Promise<StopListening> {
    const handlers = this.listeners.get(topic) ?? new Set<NoticeHandler>();
    this.listeners.set(topic, handlers);
    // Its own entry, so one handler listening twice is stopped once per listen.
    const own: NoticeHandler = (notice) => handler(notice);
    handlers.add(own);
    return async () => {
      handlers.delete(own);
    };
  }

  async takeDeadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return this.queueOf(queue).dead.splice(0, limit);
  }

  async peekDeadLetters(queue: string, limit: number): Promise<DeadLetter[]> {
    return this.queueOf(queue).dead.slice(0, limit);
  }

  async replayDeadLetters(queue: string, options: { messageId?: string; limit: number }): Promise<number> {
    const target = this.queueOf(queue);
    const chosen =
      options.messageId === undefined
        ? target.dead.slice(0, options.limit)
        : target.dead.filter((letter) => letter.messageId === options.messageId).slice(0, 1);
    for (const letter of chosen) {
      const body = JSON.stringify(letter.message);
      this.enqueue(target, { messageId: letter.messageId, body, attempt: 1, deliveries: 0, replayed: true });
      target.dead.splice(target.dead.indexOf(letter), 1);
    }
    return chosen.length;
  }

  async purgeDeadLetters(queue: string): Promise<number> {
    return this.queueOf(queue).dead.splice(0).length;
  }

  async queueStats(): Promise<QueueStats[]> {
    return [...this.queues.values()].map((queue) => ({
      queue: queue.definition.name,
      ready: queue.ready.length,
      dead: queue.dead.length,
      consumers: queue.consumers.length,
    }));
  }

  async close(drainMs = 0): Promise<void> {
    const consumers = [...this.queues.values()].flatMap((queue) => queue.consumers);
    await Promise.all(consumers.map((consumer) => consumer.stop(drainMs)));
    this.closed = true;
    this.listeners.clear();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  // ---- used by consumers ----

  enqueue(queue: EmbeddedQueue, envelope: Envelope, atFront = false): void {
    if (this.closed) throw new PlatformError(ErrorCode.Unavailable, "message broker unavailable: closed");
    if (queue.ready.length >= MAX_QUEUE_LENGTH) {
      throw new PlatformError(
        ErrorCode.Unavailable,
        `message broker unavailable: queue ${queue.definition.name} is full`,
      );
    }
    if (atFront) queue.ready.unshift(envelope);
    else queue.ready.push(envelope);
    this.dispatch(queue);
  }

  later(delayMs: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (this.closed) return;
      try {
        action();
      } catch (error) {
        this.log.error({ err: (error as Error).message }, "delayed message could not be queued");
      }
    }, delayMs);
    this.timers.add(timer);
  }

  /** Hands ready messages to consumers with free capacity, round robin. */
  dispatch(queue: EmbeddedQueue): void {
    while (queue.ready.length > 0) {
      const consumer = this.pickConsumer(queue);
      if (!consumer) return;
      const envelope = queue.ready.shift()!;
      envelope.deliveries += 1;
      if (envelope.deliveries > REDELIVERY_LIMIT) {
        queue.dead.push(deadLetter(envelope, "dead-lettered by the broker: delivery_limit"));
        continue;
      }
      consumer.deliver(envelope);
    }
  }

  private pickConsumer(queue: EmbeddedQueue): EmbeddedConsumer | undefined {
    const { consumers } = queue;
    for (let i = 0; i < consumers.length; i++) {
      const index = (queue.nextConsumer + i) % consumers.length;
      const consumer = consumers[index]!;
      if (consumer.hasCapacity()) {
        queue.nextConsumer = index + 1;
        return consumer;
      }
    }
    return undefined;
  }

  private queueOf(name: string): EmbeddedQueue {
    const queue = this.queues.get(name);
    if (!queue) throw new PlatformError(ErrorCode.Internal, `queue ${name} is not declared`);
    return queue;
  }
}

function deadLetter(envelope: Envelope, reason: string): DeadLetter {
  return {
    messageId: envelope.messageId,
    message: JSON.parse(envelope.body),
    reason,
    attempts: envelope.attempt,
  };
}

class EmbeddedConsumer implements Consumer {
  private readonly inFlight = new Map<Envelope, Promise<void>>();
  private readonly handlers: RunningHandlers;
  private stopped = false;

  constructor(
    private readonly broker: EmbeddedBroker,
    private readonly target: EmbeddedQueue,
    private readonly handler: MessageHandler,
    private readonly options: ConsumeOptions,
    private readonly log: Logger,
  ) {
    this.handlers = new RunningHandlers(target.definition);
  }

  get queue(): string {
    return this.target.definition.name;
  }

  hasCapacity(): boolean {
    return !this.stopped && this.inFlight.size < this.options.concurrency;
  }

  deliver(envelope: Envelope): void {
    const work = this.handle(envelope).finally(() => {
      this.inFlight.delete(envelope);
      if (!this.stopped) this.broker.dispatch(this.target);
    });
    this.inFlight.set(envelope, work);
  }

  async stop(drainMs: number): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.target.consumers = this.target.consumers.filter((consumer) => consumer !== this);
    if (this.inFlight.size > 0 && drainMs > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled(this.inFlight.values()),
        new Promise((resolve) => {
          timer = setTimeout(resolve, drainMs);
        }),
      ]);
      clearTimeout(timer);
    }
    // Whatever is still in hand goes back to the queue, as when a RabbitMQ channel closes unacked.
    const abandoned = [...this.inFlight.keys()];
    this.inFlight.clear();
    this.handlers.abortAll("consumer stopped");
    for (const envelope of abandoned.reverse()) {
      try {
        this.broker.enqueue(this.target, envelope, true);
      } catch (error) {
        this.log.warn({ err: (error as Error).message }, "could not hand a message back");
      }
    }
  }

  private async handle(envelope: Envelope): Promise<void> {
    if (envelope.deadline !== undefined && Date.now() >= envelope.deadline) return;
    const definition = this.target.definition;
    const step = await this.handlers.run(
      this.handler,
      JSON.parse(envelope.body),
      {
        messageId: envelope.messageId,
        attempt: envelope.attempt,
        maxAttempts: maxAttempts(definition),
        redelivered: envelope.deliveries > 1,
        replayed: envelope.replayed === true,
      },
      this.options.timeoutMs,
    );
    // A consumer stopped mid-job has handed the message back; its outcome no longer counts.
    if (!this.inFlight.has(envelope)) return;
    const reply = replyFor(step);
    if (reply) envelope.reply?.(reply);
    if (step.step === "retry") {
      const retried: Envelope = { ...envelope, attempt: step.nextAttempt, deliveries: 0 };
      this.broker.later(step.delayMs, () => this.broker.enqueue(this.target, retried));
    } else if (step.step === "dead") {
      this.log.warn(
        { messageId: envelope.messageId, attempt: envelope.attempt, reason: step.reason },
        "job dead-lettered",
      );
      this.target.dead.push(deadLetter(envelope, step.reason));
    }
  }
}
