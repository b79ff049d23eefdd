import type { z } from "zod";
import type { QueueDefinition } from "./broker.ts";

/** A kind of job: the queue it travels on, its payload schema, and how it is retried and timed out. */
export interface JobDefinition<Payload extends z.ZodType = z.ZodType> {
  queue: string;
  description: string;
  payload: Payload;
  /** Delays before each retry; the job is tried `retryDelaysMs.length + 1` times, then dead-lettered. */
  retryDelaysMs: readonly number[];
  /** A handler still running after this long counts as a failed attempt. */
  timeoutMs: number;
  /** Jobs one worker process handles at once on this queue (also the prefetch); WORKER_CONCURRENCY overrides. */
  concurrency: number;
}

export type JobCatalogue = Record<string, JobDefinition>;

export function queueDefinition(job: JobDefinition): QueueDefinition {
  return { name: job.queue, retryDelaysMs: job.retryDelaysMs };
}

/**
 * Every job kind of the platform, by name. Capabilities add their kinds here; the handler map in
 * workers/ is typed from this object, so a kind without a handler does not compile.
 */
export const jobCatalogue = {} satisfies JobCatalogue;

export type JobName = keyof typeof jobCatalogue;

/** Every job kind, for processes that declare or consume them all. */
export const ALL_JOBS: readonly JobDefinition[] = Object.values(jobCatalogue as JobCatalogue);
