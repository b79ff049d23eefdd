import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BootstrapChannel } from "../../contracts/bootstrap.ts";
import type { ChannelPlugin } from "../../contracts/channel-plugin.ts";
import type { BuiltInPluginName } from "../../contracts/channels.ts";
import { firstIssueMessage } from "../../contracts/validation-issue.ts";
import { ConfigError } from "../../runtime/config.ts";
import type { Logger } from "../../runtime/logger.ts";
import { GatedSender } from "./gated-sender.ts";

type PluginModule = Promise<{ default: ChannelPlugin<unknown> }>;

/** The plugins that ship with the platform, by the name a channel's `plugin` field gives. */
const BUILT_IN_PLUGINS: Record<BuiltInPluginName, () => PluginModule> = {
  email: () => import("../../plugins/email/email-plugin.ts") as PluginModule,
  sms: () => import("../../plugins/sms/sms-plugin.ts") as PluginModule,
  app: () => import("../../plugins/app/app-plugin.ts") as PluginModule,
  msgapp_template: () => import("../../plugins/msgapp-template/msgapp-template-plugin.ts") as PluginModule,
  "http-channel": () => import("../../plugins/http-channel/http-channel-plugin.ts") as PluginModule,
};

async function loadPlugin(reference: string): Promise<ChannelPlugin<unknown>> {
  const builtIn = Object.hasOwn(BUILT_IN_PLUGINS, reference)
    ? BUILT_IN_PLUGINS[reference as BuiltInPluginName]
    : undefined;
  if (builtIn) return (await builtIn()).default;
  // A path to a module, or an npm package name.
  const specifier =
    reference.startsWith(".") || isAbsolute(reference) ? pathToFileURL(resolve(reference)).href : reference;
  const module = (await import(specifier)) as { default?: ChannelPlugin<unknown> };
  const plugin = module.default;
  if (!plugin || typeof plugin.create !== "function" || !plugin.configSchema) {
    throw new ConfigError(`channel plugin ${reference} has no default export made with defineChannelPlugin`);
  }
  return plugin;
}

/** Every configured channel's sender, built once at start; a wrong plugin config stops the process. */
export async function loadChannelSenders(
  channels: readonly BootstrapChannel[],
  log: Logger,
): Promise<Map<string, GatedSender>> {
  const senders = new Map<string, GatedSender>();
  for (const channel of channels) {
    const plugin = await loadPlugin(channel.plugin);
    const config = plugin.configSchema.safeParse(channel.config);
    if (!config.success) {
      const problem = firstIssueMessage(config.error.issues, { under: "config" });
      throw new ConfigError(`channel ${channel.name}: ${problem}`);
    }
    const sender = await plugin.create(config.data, log.child({ channel: channel.name }));
    senders.set(channel.name, new GatedSender(sender, channel.maxInFlight, channel.ratePerSecond));
  }
  return senders;
}
