import { OpenAPIHono, z } from "@hono/zod-openapi";
import { statisticsOfTenant } from "../../workflow/statistics/statistics-admin.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const time = z.string().datetime().nullable();
const statisticsSchema = z
  .object({
    on: z.boolean().describe("whether the tenant's statistics are kept"),
    timeZone: z.string().describe("the IANA zone of the tenant's days"),
    history: z
      .object({
        requestedAt: z.string().datetime().describe("when statistics were last switched on"),
        startedAt: time.describe("when the counting of the processes started before began"),
        finishedAt: time.describe("when it ended; null while it runs or waits"),
        total: z.number().int().nullable().describe("the tenant's processes when it began"),
        examined: z.number().int().describe("the processes gone through so far"),
        counted: z
          .number()
          .int()
          .describe("of those, the ones it counted; the others the statistics had counted already"),
      })
      .nullable()
      .describe("the counting of the tenant's history; null if statistics were never switched on"),
  })
  .openapi("AdminTenantStatistics");

/** The operators' view of a tenant's statistics (docs/statistics.md). */
export function tenantStatisticsRoutes(deps: GatewayUses<"db">) {
  const app = new OpenAPIHono<GatewayEnv>();
  serve(app, {
    surface: "platform",
    tags: ["Admin"],
    security: [{ admin: [] }],
    operatorToken: true,
    method: "get",
    path: "/tenants/{domain}/statistics",
    operationId: "getTenantStatistics",
    summary: "A tenant's statistics setting and the progress of the counting of its history",
    request: { params: z.object({ domain: z.string().min(1).max(253) }) },
    responses: {
      200: {
        description: "the setting and the history's counting",
        content: { "application/json": { schema: statisticsSchema } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant" },
    handle: async (c) => {
      c.header("Cache-Control", "no-store");
      return c.json(await statisticsOfTenant(deps.db.sql, c.req.valid("param").domain), 200);
    },
  });
  return app;
}
