import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { feedRun, recentFeedRuns } from "../../runtime/store/feed-runs.ts";
import { enqueueFeedSync, feedSettings } from "../../runtime/store/feeds.ts";
import { tenantByDomain } from "../../runtime/store/tenants.ts";
import { operatorErrorResponses } from "../error-responses.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";

const countsSchema = z.record(z.string(), z.unknown());
const runSchema = z
  .object({
    id: z.uuid(),
    trigger: z.enum(["schedule", "manual"]),
    status: z.enum(["running", "succeeded", "failed", "abandoned"]),
    since: z.number().nullable(),
    startedAt: z.string(),
    finishedAt: z.string().nullable(),
    counts: countsSchema,
    error: z.string().nullable(),
  })
  .openapi("FeedRun");
const feedSchema = z
  .object({
    tenant: z.string(),
    url: z.string(),
    addresses: z.string(),
    authorizationEnv: z.string().nullable(),
    intervalSeconds: z.number(),
    timeoutSeconds: z.number(),
    enabled: z.boolean(),
    syncedSince: z.number().nullable(),
    runs: z.array(runSchema),
  })
  .openapi("Feed");
const runWithRejectsSchema = runSchema
  .extend({
    rejects: z.array(
      z.object({ entity: z.string(), index: z.number(), key: z.string().nullable(), reason: z.string() }),
    ),
  })
  .openapi("FeedRunWithRejects");

const domainParams = z.object({ domain: z.string().min(1).max(253) });

/** Operators' view of enterprise feeds: settings and recent runs, one run's rejects, a run on demand. */
export function feedAdminRoutes(deps: GatewayDeps) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const tags = ["Admin: enterprise feeds"];
  const security = [{ admin: [] }];

  async function feedOf(domain: string) {
    const tenant = await tenantByDomain(sql, domain);
    const settings = tenant ? await feedSettings(sql, tenant.id) : undefined;
    if (!tenant || !settings) throw new PlatformError(ErrorCode.NotFound, `no feed for tenant ${domain}`);
    return settings;
  }

  app.openapi(
    createRoute({
      method: "get",
      path: "/{domain}",
      operationId: "getFeed",
      tags,
      summary: "A tenant's feed settings (set in the bootstrap file) and its latest runs",
      security,
      request: {
        params: domainParams,
        query: z.object({ limit: z.coerce.number().int().min(1).max(200).default(20) }),
      },
      responses: {
        200: { description: "the feed", content: { "application/json": { schema: feedSchema } } },
        ...operatorErrorResponses([400, 404, 503], { 404: "no such tenant, or it has no feed" }),
      },
    }),
    async (c) => {
      const { domain } = c.req.valid("param");
      const { tenantId, ...settings } = await feedOf(domain);
      const runs = await recentFeedRuns(sql, tenantId, c.req.valid("query").limit);
      return c.json({ tenant: domain, ...settings, runs: runs as z.infer<typeof runSchema>[] }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/{domain}/runs/{id}",
      operationId: "getFeedRun",
      tags,
      summary: "One run with the rows it rejected and why",
      security,
      request: { params: domainParams.extend({ id: z.uuid() }) },
      responses: {
        200: { description: "the run", content: { "application/json": { schema: runWithRejectsSchema } } },
        ...operatorErrorResponses([400, 404, 503], { 404: "no such feed, or no such run of it" }),
      },
    }),
    async (c) => {
      const { domain, id } = c.req.valid("param");
      const { tenantId } = await feedOf(domain);
      const run = await feedRun(sql, tenantId, id);
      if (!run) throw new PlatformError(ErrorCode.NotFound, `no run ${id} of the feed of ${domain}`);
      return c.json(run as z.infer<typeof runWithRejectsSchema>, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/{domain}/runs",
      operationId: "startFeedRun",
      tags,
      summary: "Queue a run of the feed now; a run already in progress when it starts covers it",
      security,
      request: { params: domainParams },
      responses: {
        202: {
          description: "queued",
          content: { "application/json": { schema: z.object({ queued: z.literal(true) }) } },
        },
        ...operatorErrorResponses([400, 404, 503], {
          404: "no such tenant, or it has no feed",
          503: "the broker is out of reach; retry later",
        }),
      },
    }),
    async (c) => {
      const { tenantId } = await feedOf(c.req.valid("param").domain);
      await enqueueFeedSync(deps.jobs, tenantId, "manual");
      return c.json({ queued: true as const }, 202);
    },
  );
  return app;
}
