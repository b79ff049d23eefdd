import { z } from "@hono/zod-openapi";
import { GRANT_SCOPES, PERMISSIONS } from "../../workflow/access-grants.ts";
import { positionRefSchema } from "./triple-schemas.ts";
import { profileRefSchema } from "./workflow-schemas.ts";

/** Spec 001's access: what the user may do, given to them or (`via`) through a position they hold. */
export const accessSchema = z
  .object({
    scope: z.enum(GRANT_SCOPES),
    permission: z.enum(PERMISSIONS),
    object: z.string().openapi({
      description: "by scope: position `dept:post`; workflow the app's code; enterprise the tenant's domain",
    }),
    position: positionRefSchema
      .optional()
      .openapi({ description: "the object's detail, scope position only" }),
    via: z
      .string()
      .optional()
      .openapi({ description: "beyond spec 001: the position `dept:post` the user holds it through" }),
  })
  .openapi("Access");

/** 7.2-7.4's entity: one grant on a position, to a user or (with `includePositions`) to a position. */
export const positionGrantSchema = z
  .object({
    permission: z.enum(PERMISSIONS),
    user: profileRefSchema.nullable(),
    position: positionRefSchema.nullable(),
    create: z.number().int(),
  })
  .openapi("PositionGrant");
