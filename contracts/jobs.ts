import { z } from "zod";
import type { QueueDefinition } from "./broker.ts";
import { BUILT_IN_CHANNEL_TABLE, isBuiltInChannel } from "./channels.ts";
import { exportJobSchema, exportResultSchema } from "./export.ts";
import { FEED_SYNC_QUEUE, feedSyncJobSchema } from "./feed.ts";
import { thumbsJobSchema } from "./files.ts";
import { signJobSchema, signResultSchema } from "./signature.ts";

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
  /** Request/reply jobs only: the worker's answer, which the caller waits for and reads typed. */
  result?: z.ZodType;
}

export type JobCatalogue = Record<string, JobDefinition>;

export function queueDefinition(job: JobDefinition): QueueDefinition {
  return { name: job.queue, retryDelaysMs: job.retryDelaysMs };
}

/** Tasks one delivery job carries: a whole recipient list of spec 000 travels as one message. */
export const DELIVERY_BATCH = 100;

/** A delivery job names the task rows it delivers, all on one channel; the rest is read from Postgres. */
export const deliveryJobSchema = z.object({ taskIds: z.array(z.uuid()).min(1).max(DELIVERY_BATCH) });

/** The job kinds that deliver notification tasks, one per built-in channel and one for external ones. */
export type DeliveryJobName =
  | "notifyEmail"
  | "notifySms"
  | "notifyApp"
  | "notifyMsgappTemplate"
  | "notifyExternal";

/** A delivery job as its producer enqueues it; `member` names the external channel of a `notifyExternal` job. */
export interface DeliveryJob {
  name: DeliveryJobName;
  member?: string;
  payload: z.infer<typeof deliveryJobSchema>;
  messageId: string;
}

/** The job kind delivering on a channel: a built-in channel's own, else `notifyExternal` for that channel. */
export function deliveryJobOf(channel: string): { name: DeliveryJobName; member?: string } {
  const builtIn = isBuiltInChannel(channel) ? BUILT_IN_CHANNEL_TABLE[channel].job : null;
  return builtIn ? { name: builtIn } : { name: "notifyExternal", member: channel };
}

/** The jobs that deliver these tasks: one per channel and per `DELIVERY_BATCH` tasks. */
export function deliveryJobs(tasks: readonly { id: string; channel: string }[]): DeliveryJob[] {
  const byChannel = new Map<string, string[]>();
  for (const task of tasks) {
    const ids = byChannel.get(task.channel);
    if (ids) ids.push(task.id);
    else byChannel.set(task.channel, [task.id]);
  }
  const jobs: DeliveryJob[] = [];
  for (const [channel, ids] of byChannel) {
    const kind = deliveryJobOf(channel);
    for (let start = 0; start < ids.length; start += DELIVERY_BATCH) {
      const taskIds = ids.slice(start, start + DELIVERY_BATCH);
      jobs.push({ ...kind, payload: { taskIds }, messageId: taskIds[0]! });
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

/**
 * Every job kind of the platform, by name. Capabilities add their kinds here; producers enqueue and
 * call them through the typed job client, and the handler map in workers/ is typed from this
 * object, so a kind without a handler does not compile.
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
    result: signResultSchema,
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
    result: exportResultSchema,
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

type Catalogued = typeof jobCatalogue;

/** What a producer hands over for a job of this kind (before the consumer's parse fills defaults). */
export type JobPayload<Name extends JobName> = z.input<Catalogued[Name]["payload"]>;

/** What a handler of this kind receives: the parsed payload. */
export type ParsedJobPayload<Name extends JobName> = z.output<Catalogued[Name]["payload"]>;

/** The kinds whose producer waits for the worker's answer. */
export type RequestJobName = {
  [Name in JobName]: Catalogued[Name] extends { result: z.ZodType } ? Name : never;
}[JobName];

/** The answer of a request/reply kind; `undefined` for a kind nobody waits for. */
export type JobResult<Name extends JobName> = Catalogued[Name] extends {
  result: infer Result extends z.ZodType;
}
  ? z.output<Result>
  : undefined;

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
