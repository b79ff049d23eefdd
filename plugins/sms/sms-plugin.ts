import twilio from "twilio";
import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";

const configSchema = z
  .object({
    accountSid: z.string().min(1),
    authToken: z.string().min(1),
    /** Sender number, or a messaging service SID (MG…). */
    from: z.string().min(1),
    /** An SMS gateway that speaks Twilio's Messages API, instead of Twilio itself. */
    baseUrl: z.url().optional(),
  })
  .strict();

/** SMS through the twilio client; the text is the one the worker chose by spec 000's rules. */
export default defineChannelPlugin({
  name: "sms",
  configSchema,
  create(config) {
    const client = twilio(config.accountSid, config.authToken, { autoRetry: false });
    if (config.baseUrl) client.api.baseUrl = config.baseUrl;
    const sender = config.from.startsWith("MG")
      ? { messagingServiceSid: config.from }
      : { from: config.from };
    return {
      async send(delivery) {
        if (!delivery.recipient.phone) throw new ChannelError("no phone number", { retryable: false });
        try {
          const message = await client.messages.create({
            ...sender,
            to: delivery.recipient.phone,
            body: delivery.text ?? "",
          });
          return { providerMessageId: message.sid };
        } catch (error) {
          const status = (error as { status?: number }).status;
          // 4xx other than 429 is a refusal that a retry will not change (bad number, blocked).
          const retryable = status === undefined || status === 429 || status >= 500;
          throw new ChannelError(`SMS gateway: ${(error as Error).message}`, { retryable, cause: error });
        }
      },
    };
  },
});
