import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";
import { createJsonClient, type JsonReply } from "../shared/json-client.ts";
import { readCampusAppAnswer } from "./campus-app-answer.ts";

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

/**
 * The campus app's push API: one JSON message per account, with the task id as the idempotency
 * key. A failure that may pass (no answer, a 5xx, a 429) is retryable; any other is final, and
 * the worker sends the SMS of an `app_sms` task once its app leg is final.
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
        const answer = readCampusAppAnswer(response);
        if (answer.sent) return answer.messageId ? { providerMessageId: answer.messageId } : {};
        throw new ChannelError(answer.reason, { retryable: answer.retryable });
      },
      close: () => client.close(),
    };
  },
});
