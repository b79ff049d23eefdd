import { OpenAPIHono, z } from "@hono/zod-openapi";
import { outboxLag } from "../../workflow/outbox/outbox-lag.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
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

/** The operators' view of the workflow outbox relay: how far each subscriber is behind. */
export function outboxAdminRoutes(deps: GatewayDeps) {
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
  return app;
}
