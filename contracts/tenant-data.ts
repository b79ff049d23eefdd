import { z } from "zod";

const domain = z
  .string()
  .min(1)
  .max(253)
  .regex(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/, "lower-case letters, digits, dots and hyphens");

/** A tenant tag's name: tenant-unique, and free of the commas that separate the tags of an app or a process. */
export const tagNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[^,\s](?:[^,]*[^,\s])?$/, "1 to 64 characters, no comma, not starting or ending with a space");

/** A colour as spec 001 writes one: a hash and six hex digits. */
export const paletteSchema = z.string().regex(/^#[0-9A-Fa-f]{6}$/, "a hash and six hex digits");

/** A map of string to string (spec 001's `attributes`), bounded in keys and lengths. */
export const attributesSchema = z
  .record(z.string().min(1).max(64), z.string().max(1000))
  .refine((map) => Object.keys(map).length <= 50, "at most 50 attributes");

/** A tag of the tenant (spec 001's `tag`): what apps and processes are tagged with and searched by. */
export const bootstrapTagSchema = z
  .object({
    tenant: domain,
    name: tagNameSchema,
    description: z.string().max(2000).optional(),
    index: z.number().int().min(-1_000_000).max(1_000_000).default(0),
    palette: paletteSchema.optional(),
    visible: z.boolean().default(true),
  })
  .strict();

/**
 * A membership of the tenant: its account with an outside provider (a campus sign-in, a messaging
 * platform, a payment service), found by the provider's name. It holds no secret: credentials
 * belong in the channel or application that talks to the provider.
 */
export const bootstrapMembershipSchema = z
  .object({
    tenant: domain,
    /** The provider's name, unique in the tenant whatever its case. */
    provider: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "1 to 64 letters, digits, dots, hyphens or underscores"),
    /** The tenant's own id at the provider (a corporation id, an organisation code). */
    code: z.string().min(1).max(200),
    name: z.string().min(1).max(200).optional(),
    description: z.string().max(2000).optional(),
    uri: z.url().max(2048).optional(),
    attributes: attributesSchema.default({}),
  })
  .strict();

/** How many tags and memberships a tenant keeps at most: each list of 9.5 is read whole. */
export const TENANT_TAGS_MAX = 1000;
export const TENANT_MEMBERSHIPS_MAX = 100;

export type BootstrapTag = z.infer<typeof bootstrapTagSchema>;
export type BootstrapMembership = z.infer<typeof bootstrapMembershipSchema>;
