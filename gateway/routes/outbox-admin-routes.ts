import { OpenAPIHono, z } from "@hono/zod-openapi";
import { checkConsistency, MAX_INCONSISTENCIES } from "../../workflow/consistency-check.ts";
import { outboxLag } from "../../workflow/outbox/outbox-lag.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const subscriberSchema = z
  .object({
    subscriber: z.string(),
    position: z.number().int().openapi({ description: "the last outbox position it accepted" }),
    eventsBehind: z
      .number()
      .int()
      .openapi({ description: "events it has not accepted yet, those without a position included" }),
    secondsBehind: z.number().openapi({ description: "age of the oldest of them; 0 when none" }),
    updatedAt: z.string().openapi({ description: "when its cursor last moved" }),
  })
  .openapi("OutboxSubscriberLag");

const lagSchema = z
  .object({
    unsequenced: z.number().int().openapi({ description: "events the relay has not given a position yet" }),
    subscribers: z.array(subscriberSchema),
  })
  .openapi("OutboxLag");

const inconsistenciesSchema = z
  .object({
    inconsistencies: z
      .array(z.object({ processId: z.uuid(), rule: z.string() }))
      .openapi({ description: `at most ${MAX_INCONSISTENCIES}; empty when every process's rows agree` }),
  })
  .openapi("WorkflowInconsistencies");

/**
 * The operators' view of the workflow's health: how far each subscriber of the outbox relay is
 * behind, and whether the processes' rows agree with each other (after an incident, say).
 */
export function outboxAdminRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/outbox",
    operationId: "getWorkflowOutboxLag",
    tags: ["Admin"],
    summary: "How far each subscriber of the workflow outbox relay is behind",
    security: [{ admin: [] }],
    responses: {
      200: {
        description: "every subscriber's cursor, by name, and the events waiting for a position",
        content: { "application/json": { schema: lagSchema } },
      },
    },
    errors: [503],
    operatorToken: true,
    handle: async (c) => {
      const lag = await outboxLag(deps.db.sql);
      const subscribers = lag.subscribers.map((subscriber) => ({
        ...subscriber,
        updatedAt: subscriber.updatedAt.toISOString(),
      }));
      return c.json({ unsequenced: lag.unsequenced, subscribers }, 200);
    },
  });
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/consistency",
    operationId: "checkWorkflowConsistency",
    tags: ["Admin"],
    summary:
      "Check that every process's rows agree: to-do rows, open tasks, end times, inbox rows, activities and outbox events",
    description:
      "Reads every process (a scan: run it after an incident, not on a schedule). Each finding names the process and the rule its rows break.",
    security: [{ admin: [] }],
    responses: {
      200: {
        description: "the processes whose rows disagree, and how",
        content: { "application/json": { schema: inconsistenciesSchema } },
      },
    },
    errors: [503],
    operatorToken: true,
    handle: async (c) => c.json({ inconsistencies: await checkConsistency(deps.db.sql) }, 200),
  });
  return app;
}
