import type { BootstrapChannel } from "../contracts/bootstrap.ts";
import type { ControlChanges } from "../runtime/control-changes.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { maskedChannelConfig } from "./channel-plugins.ts";
import { allChannels, deleteChannel } from "./channel-store.ts";

/**
 * The operators' work on the channels as configured: each read with its inline credentials masked,
 * one removed. A change is announced, so every process follows it within seconds.
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

/** Removes the channel and announces it: sends naming it are refused, workers close its sender. False when there was none. */
export async function removeChannel(deps: ChannelChangeDeps, name: string): Promise<boolean> {
  if (!(await deleteChannel(deps.sql, name))) return false;
  await deps.changes.announce({ kind: "configuration" });
  return true;
}
