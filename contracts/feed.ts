import { z } from "zod";

/** The four addresses of spec 001's enterprise feed, in the order they are pulled and applied. */
export const FEED_ENTITIES = ["users", "depts", "posts", "occupies"] as const;
export type FeedEntity = (typeof FEED_ENTITIES)[number];

/** Where each address's name goes in `addresses`. */
export const ENTITY_PLACEHOLDER = "{entity}";

/** A tenant's enterprise feed, as the bootstrap file and the admin API set it. */
export const bootstrapFeedSchema = z
  .object({
    /** Domain of the tenant the feed describes. */
    tenant: z.string().min(1).max(253),
    /** Base URL the addresses are relative to. */
    url: z.url().max(2048),
    /** Each address: this with `{entity}` replaced by users, depts, posts or occupies (`get_{entity}_since`). */
    addresses: z
      .string()
      .max(500)
      .refine((pattern) => pattern.split(ENTITY_PLACEHOLDER).length === 2, "contains {entity} once")
      .default(ENTITY_PLACEHOLDER),
    /** Environment variable (in feed workers) holding the `Authorization` header to send. */
    authorizationEnv: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]{0,127}$/, "an environment variable name")
      .optional(),
    /** Seconds between scheduled runs; 0: only runs triggered on the admin API. */
    intervalSeconds: z
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .refine((seconds) => seconds === 0 || seconds >= 60, "0, or at least 60")
      .default(3600),
    /** Seconds one address may take to answer in full. */
    timeoutSeconds: z.number().int().min(1).max(3600).default(300),
    enabled: z.boolean().default(true),
  })
  .strict();

export type BootstrapFeed = z.infer<typeof bootstrapFeedSchema>;

export const FEED_SYNC_QUEUE = "feed.sync";

/** What started a run: its schedule, an operator, or the schedule's retry of a failed run. */
export const FEED_RUN_TRIGGERS = ["schedule", "manual", "retry"] as const;
export type FeedRunTrigger = (typeof FEED_RUN_TRIGGERS)[number];

export const FEED_RUN_STATUSES = ["queued", "running", "succeeded", "failed", "abandoned"] as const;

/**
 * A `feed.sync` job: sync this tenant's feed, asked for at `requestedAt` (ms), by starting the
 * queued run `runId`. A job without `runId` (queued before runs were recorded when asked for)
 * starts a run of its own.
 */
export const feedSyncJobSchema = z.object({
  tenantId: z.uuid(),
  trigger: z.enum(FEED_RUN_TRIGGERS),
  requestedAt: z.number().int().positive(),
  runId: z.uuid().optional(),
});

export type FeedSyncJob = z.infer<typeof feedSyncJobSchema>;
