import { z } from "zod";
import type { QueueDefinition } from "./broker.ts";
import { exportJobSchema } from "./export.ts";
import { FEED_SYNC_QUEUE, feedSyncJobSchema } from "./feed.ts";
import { thumbsJobSchema } from "./files.ts";
import { signJobSchema } from "./signature.ts";

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
  /** A family of queues `<queue>.<member>`, one per member (an external channel, say), all alike. */
  family?: boolean;
}

export type JobCatalogue = Record<string, JobDefinition>;

export function queueDefinition(job: JobDefinition): QueueDefinition {
  return { name: job.queue, retryDelaysMs: job.retryDelaysMs };
}

/** Tasks one delivery job carries: a whole recipient list of spec 000 travels as one message. */
export const DELIVERY_BATCH = 100;

/** A delivery job names the task rows it delivers, all on one channel; the rest is read from Postgres. */
export const deliveryJobSchema = z.object({ taskIds: z.array(z.uuid()).min(1).max(DELIVERY_BATCH) });

export interface DeliveryJob {
  queue: string;
  message: z.infer<typeof deliveryJobSchema>;
  messageId: string;
}

/** The jobs that deliver these tasks: one per channel queue and per `DELIVERY_BATCH` tasks. */
export function deliveryJobs(tasks: readonly { id: string; channel: string }[]): DeliveryJob[] {
  const byQueue = new Map<string, string[]>();
  for (const task of tasks) {
    const queue = deliveryQueue(task.channel);
    const ids = byQueue.get(queue);
    if (ids) ids.push(task.id);
    else byQueue.set(queue, [task.id]);
  }
  const jobs: DeliveryJob[] = [];
  for (const [queue, ids] of byQueue) {
    for (let start = 0; start < ids.length; start += DELIVERY_BATCH) {
      const taskIds = ids.slice(start, start + DELIVERY_BATCH);
      jobs.push({ queue, message: { taskIds }, messageId: taskIds[0]! });
    }
  }
  return jobs;
}

const DELIVERY = {
  payload: deliveryJobSchema,
  retryDelaysMs: [5_000, 30_000, 300_000],
  timeoutMs: 60_000,
  concurrency: 16,
} as const;

const BUILT_IN_DELIVERY_CHANNELS = new Set(["email", "sms", "app", "msgapp_template"]);

/** The queue of a channel's deliveries: `notify.<channel>`, or `notify.ext.<name>` for an external channel. */
export function deliveryQueue(channel: string): string {
  return BUILT_IN_DELIVERY_CHANNELS.has(channel) ? `notify.${channel}` : `notify.ext.${channel}`;
}

/**
 * Every job kind of the platform, by name. Capabilities add their kinds here; the handler map in
 * workers/ is typed from this object, so a kind without a handler does not compile.
 */
export const jobCatalogue = {
  notifyEmail: { queue: "notify.email", description: "deliver a notification task by e-mail", ...DELIVERY },
  notifySms: { queue: "notify.sms", description: "deliver a notification task by SMS", ...DELIVERY },
  notifyApp: {
    queue: "notify.app",
    description: "deliver a notification task to the campus app (app_sms falls back to SMS)",
    ...DELIVERY,
  },
  notifyMsgappTemplate: {
    queue: "notify.msgapp_template",
    description: "deliver a notification task as a messaging-app template message",
    ...DELIVERY,
  },
  notifyExternal: {
    queue: "notify.ext",
    family: true,
    description: "deliver a notification task to an external channel (one queue per channel name)",
    ...DELIVERY,
  },
  sign: {
    queue: "sign",
    description: "seal (and sign) an uploaded PDF; the gateway waits for the answer",
    payload: signJobSchema,
    // A caller is waiting with a deadline: an attempt that fails is reported, not retried later.
    retryDelaysMs: [],
    timeoutMs: 60_000,
    // Sealing is CPU work: about one job per core.
    concurrency: 2,
  },
  export: {
    queue: "export",
    description: "render a document from a template; the gateway waits for the answer",
    payload: exportJobSchema,
    // A caller is waiting with a deadline: an attempt that fails is reported, not retried later.
    retryDelaysMs: [],
    timeoutMs: 60_000,
    concurrency: 2,
  },
  feedSync: {
    queue: FEED_SYNC_QUEUE,
    description: "pull a tenant's enterprise feed and merge it into the directory",
    payload: feedSyncJobSchema,
    // A failed run changed nothing; trying again soon covers a provider's short outage.
    retryDelaysMs: [30_000, 300_000],
    timeoutMs: 30 * 60_000,
    concurrency: 1,
  },
  filesThumbs: {
    queue: "files.thumbs",
    description: "make the thumbnails a file asks for",
    payload: thumbsJobSchema,
    retryDelaysMs: [5_000, 30_000],
    timeoutMs: 120_000,
    concurrency: 2,
  },
} satisfies JobCatalogue;

export type JobName = keyof typeof jobCatalogue;

/** Every job kind, for processes that declare or consume them all. */
export const ALL_JOBS: readonly JobDefinition[] = Object.values(jobCatalogue as JobCatalogue);

/**
 * The catalogue with the operator's settings: retry delays and send timeout for notification
 * deliveries, the timeouts of sealing and exporting.
 */
export function withOperatorPolicy<Catalogue extends JobCatalogue>(
  catalogue: Catalogue,
  policy: {
    delivery: { retryDelaysMs: readonly number[]; timeoutMs: number };
    signTimeoutMs: number;
    exportTimeoutMs: number;
  },
): Catalogue {
  return Object.fromEntries(
    Object.entries(catalogue).map(([name, job]) => {
      if (job.payload === deliveryJobSchema) return [name, { ...job, ...policy.delivery }];
      if (job.payload === signJobSchema) return [name, { ...job, timeoutMs: policy.signTimeoutMs }];
      if (job.payload === exportJobSchema) return [name, { ...job, timeoutMs: policy.exportTimeoutMs }];
      return [name, job];
    }),
  ) as Catalogue;
}
