import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";

/**
 * A complete channel plugin, and the one docs/notifications.md walks through: posts each message to a chat
 * tool's incoming webhook (Slack-compatible `{"text": …}`), mentioning the recipient's account.
 * Load it with `"plugin": "./plugins/chat-webhook/chat-webhook-plugin.ts"`, or publish the same
 * shape as an npm package and name the package.
 */
export default defineChannelPlugin({
  name: "chat-webhook",
  configSchema: z.object({ webhookUrl: z.url() }).strict(),
  create(config, log) {
    return {
      async send(delivery) {
        const who = delivery.recipient.account ?? delivery.recipient.user?.name ?? "everyone";
        const text =
          `@${who} ${delivery.notification.name ?? ""}: ${delivery.notification.content ?? ""}`.trim();
        const response = await fetch(config.webhookUrl, {
          method: "POST",
          headers: { "content-type": "application/json", "idempotency-key": delivery.taskId },
          body: JSON.stringify({ text }),
        }).catch((error: Error) => {
          throw new ChannelError(`chat webhook unreachable: ${error.message}`, { retryable: true });
        });
        if (!response.ok) {
          log.warn({ status: response.status }, "chat webhook refused a message");
          throw new ChannelError(`chat webhook answered ${response.status}`, {
            retryable: response.status >= 500,
          });
        }
        return {};
      },
    };
  },
});
