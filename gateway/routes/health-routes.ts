import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { readiness } from "../../runtime/readiness.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";

const healthSchema = z.object({ status: z.literal("ok") }).openapi("Health");

const readinessSchema = z
  .object({
    status: z.enum(["ready", "not ready"]),
    database: z.boolean().openapi({ description: "the database answered a query" }),
    broker: z.boolean().openapi({ description: "the message broker is connected" }),
    draining: z.boolean().openapi({ description: "the process is shutting down" }),
  })
  .openapi("Readiness");

const healthRoute = createRoute({
  method: "get",
  path: "/healthz",
  operationId: "getHealth",
  tags: ["Operations"],
  summary: "Liveness: the process is up",
  responses: { 200: { description: "alive", content: { "application/json": { schema: healthSchema } } } },
});

const readinessRoute = createRoute({
  method: "get",
  path: "/readyz",
  operationId: "getReadiness",
  tags: ["Operations"],
  summary: "Readiness: the database and the broker are reachable",
  responses: {
    200: { description: "ready to serve", content: { "application/json": { schema: readinessSchema } } },
    503: { description: "not ready", content: { "application/json": { schema: readinessSchema } } },
  },
});

export function healthRoutes(deps: GatewayDeps) {
  return new OpenAPIHono<GatewayEnv>()
    .openapi(healthRoute, (c) => c.json({ status: "ok" as const }, 200))
    .openapi(readinessRoute, async (c) => {
      const state = await readiness(deps);
      return c.json(state, state.status === "ready" ? 200 : 503);
    });
}
