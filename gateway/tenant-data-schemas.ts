import { z } from "@hono/zod-openapi";

/** Spec 001's `tag`, as 9.1, 9.5 and the admin API answer it. */
export const tagSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    description: z.string().nullable(),
    index: z.number().int(),
    palette: z.string().nullable(),
    visible: z.boolean(),
  })
  .openapi("Tag");

/** A membership: the tenant's account with an outside provider. */
export const membershipSchema = z
  .object({
    id: z.uuid(),
    provider: z.string(),
    code: z.string(),
    name: z.string().nullable(),
    description: z.string().nullable(),
    uri: z.string().nullable(),
    attributes: z.record(z.string(), z.string()),
  })
  .openapi("Membership");
