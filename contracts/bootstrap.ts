import { z } from "zod";

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

/**
 * The declarative bootstrap file named by BOOTSTRAP_FILE, applied idempotently at start: what it
 * lists is created or brought up to date; what it does not list is left alone.
 */
export const bootstrapSchema = z
  .object({
    $schema: z.string().optional(),
    tenants: z.array(bootstrapTenantSchema).max(10_000).default([]),
  })
  .strict();

export type Bootstrap = z.infer<typeof bootstrapSchema>;
export type BootstrapTenant = z.infer<typeof bootstrapTenantSchema>;
