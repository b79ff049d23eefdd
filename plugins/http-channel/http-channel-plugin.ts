import { createHmac } from "node:crypto";
import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";
import { createJsonClient, type JsonReply } from "../shared/json-client.ts";

const configSchema = z
  .object({
    /** The channel owner's endpoint (spec 000 suggests a path named `/Notification`). */
    url: z.url(),
    method: z.enum(["PUT", "POST"]).default("PUT"),
    /** Key of the HMAC-SHA256 signature, shared with the channel owner. */
    secret: z.string().min(16),
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict();

const replySchema = z.object({ errno: z.number(), error: z.string().optional() }).passthrough();

/**
 * Spec 000's external notification channel: the notification as the interface specifies it, one
 * user per request, signed so the owner can check the caller. The signature is
 * `X-Signature: sha256=<hex HMAC of "<X-Timestamp>.<body>">`; `Idempotency-Key` is the task id.
 */
export default defineChannelPlugin({
  name: "http-channel",
  configSchema,
  create(config) {
    const client = createJsonClient({ timeoutMs: config.timeoutMs });
    return {
      async send(delivery) {
        const { notification } = delivery;
        const body = JSON.stringify({
          id: delivery.notificationId,
          name: notification.name ?? "",
          content: notification.content ?? "",
          ...(notification.html ? { html: notification.html } : {}),
          ...(notification.abstract ? { contentAbstract: notification.abstract } : {}),
          channels: [delivery.channel],
          emails: [],
          phones: [],
          users: delivery.recipient.user ? [delivery.recipient.user] : [],
        });
        const timestamp = String(Math.floor(Date.now() / 1000));
        const signature = createHmac("sha256", config.secret).update(`${timestamp}.${body}`).digest("hex");
        let response: JsonReply;
        try {
          response = await client.send(config.url, {
            method: config.method,
            headers: {
              "x-timestamp": timestamp,
              "x-signature": `sha256=${signature}`,
              "idempotency-key": delivery.taskId,
            },
            body,
          });
        } catch (error) {
          throw new ChannelError(`external channel unreachable: ${(error as Error).message}`, {
            retryable: true,
            cause: error,
          });
        }
        if (!response.ok) {
          throw new ChannelError(`external channel answered ${response.status}`, {
            retryable: response.status === 429 || response.status >= 500,
          });
        }
        const reply = replySchema.safeParse(response.body);
        if (!reply.success)
          throw new ChannelError("external channel reply is not {errno, error, entities, total}", {
            retryable: false,
          });
        if (reply.data.errno !== 0) {
          throw new ChannelError(
            `external channel: errno ${reply.data.errno} ${reply.data.error ?? ""}`.trim(),
            { retryable: false },
          );
        }
        return {};
      },
      close: () => client.close(),
    };
  },
});
