import type { Delivery } from "../../contracts/channel-plugin.ts";
import {
  appMessageOf,
  type NotificationBody,
  type NotificationEnterprise,
  type NotificationUser,
} from "../../contracts/notification.ts";
import type { ClaimedTask, NotificationOfTasks } from "../../notifications/delivery-service.ts";

/** What a plugin receives for a task on a channel, with the text or app message spec 000's rules choose. */
export function deliveryFor(task: ClaimedTask, notification: NotificationOfTasks, channel: string): Delivery {
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
