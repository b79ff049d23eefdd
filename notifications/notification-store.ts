import type { NotificationBody } from "../contracts/notification.ts";
import type { Queryable } from "../runtime/database.ts";

/** A delivery_tasks row as a send inserts it (a type, so it passes as JSON). */
export type NewDeliveryTask = {
  id: string;
  requested_channel: string;
  channel: string;
  position: number;
  phone: string | null;
  email: string | null;
  account: string | null;
  recipient: NonNullable<NotificationBody["users"]>[number] | null;
};

export interface NotificationToRecord {
  id: string;
  /** The application that sends; it sees the delivery tasks through the status API. */
  applicationId: string;
  /** The campus account that sends (password-grant tokens), or null for an application's send. */
  senderUserId: string | null;
  tenantId: string | null;
  /** The body as recorded, `id` included. */
  body: NotificationBody & { id: string };
}

/**
 * Inserts the notification and its delivery tasks in one statement, or nothing at all when the id
 * is taken already: `created` says which.
 */
export async function insertNotificationWithTasks(
  sql: Queryable,
  notification: NotificationToRecord,
  tasks: readonly NewDeliveryTask[],
): Promise<boolean> {
  const [row] = await sql<{ created: boolean }[]>`
    with notification as (
      insert into notifications (id, application_id, sender_user_id, tenant_id, body)
      values (${notification.id}, ${notification.applicationId}, ${notification.senderUserId},
              ${notification.tenantId}, ${sql.json(notification.body as never)})
      on conflict (id) do nothing returning id
    ), tasks as (
      insert into delivery_tasks (id, notification_id, requested_channel, channel, position, phone, email, account, recipient)
      select t.id, notification.id, t.requested_channel, t.channel, t.position, t.phone, t.email, t.account, t.recipient
      from notification, jsonb_to_recordset(${sql.json(tasks as never)}) as t (
        id uuid, requested_channel text, channel text, position integer,
        phone text, email text, account text, recipient jsonb)
    )
    select exists (select from notification) as created`;
  return row!.created;
}

/** A notification's sending application and body as recorded, by id. */
export async function notificationById(
  sql: Queryable,
  id: string,
): Promise<{ applicationId: string; body: NotificationBody } | undefined> {
  const [row] = await sql<{ applicationId: string; body: NotificationBody }[]>`
    select application_id as "applicationId", body from notifications where id = ${id}`;
  return row;
}

/** Which of the notifications the application sent. */
export async function notificationsSentBy(
  sql: Queryable,
  ids: string[],
  applicationId: string,
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from notifications where id = any(${ids}::uuid[]) and application_id = ${applicationId}`;
  return rows.map((row) => row.id);
}

/** A delivery task as the status API reads it. */
export interface DeliveryTaskStatus {
  id: string;
  notificationId: string;
  channel: string;
  phone: string | null;
  email: string | null;
  account: string | null;
  sendingStatus: "pending" | "sent" | "retrying" | "fail";
  readingStatus: "read" | "unread" | "unknown";
  sentAt: Date | null;
  readAt: Date | null;
  /** Why it failed (or, for app_sms, how each leg went). */
  detail: string | null;
  /** For a task retrying: when its next attempt is due. */
  nextAttemptAt: Date | null;
}

/** The delivery tasks of the notifications, by notification, channel asked for and position. */
export async function deliveryTasksOf(
  sql: Queryable,
  notificationIds: string[],
): Promise<DeliveryTaskStatus[]> {
  return sql<DeliveryTaskStatus[]>`
    select id, notification_id as "notificationId", channel, phone, email, account,
           sending_status as "sendingStatus", reading_status as "readingStatus", sent_at as "sentAt",
           read_at as "readAt", detail, next_attempt_at as "nextAttemptAt"
    from delivery_tasks where notification_id = any(${notificationIds}::uuid[])
    order by notification_id, requested_channel, position`;
}

/** Of the tasks, those of the application's notifications or on one of the channels, with their notification. */
export async function tasksMarkableBy(
  sql: Queryable,
  taskIds: string[],
  applicationId: string,
  channels: string[],
): Promise<{ id: string; notificationId: string }[]> {
  return sql<{ id: string; notificationId: string }[]>`
    select t.id, t.notification_id as "notificationId" from delivery_tasks t join notifications n on n.id = t.notification_id
    where t.id = any(${taskIds}::uuid[]) and (n.application_id = ${applicationId} or t.channel = any(${channels}))`;
}

/** Marks a task read at `readAt`, or unread (`readAt` null). */
export async function markTaskRead(sql: Queryable, taskId: string, readAt: Date | null): Promise<void> {
  await sql`
    update delivery_tasks set reading_status = ${readAt ? "read" : "unread"}, read_at = ${readAt}, updated_at = now()
    where id = ${taskId}`;
}
