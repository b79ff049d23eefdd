import nodemailer from "nodemailer";
import { z } from "zod";
import { ChannelError, defineChannelPlugin } from "../../contracts/channel-plugin.ts";

const configSchema = z
  .object({
    host: z.string().min(1),
    port: z.number().int().min(1).max(65535).default(587),
    secure: z.boolean().default(false),
    user: z.string().optional(),
    password: z.string().optional(),
    from: z.string().min(3),
    /** Pooled SMTP connections kept open. */
    maxConnections: z.number().int().min(1).max(50).default(5),
  })
  .strict();

/** E-mail over SMTP with nodemailer's pooled transport; `html` wins over `content`. */
export default defineChannelPlugin({
  name: "email",
  configSchema,
  create(config) {
    const transport = nodemailer.createTransport({
      pool: true,
      host: config.host,
      port: config.port,
      secure: config.secure,
      maxConnections: config.maxConnections,
      ...(config.user ? { auth: { user: config.user, pass: config.password ?? "" } } : {}),
      tls: { rejectUnauthorized: config.secure },
    });
    return {
      async send(delivery) {
        const { notification } = delivery;
        if (!delivery.recipient.email) throw new ChannelError("no e-mail address", { retryable: false });
        try {
          const info = await transport.sendMail({
            from: config.from,
            to: delivery.recipient.email,
            subject: notification.name ?? "",
            ...(notification.html ? { html: notification.html } : { text: notification.content ?? "" }),
            // Receivers and relays can drop a repeat of the same task by its Message-ID.
            messageId: `<${delivery.taskId}@notification.open-platform>`,
            headers: { "X-Delivery-Task": delivery.taskId },
          });
          return { providerMessageId: info.messageId };
        } catch (error) {
          const code = (error as { responseCode?: number }).responseCode;
          // SMTP 5xx is permanent (unknown mailbox, refused); anything else may pass later.
          throw new ChannelError(`SMTP: ${(error as Error).message}`, {
            retryable: code === undefined || code < 500,
            cause: error,
          });
        }
      },
      async close() {
        transport.close();
      },
    };
  },
});
