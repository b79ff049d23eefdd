import type { BootstrapChannel } from "../../contracts/bootstrap.ts";
import { loadChannel } from "../../notifications/channel-plugins.ts";
import type { Logger } from "../../runtime/logger.ts";
import { GatedSender } from "./gated-sender.ts";

/** A channel's sender, its configuration's variables read from this process's environment. */
export async function channelSender(
  channel: BootstrapChannel,
  log: Logger,
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<GatedSender> {
  const { plugin, config } = await loadChannel(channel, env, "refuse");
  const sender = await plugin.create(config, log.child({ channel: channel.name }));
  return new GatedSender(sender, channel.maxInFlight, channel.ratePerSecond);
}

/**
 * The senders of the configured channels, kept current: a channel changed is rebuilt and swapped
 * in, the old sender closed once the sends it started have had their time; one removed is closed.
 * A change that cannot be built (a variable this process lacks) keeps the sender it had.
 */
export class ChannelSenders {
  readonly #senders = new Map<string, GatedSender>();
  readonly #configured = new Map<string, string>();

  constructor(
    private readonly log: Logger,
    /** How long a replaced sender stays open for the sends it started. */
    private readonly graceMs: number,
  ) {}

  get(channel: string): GatedSender | undefined {
    return this.#senders.get(channel);
  }

  /** Builds every channel; at start a channel that cannot be built stops the process. */
  async start(channels: readonly BootstrapChannel[]): Promise<void> {
    for (const channel of channels) {
      this.#senders.set(channel.name, await channelSender(channel, this.log));
      this.#configured.set(channel.name, JSON.stringify(channel));
    }
  }

  /** Brings the senders in line with the channels as configured now. */
  async update(channels: readonly BootstrapChannel[]): Promise<void> {
    const names = new Set(channels.map((channel) => channel.name));
    for (const channel of channels) {
      const configured = JSON.stringify(channel);
      if (this.#configured.get(channel.name) === configured) continue;
      try {
        const sender = await channelSender(channel, this.log);
        this.#retire(this.#senders.get(channel.name));
        this.#senders.set(channel.name, sender);
        this.#configured.set(channel.name, configured);
        this.log.info({ channel: channel.name }, "channel reconfigured");
      } catch (error) {
        this.log.error(
          { channel: channel.name, err: (error as Error).message },
          "channel change not applied",
        );
      }
    }
    for (const name of [...this.#senders.keys()]) {
      if (names.has(name)) continue;
      this.#retire(this.#senders.get(name));
      this.#senders.delete(name);
      this.#configured.delete(name);
      this.log.info({ channel: name }, "channel removed");
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.#senders.values()].map((sender) => sender.close()));
    this.#senders.clear();
  }

  #retire(sender: GatedSender | undefined): void {
    if (!sender) return;
    setTimeout(() => {
      sender.close().catch((error: Error) => this.log.warn({ err: error.message }, "closing a sender"));
    }, this.graceMs).unref();
  }
}
