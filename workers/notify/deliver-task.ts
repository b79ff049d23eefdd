import type { HandlerOutcome } from "../../contracts/broker.ts";
import { ChannelError, type ChannelSender, type Delivery } from "../../contracts/channel-plugin.ts";
import { appMessageOf, type NotificationBody } from "../../contracts/notification.ts";
import type { Sql } from "../../runtime/database.ts";
import type { JobContext } from "../job-runner.ts";

export interface DeliveryDeps {
  sql: Sql;
  senders: ReadonlyMap<string, ChannelSender>;
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
  recipient: Delivery["recipient"]["user"] | null;
  body: NotificationBody;
  senderAccount: string | null;
  senderName: string | null;
  senderEmail: string | null;
  senderMailEnabled: boolean | null;
}

/**
 * Delivers one task through its channel's plugin and records the outcome. The task is leased
 * first, so a redelivered job never sends while another worker is sending, and a task already
 * `sent` (or finally failed) is left alone: delivery is at least once, sending is once.
 */
export function deliverTask(deps: DeliveryDeps) {
  const { sql } = deps;
  return async ({ taskId }: { taskId: string }, context: JobContext): Promise<HandlerOutcome> => {
    const [task] = await sql<ClaimedTask[]>`
      with claimed as (
        update delivery_tasks set claimed_until = now() + make_interval(secs => ${deps.leaseSeconds})
        where id = ${taskId} and sending_status in ('pending', 'retrying')
          and (claimed_until is null or claimed_until < now())
        returning *
      )
      select c.id, c.notification_id as "notificationId", c.channel, c.requested_channel as "requestedChannel", c.phone, c.email, c.account, c.recipient,
             n.body, u.account as "senderAccount", u.name as "senderName", u.email as "senderEmail",
             u.mail_enabled as "senderMailEnabled"
      from claimed c join notifications n on n.id = c.notification_id
      left join users u on u.id = n.sender_user_id`;
    if (!task) {
      const [state] = await sql<{ open: boolean }[]>`
        select sending_status in ('pending', 'retrying') as open from delivery_tasks where id = ${taskId}`;
      // Another worker holds the lease (or held it and died): come back later rather than drop it.
      if (state?.open) return { outcome: "retry", reason: "another worker holds the task" };
      context.log.debug({ taskId }, "task already delivered, failed for good, or gone");
      return { outcome: "done" };
    }
    const finish = async (
      status: "sent" | "retrying" | "fail",
      detail: string | null,
      providerId?: string,
    ) => {
      await sql`
        update delivery_tasks set sending_status = ${status}, detail = ${detail},
          provider_message_id = coalesce(${providerId ?? null}, provider_message_id),
          sent_at = case when ${status} = 'sent' then now() else sent_at end,
          attempts = attempts + 1, claimed_until = null, updated_at = now()
        where id = ${taskId}`;
    };
    if (task.channel === "email" && task.senderAccount !== null && !task.senderMailEnabled) {
      // Spec 000: the send succeeds, nothing is mailed, and the task says why.
      await finish("fail", `the sender ${task.senderAccount} has no mail service enabled; nothing was sent`);
      return { outcome: "done" };
    }
    const outcome = await sendThrough(deps, task, task.channel);
    if (outcome.sent) {
      await finish("sent", null, outcome.providerMessageId);
      return { outcome: "done" };
    }
    const lastAttempt = context.attempt >= context.maxAttempts;
    if (outcome.retryable && !lastAttempt) {
      await finish("retrying", outcome.reason);
      return { outcome: "retry", reason: outcome.reason };
    }
    await finish("fail", outcome.reason);
    return { outcome: "fail", reason: outcome.reason };
  };
}

type SendOutcome =
  | { sent: true; providerMessageId?: string }
  | { sent: false; retryable: boolean; reason: string };

/** One try on a channel; for app_sms, a refusal by the campus app moves the task to SMS. */
async function sendThrough(deps: DeliveryDeps, task: ClaimedTask, channel: string): Promise<SendOutcome> {
  const sender = deps.senders.get(channel);
  if (!sender) return { sent: false, retryable: false, reason: `channel ${channel} is not configured` };
  try {
    const result = await sender.send(deliveryFor(task, channel));
    return { sent: true, ...result };
  } catch (error) {
    const failure =
      error instanceof ChannelError ? error : new ChannelError((error as Error).message, { retryable: true });
    if (failure.recipientRefused && channel === "app" && task.requestedChannel === "app_sms" && task.phone) {
      // The task's channel shows the one actually used from now on.
      await deps.sql`update delivery_tasks set channel = 'sms', detail = ${failure.message} where id = ${task.id}`;
      return sendThrough(deps, task, "sms");
    }
    return { sent: false, retryable: failure.retryable, reason: failure.message };
  }
}

/** What a plugin receives for a task on a channel, with the text or app message spec 000's rules choose. */
function deliveryFor(task: ClaimedTask, channel: string): Delivery {
  return {
    taskId: task.id,
    notificationId: task.notificationId,
    channel,
    recipient: {
      ...(task.phone ? { phone: task.phone } : {}),
      ...(task.email ? { email: task.email } : {}),
      ...(task.account ? { account: task.account } : {}),
      ...(task.recipient ? { user: task.recipient } : {}),
    },
    notification: task.body,
    ...(channel === "sms" ? { text: smsText(task.body, task.requestedChannel) } : {}),
    ...(channel === "app" ? { app: appMessageOf(task.body) } : {}),
    ...(task.senderAccount
      ? { sender: { account: task.senderAccount, name: task.senderName ?? "", email: task.senderEmail } }
      : {}),
  };
}

/** Spec 000: `abstract` wins for the sms channel; `content` wins for the SMS half of app_sms. */
function smsText(body: NotificationBody, requestedChannel: string): string {
  const first = requestedChannel === "app_sms" ? body.content : body.abstract;
  const second = requestedChannel === "app_sms" ? body.abstract : body.content;
  return first || second || "";
}
