import type { HandlerOutcome } from "../../contracts/broker.ts";
import { ChannelError, type Delivery } from "../../contracts/channel-plugin.ts";
import {
  appMessageOf,
  type NotificationBody,
  type NotificationEnterprise,
  type NotificationUser,
} from "../../contracts/notification.ts";
import { retryWhileUnavailable, type Sql } from "../../runtime/database.ts";
import type { JobContext } from "../job-runner.ts";
import type { GatedSender } from "./gated-sender.ts";

export interface DeliveryDeps {
  sql: Sql;
  senders: ReadonlyMap<string, GatedSender>;
  /** How long a worker holds a task while delivering it; at least the job's timeout. */
  leaseSeconds: number;
}

interface ClaimedTask {
  id: string;
  notificationId: string;
  channel: string;
  requestedChannel: string;
  phone: string | null;
  email: string | null;
  account: string | null;
  recipient: NotificationUser | null;
}

interface NotificationOfTasks {
  id: string;
  body: NotificationBody;
  /** The sending tenant, given to external-channel recipients that do not carry their own. */
  enterprise: NotificationEnterprise | null;
  senderAccount: string | null;
  senderName: string | null;
  senderEmail: string | null;
  senderMailEnabled: boolean | null;
}

/** What became of one task on this attempt; `channel` is the one actually used. */
interface TaskOutcome {
  id: string;
  status: "sent" | "retrying" | "fail";
  channel: string;
  detail: string | null;
  providerMessageId: string | null;
}

/**
 * Delivers a job's tasks through their channel's plugin and records every outcome in one write.
 * The tasks are leased first, so a redelivered job never sends while another worker is sending,
 * and a task already `sent` (or finally failed) is left alone: delivery is at least once, sending
 * is once. The job is retried while any of its tasks may still succeed; a retry only works the
 * tasks still open.
 */
export function deliverTasks(deps: DeliveryDeps) {
  const { sql } = deps;
  return async ({ taskIds }: { taskIds: string[] }, context: JobContext): Promise<HandlerOutcome> => {
    const tasks = await sql<ClaimedTask[]>`
      update delivery_tasks set claimed_until = now() + make_interval(secs => ${deps.leaseSeconds})
      where id = any(${taskIds}::uuid[]) and sending_status in ('pending', 'retrying')
        and (claimed_until is null or claimed_until < now())
      returning id, notification_id as "notificationId", channel, requested_channel as "requestedChannel",
        phone, email, account, recipient`;
    const held = tasks.length < taskIds.length ? await stillOpen(sql, taskIds, tasks) : 0;
    if (tasks.length === 0) {
      // Another worker holds the leases (or held them and died): come back later rather than drop them.
      if (held > 0) return { outcome: "retry", reason: `another worker holds ${held} of the tasks` };
      context.log.debug({ taskIds }, "tasks already delivered, failed for good, or gone");
      return { outcome: "done" };
    }
    const notifications = await notificationsOf(sql, tasks);
    const lastAttempt = context.attempt >= context.maxAttempts;
    const outcomes = await Promise.all(
      tasks.map((task) =>
        deliverOne(deps, task, notifications.get(task.notificationId)!, lastAttempt, context),
      ),
    );
    const attempted = outcomes.filter((outcome) => outcome !== undefined);
    // The messages are out: their outcomes must be written, or a retry would send them again.
    await retryWhileUnavailable(() => recordOutcomes(sql, attempted), deps.leaseSeconds * 1000);
    const unattempted = tasks.length - attempted.length;
    if (unattempted > 0) await releaseLeases(sql, tasks, attempted);
    const failed = attempted.filter((outcome) => outcome.status === "fail");
    const retrying = attempted.filter((outcome) => outcome.status === "retrying");
    if (retrying.length > 0 || held > 0 || unattempted > 0) {
      const reason = retrying[0]?.detail ?? `${held + unattempted} tasks not attempted`;
      return { outcome: "retry", reason };
    }
    if (failed.length > 0) return { outcome: "fail", reason: failed[0]!.detail ?? "delivery failed" };
    return { outcome: "done" };
  };
}

/** How many of the job's tasks not claimed are still open (leased by another worker). */
async function stillOpen(sql: Sql, taskIds: string[], claimed: ClaimedTask[]): Promise<number> {
  const claimedIds = new Set(claimed.map((task) => task.id));
  const others = taskIds.filter((id) => !claimedIds.has(id));
  const [row] = await sql<{ open: number }[]>`
    select count(*)::int as open from delivery_tasks
    where id = any(${others}::uuid[]) and sending_status in ('pending', 'retrying')`;
  return row?.open ?? 0;
}

/** The notifications behind the tasks, each read once however many of its tasks the job carries. */
async function notificationsOf(sql: Sql, tasks: ClaimedTask[]): Promise<Map<string, NotificationOfTasks>> {
  const ids = [...new Set(tasks.map((task) => task.notificationId))];
  const rows = await sql<NotificationOfTasks[]>`
    select n.id, n.body, u.account as "senderAccount", u.name as "senderName", u.email as "senderEmail",
           u.mail_enabled as "senderMailEnabled",
           case when t.id is not null then
             json_build_object('id', t.id, 'name', t.name, 'domain', t.domain, 'style', t.style,
                               'logo', t.logo, 'banner', t.banner, 'copyright', t.copyright)
           end as enterprise
    from notifications n left join users u on u.id = n.sender_user_id
      left join tenants t on t.id = n.tenant_id
    where n.id = any(${ids}::uuid[])`;
  return new Map(rows.map((row) => [row.id, row]));
}

/** One task's attempt, or undefined when the job was aborted before it could start. */
async function deliverOne(
  deps: DeliveryDeps,
  task: ClaimedTask,
  notification: NotificationOfTasks,
  lastAttempt: boolean,
  context: JobContext,
): Promise<TaskOutcome | undefined> {
  const outcome = (
    status: TaskOutcome["status"],
    channel: string,
    detail: string | null,
    providerId?: string,
  ) => ({
    id: task.id,
    status,
    channel,
    detail,
    providerMessageId: providerId ?? null,
  });
  if (task.channel === "email" && notification.senderAccount !== null && !notification.senderMailEnabled) {
    // Spec 000: the send succeeds, nothing is mailed, and the task says why.
    const why = `the sender ${notification.senderAccount} has no mail service enabled; nothing was sent`;
    return outcome("fail", task.channel, why);
  }
  const sent = await sendThrough(deps, task, notification, task.channel, context.signal);
  if (sent === undefined) return undefined;
  if (sent.sent) return outcome("sent", sent.channel, sent.detail ?? null, sent.providerMessageId);
  const status = sent.retryable && !lastAttempt ? "retrying" : "fail";
  return outcome(status, sent.channel, sent.reason);
}

type SendOutcome =
  | { sent: true; channel: string; providerMessageId?: string; detail?: string }
  | { sent: false; channel: string; retryable: boolean; reason: string };

/**
 * One try on a channel, or undefined when the job was aborted (timed out, worker stopping) before
 * the send began. For app_sms, a refusal by the campus app moves the task to SMS.
 */
async function sendThrough(
  deps: DeliveryDeps,
  task: ClaimedTask,
  notification: NotificationOfTasks,
  channel: string,
  signal: AbortSignal,
): Promise<SendOutcome | undefined> {
  const sender = deps.senders.get(channel);
  if (!sender)
    return { sent: false, channel, retryable: false, reason: `channel ${channel} is not configured` };
  try {
    const result = await sender.send(deliveryFor(task, notification, channel), signal);
    if (result === undefined) return undefined;
    return { sent: true, channel, ...result };
  } catch (error) {
    const failure =
      error instanceof ChannelError ? error : new ChannelError((error as Error).message, { retryable: true });
    if (failure.recipientRefused && channel === "app" && task.requestedChannel === "app_sms" && task.phone) {
      const fallback = await sendThrough(deps, task, notification, "sms", signal);
      // The app's refusal stays on record as the reason SMS was used.
      if (fallback?.sent) return { ...fallback, detail: failure.message };
      return fallback;
    }
    return { sent: false, channel, retryable: failure.retryable, reason: failure.message };
  }
}

/** Every attempted task's outcome, in one statement. */
async function recordOutcomes(sql: Sql, outcomes: TaskOutcome[]): Promise<void> {
  if (outcomes.length === 0) return;
  await sql`
    update delivery_tasks t set sending_status = o.status, channel = o.channel, detail = o.detail,
      provider_message_id = coalesce(o.provider_id, t.provider_message_id),
      sent_at = case when o.status = 'sent' then now() else t.sent_at end,
      attempts = t.attempts + 1, claimed_until = null, updated_at = now()
    from unnest(${outcomes.map((o) => o.id)}::uuid[], ${outcomes.map((o) => o.status)}::text[],
                ${outcomes.map((o) => o.channel)}::text[], ${outcomes.map((o) => o.detail)}::text[],
                ${outcomes.map((o) => o.providerMessageId)}::text[])
      as o (id, status, channel, detail, provider_id)
    where t.id = o.id`;
}

/** Gives back the leases of tasks the job never started, so its retry (or the sweeper) finds them. */
async function releaseLeases(sql: Sql, tasks: ClaimedTask[], attempted: TaskOutcome[]): Promise<void> {
  const done = new Set(attempted.map((outcome) => outcome.id));
  const ids = tasks.filter((task) => !done.has(task.id)).map((task) => task.id);
  await sql`update delivery_tasks set claimed_until = null, updated_at = now() where id = any(${ids}::uuid[])`;
}

/** What a plugin receives for a task on a channel, with the text or app message spec 000's rules choose. */
function deliveryFor(task: ClaimedTask, notification: NotificationOfTasks, channel: string): Delivery {
  const body = notification.body;
  return {
    taskId: task.id,
    notificationId: task.notificationId,
    channel,
    recipient: {
      ...(task.phone ? { phone: task.phone } : {}),
      ...(task.email ? { email: task.email } : {}),
      ...(task.account ? { account: task.account } : {}),
      ...(task.recipient ? { user: withEnterprise(task.recipient, notification.enterprise) } : {}),
    },
    notification: body,
    ...(channel === "sms" ? { text: smsText(body, task.requestedChannel) } : {}),
    ...(channel === "app" ? { app: appMessageOf(body) } : {}),
    ...(notification.senderAccount
      ? {
          sender: {
            account: notification.senderAccount,
            name: notification.senderName ?? "",
            email: notification.senderEmail,
          },
        }
      : {}),
  };
}

function withEnterprise(user: NotificationUser, enterprise: NotificationEnterprise | null): NotificationUser {
  return user.enterprise || !enterprise ? user : { ...user, enterprise };
}

/** Spec 000: `abstract` wins for the sms channel; `content` wins for the SMS half of app_sms. */
function smsText(body: NotificationBody, requestedChannel: string): string {
  const first = requestedChannel === "app_sms" ? body.content : body.abstract;
  const second = requestedChannel === "app_sms" ? body.abstract : body.content;
  return first || second || "";
}
