import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { BootstrapChannel } from "../contracts/bootstrap.ts";
import type { ChannelPlugin } from "../contracts/channel-plugin.ts";
import type { BuiltInPluginName } from "../contracts/channels.ts";
import { firstIssueMessage } from "../contracts/validation-issue.ts";
import { ConfigError } from "../runtime/config.ts";
import { importTypeScriptToo } from "../runtime/typescript-import.mjs";

type PluginModule = Promise<{ default: ChannelPlugin<unknown> }>;

/** The plugins that ship with the platform, by the name a channel's `plugin` field gives. */
const BUILT_IN_PLUGINS: Record<BuiltInPluginName, () => PluginModule> = {
  email: () => import("../plugins/email/email-plugin.ts") as PluginModule,
  sms: () => import("../plugins/sms/sms-plugin.ts") as PluginModule,
  app: () => import("../plugins/app/app-plugin.ts") as PluginModule,
  msgapp_template: () => import("../plugins/msgapp-template/msgapp-template-plugin.ts") as PluginModule,
  "http-channel": () => import("../plugins/http-channel/http-channel-plugin.ts") as PluginModule,
};

/** A built-in plugin by name, a path to a module, or an npm package name. */
async function loadChannelPlugin(reference: string): Promise<ChannelPlugin<unknown>> {
  const builtIn = Object.hasOwn(BUILT_IN_PLUGINS, reference)
    ? BUILT_IN_PLUGINS[reference as BuiltInPluginName]
    : undefined;
  if (builtIn) return (await builtIn()).default;
  const specifier =
    reference.startsWith(".") || isAbsolute(reference) ? pathToFileURL(resolve(reference)).href : reference;
  let module: { default?: ChannelPlugin<unknown> };
  try {
    // A plugin may be TypeScript, also where the platform runs built (bin/launch.mjs).
    module = (await importTypeScriptToo(specifier)) as { default?: ChannelPlugin<unknown> };
  } catch (error) {
    throw new ConfigError(`channel plugin ${reference} cannot be loaded: ${(error as Error).message}`);
  }
  const plugin = module.default;
  if (!plugin || typeof plugin.create !== "function" || !plugin.configSchema) {
    throw new ConfigError(`channel plugin ${reference} has no default export made with defineChannelPlugin`);
  }
  return plugin;
}

/** A configuration value read from the environment of the process that sends: `{"env": "NAME"}`. */
interface EnvironmentReference {
  env: string;
}

function isEnvironmentReference(value: unknown): value is EnvironmentReference {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.keys(value).length === 1 &&
    typeof (value as { env?: unknown }).env === "string"
  );
}

/**
 * The channel's configuration with each `{"env": "NAME"}` value replaced by that variable of
 * `env`. A variable this process does not have is listed in `unset` (its value left out).
 */
function resolveChannelConfig(
  config: Record<string, unknown>,
  env: Readonly<Record<string, string | undefined>>,
): { config: Record<string, unknown>; unset: string[] } {
  const resolved: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const [key, value] of Object.entries(config)) {
    if (!isEnvironmentReference(value)) {
      resolved[key] = value;
    } else if (env[value.env] !== undefined) {
      resolved[key] = env[value.env];
    } else {
      unset.push(key);
    }
  }
  return { config: resolved, unset };
}

/**
 * A channel's plugin and its configuration, parsed by the plugin's schema with the variables of
 * `env`. With `unsetVariables: "refuse"` (a process that sends), a variable `env` lacks is an
 * error; with `"skip"` (a process that only applies the entry), the fields it gives are left to
 * the workers that have it, and `config` is undefined when any is. A wrong entry throws one line
 * naming the channel and the field.
 */
export async function loadChannel(
  channel: BootstrapChannel,
  env: Readonly<Record<string, string | undefined>>,
  unsetVariables: "refuse" | "skip",
): Promise<{ plugin: ChannelPlugin<unknown>; config: unknown }> {
  const plugin = await loadChannelPlugin(channel.plugin).catch((error: Error) => {
    throw new ConfigError(`channel ${channel.name}: ${error.message}`);
  });
  const { config, unset } = resolveChannelConfig(channel.config, env);
  if (unset.length > 0 && unsetVariables === "refuse") {
    const names = unset.map((key) => (channel.config[key] as EnvironmentReference).env);
    throw new ConfigError(`channel ${channel.name}: ${names.join(", ")} not set in this process`);
  }
  const parsed = plugin.configSchema.safeParse(config);
  if (parsed.success) return { plugin, config: parsed.data };
  const issues = parsed.error.issues.filter((issue) => !unset.includes(String(issue.path[0])));
  if (issues.length === 0) return { plugin, config: undefined };
  throw new ConfigError(`channel ${channel.name}: ${firstIssueMessage(issues, { under: "config" })}`);
}

/** Keys whose inline values are credentials, hidden when a channel is shown. */
const CREDENTIAL_KEY = /pass|secret|token|key|credential|sid|auth/i;

/** The configuration as operators may see it: inline credentials masked, variable names kept. */
export function maskedChannelConfig(config: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => [
      key,
      CREDENTIAL_KEY.test(key) && !isEnvironmentReference(value) && value !== null ? "********" : value,
    ]),
  );
}
