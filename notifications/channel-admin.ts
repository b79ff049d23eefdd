import { isDeepStrictEqual } from "node:util";
import { type BootstrapChannel, bootstrapSchema } from "../contracts/bootstrap.ts";
import { applyBootstrap } from "../runtime/bootstrap.ts";
import type { ControlChanges } from "../runtime/control-changes.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { channelBootstrapEntries } from "./channel-bootstrap.ts";
import { maskedChannelConfig } from "./channel-plugins.ts";
import { allChannels, deleteChannel } from "./channel-store.ts";

/**
 * The operators' work on the channels as configured: each read with its inline credentials masked,
 * one edited and applied as the bootstrap file's channels are, one removed. A change is announced,
 * so every process follows it within seconds.
 */

/** What changing a channel needs: the database, where changes are announced, and a log. */
export interface ChannelChangeDeps {
  sql: Sql;
  changes: ControlChanges;
  log: Logger;
}

/** The channel as operators may see it: inline credentials masked, variable names kept. */
export function maskedChannel(channel: BootstrapChannel): BootstrapChannel {
  return { ...channel, config: maskedChannelConfig(channel.config) };
}

/** Every channel, by name, credentials masked. */
export async function maskedChannels(sql: Sql): Promise<BootstrapChannel[]> {
  return (await allChannels(sql)).map(maskedChannel);
}

/** The channel of that name as stored, credentials and all; undefined when there is none. */
export async function storedChannel(sql: Sql, name: string): Promise<BootstrapChannel | undefined> {
  return (await allChannels(sql)).find((candidate) => candidate.name === name);
}

/** The edited entry's configuration with each value left masked given back its stored value. */
function unmasked(config: Record<string, unknown>, stored: BootstrapChannel): Record<string, unknown> {
  const shown = maskedChannelConfig(stored.config);
  return Object.fromEntries(
    Object.entries(config).map(([key, value]) => {
      const wasMasked = Object.hasOwn(shown, key) && !isDeepStrictEqual(shown[key], stored.config[key]);
      return [key, wasMasked && isDeepStrictEqual(value, shown[key]) ? stored.config[key] : value];
    }),
  );
}

/**
 * Applies a channel's entry as edited from its masked form (a credential left masked keeps its
 * stored value), as the bootstrap file's channels are applied, and announces the change. A
 * `ConfigError` says why the entry was refused (its plugin refuses its configuration).
 */
export async function applyEditedChannel(
  deps: ChannelChangeDeps,
  stored: BootstrapChannel,
  edited: BootstrapChannel,
): Promise<void> {
  const channel = { ...edited, config: unmasked(edited.config, stored) };
  const bootstrap = bootstrapSchema.parse({ channels: [channel] });
  await applyBootstrap(deps.sql, bootstrap, deps.log, "all", channelBootstrapEntries);
  await deps.changes.announce({ kind: "configuration" });
}

/** Removes the channel and announces it: sends naming it are refused, workers close its sender. False when there was none. */
export async function removeChannel(deps: ChannelChangeDeps, name: string): Promise<boolean> {
  if (!(await deleteChannel(deps.sql, name))) return false;
  await deps.changes.announce({ kind: "configuration" });
  return true;
}
