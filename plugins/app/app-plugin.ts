import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";
import { createJsonClient, type JsonReply } from "../shared/json-client.ts";

const configSchema = z
  .object({
    /** The campus app's push API; messages are POSTed to `<baseUrl>/messages`. */
    baseUrl: z.url(),
    token: z.string().min(1),
    /** The message category the operators registered for the sending application, if any. */
    category: z.string().max(100).optional(),
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict();

/** Reasons the campus app gives for not reaching a user: no point retrying, SMS may still work. */
const RECIPIENT_REFUSALS = new Set(["not_installed", "notifications_off", "other_account"]);

/**
 * The campus app's push API: one JSON message per account, with the task id as the idempotency
 * key. A refusal for the recipient lets `app_sms` fall back to SMS.
 */
export default defineChannelPlugin({
  name: "app",
  configSchema,
  create(config) {
    const endpoint = `${config.baseUrl.replace(/\/$/, "")}/messages`;
    const client = createJsonClient({ timeoutMs: config.timeoutMs });
    return {
      async send(delivery) {
        if (!delivery.recipient.account)
          throw new ChannelError("no account", { retryable: false, recipientRefused: true });
        let response: JsonReply;
        try {
          response = await client.send(endpoint, {
            headers: { authorization: `Bearer ${config.token}`, "idempotency-key": delivery.taskId },
            body: JSON.stringify({
              taskId: delivery.taskId,
              account: delivery.recipient.account,
              ...(config.category ? { category: config.category } : {}),
              message: delivery.app,
            }),
          });
        } catch (error) {
          throw new ChannelError(`campus app unreachable: ${(error as Error).message}`, {
            retryable: true,
            cause: error,
          });
        }
        const reply = (response.body ?? {}) as { id?: string; error?: string; message?: string };
        if (response.ok) return reply.id ? { providerMessageId: reply.id } : {};
        const text = `campus app: ${response.status} ${reply.error ?? ""} ${reply.message ?? ""}`.trim();
        if (reply.error && RECIPIENT_REFUSALS.has(reply.error)) {
          throw new ChannelError(text, { retryable: false, recipientRefused: true });
        }
        throw new ChannelError(text, { retryable: response.status === 429 || response.status >= 500 });
      },
      close: () => client.close(),
    };
  },
});
