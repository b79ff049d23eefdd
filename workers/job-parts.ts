import type { Consumer } from "../contracts/broker.ts";
import type { JobName, jobCatalogue } from "../contracts/jobs.ts";
import type { LiveChannels } from "../notifications/live-channels.ts";
import type { Config } from "../runtime/config.ts";
import type { Platform } from "../runtime/platform.ts";
import { exportPart } from "./export/export-part.ts";
import { feedPart } from "./feed/feed-part.ts";
import { filesPart } from "./files/files-part.ts";
import { jobsForQueues, startJobConsumers } from "./job-runner.ts";
import { notifyPart } from "./notify/notify-part.ts";
import { outboxPart } from "./outbox/outbox-part.ts";
import { signPart } from "./sign/sign-part.ts";
import type { PlatformJobHandlers, StartedPart, WorkerPart } from "./worker-part.ts";

/** Every worker folder's part. A job kind is handled by exactly one; a part may handle none. */
const WORKER_PARTS = [notifyPart, signPart, exportPart, feedPart, filesPart, outboxPart] as const;

type HandledBy<Part> = Part extends WorkerPart<infer Name> ? Name : never;

/** A kind of the catalogue that no part handles fails to compile here, named in the error. */
const noKindUnhandled: Record<Exclude<JobName, HandledBy<(typeof WORKER_PARTS)[number]>>, never> = {};
void noKindUnhandled;

/** The job side of a process: consumers, what their handlers hold open, and periodic tasks. */
export interface JobParts {
  consumers: Consumer[];
  /** Stops the sweepers, the feed scheduler and the outbox relay, first thing in a shutdown. */
  stopPeriodicTasks(): void;
  /** Stops the consumers (draining up to `drainMs`), then closes what the handlers held. */
  stop(drainMs: number): Promise<void>;
  /** Consumes more queues of the kinds already handled (an external channel added while running). */
  consume(queues: readonly string[]): Promise<void>;
}

/** Consumes `queues` with their handlers and starts the periodic tasks of the parts they belong to. */
export async function startJobParts(
  config: Config,
  platform: Platform,
  channels: LiveChannels,
  /** The platform's catalogue, with the operator's delays and timeouts. */
  catalogue: typeof jobCatalogue,
  queues: readonly string[],
): Promise<JobParts> {
  const consumed = new Set(jobsForQueues(catalogue, queues).map(({ name }) => name));
  let consumers: Consumer[] = [];
  const started: StartedPart<JobName>[] = [];
  const periodic: (() => void)[] = [];
  const handlers: Partial<PlatformJobHandlers<JobName>> = {};
  const options = { concurrency: config.workerConcurrency };
  const parts: JobParts = {
    get consumers() {
      return consumers;
    },
    stopPeriodicTasks() {
      for (const stop of periodic.splice(0)) stop();
    },
    async stop(drainMs) {
      await Promise.all(consumers.map((consumer) => consumer.stop(drainMs)));
      await Promise.all(started.map((part) => part.close?.()));
    },
    async consume(more) {
      const added = await startJobConsumers(
        platform.broker,
        catalogue,
        handlers,
        more,
        platform.log,
        options,
      );
      consumers = [...consumers, ...added];
    },
  };
  try {
    for (const part of WORKER_PARTS as readonly WorkerPart<JobName>[]) {
      if (part.jobs.length > 0 && !part.jobs.some((name) => consumed.has(name))) continue;
      const running = await part.start({ config, platform, channels });
      started.push(running);
      Object.assign(handlers, running.handlers);
    }
    consumers = await startJobConsumers(platform.broker, catalogue, handlers, queues, platform.log, options);
    for (const part of started) for (const start of part.periodicTasks ?? []) periodic.push(start());
  } catch (error) {
    parts.stopPeriodicTasks();
    await parts.stop(0);
    throw error;
  }
  return parts;
}
