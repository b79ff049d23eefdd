import { z } from "@hono/zod-openapi";
import type { ErrorStatus } from "../error-responses.ts";

/** Spec 001's `Response<T>` around a successful result. */
export function workflowResponse<T>(entities: T[], total = 0) {
  return { errno: 0, ecode: "SUCCESS", error: "", total, entities };
}

export function workflowResponseSchema<T extends z.ZodType>(entity: T, name: string) {
  return z
    .object({
      errno: z.number().int().openapi({
        description:
          "0 on success; a request the platform understood but could not carry out (NOT_FOUND, CONFLICT, UNPROCESSABLE) answers 200 too, with the errno, ecode and error of ErrorResponse",
      }),
      ecode: z.string(),
      error: z.string(),
      total: z.number().int(),
      entities: z.array(entity),
    })
    .openapi(name);
}

/** The HTTP failures of a workflow operation (those a well-formed call meets answer 200), for its declaration. */
export function workflowErrors(...more: ErrorStatus[]) {
  return { surface: "workflow" as const, errors: [400, 401, 403, ...more, 503] satisfies ErrorStatus[] };
}
