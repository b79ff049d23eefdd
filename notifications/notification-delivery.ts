import { deliveryJobs } from "../contracts/jobs.ts";
import type { NotificationBody } from "../contracts/notification.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import type { Queryable } from "../runtime/database.ts";
import { timeOrderedId } from "../runtime/time-ordered-id.ts";
import {
  insertNotificationWithTasks,
  type NewDeliveryTask,
  type NotificationToRecord,
} from "./notification-store.ts";

/**
 * The one way a notification enters delivery, shared by spec 000's send and the platform's own
 * notifications (workflow reminders): record it with its delivery tasks, then publish their jobs.
 * The body is expected to have passed `notificationBodySchema` and `channelRuleViolations`.
 */

/** One delivery task per recipient per channel, in the order the lists give them. */
export function deliveryTasksFor(body: NotificationBody): NewDeliveryTask[] {
  const rows: NewDeliveryTask[] = [];
  const add = (requested: string, channel: string, position: number, recipient: Partial<NewDeliveryTask>) => {
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

/**
 * Records the notification and its delivery tasks in one statement (one round trip, one commit
 * outside a transaction), or nothing at all when the id is taken already (`created` false). Run it
 * in the caller's transaction to record it with other writes; publish the tasks after the commit.
 */
export async function recordNotification(
  sql: Queryable,
  notification: NotificationToRecord,
): Promise<{ created: boolean; tasks: NewDeliveryTask[] }> {
  const tasks = deliveryTasksFor(notification.body);
  const created = await insertNotificationWithTasks(sql, notification, tasks);
  return { created, tasks };
}

/**
 * Hands the tasks' delivery jobs to the broker. A publish lost here is made good by the workers'
 * sweeper, which republishes tasks left pending, so the caller need not wait for it to succeed.
 */
export async function publishDeliveries(jobs: JobClient, tasks: readonly NewDeliveryTask[]): Promise<void> {
  await Promise.allSettled(
    deliveryJobs(tasks).map((job) =>
      jobs.enqueue(job.name, job.payload, { messageId: job.messageId, member: job.member }),
    ),
  );
}

export function newNotificationId(): string {
  return timeOrderedId();
}
