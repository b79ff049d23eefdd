import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { metrics, PROMETHEUS_CONTENT_TYPE } from "../../runtime/metrics.ts";
import { errorResponses } from "../error-responses.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireOperatorToken } from "../middleware/require-operator-token.ts";

/** The route, behind the scraper's token when there is one. */
function metricsRoute(secured: boolean) {
  return createRoute({
    method: "get",
    path: "/",
    operationId: "getMetrics",
    tags: ["Operations"],
    summary: "Prometheus metrics: requests per route, jobs per queue by outcome, queue depths, memory",
    ...(secured ? { security: [{ metrics: [] }] } : {}),
    responses: {
      200: {
        description: "the Prometheus text format",
        content: { "text/plain": { schema: z.string() } },
      },
      ...(secured
        ? errorResponses("platform", [401], { 401: "without the scraper's token (METRICS_TOKEN)" })
        : {}),
    },
  });
}

/** The Prometheus scrape endpoint (mounted at `/metrics`); behind `METRICS_TOKEN` when the operator sets one. */
export function metricsRoutes(deps: GatewayDeps) {
  const app = new OpenAPIHono<GatewayEnv>();
  const token = deps.config.metrics.token;
  if (token) app.use(requireOperatorToken(token, "metrics"));
  return app.openapi(metricsRoute(Boolean(token)), async (c) =>
    c.text(await metrics.render(), 200, {
      "Content-Type": PROMETHEUS_CONTENT_TYPE,
      "Cache-Control": "no-store",
    }),
  );
}
