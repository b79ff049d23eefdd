import { OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_DEAD_LETTERS_HELD } from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";
import { queueOverview } from "../queue-overview.ts";

const queueSchema = z
  .object({
    queue: z.string(),
    ready: z.number().int().openapi({ description: "jobs waiting for a worker" }),
    consumers: z.number().int(),
    dead: z.number().int().openapi({ description: "dead letters: jobs that failed for a fault" }),
    replayable: z
      .boolean()
      .openapi({ description: "false for request/reply jobs, whose callers no longer wait for an answer" }),
  })
  .openapi("Queue");
const deadLetterSchema = z
  .object({
    messageId: z.string(),
    reason: z.string(),
    attempts: z.number().int(),
    message: z.unknown().openapi({ description: "the job as it was published" }),
  })
  .openapi("DeadLetter");
const deadLettersSchema = z
  .object({ queue: z.string(), dead: z.number().int(), items: z.array(deadLetterSchema) })
  .openapi("DeadLetters");

const queueParams = z.object({ queue: z.string().regex(/^[a-z][a-z0-9_.-]{0,127}$/, "a queue's name") });
const replayBody = z
  .object({
    messageId: z.string().min(1).max(200).optional().openapi({ description: "that letter only" }),
    limit: z
      .number()
      .int()
      .min(1)
      .max(MAX_DEAD_LETTERS_HELD)
      .optional()
      .openapi({ description: `the oldest this many; default all (at most ${MAX_DEAD_LETTERS_HELD})` }),
  })
  .strict();

/**
 * The operators' view of the work queues: depth and consumers, and the dead letters (jobs that
 * failed for a fault nobody expected, or used up their retries) to read, replay once the fault is
 * fixed, or purge.
 */
export function queueAdminRoutes(deps: GatewayUses<"broker" | "log">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const tags = ["Admin: queues"];
  const security = [{ admin: [] }];

  const queues = () => queueOverview(deps.broker);
  async function queueNamed(name: string) {
    const queue = (await queues()).find((candidate) => candidate.queue === name);
    if (!queue) throw new PlatformError(ErrorCode.NotFound, `no queue ${name}`);
    return queue;
  }

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/",
    operationId: "listQueues",
    tags,
    summary: "Every work queue with its depth, consumers and dead letters",
    security,
    responses: {
      200: {
        description: "the queues, by name",
        content: { "application/json": { schema: z.object({ items: z.array(queueSchema) }) } },
      },
    },
    errors: [503],
    operatorToken: true,
    handle: async (c) => c.json({ items: await queues() }, 200),
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{queue}/dead-letters",
    operationId: "listDeadLetters",
    tags,
    summary: "A queue's dead letters, oldest first, with why each failed; reading takes none away",
    security,
    request: {
      params: queueParams,
      query: z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }),
    },
    responses: {
      200: {
        description: "the dead letters",
        content: { "application/json": { schema: deadLettersSchema } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such queue" },
    operatorToken: true,
    handle: async (c) => {
      const queue = await queueNamed(c.req.valid("param").queue);
      const items = await deps.broker.peekDeadLetters(queue.queue, c.req.valid("query").limit);
      return c.json({ queue: queue.queue, dead: queue.dead, items }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{queue}/dead-letters/replay",
    operationId: "replayDeadLetters",
    tags,
    summary:
      "Put dead letters back on their queue as new jobs: one by its messageId, or the oldest (all by default)",
    security,
    request: {
      params: queueParams,
      body: { content: { "application/json": { schema: replayBody } }, required: false },
    },
    responses: {
      200: {
        description: "how many went back",
        content: { "application/json": { schema: z.object({ replayed: z.number().int() }) } },
      },
    },
    errors: [400, 404, 409, 415, 503],
    meanings: {
      404: "no such queue, or no dead letter with that messageId",
      409: "the queue's jobs answer a caller, who no longer waits: replaying them would do nothing",
    },
    operatorToken: true,
    handle: async (c) => {
      const queue = await queueNamed(c.req.valid("param").queue);
      if (!queue.replayable) {
        throw new PlatformError(
          ErrorCode.Conflict,
          `jobs of ${queue.queue} answer a caller who no longer waits; purge them instead`,
        );
      }
      const { messageId, limit } = c.req.valid("json") ?? {};
      const replayed = await deps.broker.replayDeadLetters(queue.queue, {
        ...(messageId === undefined ? {} : { messageId }),
        limit: messageId === undefined ? (limit ?? MAX_DEAD_LETTERS_HELD) : 1,
      });
      if (messageId !== undefined && replayed === 0) {
        throw new PlatformError(ErrorCode.NotFound, `no dead letter ${messageId} in ${queue.queue}`);
      }
      deps.log.info({ queue: queue.queue, replayed, messageId }, "dead letters replayed");
      return c.json({ replayed }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "delete",
    path: "/{queue}/dead-letters",
    operationId: "purgeDeadLetters",
    tags,
    summary: "Delete every dead letter of a queue",
    security,
    request: { params: queueParams },
    responses: {
      200: {
        description: "how many were deleted",
        content: { "application/json": { schema: z.object({ purged: z.number().int() }) } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such queue" },
    operatorToken: true,
    handle: async (c) => {
      const queue = await queueNamed(c.req.valid("param").queue);
      const purged = await deps.broker.purgeDeadLetters(queue.queue);
      deps.log.info({ queue: queue.queue, purged }, "dead letters purged");
      return c.json({ purged }, 200);
    },
  });
  return app;
}
