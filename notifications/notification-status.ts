import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { NotificationBody } from "../contracts/notification.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import type { ChannelSettings } from "./notification-rules.ts";
import {
  type DeliveryTaskStatus,
  deliveryTasksOf,
  markTaskRead,
  notificationById,
  notificationsSentBy,
  tasksMarkableBy,
} from "./notification-store.ts";

export type { DeliveryTaskStatus } from "./notification-store.ts";

/**
 * The delivery status of notifications as spec 000's status API reads and marks it: a sender sees
 * its own notifications' tasks; the sender, or the operator application of a task's channel, marks
 * a task read or unread.
 */

/** Notifications with their delivery tasks: the notifications in order, the tasks of them all. */
export interface NotificationsStatus {
  notificationIds: string[];
  tasks: DeliveryTaskStatus[];
}

/** The delivery tasks of those of the notifications the application sent, in the order asked. */
export async function statusOfSent(
  sql: Queryable,
  applicationId: string,
  ids: string[],
): Promise<NotificationsStatus> {
  const own = await notificationsSentBy(sql, ids, applicationId);
  const notificationIds = ids.filter((id) => own.includes(id));
  return { notificationIds, tasks: await deliveryTasksOf(sql, notificationIds) };
}

/** A task marked read (at `readtime`, in milliseconds, else now) or unread. */
export interface TaskMark {
  taskId: string;
  read: boolean;
  readtime?: number | undefined;
}

/**
 * Marks the tasks, all in one transaction, once each is found to be of the application's
 * notifications or on a channel it operates; one that is not is refused (not found) and nothing is
 * marked. Answers the marked tasks' notifications with all their tasks.
 */
export async function markTasks(
  sql: Sql,
  channels: Pick<ChannelSettings, "operatorChannels">,
  applicationId: string,
  marks: readonly TaskMark[],
): Promise<NotificationsStatus> {
  const operated = channels.operatorChannels.get(applicationId) ?? [];
  const ids = marks.map((mark) => mark.taskId);
  const allowed = await tasksMarkableBy(sql, ids, applicationId, operated);
  const allowedIds = new Set(allowed.map((row) => row.id));
  const refused = ids.find((id) => !allowedIds.has(id));
  if (refused)
    throw new PlatformError(ErrorCode.NotFound, `taskId: no task ${refused} of yours`, { field: "taskId" });
  await transaction(sql, async (tx) => {
    for (const mark of marks) {
      const readAt = mark.read ? new Date(mark.readtime ?? Date.now()) : null;
      await markTaskRead(tx, mark.taskId, readAt);
    }
  });
  const notificationIds = [...new Set(allowed.map((row) => row.notificationId))];
  return { notificationIds, tasks: await deliveryTasksOf(sql, notificationIds) };
}

/** A notification as recorded, with its delivery tasks, by id; undefined when there is none. */
export async function notificationWithTasks(
  sql: Queryable,
  id: string,
): Promise<{ applicationId: string; body: NotificationBody; tasks: DeliveryTaskStatus[] } | undefined> {
  const notification = await notificationById(sql, id);
  if (!notification) return undefined;
  return { ...notification, tasks: await deliveryTasksOf(sql, [id]) };
}
