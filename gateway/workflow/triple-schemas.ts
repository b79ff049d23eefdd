import { z } from "@hono/zod-openapi";

/** Spec 001's position: a department and a post (`*` codes where a grant names any). */
export const positionRefSchema = z
  .object({
    dept: z.object({
      code: z.string(),
      name: z.string(),
      parent: z.string().nullable(),
      independent: z.boolean(),
      tags: z.string().nullable(),
    }),
    post: z.object({ code: z.string(), name: z.string(), tags: z.string().nullable(), formal: z.boolean() }),
  })
  .openapi("PositionRef");

/** Spec 001's position as a user holds it, with the holder's number and business dimensions. */
export const heldPositionSchema = positionRefSchema
  .extend({
    number: z.string().nullable(),
    bizes: z.array(z.object({ bizType: z.string(), bizCode: z.string() })),
    source: z.string(),
  })
  .openapi("Position");

const common = {
  id: z.uuid(),
  code: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  source: z.string(),
};

export const tripleUserSchema = z
  .object({
    ...common,
    account: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    title: z.string().nullable(),
    express: z.boolean().optional(),
    positions: z.array(heldPositionSchema).optional(),
  })
  .openapi("TripleUser");

export const tripleDeptSchema = z
  .object({
    ...common,
    parent: z.string().nullable(),
    independent: z.boolean(),
    tags: z.string().nullable(),
    meta: z.record(z.string(), z.string()).nullable(),
  })
  .openapi("TripleDept");

export const triplePostSchema = z
  .object({
    ...common,
    formal: z.boolean(),
    tags: z.string().nullable(),
    meta: z.record(z.string(), z.string()).nullable(),
    bizTypes: z.array(z.string()),
    apps: z.array(z.object({ id: z.string(), name: z.string(), code: z.string() })).optional(),
    nodes: z.array(z.object({ id: z.string(), name: z.string() })).optional(),
  })
  .openapi("TriplePost");

export const tripleEntrySchema = z.union([tripleUserSchema, tripleDeptSchema, triplePostSchema]);
