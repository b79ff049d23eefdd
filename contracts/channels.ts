/**
 * Spec 000's built-in channels, in one table: the job kind that delivers each, and the plugin that
 * ships for it. `app_sms` has neither: its deliveries run as the `app` channel's, with the SMS
 * fallback. Any other channel name is an external channel the operators configure.
 */
export const BUILT_IN_CHANNEL_TABLE = {
  email: { job: "notifyEmail", plugin: "email" },
  sms: { job: "notifySms", plugin: "sms" },
  app: { job: "notifyApp", plugin: "app" },
  app_sms: { job: null, plugin: null },
  msgapp_template: { job: "notifyMsgappTemplate", plugin: "msgapp_template" },
} as const;

export type BuiltInChannel = keyof typeof BUILT_IN_CHANNEL_TABLE;

/** Plugins that ship with the platform, by the name a channel's `plugin` field gives. */
export type BuiltInPluginName =
  | NonNullable<(typeof BUILT_IN_CHANNEL_TABLE)[BuiltInChannel]["plugin"]>
  | "http-channel";

export function isBuiltInChannel(name: string): name is BuiltInChannel {
  return Object.hasOwn(BUILT_IN_CHANNEL_TABLE, name);
}
