import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import type { Queryable } from "../runtime/database.ts";
import { loadChannel } from "./channel-plugins.ts";
import { upsertChannel } from "./channel-store.ts";

/** The bootstrap file's channels, as entries: each plugin is loaded first, so a wrong one is refused. */
export function channelBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return bootstrap.channels.map((channel) => ({
    kind: "channel",
    key: channel.name,
    value: channel,
    async apply(tx: Queryable) {
      await loadChannel(channel, process.env, "skip");
      await upsertChannel(tx, channel);
    },
  }));
}
