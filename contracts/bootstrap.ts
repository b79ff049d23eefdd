import { z } from "zod";
import { bootstrapFeedSchema } from "./feed.ts";

/** A tenant (an enterprise of spec 001), identified by its unique domain. */
export const bootstrapTenantSchema = z
  .object({
    domain: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, "lower-case letters, digits, dots and hyphens"),
    name: z.string().min(1).max(200),
    style: z.string().max(2000).optional(),
    logo: z.url().max(2048).optional(),
    banner: z.url().max(2048).optional(),
    copyright: z.string().max(500).optional(),
  })
  .strict();

const domain = bootstrapTenantSchema.shape.domain;

/** An application (an OAuth2 client) and the scopes the operators approved for it. */
export const bootstrapApplicationSchema = z
  .object({
    id: z.string().regex(/^[A-Za-z0-9._-]{3,64}$/, "3 to 64 letters, digits, dots, hyphens or underscores"),
    /** Omitted: a public client (authorization code with PKCE only). At least 32 characters. */
    secret: z.string().min(32).max(256).optional(),
    name: z.string().min(1).max(200),
    type: z.enum(["global", "enterprise", "workflow"]).default("global"),
    /** Domain of the tenant an enterprise or workflow application belongs to. */
    tenant: domain.optional(),
    workflowCode: z.string().min(1).max(100).optional(),
    redirectUris: z.array(z.url().max(2048)).max(20).default([]),
    scopes: z.array(z.string().min(1).max(64)).max(200).default([]),
    implicitAllowed: z.boolean().default(false),
  })
  .strict()
  .refine((app) => (app.type === "global") === (app.tenant === undefined), {
    message: "enterprise and workflow applications name their tenant; global ones do not",
    path: ["tenant"],
  })
  .refine((app) => (app.type === "workflow") === (app.workflowCode !== undefined), {
    message: "workflow applications, and only they, have a workflowCode",
    path: ["workflowCode"],
  });

/** A campus account. */
export const bootstrapUserSchema = z
  .object({
    tenant: domain,
    account: z.string().min(1).max(100),
    name: z.string().min(1).max(200),
    email: z.email().max(320).optional(),
    phone: z.string().min(3).max(32).optional(),
    /** Omitted: the account cannot log in with a password. */
    password: z.string().min(8).max(1024).optional(),
    mailEnabled: z.boolean().default(false),
  })
  .strict();

/** A seal image, at most 2 MB of PNG (as a base64 data URI, about 2.7 million characters). */
export const SEAL_IMAGE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * An electronic seal: spec 000's `eSignCode`, its PNG image (transparency kept) and the size it
 * is printed at, in points (1/72 inch). A seal with a tenant serves that tenant's applications;
 * one without serves every application.
 */
export const bootstrapSealSchema = z
  .object({
    code: z.string().regex(/^[A-Za-z0-9._-]{1,64}$/, "1 to 64 letters, digits, dots, hyphens or underscores"),
    tenant: domain.optional(),
    name: z.string().min(1).max(200),
    /** A path to the PNG file (relative to the bootstrap file), or a `data:image/png;base64,…` URI. */
    image: z.string().min(1).max(2_900_000),
    width: z.number().positive().max(2000),
    height: z.number().positive().max(2000),
  })
  .strict();

/**
 * A notification channel: spec 000's built-in ones (`email`, `sms`, `app`, `msgapp_template`) or
 * an external channel by its name, each delivered through a plugin: a built-in plugin's name, a
 * path to a module, or an npm package name. The whole file is read by every process at start, so
 * plugin credentials never go into the database.
 */
export const bootstrapChannelSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, "a lower-case word"),
    plugin: z.string().min(1).max(500),
    config: z.record(z.string(), z.unknown()).default({}),
    /** The application that runs the channel: it may mark the tasks delivered through it as read. */
    operatorApplication: z.string().max(64).optional(),
    /**
     * Applications the operators approved for this channel: for `sms`, those whose senders need
     * not be `sms_` accounts; for `app`, the only applications that may send app messages.
     */
    permittedApplications: z.array(z.string().max(64)).max(1000).default([]),
    /** Sends a second through this channel, per worker process; deliveries beyond it wait their turn. */
    ratePerSecond: z.number().positive().max(100_000).optional(),
    /** Sends in progress at once through this channel, per worker process; the rest wait their turn. */
    maxInFlight: z.number().int().min(1).max(1000).default(32),
  })
  .strict();

/**
 * The declarative bootstrap file named by BOOTSTRAP_FILE, applied idempotently at start: what it
 * lists is created or brought up to date; what it does not list is left alone.
 */
export const bootstrapSchema = z
  .object({
    $schema: z.string().optional(),
    tenants: z.array(bootstrapTenantSchema).max(10_000).default([]),
    applications: z.array(bootstrapApplicationSchema).max(10_000).default([]),
    users: z.array(bootstrapUserSchema).max(100_000).default([]),
    channels: z.array(bootstrapChannelSchema).max(100).default([]),
    seals: z.array(bootstrapSealSchema).max(10_000).default([]),
    feeds: z.array(bootstrapFeedSchema).max(10_000).default([]),
  })
  .strict();

export type Bootstrap = z.infer<typeof bootstrapSchema>;
export type BootstrapTenant = z.infer<typeof bootstrapTenantSchema>;
export type BootstrapApplication = z.infer<typeof bootstrapApplicationSchema>;
export type BootstrapUser = z.infer<typeof bootstrapUserSchema>;
export type BootstrapSeal = z.infer<typeof bootstrapSealSchema>;
export type BootstrapChannel = z.infer<typeof bootstrapChannelSchema>;
