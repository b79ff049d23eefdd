import type { QueueDefinition } from "../../contracts/broker.ts";
import { REDELIVERY_LIMIT } from "./delivery.ts";

/** The one durable direct exchange every job is published to, routed by queue name. */
export const JOBS_EXCHANGE = "jobs";

/**
 * The exchange notices are broadcast on, routed by topic: each listening process binds a queue of
 * its own (exclusive, deleted with its connection) with the topic as its key.
 */
export const NOTICES_EXCHANGE = "notices";

/**
 * A listener's queue: a listener that falls behind loses its oldest notices rather than holding
 * memory on the broker, and a notice older than a minute is dropped; notices are hints whose facts
 * live in Postgres.
 */
export const NOTICE_QUEUE_ARGUMENTS = { "x-max-length": 10_000, "x-message-ttl": 60_000 };

/** Named by its delay, so changing a queue's retry policy declares new retry queues instead of clashing. */
export function retryQueueName(queue: string, delayMs: number): string {
  return `${queue}.retry.${delayMs}ms`;
}

export function deadQueueName(queue: string): string {
  return `${queue}.dead`;
}

export interface QueueDeclaration {
  name: string;
  arguments: Record<string, unknown>;
  /** Routing key on the jobs exchange, for the queues jobs are published to. */
  bindTo?: string;
}

/**
 * RabbitMQ declarations for one job queue: the quorum work queue, one retry queue per delay whose
 * TTL dead-letters the message back to the work queue, and the dead queue.
 */
export function declarationsFor(definition: QueueDefinition): QueueDeclaration[] {
  const { name } = definition;
  const quorum = { "x-queue-type": "quorum" };
  const work: QueueDeclaration = {
    name,
    bindTo: name,
    arguments: {
      ...quorum,
      "x-delivery-limit": REDELIVERY_LIMIT,
      "x-dead-letter-exchange": "",
      "x-dead-letter-routing-key": deadQueueName(name),
    },
  };
  const retries = [...new Set(definition.retryDelaysMs)].map(
    (delayMs): QueueDeclaration => ({
      name: retryQueueName(name, delayMs),
      arguments: {
        ...quorum,
        "x-message-ttl": delayMs,
        "x-dead-letter-exchange": JOBS_EXCHANGE,
        "x-dead-letter-routing-key": name,
        "x-dead-letter-strategy": "at-least-once",
        "x-overflow": "reject-publish",
      },
    }),
  );
  const dead: QueueDeclaration = { name: deadQueueName(name), arguments: quorum };
  return [work, ...retries, dead];
}
