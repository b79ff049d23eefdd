import type { WorkflowNotify } from "../contracts/bootstrap.ts";
import { channelRuleViolations, RECIPIENTS_PER_LIST } from "../contracts/notification.ts";
import { isRegisteredApplication } from "../identity/registered-applications.ts";
import { tenantsNotifying } from "../identity/tenants.ts";
import { type DeliveryQueue, notificationBatch } from "../notifications/notification-delivery.ts";
import type { Queryable } from "../runtime/database.ts";
import { timeOrderedIdNamed } from "../runtime/time-ordered-id.ts";
import { compiledVersion } from "./app-store.ts";
import type { ActivityRecord } from "./engine/engine-result.ts";
import { recipientsOf } from "./event-recipients.ts";
import {
  bodyFor,
  channelConfigured,
  fill,
  listedAccounts,
  type ReminderChannels,
  reachableOn,
} from "./notification-text.ts";
import type { OutboxEvent, OutboxSubscriber } from "./outbox/outbox-subscriber.ts";
import { noticeSubjects } from "./process-store.ts";
import { profiles } from "./process-views.ts";
import { recordActivities } from "./result-writer.ts";

/**
 * The tenant's `workflow.notify`: a notice to each person a task became a to-do of (candidates
 * and delegates) and to each reader of a copy, through the notification pipeline of spec 000, so
 * it is recorded, retried and seen in the status API of the application it is sent as. A notice's
 * id is made from its event's, so a batch offered again records nothing twice.
 */

type NoticeKind = "todo" | "cc";

const KIND_OF_EVENT: Record<string, NoticeKind> = { "todo.created": "todo", cc: "cc" };

const WHAT: Record<NoticeKind, string> = { todo: "new to-do", cc: "copy" };

export interface WorkflowNotifyDeps {
  queue: DeliveryQueue;
  /** The channels configured now. */
  channels: () => ReminderChannels;
}

/** A notice one event asks for: who, about what, and the setting it follows. */
interface Notice {
  event: OutboxEvent;
  kind: NoticeKind;
  setting: WorkflowNotify;
  users: string[];
  node: string | undefined;
}

export function workflowNotifySubscriber(deps: WorkflowNotifyDeps): OutboxSubscriber {
  return {
    name: "workflow.notify",
    async accept(events, tx) {
      const asked = events.filter((event) => KIND_OF_EVENT[event.type]);
      if (asked.length === 0) return undefined;
      const settings = await tenantsNotifying(tx, [...new Set(asked.map((event) => event.tenantId))]);
      const wanted = asked.filter((event) => settings.get(event.tenantId)?.[KIND_OF_EVENT[event.type]!]);
      if (wanted.length === 0) return undefined;
      // Offered again later: nothing is recorded that could not be handed on.
      if (!deps.queue.brokerConnected()) throw new Error("message broker unavailable: not connected");
      const notices = await noticesOf(tx, wanted, settings);
      const batch = notificationBatch();
      const activities = await sendNotices(tx, notices, deps.channels(), batch.record);
      await recordActivities(tx, activities);
      return () => batch.publish(deps.queue.jobs);
    },
  };
}

/** The notices the events ask for; a to-do already handled when its event is read asks for none. */
async function noticesOf(
  tx: Queryable,
  events: readonly OutboxEvent[],
  settings: ReadonlyMap<string, WorkflowNotify>,
): Promise<Notice[]> {
  const recipients = await recipientsOf(tx, events);
  const notices: Notice[] = [];
  for (const event of events) {
    const kind = KIND_OF_EVENT[event.type]!;
    const users = [...(recipients.get(event.id)?.users ?? [])];
    if (users.length === 0) continue;
    const node = kind === "cc" ? (event.payload as { node?: string }).node : undefined;
    notices.push({ event, kind, setting: settings.get(event.tenantId)!, users, node });
  }
  return notices;
}

/** Records each notice's notifications, and answers the activity each process gets. */
async function sendNotices(
  tx: Queryable,
  notices: readonly Notice[],
  channels: ReminderChannels,
  record: ReturnType<typeof notificationBatch>["record"],
): Promise<{ processId: string; activity: ActivityRecord }[]> {
  const subjects = await noticeSubjects(
    tx,
    [...new Set(notices.map((notice) => notice.event.processId))],
    notices.flatMap((notice) => (notice.kind === "todo" ? [notice.event.taskId!] : [])),
  );
  const people = await profiles(
    tx,
    notices.flatMap((notice) => notice.users),
  );
  const registered = new Map<string, boolean>();
  const activities: { processId: string; activity: ActivityRecord }[] = [];
  for (const notice of notices) {
    const { event, kind, setting } = notice;
    const process = subjects.processes.get(event.processId);
    if (!process) continue;
    const activity = (level: ActivityRecord["level"], description: string) =>
      activities.push({
        processId: event.processId,
        activity: {
          category: "NOTIFICATION",
          level,
          tags: kind === "todo" ? "NOTIFY_TASK" : "NOTIFY_CC",
          description,
          user: null,
          task: event.taskId,
        },
      });
    const node = kind === "todo" ? subjects.taskNodes.get(event.taskId!) : notice.node;
    const version = await compiledVersion(tx, process.versionId);
    const kindOfNode = node ? version.nodes.get(node)?.kind : undefined;
    // The owner's own form, the moment they started: nothing to announce to them.
    const users =
      kindOfNode === "start" ? notice.users.filter((user) => user !== process.ownerId) : notice.users;
    if (users.length === 0) continue;
    const refusal = await settingRefusal(tx, setting, channels, registered);
    if (refusal) {
      activity("WARNING", `${WHAT[kind]} notice not sent: ${refusal}`);
      continue;
    }
    const reachable = users
      .map((id) => people.get(id))
      .filter((person) => person !== undefined && reachableOn(setting.channel, person))
      .map((person) => person!)
      .sort((a, b) => a.account.localeCompare(b.account));
    if (reachable.length === 0) {
      activity(
        "WARNING",
        `${WHAT[kind]} notice not sent: nobody can be reached on channel ${setting.channel}`,
      );
      continue;
    }
    const step = (node && version.nodes.get(node)?.name) ?? node ?? "";
    const words = { process: process.name, step, entry: String(process.entry) };
    const text = setting[kind]!;
    const name = fill(text.title ?? "{process}: {step}", words);
    const content = fill(text.text, words);
    const sentTo: string[] = [];
    for (let start = 0; start < reachable.length; start += RECIPIENTS_PER_LIST) {
      const group = reachable.slice(start, start + RECIPIENTS_PER_LIST);
      const id = timeOrderedIdNamed(event.createdAt.getTime(), `workflow.notify ${event.id} ${start}`);
      const body = { id, ...bodyFor(setting.channel, name, content, group) };
      const [violation] = channelRuleViolations(body, channels.external);
      if (violation) {
        activity("WARNING", `${WHAT[kind]} notice not sent: ${violation.field} ${violation.message}`);
        break;
      }
      await record(tx, {
        id,
        applicationId: setting.application,
        senderUserId: null,
        tenantId: event.tenantId,
        body,
      });
      sentTo.push(...group.map((person) => person.account));
    }
    if (sentTo.length > 0)
      activity("INFO", `${WHAT[kind]} notice sent on ${setting.channel} to ${listedAccounts(sentTo)}`);
  }
  return activities;
}

/** Why the setting cannot be followed now, if it cannot. */
async function settingRefusal(
  tx: Queryable,
  setting: WorkflowNotify,
  channels: ReminderChannels,
  registered: Map<string, boolean>,
): Promise<string | undefined> {
  if (!channelConfigured(setting.channel, channels.configured))
    return `channel ${setting.channel} is not configured on this platform`;
  let known = registered.get(setting.application);
  if (known === undefined) {
    known = await isRegisteredApplication(tx, setting.application);
    registered.set(setting.application, known);
  }
  return known ? undefined : `no application ${setting.application} to send as`;
}
