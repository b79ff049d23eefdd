import { z } from "@hono/zod-openapi";

/** Spec 001's `Response<T>` around a successful result. */
export function workflowResponse<T>(entities: T[], total = 0) {
  return { errno: 0, ecode: "SUCCESS", error: "", total, entities };
}

export function workflowResponseSchema<T extends z.ZodType>(entity: T, name: string) {
  return z
    .object({
      errno: z.number().int(),
      ecode: z.string(),
      error: z.string(),
      total: z.number().int(),
      entities: z.array(entity),
    })
    .openapi(name);
}
