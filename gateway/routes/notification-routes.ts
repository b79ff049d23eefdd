import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import { deliveryJobs } from "../../contracts/jobs.ts";
import {
  BUILT_IN_CHANNELS,
  channelRuleViolations,
  type NotificationBody,
  notificationBodySchema,
  RECIPIENTS_PER_LIST,
} from "../../contracts/notification.ts";
import type { Queryable } from "../../runtime/database.ts";
import { timeOrderedId } from "../../runtime/time-ordered-id.ts";
import type { GatewayDeps, GatewayEnv } from "../gateway-env.ts";
import { requireToken } from "../middleware/require-token.ts";
import { surface } from "../middleware/surface.ts";
import type { AccessClaims } from "../oauth/access-tokens.ts";

const SUCCESS = "success";

const taskSchema = z
  .object({
    taskId: z.uuid(),
    channel: z.string(),
    phone: z.string().optional(),
    email: z.string().optional(),
    account: z.string().optional(),
    sendingStatus: z.enum(["pending", "sent", "retrying", "fail"]),
    readingStatus: z.enum(["read", "unread", "unknown"]),
    sendtime: z.number().int().optional(),
    readtime: z.number().int().optional(),
  })
  .openapi("NotificationTask");

const notificationTasksSchema = z
  .object({ id: z.uuid(), tasks: z.array(taskSchema) })
  .openapi("NotificationTasks");

const envelope = <T extends z.ZodType>(entity: T, name: string) =>
  z
    .object({
      errno: z.number().int(),
      error: z.string(),
      total: z.number().int(),
      entities: z.array(entity),
    })
    .openapi(name);

const markSchema = z
  .object({
    tasks: z
      .array(
        z
          .object({
            taskId: z.uuid(),
            account: z.string().max(200).optional(),
            read: z.boolean(),
            readtime: z.number().int().min(0).optional(),
          })
          .strict(),
      )
      .min(1)
      .max(100, "at most 100 tasks per request"),
  })
  .strict()
  .openapi("MarkRequest");

type Task = z.infer<typeof taskSchema>;

interface TaskRow {
  id: string;
  notificationId: string;
  channel: string;
  phone: string | null;
  email: string | null;
  account: string | null;
  sendingStatus: Task["sendingStatus"];
  readingStatus: Task["readingStatus"];
  sentAt: Date | null;
  readAt: Date | null;
}

function toTask(row: TaskRow): Task {
  return {
    taskId: row.id,
    channel: row.channel,
    ...(row.phone !== null ? { phone: row.phone } : {}),
    ...(row.email !== null ? { email: row.email } : {}),
    ...(row.account !== null ? { account: row.account } : {}),
    sendingStatus: row.sendingStatus,
    readingStatus: row.readingStatus,
    ...(row.sentAt ? { sendtime: row.sentAt.getTime() } : {}),
    ...(row.readAt ? { readtime: row.readAt.getTime() } : {}),
  };
}

/** A delivery_tasks row as the send inserts it (a type, so it passes as JSON). */
type NewTask = {
  id: string;
  requested_channel: string;
  channel: string;
  position: number;
  phone: string | null;
  email: string | null;
  account: string | null;
  recipient: NonNullable<NotificationBody["users"]>[number] | null;
};

/** One delivery task per recipient per channel, in the order the lists give them. */
function tasksFor(body: NotificationBody): NewTask[] {
  const rows: NewTask[] = [];
  const add = (requested: string, channel: string, position: number, recipient: Partial<NewTask>) => {
    rows.push({
      id: timeOrderedId(),
      requested_channel: requested,
      channel,
      position,
      phone: null,
      email: null,
      account: null,
      recipient: null,
      ...recipient,
    });
  };
  for (const channel of new Set(body.channels)) {
    if (channel === "email") {
      for (const [i, email] of body.emails!.entries()) add(channel, channel, i, { email });
    } else if (channel === "sms") {
      for (const [i, phone] of body.phones!.entries()) add(channel, channel, i, { phone });
    } else if (channel === "app") {
      for (const [i, account] of body.accounts!.entries()) add(channel, channel, i, { account });
    } else if (channel === "app_sms") {
      // An empty account goes straight to SMS on the phone at the same position.
      for (const [i, account] of body.accounts!.entries()) {
        add(channel, account === "" ? "sms" : "app", i, { account, phone: body.phones![i] });
      }
    } else {
      for (const [i, user] of body.users!.entries()) {
        add(channel, channel, i, {
          account: user.account ?? null,
          email: user.email ?? null,
          phone: user.phone ?? null,
          recipient: user,
        });
      }
    }
  }
  return rows;
}

/** Who may send what, as the README states: password grant on every channel, client credentials on `app` only. */
function checkSender(token: AccessClaims, body: NotificationBody): void {
  if (token.grant === "password" && token.scopes.includes("send_notification")) return;
  if (token.kind === "sys" && token.scopes.includes("send_app_notification")) {
    const other = body.channels.find((channel) => channel !== "app");
    if (other) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `channel ${other} needs a password-grant token with send_notification; send_app_notification covers the app channel only`,
      );
    }
    return;
  }
  throw new PlatformError(
    ErrorCode.PermissionDenied,
    "sending needs a password-grant token with send_notification, or a client-credentials token with send_app_notification",
  );
}

/**
 * Spec 000's sender preconditions: SMS from an `sms_` account, or from an application the
 * operators approved for SMS; campus-app messages only from approved applications. (E-mail from
 * an account without the mail service is accepted and reported on the task instead.)
 */
async function checkSenderPreconditions(
  sql: Queryable,
  token: AccessClaims,
  body: NotificationBody,
  permitted: ReadonlyMap<string, ReadonlySet<string>>,
): Promise<void> {
  const wants = (channel: string) => body.channels.includes(channel) || body.channels.includes("app_sms");
  if (wants("app") && !permitted.get("app")?.has(token.clientId)) {
    throw new PlatformError(
      ErrorCode.PermissionDenied,
      `application ${token.clientId} is not permitted to send campus-app messages; the platform operators grant it`,
    );
  }
  if (wants("sms") && !permitted.get("sms")?.has(token.clientId)) {
    const [sender] = token.userId
      ? await sql<{ account: string }[]>`select account from users where id = ${token.userId}`
      : [];
    if (!sender?.account.startsWith("sms_")) {
      throw new PlatformError(
        ErrorCode.PermissionDenied,
        `SMS must come from an sms_ account, or from an application the platform operators approved for SMS`,
      );
    }
  }
}

async function tasksOf(sql: Queryable, notificationIds: string[]): Promise<TaskRow[]> {
  return sql<TaskRow[]>`
    select id, notification_id as "notificationId", channel, phone, email, account,
           sending_status as "sendingStatus", reading_status as "readingStatus", sent_at as "sentAt", read_at as "readAt"
    from delivery_tasks where notification_id = any(${notificationIds}::uuid[])
    order by notification_id, requested_channel, position`;
}

function grouped(ids: string[], rows: TaskRow[]) {
  return ids.map((id) => ({ id, tasks: rows.filter((row) => row.notificationId === id).map(toTask) }));
}

/** Spec 000's notification API: send, query status, mark status. */
export function notificationRoutes(deps: GatewayDeps) {
  const { sql } = deps.db;
  const { accessTokens } = deps.oauth;
  const configured = new Set((deps.bootstrap?.channels ?? []).map((channel) => channel.name));
  const builtIn = new Set<string>(BUILT_IN_CHANNELS);
  const external = new Set([...configured].filter((name) => !builtIn.has(name)));
  const permitted = new Map(
    (deps.bootstrap?.channels ?? []).map((channel) => [channel.name, new Set(channel.permittedApplications)]),
  );
  const operatorChannels = new Map<string, string[]>();
  for (const channel of deps.bootstrap?.channels ?? []) {
    if (!channel.operatorApplication) continue;
    operatorChannels.set(channel.operatorApplication, [
      ...(operatorChannels.get(channel.operatorApplication) ?? []),
      channel.name,
    ]);
  }
  const app = new OpenAPIHono<GatewayEnv>();
  app.use("/v1/notification", surface("open-api"));
  app.use("/notification/*", surface("open-api"));
  app.use("/v1/notification", requireToken(accessTokens, { scopes: [] }));
  app.on("GET", "/notification/status", requireToken(accessTokens, { scopes: ["notifications"] }));
  app.on("POST", "/notification/status", requireToken(accessTokens, { scopes: ["modify_notification"] }));

  app.openapi(
    createRoute({
      method: "put",
      path: "/v1/notification",
      tags: ["Notifications"],
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
    }),
    async (c) => {
      const body = c.req.valid("json");
      const token = c.get("token");
      checkSender(token, body);
      const [violation] = channelRuleViolations(body, external);
      if (violation)
        throw new PlatformError(ErrorCode.InvalidArgument, `${violation.field}: ${violation.message}`, {
          field: violation.field,
        });
      const missing = body.channels.find(
        (channel) => channel !== "app_sms" && builtIn.has(channel) && !configured.has(channel),
      );
      const appSmsMissing =
        body.channels.includes("app_sms") && !(configured.has("app") && configured.has("sms"));
      if (missing || appSmsMissing) {
        throw new PlatformError(
          ErrorCode.InvalidArgument,
          `channels: ${missing ?? "app_sms (needs app and sms)"} is not configured on this platform`,
          { field: "channels" },
        );
      }
      await checkSenderPreconditions(sql, token, body, permitted);
      // Fail before recording anything when jobs could not be handed on.
      if (!deps.broker.isConnected())
        throw new PlatformError(ErrorCode.Unavailable, "message broker unavailable: not connected");
      const id = body.id ?? timeOrderedId();
      const recorded = { ...body, id };
      const tasks = tasksFor(body);
      // One statement, so one round trip and one commit: the notification and its tasks, or
      // nothing at all when the id is already taken.
      const [{ created }] = await sql<[{ created: boolean }]>`
        with notification as (
          insert into notifications (id, application_id, sender_user_id, tenant_id, body)
          values (${id}, ${token.clientId}, ${token.kind === "user" ? token.userId! : null}, ${token.tenantId ?? null}, ${sql.json(recorded)})
          on conflict (id) do nothing returning id
        ), tasks as (
          insert into delivery_tasks (id, notification_id, requested_channel, channel, position, phone, email, account, recipient)
          select t.id, notification.id, t.requested_channel, t.channel, t.position, t.phone, t.email, t.account, t.recipient
          from notification, jsonb_to_recordset(${sql.json(tasks)}) as t (
            id uuid, requested_channel text, channel text, position integer,
            phone text, email text, account text, recipient jsonb)
        )
        select exists (select from notification) as created`;
      if (!created) {
        // The same id again: the notification as first recorded, and nothing delivered twice.
        const [existing] = await sql<{ applicationId: string; body: NotificationBody }[]>`
          select application_id as "applicationId", body from notifications where id = ${id}`;
        if (existing?.applicationId !== token.clientId) {
          throw new PlatformError(ErrorCode.Conflict, `id ${id} is already used by another notification`, {
            field: "id",
          });
        }
        return c.json({ errno: 0, error: SUCCESS, total: 0, entities: [{ ...existing.body, id }] }, 200);
      }
      // A publish lost here is made good by the sweeper, which republishes tasks left pending.
      await Promise.allSettled(
        deliveryJobs(tasks).map((job) =>
          deps.broker.publish(job.queue, job.message, { messageId: job.messageId }),
        ),
      );
      return c.json({ errno: 0, error: SUCCESS, total: 0, entities: [recorded] }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "get",
      path: "/notification/status",
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
    }),
    async (c) => {
      const raw = [...(c.req.queries("id") ?? []), ...(c.req.queries("notificationId") ?? [])];
      const ids = [
        ...new Set(
          raw
            .flatMap((value) => value.split(","))
            .map((value) => value.trim())
            .filter(Boolean),
        ),
      ];
      if (ids.length === 0)
        throw new PlatformError(ErrorCode.InvalidArgument, "id: at least one notification id is required", {
          field: "id",
        });
      if (ids.length > RECIPIENTS_PER_LIST)
        throw new PlatformError(ErrorCode.InvalidArgument, "id: at most 100 notification ids", {
          field: "id",
        });
      const bad = ids.find((id) => !z.uuid().safeParse(id).success);
      if (bad)
        throw new PlatformError(ErrorCode.InvalidArgument, `id: ${bad} is not a GUID`, { field: "id" });
      const own = await sql<{ id: string }[]>`
        select id from notifications where id = any(${ids}::uuid[]) and application_id = ${c.get("token").clientId}`;
      const visible = ids.filter((id) => own.some((row) => row.id === id));
      const entities = grouped(visible, await tasksOf(sql, visible));
      return c.json({ errno: 0, error: SUCCESS, total: entities.length, entities }, 200);
    },
  );

  app.openapi(
    createRoute({
      method: "post",
      path: "/notification/status",
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
    }),
    async (c) => {
      const { tasks } = c.req.valid("json");
      const clientId = c.get("token").clientId;
      const channels = operatorChannels.get(clientId) ?? [];
      const ids = tasks.map((task) => task.taskId);
      const allowed = await sql<{ id: string; notificationId: string }[]>`
        select t.id, t.notification_id as "notificationId" from delivery_tasks t join notifications n on n.id = t.notification_id
        where t.id = any(${ids}::uuid[]) and (n.application_id = ${clientId} or t.channel = any(${channels}))`;
      const allowedIds = new Set(allowed.map((row) => row.id));
      const refused = ids.find((id) => !allowedIds.has(id));
      if (refused)
        throw new PlatformError(ErrorCode.NotFound, `taskId: no task ${refused} of yours`, {
          field: "taskId",
        });
      await sql.begin(async (tx) => {
        for (const task of tasks) {
          const readAt = task.read ? new Date(task.readtime ?? Date.now()) : null;
          await tx`
            update delivery_tasks set reading_status = ${task.read ? "read" : "unread"}, read_at = ${readAt}, updated_at = now()
            where id = ${task.taskId}`;
        }
      });
      const notificationIds = [...new Set(allowed.map((row) => row.notificationId))];
      const entities = grouped(notificationIds, await tasksOf(sql, notificationIds));
      return c.json({ errno: 0, error: SUCCESS, total: entities.length, entities }, 200);
    },
  );
  return app;
}
