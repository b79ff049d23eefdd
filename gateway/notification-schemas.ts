import { z } from "@hono/zod-openapi";
import type { DeliveryTaskStatus } from "../notifications/notification-status.ts";

/** Spec 000's notification API as its answers and requests are shaped. */

export const SUCCESS = "success";

export const taskSchema = z
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
    detail: z.string().optional().openapi({
      description: "while retrying or once failed: the last attempt's error, as the channel gave it",
    }),
    nextAttemptTime: z
      .number()
      .int()
      .optional()
      .openapi({ description: "while retrying: when the next attempt is due (milliseconds)" }),
  })
  .openapi("NotificationTask");

export const notificationTasksSchema = z
  .object({ id: z.uuid(), tasks: z.array(taskSchema) })
  .openapi("NotificationTasks");

export const envelope = <T extends z.ZodType>(entity: T, name: string) =>
  z
    .object({
      errno: z.number().int(),
      error: z.string(),
      total: z.number().int(),
      entities: z.array(entity),
    })
    .openapi(name);

export const markSchema = z
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

function toTask(row: DeliveryTaskStatus): Task {
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
    ...(row.detail !== null && (row.sendingStatus === "retrying" || row.sendingStatus === "fail")
      ? { detail: row.detail }
      : {}),
    ...(row.sendingStatus === "retrying" && row.nextAttemptAt
      ? { nextAttemptTime: row.nextAttemptAt.getTime() }
      : {}),
  };
}

/** Each notification with its tasks, in the order of `ids`. */
export function grouped(ids: string[], rows: DeliveryTaskStatus[]) {
  return ids.map((id) => ({ id, tasks: rows.filter((row) => row.notificationId === id).map(toTask) }));
}
