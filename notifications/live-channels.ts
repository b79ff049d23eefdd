import type { BootstrapChannel } from "../contracts/bootstrap.ts";
import { type ControlChanges, forgetOnChanges } from "../runtime/control-changes.ts";
import type { Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { allChannels } from "./channel-store.ts";

type ChannelsListener = (channels: readonly BootstrapChannel[]) => void | Promise<void>;

/**
 * The notification channels as the database holds them, kept current in this process: read again
 * when a configuration change is announced (a bootstrap document applied, a channel removed) and
 * after a lost connection, then handed to whoever follows them (the gateway's sending rules, the
 * workers' senders and queues).
 */
export class LiveChannels {
  #channels: readonly BootstrapChannel[] = [];
  readonly #listeners: ChannelsListener[] = [];
  #reading: Promise<void> = Promise.resolve();

  /** The channels, none until `read`: made before the database serves, read once it does. */
  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
  ) {}

  /** Reads the channels, and again after each configuration change. */
  async read(changes: ControlChanges): Promise<void> {
    this.#channels = await allChannels(this.sql);
    await forgetOnChanges(changes, ["configuration"], () => this.reread());
  }

  get list(): readonly BootstrapChannel[] {
    return this.#channels;
  }

  /** Called with the channels after each change; its work is waited for before the next one. */
  follow(listener: ChannelsListener): void {
    this.#listeners.push(listener);
  }

  private reread(): void {
    this.#reading = this.#reading.then(async () => {
      try {
        const channels = await allChannels(this.sql);
        if (JSON.stringify(channels) === JSON.stringify(this.#channels)) return;
        this.#channels = channels;
        for (const listener of this.#listeners) await listener(channels);
      } catch (error) {
        this.log.warn({ err: (error as Error).message }, "channels not read again; the next change will");
      }
    });
  }
}
