import type { WorkflowReminder } from "../contracts/bootstrap.ts";
import type { Broker } from "../contracts/broker.ts";
import { channelRuleViolations, RECIPIENTS_PER_LIST } from "../contracts/notification.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { tenantReminder } from "../identity/tenants.ts";
import {
  newNotificationId,
  type RecordNotification,
  recordAndPublish,
} from "../notifications/notification-delivery.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import { type Queryable, type Sql, transaction } from "../runtime/database.ts";
import { compiledVersion } from "./app-store.ts";
import type { ActivityRecord } from "./engine/engine-result.ts";
import {
  bodyFor,
  channelConfigured,
  fill,
  listedAccounts,
  type ReminderChannels,
  reachableOn,
} from "./notification-text.ts";
import { lockProcess, type ProcessRow, todoUsersOfTask } from "./process-store.ts";
import type { ProfileView } from "./process-view-store.ts";
import { profiles } from "./process-views.ts";
import { recordActivity } from "./result-writer.ts";

/**
 * Spec 001 4.9: a supervision reminder to whoever may handle a to-do task (its candidates and
 * their delegates), on the channel and with the text of the tenant's `workflow.reminder` setting.
 * It goes through the notification pipeline like any send, so its delivery is tracked (and
 * retried) the same way and the calling application sees it through the status API.
 */

export interface ReminderRequest {
  tenantId: string;
  test: boolean;
  taskId: string;
  /** The application that asks; the notification is recorded as its send. */
  applicationId: string;
  /** The user the call names, recorded on the activity; null for the application itself. */
  operator: string | null;
  /** A Workflow application's own app: it reminds of its own workflow's tasks only. */
  appId: string | undefined;
}

/** One notification a reminder made (more than one when there are over 100 recipients). */
export interface SentReminder {
  id: string;
  channel: string;
  accounts: string[];
}

/** Records the reminder with its activity in one transaction, then hands its deliveries on. */
export async function remindTask(
  sql: Sql,
  queues: { broker: Broker; jobs: JobClient },
  channels: ReminderChannels,
  request: ReminderRequest,
): Promise<SentReminder[]> {
  const queue = { jobs: queues.jobs, brokerConnected: () => queues.broker.isConnected() };
  return recordAndPublish(queue, (record) =>
    transaction(sql, (tx) => recordReminder(tx, record, channels, request)),
  );
}

async function recordReminder(
  tx: Queryable,
  record: RecordNotification,
  channels: ReminderChannels,
  request: ReminderRequest,
): Promise<SentReminder[]> {
  const taskId = request.taskId.toLowerCase();
  // Locked like a command, so a reminder never goes out for a task handled in the meantime.
  const locked = await lockProcess(tx, request.tenantId, request.test, { task: taskId });
  const task = locked?.state.tasks.find((candidate) => candidate.id === taskId);
  if (!locked || !task) throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${request.taskId}`);
  const { process } = locked;
  if (request.appId && request.appId !== process.appId)
    throw new WorkflowRefusal("WORKFLOW_MISMATCH", "the application's token sees its own workflow only");
  const reminder = await configuredReminder(tx, request.tenantId, channels);
  if (process.status === "done" || process.status === "killed")
    throw new WorkflowRefusal("PROCESS_ENDED", `process ${process.entry} has ended`);
  if (process.status === "suspended")
    throw new WorkflowRefusal("PROCESS_SUSPENDED", `process ${process.entry} is suspended`);
  if (task.status !== "todo")
    throw new WorkflowRefusal("TASK_ALREADY_HANDLED", `task ${taskId} is not to do (${task.status})`);

  const people = [
    ...(await profiles(tx, await todoUsersOfTask(tx, request.tenantId, request.test, taskId))).values(),
  ].sort((a, b) => a.account.localeCompare(b.account));
  const reachable = people.filter((person) => reachableOn(reminder.channel, person));
  if (reachable.length === 0)
    throw new WorkflowRefusal(
      "NO_RECIPIENT",
      `none of the task's handlers can be reached on channel ${reminder.channel}`,
    );

  const workflow = await compiledVersion(tx, process.versionId);
  const step = workflow.nodes.get(task.node)?.name ?? task.node;
  const words = { process: process.name, step, entry: String(process.entry) };
  const name = fill(reminder.title ?? "{process}: {step}", words);
  const text = fill(reminder.text, words);

  const sent: SentReminder[] = [];
  for (let start = 0; start < reachable.length; start += RECIPIENTS_PER_LIST) {
    const group = reachable.slice(start, start + RECIPIENTS_PER_LIST);
    const id = newNotificationId();
    const body = { id, ...bodyFor(reminder.channel, name, text, group) };
    const [violation] = channelRuleViolations(body, channels.external);
    if (violation)
      throw new WorkflowRefusal(
        "REMINDER_NOT_CONFIGURED",
        `the reminder breaks a rule of channel ${reminder.channel}: ${violation.field} ${violation.message}`,
      );
    await record(tx, {
      id,
      applicationId: request.applicationId,
      senderUserId: null,
      tenantId: request.tenantId,
      body,
    });
    sent.push({ id, channel: reminder.channel, accounts: group.map((person) => person.account) });
  }
  await recordActivity(tx, process, reminderActivity(process, step, reachable, reminder, request));
  return sent;
}

/** The tenant's reminder, refused when its settings give none or name a channel the platform lacks. */
async function configuredReminder(
  sql: Queryable,
  tenantId: string,
  channels: ReminderChannels,
): Promise<WorkflowReminder> {
  const reminder = await tenantReminder(sql, tenantId);
  if (!reminder)
    throw new WorkflowRefusal("REMINDER_NOT_CONFIGURED", "the tenant's settings give no workflow.reminder");
  if (!channelConfigured(reminder.channel, channels.configured))
    throw new WorkflowRefusal(
      "REMINDER_NOT_CONFIGURED",
      `the reminder's channel ${reminder.channel} is not configured on this platform`,
    );
  return reminder;
}

function reminderActivity(
  process: ProcessRow,
  step: string,
  people: ProfileView[],
  reminder: WorkflowReminder,
  request: ReminderRequest,
): ActivityRecord {
  return {
    category: "NOTIFICATION",
    level: "INFO",
    tags: "remind",
    description: `reminded ${listedAccounts(people.map((person) => person.account))} of ${step} of ${process.name} on ${reminder.channel}`,
    user: request.operator,
    task: request.taskId.toLowerCase(),
  };
}
