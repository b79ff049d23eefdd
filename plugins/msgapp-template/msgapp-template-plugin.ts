import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";
import { templateContentSchema } from "../../contracts/notification.ts";
import { createJsonClient, type JsonReply } from "../shared/json-client.ts";

const configSchema = z
  .object({
    /** The messaging platform's API; messages are POSTed to `<baseUrl>/message/template/send`. */
    baseUrl: z.url(),
    /** Access token of the verified service account bound with the platform operators. */
    token: z.string().min(1),
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
  })
  .strict();

/** The platform's "busy, try later" code; every other non-zero code is a refusal. */
const SYSTEM_BUSY = -1;

/**
 * Template messages on the messaging platform: the notification's `content` holds the template id
 * and its data map; the recipient is the user's account, added here as the platform's `touser`.
 */
export default defineChannelPlugin({
  name: "msgapp_template",
  configSchema,
  create(config) {
    const endpoint = `${config.baseUrl.replace(/\/$/, "")}/message/template/send`;
    const client = createJsonClient({ timeoutMs: config.timeoutMs });
    return {
      async send(delivery) {
        const account = delivery.recipient.account ?? delivery.recipient.user?.account;
        if (!account) throw new ChannelError("no account", { retryable: false });
        const template = templateContentSchema.parse(JSON.parse(delivery.notification.content ?? "{}"));
        let response: JsonReply;
        try {
          response = await client.send(`${endpoint}?access_token=${encodeURIComponent(config.token)}`, {
            headers: { "idempotency-key": delivery.taskId },
            body: JSON.stringify({ ...template, touser: account }),
          });
        } catch (error) {
          throw new ChannelError(`messaging platform unreachable: ${(error as Error).message}`, {
            retryable: true,
          });
        }
        if (!response.ok) {
          throw new ChannelError(`messaging platform answered ${response.status}`, {
            retryable: response.status >= 500,
          });
        }
        const reply = (response.body ?? {}) as { errcode?: number; errmsg?: string; msgid?: number };
        if (reply.errcode !== undefined && reply.errcode !== 0) {
          throw new ChannelError(`messaging platform: ${reply.errcode} ${reply.errmsg ?? ""}`.trim(), {
            retryable: reply.errcode === SYSTEM_BUSY,
          });
        }
        return reply.msgid !== undefined ? { providerMessageId: String(reply.msgid) } : {};
      },
      close: () => client.close(),
    };
  },
});
