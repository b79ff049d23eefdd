import type {
  NotificationBody,
  NotificationEnterprise,
  NotificationUser,
} from "../contracts/notification.ts";
import type { Queryable } from "../runtime/database.ts";

/** A delivery task as a worker leases it. */
export interface ClaimedTask {
  id: string;
  notificationId: string;
  channel: string;
  requestedChannel: string;
  phone: string | null;
  email: string | null;
  account: string | null;
  recipient: NotificationUser | null;
  /** The last attempt's detail: for an app_sms task already on SMS, it holds the app leg's error. */
  detail: string | null;
}

/** The notification behind delivery tasks, with its sender and tenant. */
export interface NotificationOfTasks {
  id: string;
  body: NotificationBody;
  /** The sending tenant, given to external-channel recipients that do not carry their own. */
  enterprise: NotificationEnterprise | null;
  senderAccount: string | null;
  senderName: string | null;
  senderEmail: string | null;
  senderMailEnabled: boolean | null;
}

/** What became of one task on an attempt; `channel` is the one actually used. */
export interface TaskOutcome {
  id: string;
  status: "sent" | "retrying" | "fail";
  channel: string;
  detail: string | null;
  providerMessageId: string | null;
  /** For a task retrying: when its next attempt is due. */
  nextAttemptAt: Date | null;
}

/** Leases the open tasks among `taskIds` no other worker holds, for `leaseSeconds`. */
export async function claimDeliveryTasks(
  sql: Queryable,
  taskIds: string[],
  leaseSeconds: number,
): Promise<ClaimedTask[]> {
  return await sql<ClaimedTask[]>`
    update delivery_tasks set claimed_until = now() + make_interval(secs => ${leaseSeconds})
    where id = any(${taskIds}::uuid[]) and sending_status in ('pending', 'retrying')
      and (claimed_until is null or claimed_until < now())
    returning id, notification_id as "notificationId", channel, requested_channel as "requestedChannel",
      phone, email, account, recipient, detail`;
}

/** Opens again the tasks among `taskIds` that failed, for a job an operator replays. */
export async function reopenFailedTasks(sql: Queryable, taskIds: string[]): Promise<void> {
  await sql`
    update delivery_tasks set sending_status = 'retrying', updated_at = now()
    where id = any(${taskIds}::uuid[]) and sending_status = 'fail'`;
}

/** How many of the tasks are still open (pending or retrying). */
export async function countOpenTasks(sql: Queryable, ids: string[]): Promise<number> {
  const [row] = await sql<{ open: number }[]>`
    select count(*)::int as open from delivery_tasks
    where id = any(${ids}::uuid[]) and sending_status in ('pending', 'retrying')`;
  return row?.open ?? 0;
}

/** The notifications of the ids, with their sender and tenant. */
export async function readNotificationsOfTasks(
  sql: Queryable,
  ids: string[],
): Promise<NotificationOfTasks[]> {
  return await sql<NotificationOfTasks[]>`
    select n.id, n.body, u.account as "senderAccount", u.name as "senderName", u.email as "senderEmail",
           u.mail_enabled as "senderMailEnabled",
           case when t.id is not null then
             json_build_object('id', t.id, 'name', t.name, 'domain', t.domain, 'style', t.style,
                               'logo', t.logo, 'banner', t.banner, 'copyright', t.copyright)
           end as enterprise
    from notifications n left join users u on u.id = n.sender_user_id
      left join tenants t on t.id = n.tenant_id
    where n.id = any(${ids}::uuid[])`;
}

/** The outcomes of attempted tasks, in one statement; each task's lease ends. */
export async function recordTaskOutcomes(sql: Queryable, outcomes: TaskOutcome[]): Promise<void> {
  await sql`
    update delivery_tasks t set sending_status = o.status, channel = o.channel, detail = o.detail,
      provider_message_id = coalesce(o.provider_id, t.provider_message_id), next_attempt_at = o.next_attempt_at,
      sent_at = case when o.status = 'sent' then now() else t.sent_at end,
      attempts = t.attempts + 1, claimed_until = null, updated_at = now()
    from unnest(${outcomes.map((o) => o.id)}::uuid[], ${outcomes.map((o) => o.status)}::text[],
                ${outcomes.map((o) => o.channel)}::text[], ${outcomes.map((o) => o.detail)}::text[],
                ${outcomes.map((o) => o.providerMessageId)}::text[],
                ${outcomes.map((o) => o.nextAttemptAt?.toISOString() ?? null)}::timestamptz[])
      as o (id, status, channel, detail, provider_id, next_attempt_at)
    where t.id = o.id`;
}

/** Ends the leases of the tasks. */
export async function releaseTaskLeases(sql: Queryable, ids: string[]): Promise<void> {
  await sql`update delivery_tasks set claimed_until = null, updated_at = now() where id = any(${ids}::uuid[])`;
}

/**
 * Marks `fail` up to `limit` retrying tasks with no attempt left, untouched for `staleSeconds`;
 * rows another sweeper holds are skipped. Returns the ids marked.
 */
export async function failExhaustedTasks(
  sql: Queryable,
  maxAttempts: number,
  staleSeconds: number,
  limit: number,
): Promise<{ id: string }[]> {
  return await sql<{ id: string }[]>`
    update delivery_tasks set sending_status = 'fail', updated_at = now(),
      detail = coalesce(detail, '') || ' (gave up: no attempt left)'
    where id in (
      select id from delivery_tasks
      where sending_status = 'retrying' and attempts >= ${maxAttempts}
        and updated_at < now() - make_interval(secs => ${staleSeconds})
      limit ${limit} for update skip locked)
    returning id`;
}

/**
 * Takes (touches) up to `limit` tasks that lost their job: pending for `pendingSeconds`, or
 * retrying untouched for `staleSeconds`; rows another sweeper holds are skipped.
 */
export async function takeLostTasks(
  sql: Queryable,
  pendingSeconds: number,
  staleSeconds: number,
  limit: number,
): Promise<{ id: string; channel: string }[]> {
  return await sql<{ id: string; channel: string }[]>`
    update delivery_tasks set updated_at = now()
    where id in (
      select id from delivery_tasks
      where (sending_status = 'pending' and updated_at < now() - make_interval(secs => ${pendingSeconds}))
         or (sending_status = 'retrying' and updated_at < now() - make_interval(secs => ${staleSeconds}))
      order by updated_at limit ${limit} for update skip locked)
    returning id, channel`;
}
