import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { metrics, PROMETHEUS_CONTENT_TYPE } from "../../runtime/metrics.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireOperatorToken } from "../middleware/require-operator-token.ts";

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["Operations"],
  summary: "Prometheus metrics: requests per route, jobs per queue by outcome, queue depths, memory",
  responses: {
    200: {
      description: "the Prometheus text format",
      content: { "text/plain": { schema: z.string() } },
    },
  },
});

/** `/metrics` for Prometheus; behind `METRICS_TOKEN` when the operator sets one. */
export function metricsRoutes(deps: GatewayDeps) {
  const app = new OpenAPIHono<GatewayEnv>();
  if (deps.config.metrics.token)
    app.use("/metrics", requireOperatorToken(deps.config.metrics.token, "metrics"));
  return app.openapi(metricsRoute, async (c) =>
    c.text(await metrics.render(), 200, {
      "Content-Type": PROMETHEUS_CONTENT_TYPE,
      "Cache-Control": "no-store",
    }),
  );
}
