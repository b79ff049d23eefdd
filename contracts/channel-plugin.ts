import type { z } from "zod";
import type { AppMessage, NotificationBody } from "./notification.ts";

/** One message to one recipient, as a channel plugin receives it. */
export interface Delivery {
  /** The delivery task's id: the same on every attempt, so upstreams can drop repeats. */
  taskId: string;
  notificationId: string;
  /** The channel name as the notification asked for it (`email`, `campus_wall`, …). */
  channel: string;
  recipient: {
    phone?: string;
    email?: string;
    account?: string;
    user?: NonNullable<NotificationBody["users"]>[number];
  };
  notification: NotificationBody;
  /**
   * The text spec 000's rules choose for a text channel: for `sms`, `abstract` wins over
   * `content`; for the SMS half of `app_sms`, `content` wins over `abstract`.
   */
  text?: string;
  /** The campus-app message, for the `app` channel (and the app half of `app_sms`). */
  app?: AppMessage;
  /** The campus account sending, for password-grant sends. */
  sender?: { account: string; name: string; email?: string | null };
}

export interface SendResult {
  providerMessageId?: string;
}

const CHANNEL_ERROR = Symbol.for("open-platform.channel-error");

/**
 * A failed delivery. `retryable` says whether a later attempt may help (a timeout, a 5xx, a 429);
 * `recipientRefused` says the upstream refused this recipient (no account, say), which is never
 * retried. The worker retries while attempts remain; the app leg of an `app_sms` task that fails
 * for good, or runs out of attempts, sends the SMS.
 */
export class ChannelError extends Error {
  /**
   * Known by its mark rather than its class: a plugin may bring its own copy of this module (an
   * npm package's, or the source beside a platform that runs built), whose errors are no less
   * channel errors.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return (
      typeof value === "object" &&
      value !== null &&
      (value as { [CHANNEL_ERROR]?: true })[CHANNEL_ERROR] === true
    );
  }

  readonly [CHANNEL_ERROR] = true;
  readonly retryable: boolean;
  readonly recipientRefused: boolean;

  constructor(message: string, options: { retryable: boolean; recipientRefused?: boolean; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ChannelError";
    this.retryable = options.retryable;
    this.recipientRefused = options.recipientRefused ?? false;
  }
}

export interface ChannelSender {
  send(delivery: Delivery): Promise<SendResult>;
  close?(): Promise<void>;
}

/** Minimal logger a plugin may write to (pino's shape). */
export interface PluginLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}

/**
 * A channel plugin module's default export: a name, a zod schema for its configuration, and a
 * factory called once at start with the parsed configuration. A plugin never touches the
 * database or the broker; the notify worker owns statuses, retries and fallbacks.
 */
export interface ChannelPlugin<Config = unknown> {
  name: string;
  configSchema: z.ZodType<Config>;
  create(config: Config, log: PluginLogger): ChannelSender | Promise<ChannelSender>;
}

export function defineChannelPlugin<Config>(plugin: ChannelPlugin<Config>): ChannelPlugin<Config> {
  return plugin;
}
