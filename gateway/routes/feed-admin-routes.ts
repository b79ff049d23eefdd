import { OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { FEED_RUN_STATUSES, FEED_RUN_TRIGGERS } from "../../contracts/feed.ts";
import { feedList, feedRunOf, feedWithRuns, runFeedNow, tenantFeed } from "../../directory/feeds.ts";
import { afterKey, pageOf, pageQuery, pageSchema } from "../admin-paging.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const countsSchema = z.record(z.string(), z.unknown());
const runSchema = z
  .object({
    id: z.uuid(),
    trigger: z.enum(FEED_RUN_TRIGGERS),
    status: z.enum(FEED_RUN_STATUSES),
    since: z.number().nullable(),
    queuedAt: z.string(),
    startedAt: z.string().nullable().openapi({ description: "null while the run waits for a worker" }),
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
    nextRunAt: z
      .string()
      .nullable()
      .openapi({ description: "the next scheduled run; null when not scheduled" }),
    retryAt: z
      .string()
      .nullable()
      .openapi({ description: "when a failed run is tried again before its next scheduled one" }),
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

const feedListingSchema = feedSchema
  .omit({ runs: true })
  .extend({
    lastRun: z
      .object({
        id: z.uuid(),
        status: z.enum(FEED_RUN_STATUSES),
        trigger: z.enum(FEED_RUN_TRIGGERS),
        queuedAt: z.string(),
        finishedAt: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "the latest run; null before the first" }),
  })
  .openapi("FeedListing");

/** Operators' view of enterprise feeds: settings and recent runs, one run's rejects, a run on demand. */
export function feedAdminRoutes(deps: GatewayUses<"db" | "jobs">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const tags = ["Admin: enterprise feeds"];
  const security = [{ admin: [] }];

  async function feedOf(domain: string) {
    const settings = (await tenantFeed(sql, domain))?.feed;
    if (!settings) throw new PlatformError(ErrorCode.NotFound, `no feed for tenant ${domain}`);
    return settings;
  }

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/",
    operationId: "listFeeds",
    tags,
    summary: "Every tenant's feed, by domain, with its settings and its latest run",
    security,
    request: { query: pageQuery(1) },
    responses: {
      200: {
        description: "a page of feeds",
        content: { "application/json": { schema: pageSchema(feedListingSchema, "FeedPage") } },
      },
    },
    errors: [400, 503],
    operatorToken: true,
    handle: async (c) => {
      const { limit, after } = c.req.valid("query");
      const [from = null] = afterKey(after, 1) ?? [];
      const rows = await feedList(sql, { after: from, limit: limit + 1 });
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(
          rows,
          limit,
          (row) => [row.tenant],
          (row) => row as z.infer<typeof feedListingSchema>,
        ),
        200,
      );
    },
  });

  serve(app, {
    surface: "platform",
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
    responses: { 200: { description: "the feed", content: { "application/json": { schema: feedSchema } } } },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant, or it has no feed" },
    operatorToken: true,
    handle: async (c) => {
      const { domain } = c.req.valid("param");
      const feed = await feedWithRuns(sql, await feedOf(domain), c.req.valid("query").limit);
      return c.json({ tenant: domain, ...feed, runs: feed.runs as z.infer<typeof runSchema>[] }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/{domain}/runs/{id}",
    operationId: "getFeedRun",
    tags,
    summary: "One run with the rows it rejected and why",
    security,
    request: { params: domainParams.extend({ id: z.uuid() }) },
    responses: {
      200: { description: "the run", content: { "application/json": { schema: runWithRejectsSchema } } },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such feed, or no such run of it" },
    operatorToken: true,
    handle: async (c) => {
      const { domain, id } = c.req.valid("param");
      const run = await feedRunOf(sql, await feedOf(domain), id);
      if (!run) throw new PlatformError(ErrorCode.NotFound, `no run ${id} of the feed of ${domain}`);
      return c.json(run as z.infer<typeof runWithRejectsSchema>, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{domain}/runs",
    operationId: "startFeedRun",
    tags,
    summary:
      "Queue a run of the feed now; while a run waits for a worker, asking again answers with that run",
    security,
    request: { params: domainParams },
    responses: {
      202: {
        description: "the queued run; `Location` is its address",
        headers: z.object({ Location: z.string().openapi({ description: "the run's address" }) }),
        content: { "application/json": { schema: runSchema } },
      },
    },
    errors: [400, 404, 409, 503],
    meanings: {
      404: "no such tenant, or it has no feed",
      409: "the feed is disabled",
      503: "the broker is out of reach; retry later",
    },
    operatorToken: true,
    handle: async (c) => {
      const { domain } = c.req.valid("param");
      const run = await runFeedNow({ sql, jobs: deps.jobs }, await feedOf(domain));
      if (!run) throw new PlatformError(ErrorCode.Conflict, `the feed of ${domain} is disabled`);
      c.header("Location", `/admin/feeds/${encodeURIComponent(domain)}/runs/${run.id}`);
      return c.json(run as z.infer<typeof runSchema>, 202);
    },
  });
  return app;
}
