import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { metrics, PROMETHEUS_CONTENT_TYPE } from "../../runtime/metrics.ts";
import { METRICS_CHALLENGE, type MetricsAccess, metricsRefusal } from "../../runtime/metrics-access.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

function requireScraper(access: MetricsAccess): MiddlewareHandler<GatewayEnv> {
  return async function requireScraper(c, next) {
    const refusal = metricsRefusal(access, c.req.header("authorization"));
    if (refusal)
      throw new PlatformError(ErrorCode.Unauthenticated, refusal, { challenge: METRICS_CHALLENGE });
    await next();
  };
}

/**
 * The Prometheus scrape endpoint (mounted at `/metrics`): behind `METRICS_TOKEN`, open only when
 * the operator sets `METRICS_PUBLIC`, and closed with neither.
 */
export function metricsRoutes(deps: GatewayUses<"config">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const { token, open } = deps.config.metrics;
  const secured = Boolean(token) || !open;
  if (secured) app.use(requireScraper({ token, open }));
  serve(app, {
    surface: "platform",
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
    },
    // Behind the scraper's token unless the operator opened it.
    ...(secured
      ? {
          errors: [401],
          meanings: {
            401: "without the scraper's token (METRICS_TOKEN); always, when neither METRICS_TOKEN nor METRICS_PUBLIC is set",
          },
        }
      : {}),
    handle: async (c) =>
      c.text(await metrics.render(), 200, {
        "Content-Type": PROMETHEUS_CONTENT_TYPE,
        "Cache-Control": "no-store",
      }),
  });
  return app;
}
