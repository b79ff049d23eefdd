import type { z } from "zod";
import type { Broker, Consumer, HandlerOutcome } from "../contracts/broker.ts";
import { type JobCatalogue, type JobDefinition, queueDefinition } from "../contracts/jobs.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import { ConfigError } from "../runtime/config.ts";
import type { Logger } from "../runtime/logger.ts";

export interface JobContext {
  log: Logger;
  messageId: string;
  attempt: number;
  maxAttempts: number;
  /** How long after this attempt the next one comes if the handler asks for a retry; undefined on the last. */
  retryDelayMs: number | undefined;
  redelivered: boolean;
  /** Put back from the dead queue by an operator, once the fault was fixed. */
  replayed: boolean;
  signal: AbortSignal;
}

/**
 * What a handler decides: done (with the answer, for a kind whose caller waits for one), retry (a
 * later attempt may help) or fail (it never will).
 */
export type JobOutcome<Result = undefined> =
  | ([Result] extends [undefined] ? { outcome: "done" } : { outcome: "done"; reply: Result })
  | Exclude<HandlerOutcome, { outcome: "done" }>;

export type JobHandler<Payload, Result = undefined> = (
  payload: Payload,
  context: JobContext,
) => Promise<JobOutcome<Result>>;

/** The answer of a catalogued kind: its result schema's type, or nothing. */
type ResultOf<Job> = Job extends { result: infer Result extends z.ZodType } ? z.output<Result> : undefined;

export type JobHandlers<Catalogue extends JobCatalogue> = {
  [Name in keyof Catalogue]: JobHandler<z.output<Catalogue[Name]["payload"]>, ResultOf<Catalogue[Name]>>;
};

export interface StartJobsOptions {
  /** Overrides every job's own concurrency. */
  concurrency?: number;
}

/** A job kind as a worker consumes it: its catalogue name, and its definition on a concrete queue. */
export interface ConsumedJob {
  name: string;
  job: JobDefinition;
}

/**
 * The job kind of each queue name, failing with one line for a queue no job travels on. A queue
 * family (`notify.ext`) covers every `<family>.<member>` queue, such as `notify.ext.campus_wall`.
 */
export function jobsForQueues(catalogue: JobCatalogue, queues: readonly string[]): ConsumedJob[] {
  const entries = Object.entries(catalogue);
  return queues.map((queue) => {
    const exact = entries.find(([, job]) => !job.family && job.queue === queue);
    const family = entries.find(
      ([, job]) => job.family && queue.startsWith(`${job.queue}.`) && queue.length > job.queue.length + 1,
    );
    const found = exact ?? family;
    if (!found) {
      const known =
        entries
          .map(([, job]) => (job.family ? `${job.queue}.<name>` : job.queue))
          .sort()
          .join(", ") || "none";
      throw new ConfigError(`No job kind consumes queue "${queue}" (known queues: ${known})`);
    }
    return { name: found[0], job: { ...found[1], queue } };
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
  const consumed = jobsForQueues(catalogue, queues);
  for (const { name, job } of consumed) {
    if (!handlers[name as keyof Catalogue]) throw new ConfigError(`No handler for queue "${job.queue}"`);
  }
  const jobs = consumed.map(({ job }) => job);
  await broker.declare(jobs.map(queueDefinition));
  const consumers: Consumer[] = [];
  for (const { name, job } of consumed) {
    const handler = handlers[name as keyof Catalogue] as JobHandler<unknown, unknown>;
    const jobLog = log.child({ queue: job.queue });
    const consumer = await broker.consume(
      job.queue,
      async (message, delivery) => {
        const payload = job.payload.safeParse(message);
        if (!payload.success) {
          return { outcome: "fail", reason: `invalid payload at ${firstIssueMessage(payload.error.issues)}` };
        }
        const context: JobContext = {
          log: jobLog.child({ messageId: delivery.messageId }),
          messageId: delivery.messageId,
          attempt: delivery.attempt,
          maxAttempts: delivery.maxAttempts,
          retryDelayMs:
            delivery.attempt < delivery.maxAttempts
              ? (job.retryDelaysMs[delivery.attempt - 1] ?? 0)
              : undefined,
          redelivered: delivery.redelivered,
          replayed: delivery.replayed,
          // Read through: the broker makes the signal only when a handler asks for it.
          get signal() {
            return delivery.signal;
          },
        };
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
