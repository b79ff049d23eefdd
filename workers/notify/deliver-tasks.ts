import { ChannelError } from "../../contracts/channel-plugin.ts";
import {
  type ClaimedTask,
  leaseDeliveryTasks,
  type NotificationOfTasks,
  recordDeliveryOutcomes,
  releaseUnattempted,
  type TaskOutcome,
} from "../../notifications/delivery-service.ts";
import type { Sql } from "../../runtime/database.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";
import { appLegOf, appLegOver, bothLegs } from "./app-sms-fallback.ts";
import { deliveryFor } from "./delivery-message.ts";
import type { GatedSender, SendSlot } from "./gated-sender.ts";
import { OutcomeWriters } from "./outcome-writer.ts";

export interface DeliveryDeps {
  sql: Sql;
  senders: Pick<ReadonlyMap<string, GatedSender>, "get">;
  /** How long a worker holds a task while delivering it; at least the job's timeout. */
  leaseSeconds: number;
}

/**
 * Delivers a job's tasks through their channel's plugin, writing each outcome as soon as it is
 * known. The tasks are leased first, so a redelivered job never sends while another worker is
 * sending, and a task already `sent` (or finally failed) is left alone: delivery is at least once,
 * sending is once. A send's slot is held until its outcome is written, so a worker that dies
 * leaves at most `UNWRITTEN_PER_SEND` times a channel's `maxInFlight` messages sent but not
 * recorded, the ones sent again. The job is retried while any of its tasks may still succeed; a
 * retry only works the tasks still open.
 */
export function deliverTasks(deps: DeliveryDeps) {
  const { sql } = deps;
  const writers = new OutcomeWriters((outcomes) =>
    recordDeliveryOutcomes(sql, outcomes, deps.leaseSeconds * 1000),
  );
  return async ({ taskIds }: { taskIds: string[] }, context: JobContext): Promise<JobOutcome> => {
    const { tasks, held, notifications } = await leaseDeliveryTasks(sql, taskIds, {
      leaseSeconds: deps.leaseSeconds,
      // A job an operator put back once its fault was fixed tries again every task of it not sent.
      reopenFailed: context.replayed && context.attempt === 1,
    });
    if (tasks.length === 0) {
      // Another worker holds the leases (or held them and died): come back later rather than drop them.
      if (held > 0) return { outcome: "retry", reason: `another worker holds ${held} of the tasks` };
      context.log.debug({ taskIds }, "tasks already delivered, failed for good, or gone");
      return { outcome: "done" };
    }
    const lastAttempt = context.attempt >= context.maxAttempts;
    const settled = await Promise.allSettled(
      tasks.map((task) =>
        deliverOne(deps, writers, task, notifications.get(task.notificationId)!, lastAttempt, context),
      ),
    );
    const thrown = settled.find((result) => result.status === "rejected");
    if (thrown) throw thrown.reason;
    const attempted = settled
      .map((result) => (result as PromiseFulfilledResult<AttemptOutcome | undefined>).value)
      .filter((outcome) => outcome !== undefined);
    const unattempted = tasks.length - attempted.length;
    if (unattempted > 0) await releaseUnattempted(sql, tasks, attempted);
    const failed = attempted.filter((outcome) => outcome.status === "fail");
    const retrying = attempted.filter((outcome) => outcome.status === "retrying");
    if (retrying.length > 0 || held > 0 || unattempted > 0) {
      const reason = retrying[0]?.detail ?? `${held + unattempted} tasks not attempted`;
      return { outcome: "retry", reason };
    }
    // A recipient refused, an address the channel cannot take, a sender without mail: each task's
    // outcome is recorded where the caller reads it, and the job is done. Only tasks whose
    // transient failures used up the job's attempts make it a fault for an operator.
    const gaveUp = failed.filter((outcome) => outcome.gaveUp);
    if (gaveUp.length > 0) return { outcome: "fail", reason: gaveUp[0]!.detail ?? "delivery failed" };
    return { outcome: "done" };
  };
}

/**
 * One task's attempt, its outcome written before its send's slot is given back; undefined when
 * the job was aborted before the send could start.
 */
async function deliverOne(
  deps: DeliveryDeps,
  writers: OutcomeWriters,
  task: ClaimedTask,
  notification: NotificationOfTasks,
  lastAttempt: boolean,
  context: JobContext,
): Promise<AttemptOutcome | undefined> {
  const attempt = await attemptOne(deps, task, notification, lastAttempt, context);
  if (attempt === undefined) return undefined;
  try {
    await writers.of(attempt.slot?.sender).record(attempt.outcome);
  } finally {
    attempt.slot?.release();
  }
  return attempt.outcome;
}

/** A task's attempt, and the slot of the send it made, held until the outcome is written. */
async function attemptOne(
  deps: DeliveryDeps,
  task: ClaimedTask,
  notification: NotificationOfTasks,
  lastAttempt: boolean,
  context: JobContext,
): Promise<{ outcome: AttemptOutcome; slot?: SendSlot } | undefined> {
  const outcome = (
    status: TaskOutcome["status"],
    channel: string,
    detail: string | null,
    providerId?: string,
    gaveUp = false,
  ) => ({
    id: task.id,
    status,
    channel,
    detail,
    providerMessageId: providerId ?? null,
    nextAttemptAt:
      status === "retrying" && context.retryDelayMs !== undefined
        ? new Date(Date.now() + context.retryDelayMs)
        : null,
    gaveUp,
  });
  if (task.channel === "email" && notification.senderAccount !== null && !notification.senderMailEnabled) {
    // Spec 000: the send succeeds, nothing is mailed, and the task says why.
    const why = `the sender ${notification.senderAccount} has no mail service enabled; nothing was sent`;
    return { outcome: outcome("fail", task.channel, why) };
  }
  let channel = task.channel;
  // An app_sms task whose app leg failed on an earlier attempt is on SMS now, its app error on record.
  let appError = task.requestedChannel === "app_sms" && channel === "sms" ? appLegOf(task.detail) : undefined;
  const first = await sendThrough(deps, task, notification, channel, context.signal);
  if (first === undefined) return undefined;
  let { sent, slot } = first;
  if (!sent.sent && isAppLegOfAppSms(task, channel) && appLegOver(sent, lastAttempt)) {
    // The app leg is over: its place among the app's sends goes back rather than wait out the SMS.
    slot?.release();
    appError = sent.reason;
    channel = "sms";
    // Recorded on SMS even when the job stops first, so its next attempt does not ask the app again.
    const sms = await sendThrough(deps, task, notification, channel, context.signal);
    sent = sms?.sent ?? SMS_NOT_STARTED;
    slot = sms?.slot;
  }
  const detail = (text: string) => (appError === undefined ? text : bothLegs(appError, text));
  if (sent.sent) {
    const providerId = sent.providerMessageId;
    return {
      outcome: outcome("sent", channel, appError === undefined ? null : detail("sent"), providerId),
      slot,
    };
  }
  // An SMS the job never started stays open even on the last attempt: a redelivery (or the sweeper) decides.
  const status = sent.retryable && (!lastAttempt || sent === SMS_NOT_STARTED) ? "retrying" : "fail";
  const gaveUp = status === "fail" && sent.retryable;
  return { outcome: outcome(status, channel, detail(sent.reason), undefined, gaveUp), slot };
}

/** A task's outcome, and whether it failed only because transient failures used up the attempts. */
interface AttemptOutcome extends TaskOutcome {
  gaveUp: boolean;
}

type SendOutcome =
  | { sent: true; providerMessageId?: string }
  | { sent: false; retryable: boolean; reason: string };

const SMS_NOT_STARTED: SendOutcome = {
  sent: false,
  retryable: true,
  reason: "not sent: the job stopped before the SMS could go",
};

/** Whether this is the app half of an app_sms task, with a phone to fall back to. */
function isAppLegOfAppSms(task: ClaimedTask, channel: string): boolean {
  return task.requestedChannel === "app_sms" && channel === "app" && Boolean(task.phone);
}

/**
 * One try on a channel, with the slot it holds; undefined when the job was aborted (timed out,
 * worker stopping) before the send began. A plugin's refusal of the recipient is never retried.
 */
async function sendThrough(
  deps: DeliveryDeps,
  task: ClaimedTask,
  notification: NotificationOfTasks,
  channel: string,
  signal: AbortSignal,
): Promise<{ sent: SendOutcome; slot?: SendSlot } | undefined> {
  const sender = deps.senders.get(channel);
  if (!sender) {
    return { sent: { sent: false, retryable: false, reason: `channel ${channel} is not configured` } };
  }
  const slot = await sender.acquire(signal);
  if (slot === undefined) return undefined;
  try {
    const result = await slot.send(deliveryFor(task, notification, channel));
    return { sent: { sent: true, ...result }, slot };
  } catch (error) {
    const failure =
      error instanceof ChannelError ? error : new ChannelError((error as Error).message, { retryable: true });
    return {
      sent: {
        sent: false,
        retryable: failure.retryable && !failure.recipientRefused,
        reason: failure.message,
      },
      slot,
    };
  }
}
