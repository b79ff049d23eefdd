import { isBuiltInChannel } from "../contracts/channels.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import {
  channelRuleViolations,
  type NotificationBody,
  notificationBodySchema,
} from "../contracts/notification.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import { isRegisteredApplication } from "../identity/registered-applications.ts";
import type { Sql } from "../runtime/database.ts";
import { allChannels } from "./channel-store.ts";
import { type DeliveryQueue, newNotificationId, recordAndPublish } from "./notification-delivery.ts";

/** A test message an operator sends on a channel, to one recipient. */
export interface TestMessage {
  channel: string;
  /** An e-mail address, a phone number or an account, as the channel reads it. */
  recipient: string;
  /** The application it is sent as; else the channel's operator application, else its first permitted one. */
  application?: string | undefined;
  subject?: string | undefined;
  text: string;
}

/** A test message's body: the recipient in the list the channel reads, checked by spec 000's rules. */
function testBody(input: TestMessage, external: ReadonlySet<string>): NotificationBody & { id: string } {
  const { channel, recipient, text } = input;
  const name = input.subject || "Test message";
  const person = recipient.includes("@")
    ? { email: recipient }
    : /^\+?[0-9][0-9 -]{2,}$/.test(recipient)
      ? { phone: recipient }
      : { account: recipient };
  const lists: Record<string, Partial<NotificationBody>> = {
    email: { emails: [recipient] },
    sms: { phones: [recipient] },
    app: { accounts: [recipient] },
  };
  const body = {
    id: newNotificationId(),
    channels: [channel],
    name,
    content: text,
    ...(lists[channel] ?? { users: [person] }),
  };
  const shaped = notificationBodySchema.safeParse(body);
  if (!shaped.success)
    throw new PlatformError(ErrorCode.InvalidArgument, firstIssueMessage(shaped.error.issues));
  const [violation] = channelRuleViolations(shaped.data, external);
  if (violation)
    throw new PlatformError(ErrorCode.InvalidArgument, `${violation.field}: ${violation.message}`);
  return { ...shaped.data, id: body.id };
}

/**
 * Sends a test message through the notification pipeline like any send, so its task can be
 * followed: the channel and the application it is sent as must exist, the body must keep the
 * channel's rules. Answers the notification's id and the application it went as.
 */
export async function sendTestMessage(
  deps: DeliveryQueue & { sql: Sql },
  input: TestMessage,
): Promise<{ id: string; applicationId: string }> {
  const channels = await allChannels(deps.sql);
  const channel = channels.find((candidate) => candidate.name === input.channel);
  if (!channel) throw new PlatformError(ErrorCode.NotFound, `No channel ${input.channel}.`);
  const applicationId = input.application ?? channel.operatorApplication ?? channel.permittedApplications[0];
  if (!applicationId)
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      "application: name the application the test is sent as",
    );
  if (!(await isRegisteredApplication(deps.sql, applicationId)))
    throw new PlatformError(ErrorCode.NotFound, `No application ${applicationId}.`);
  const external = new Set(channels.map((each) => each.name).filter((name) => !isBuiltInChannel(name)));
  const body = testBody(input, external);
  await recordAndPublish(deps, (record) =>
    record(deps.sql, { id: body.id, applicationId, senderUserId: null, tenantId: null, body }),
  );
  return { id: body.id, applicationId };
}
