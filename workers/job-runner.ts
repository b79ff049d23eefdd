import type { z } from "zod";
import type { Broker, Consumer, HandlerOutcome } from "../contracts/broker.ts";
import { type JobCatalogue, type JobDefinition, queueDefinition } from "../contracts/jobs.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Logger } from "../runtime/logger.ts";

export interface JobContext {
  log: Logger;
  messageId: string;
  attempt: number;
  maxAttempts: number;
  redelivered: boolean;
  signal: AbortSignal;
}

/** A job handler: done, retry (a later attempt may help) or fail (it never will). */
export type JobHandler<Payload> = (payload: Payload, context: JobContext) => Promise<HandlerOutcome>;

export type JobHandlers<Catalogue extends JobCatalogue> = {
  [Name in keyof Catalogue]: JobHandler<z.infer<Catalogue[Name]["payload"]>>;
};

export interface StartJobsOptions {
  /** Overrides every job's own concurrency. */
  concurrency?: number;
}

/** The job definition of each queue name, failing with one line for a queue no job travels on. */
export function jobsForQueues(catalogue: JobCatalogue, queues: readonly string[]): JobDefinition[] {
  const byQueue = new Map(Object.values(catalogue).map((job) => [job.queue, job]));
  return queues.map((queue) => {
    const job = byQueue.get(queue);
    if (!job) {
      const known = [...byQueue.keys()].sort().join(", ") || "none";
      throw new ConfigError(`No job kind consumes queue "${queue}" (known queues: ${known})`);
    }
    return job;
  });
}

/**
 * Consumes the given queues with their handlers. Fails at start, before consuming anything, when a
 * queue has no job kind or no handler.
 */
export async function startJobConsumers<Catalogue extends JobCatalogue>(
  broker: Broker,
  catalogue: Catalogue,
  handlers: Partial<JobHandlers<Catalogue>>,
  queues: readonly string[],
  log: Logger,
  options: StartJobsOptions = {},
): Promise<Consumer[]> {
  const jobs = jobsForQueues(catalogue, queues);
  const handlerByQueue = new Map<string, JobHandler<unknown>>();
  for (const [name, job] of Object.entries(catalogue)) {
    const handler = handlers[name as keyof Catalogue] as JobHandler<unknown> | undefined;
    if (handler) handlerByQueue.set(job.queue, handler);
  }
  for (const job of jobs) {
    if (!handlerByQueue.has(job.queue)) throw new ConfigError(`No handler for queue "${job.queue}"`);
  }
  await broker.declare(jobs.map(queueDefinition));
  const consumers: Consumer[] = [];
  for (const job of jobs) {
    const handler = handlerByQueue.get(job.queue)!;
    const jobLog = log.child({ queue: job.queue });
    const consumer = await broker.consume(
      job.queue,
      async (message, delivery) => {
        const payload = job.payload.safeParse(message);
        if (!payload.success) {
          const issue = payload.error.issues[0]!;
          return {
            outcome: "fail",
            reason: `invalid payload at ${issue.path.join(".") || "(root)"}: ${issue.message}`,
          };
        }
        const context: JobContext = { ...delivery, log: jobLog.child({ messageId: delivery.messageId }) };
        const outcome = await handler(payload.data, context);
        context.log.debug({ outcome: outcome.outcome, attempt: delivery.attempt }, "job handled");
        return outcome;
      },
      { concurrency: options.concurrency ?? job.concurrency, timeoutMs: job.timeoutMs },
    );
    consumers.push(consumer);
  }
  log.info({ queues: jobs.map((job) => job.queue) }, "consuming");
  return consumers;
}
