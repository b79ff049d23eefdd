import { OpenAPIHono, z } from "@hono/zod-openapi";
import { readiness } from "../../runtime/readiness.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const healthSchema = z.object({ status: z.literal("ok") }).openapi("Health");

const readinessSchema = z
  .object({
    status: z.enum(["ready", "not ready"]),
    database: z.boolean().openapi({ description: "the database answered a query" }),
    broker: z.boolean().openapi({ description: "the message broker is connected" }),
    draining: z.boolean().openapi({ description: "the process is shutting down" }),
  })
  .openapi("Readiness");

export function healthRoutes(deps: GatewayUses<"broker" | "db" | "draining">) {
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/healthz",
    operationId: "getHealth",
    tags: ["Operations"],
    summary: "Liveness: the process is up",
    responses: { 200: { description: "alive", content: { "application/json": { schema: healthSchema } } } },
    handle: (c) => c.json({ status: "ok" as const }, 200),
  });
  serve(app, {
    surface: "platform",
    method: "get",
    path: "/readyz",
    operationId: "getReadiness",
    tags: ["Operations"],
    summary: "Readiness: the database and the broker are reachable",
    responses: {
      200: { description: "ready to serve", content: { "application/json": { schema: readinessSchema } } },
      503: { description: "not ready", content: { "application/json": { schema: readinessSchema } } },
    },
    handle: async (c) => {
      const state = await readiness(deps);
      return c.json(state, state.status === "ready" ? 200 : 503);
    },
  });
  return app;
}
