import { ErrorCode, PlatformError } from "../contracts/errors.ts";
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

export type { NotificationToRecord } from "./notification-store.ts";

/**
 * The one way a notification enters delivery, shared by spec 000's send, the console's test
 * message and the platform's own notifications (workflow reminders): check that its jobs can be
 * handed on, record it with its delivery tasks, then publish their jobs. The body is expected to
 * have passed `notificationBodySchema` and `channelRuleViolations`.
 */

/** Where the delivery jobs of recorded notifications go, and whether they can go now. */
export interface DeliveryQueue {
  jobs: JobClient;
  /** Whether jobs can be handed on now: nothing is recorded otherwise. */
  brokerConnected: () => boolean;
}

/**
 * Records a notification and its delivery tasks in one statement, on the connection or the
 * transaction given (the caller's, to record it with other writes); false, and nothing recorded,
 * when its id is taken already.
 */
export type RecordNotification = (sql: Queryable, notification: NotificationToRecord) => Promise<boolean>;

/**
 * Check, record, publish: refuses (unavailable) before anything is recorded when jobs could not be
 * handed on; runs `work`, which records its notifications with the `record` it is given (in its
 * own transaction if it likes); once `work` is done, and so its transaction committed, publishes
 * the jobs of every task it recorded. Its answer is `work`'s. `work` runs its transaction once: the
 * tasks of an attempt rolled back and run again would be published too (to no effect, as no
 * worker finds them, yet for nothing).
 */
export async function recordAndPublish<T>(
  queue: DeliveryQueue,
  work: (record: RecordNotification) => Promise<T>,
): Promise<T> {
  if (!queue.brokerConnected())
    throw new PlatformError(ErrorCode.Unavailable, "message broker unavailable: not connected");
  const batch = notificationBatch();
  const result = await work(batch.record);
  await batch.publish(queue.jobs);
  return result;
}

/**
 * Notifications recorded in a transaction its caller commits (a relay's batch): `record` writes
 * each with its delivery tasks; once committed, `publish` hands on the jobs of every task written.
 */
export function notificationBatch(): { record: RecordNotification; publish(jobs: JobClient): Promise<void> } {
  const recorded: NewDeliveryTask[] = [];
  return {
    async record(sql, notification) {
      const tasks = deliveryTasksFor(notification.body);
      const created = await insertNotificationWithTasks(sql, notification, tasks);
      if (created) recorded.push(...tasks);
      return created;
    },
    publish: (jobs) => publishDeliveries(jobs, recorded),
  };
}

/** One delivery task per recipient per channel, in the order the lists give them. */
function deliveryTasksFor(body: NotificationBody): NewDeliveryTask[] {
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
 * Hands the tasks' delivery jobs to the broker. A publish lost here is made good by the workers'
 * sweeper, which republishes tasks left pending, so the caller need not wait for it to succeed.
 */
async function publishDeliveries(jobs: JobClient, tasks: readonly NewDeliveryTask[]): Promise<void> {
  await Promise.allSettled(
    deliveryJobs(tasks).map((job) =>
      jobs.enqueue(job.name, job.payload, { messageId: job.messageId, member: job.member }),
    ),
  );
}

export function newNotificationId(): string {
  return timeOrderedId();
}
