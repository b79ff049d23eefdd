import { OpenAPIHono, z } from "@hono/zod-openapi";
import { notificationBodySchema } from "../../contracts/notification.ts";
import {
  liveChannelSettings,
  notificationIdsOf,
  sendNotification,
} from "../../notifications/notification-rules.ts";
import { markTasks, statusOfSent } from "../../notifications/notification-status.ts";
import type { GatewayEnv, GatewayUses } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import { envelope, grouped, markSchema, notificationTasksSchema, SUCCESS } from "../notification-schemas.ts";
import { serve } from "../operation.ts";

/**
 * Spec 000's notification API: send (at /v1/notification) and query or mark delivery status (at
 * /notification/status), two mounts of one surface.
 */
export function notificationRoutes(
  deps: GatewayUses<"broker" | "channels" | "config" | "db" | "jobs" | "oauth">,
) {
  const { sql } = deps.db;
  const { accessTokens } = deps.oauth;
  const channels = liveChannelSettings(deps.channels);
  const sendDeps = {
    sql,
    jobs: deps.jobs,
    brokerConnected: () => deps.broker.isConnected(),
    channels,
    maxJsonDepth: deps.config.http.jsonMaxDepth,
  };
  const send = new OpenAPIHono<GatewayEnv>();
  send.use(surface("open-api"));
  const status = new OpenAPIHono<GatewayEnv>();
  status.use(surface("open-api"));

  serve(send, {
    surface: "open-api",
    method: "put",
    path: "/",
    operationId: "sendNotification",
    tags: ["Notifications"],
    token: requireToken(accessTokens, { scopes: [] }),
    summary: "Send a notification through one or more channels",
    security: [{ bearer: [] }],
    request: {
      body: { content: { "application/json": { schema: notificationBodySchema } }, required: true },
    },
    responses: {
      200: {
        description: "recorded; delivery follows",
        content: { "application/json": { schema: envelope(notificationBodySchema, "NotificationSent") } },
      },
    },
    errors: [400, 401, 403, 409, 413, 415, 503],
    meanings: {
      403: "the token may not send on a channel asked for, or its application is not permitted to",
      409: "the id is taken by another application's notification",
    },
    handle: async (c) => {
      const sent = await sendNotification(sendDeps, c.get("token"), c.req.valid("json"));
      return c.json({ errno: 0, error: SUCCESS, total: 0, entities: [sent] }, 200);
    },
  });

  serve(status, {
    surface: "open-api",
    method: "get",
    path: "/status",
    token: requireToken(accessTokens, { scopes: ["notifications"] }),
    operationId: "getNotificationStatus",
    tags: ["Notifications"],
    summary: "Delivery tasks of up to 100 notifications (repeat `id`, or separate ids with commas)",
    security: [{ bearer: [] }],
    request: {
      query: z.object({
        id: z.string().max(4000).optional(),
        notificationId: z.string().max(4000).optional(),
      }),
    },
    responses: {
      200: {
        description: "tasks",
        content: {
          "application/json": { schema: envelope(notificationTasksSchema, "NotificationStatus") },
        },
      },
    },
    errors: [400, 401, 403, 503],
    meanings: {
      403: "the token lacks the notifications scope",
    },
    handle: async (c) => {
      const raw = [...(c.req.queries("id") ?? []), ...(c.req.queries("notificationId") ?? [])];
      const status = await statusOfSent(sql, c.get("token").clientId, notificationIdsOf(raw));
      const entities = grouped(status.notificationIds, status.tasks);
      return c.json({ errno: 0, error: SUCCESS, total: entities.length, entities }, 200);
    },
  });

  serve(status, {
    surface: "open-api",
    method: "post",
    path: "/status",
    token: requireToken(accessTokens, { scopes: ["modify_notification"] }),
    operationId: "markNotificationStatus",
    tags: ["Notifications"],
    summary: "Mark up to 100 delivery tasks read (by the sending application or the channel's operator)",
    security: [{ bearer: [] }],
    request: { body: { content: { "application/json": { schema: markSchema } }, required: true } },
    responses: {
      200: {
        description: "the marked notifications' tasks",
        content: {
          "application/json": { schema: envelope(notificationTasksSchema, "NotificationMarked") },
        },
      },
    },
    errors: [400, 401, 403, 404, 413, 415, 503],
    meanings: {
      403: "the token lacks the modify_notification scope",
      404: "a task that is not of the caller's notifications or channels",
    },
    handle: async (c) => {
      const { tasks } = c.req.valid("json");
      const marked = await markTasks(sql, channels(), c.get("token").clientId, tasks);
      const entities = grouped(marked.notificationIds, marked.tasks);
      return c.json({ errno: 0, error: SUCCESS, total: entities.length, entities }, 200);
    },
  });
  return { send, status };
}
