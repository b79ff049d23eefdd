import { OpenAPIHono, z } from "@hono/zod-openapi";
import { bootstrapWorkflowSchema } from "../../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  type AttemptRow,
  callbackDelivery,
  type DeliveryRow,
  deadCallbacks,
  REPLAY_MAX,
  replayAppCallbacks,
  replayCallback,
  rotateCallbackSecret,
} from "../../workflow/messenger/callback-admin.ts";
import { CallbackSecrets } from "../../workflow/messenger/callback-secrets.ts";
import { afterKey, pageOf, pageQuery, pageSchema } from "../admin-paging.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { serve } from "../operation.ts";

const deliveryId = z
  .string()
  .regex(/^\d{1,18}$/, "a delivery id: digits")
  .openapi({ description: "the delivery's id" });
const appParams = z.object({ domain: z.string().min(1).max(253), code: bootstrapWorkflowSchema.shape.code });

const deliverySchema = z
  .object({
    id: z.string(),
    event: z.string().openapi({ description: "the outbox event's id, sent as the body's `id`" }),
    url: z.string(),
    tenant: z.string().openapi({ description: "the tenant's domain" }),
    app: z.string().openapi({ description: "the workflow app's code" }),
    process: z.uuid(),
    task: z.uuid().nullable(),
    type: z.string().openapi({ description: "the callback type (`started`, `taskCreated`, …)" }),
    status: z.enum(["pending", "delivered", "dead"]),
    attempts: z.number().int().openapi({ description: "posts since it was made or last replayed" }),
    replays: z.number().int(),
    nextAttemptAt: z.string().nullable().openapi({ description: "when it is next posted, while pending" }),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    endedAt: z.string().nullable(),
  })
  .openapi("CallbackDelivery");
const attemptSchema = z
  .object({
    replay: z.number().int(),
    attempt: z.number().int(),
    startedAt: z.string(),
    durationMs: z.number().int(),
    httpStatus: z.number().int().nullable(),
    error: z.string().nullable(),
  })
  .openapi("CallbackAttempt");
const replayedSchema = z
  .object({
    replayed: z
      .number()
      .int()
      .openapi({ description: `how many became due again (at most ${REPLAY_MAX})` }),
  })
  .openapi("CallbacksReplayed");
const secretSchema = z
  .object({
    app: z.string(),
    secret: z.string().openapi({ description: "the HMAC-SHA256 key, shown only here" }),
  })
  .openapi("CallbackSecret");

function deliveryView(row: DeliveryRow): z.infer<typeof deliverySchema> {
  return {
    id: row.id,
    event: row.eventId,
    url: row.url,
    tenant: row.tenantDomain,
    app: row.appCode,
    process: row.processId,
    task: row.taskId,
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    replays: row.replays,
    nextAttemptAt: row.status === "pending" ? row.nextAttemptAt.toISOString() : null,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
  };
}

function attemptView(row: AttemptRow): z.infer<typeof attemptSchema> {
  return { ...row, startedAt: row.startedAt.toISOString() };
}

/** The operators' API for messenger callbacks: dead deliveries, their replay, an app's signing secret. */
export function callbackAdminRoutes(deps: GatewayUses<"db" | "config">) {
  const app = new OpenAPIHono<GatewayEnv>();
  const sql = deps.db.sql;
  const secrets = new CallbackSecrets({
    secretKey: deps.config.callbacks.secretKey,
    dataDir: deps.config.dataDir,
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/callbacks/dead",
    operationId: "listDeadCallbacks",
    tags: ["Admin"],
    summary: "Messenger callbacks that ended dead, newest first: every tenant's, a tenant's or an app's",
    security: [{ admin: [] }],
    request: {
      query: pageQuery(1).extend({
        tenant: z.string().min(1).max(253).optional().openapi({ description: "a tenant's domain" }),
        app: bootstrapWorkflowSchema.shape.code
          .optional()
          .openapi({ description: "an app's code, with `tenant`" }),
      }),
    },
    responses: {
      200: {
        description: "a page of dead deliveries",
        content: { "application/json": { schema: pageSchema(deliverySchema, "DeadCallbackPage") } },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant or app" },
    operatorToken: true,
    handle: async (c) => {
      const { limit, after, tenant, app: code } = c.req.valid("query");
      const [before = null] = afterKey(after, 1) ?? [];
      if (before !== null && !/^\d{1,18}$/.test(before))
        throw new PlatformError(ErrorCode.InvalidArgument, "after: not a cursor this list gave");
      const rows = await deadCallbacks(sql, { domain: tenant, app: code }, before, limit);
      c.header("Cache-Control", "no-store");
      return c.json(
        pageOf(rows, limit, (row) => [row.id], deliveryView),
        200,
      );
    },
  });

  serve(app, {
    surface: "platform",
    method: "get",
    path: "/callbacks/deliveries/{id}",
    operationId: "getCallbackDelivery",
    tags: ["Admin"],
    summary: "A messenger callback delivery: its state and its latest posts, newest first",
    security: [{ admin: [] }],
    request: { params: z.object({ id: deliveryId }) },
    responses: {
      200: {
        description: "the delivery and its posts",
        content: {
          "application/json": {
            schema: z
              .object({ delivery: deliverySchema, attempts: z.array(attemptSchema) })
              .openapi("CallbackDeliveryDetail"),
          },
        },
      },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such delivery" },
    operatorToken: true,
    handle: async (c) => {
      const { id } = c.req.valid("param");
      const found = await callbackDelivery(sql, id);
      if (!found) throw new PlatformError(ErrorCode.NotFound, `no callback delivery ${id}`);
      c.header("Cache-Control", "no-store");
      return c.json(
        { delivery: deliveryView(found.delivery), attempts: found.attempts.map(attemptView) },
        200,
      );
    },
  });

  serve(app, {
    surface: "platform",
    method: "post",
    path: "/callbacks/deliveries/{id}/replay",
    operationId: "replayCallback",
    tags: ["Admin"],
    summary: "Make a dead callback due again, its attempts counted anew",
    security: [{ admin: [] }],
    request: { params: z.object({ id: deliveryId }) },
    responses: {
      200: { description: "due again", content: { "application/json": { schema: replayedSchema } } },
    },
    errors: [400, 404, 409, 503],
    meanings: { 404: "no such delivery", 409: "the delivery is not dead" },
    operatorToken: true,
    handle: async (c) => {
      await replayCallback(sql, c.req.valid("param").id);
      return c.json({ replayed: 1 }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{domain}/{code}/callbacks/replay",
    operationId: "replayAppCallbacks",
    tags: ["Admin"],
    summary: `Make a workflow app's dead callbacks due again, at most ${REPLAY_MAX} a call, oldest first`,
    security: [{ admin: [] }],
    request: { params: appParams },
    responses: {
      200: { description: "due again", content: { "application/json": { schema: replayedSchema } } },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant or app" },
    operatorToken: true,
    handle: async (c) => {
      const { domain, code } = c.req.valid("param");
      return c.json({ replayed: await replayAppCallbacks(sql, domain, code) }, 200);
    },
  });

  serve(app, {
    surface: "platform",
    method: "post",
    path: "/{domain}/{code}/callback-secret",
    operationId: "rotateCallbackSecret",
    tags: ["Admin"],
    summary:
      "Give a workflow app a new secret for signing its callbacks; the answer is the only place it is shown",
    security: [{ admin: [] }],
    request: { params: appParams },
    responses: {
      200: { description: "the new secret", content: { "application/json": { schema: secretSchema } } },
    },
    errors: [400, 404, 503],
    meanings: { 404: "no such tenant or app" },
    operatorToken: true,
    handle: async (c) => {
      const { domain, code } = c.req.valid("param");
      const secret = await rotateCallbackSecret(sql, secrets, domain, code);
      c.header("Cache-Control", "no-store");
      return c.json({ app: code, secret }, 200);
    },
  });
  return app;
}
