import type { ChannelSender, Delivery, SendResult } from "../../contracts/channel-plugin.ts";
import { RateLimiter } from "./rate-limiter.ts";

/**
 * Outcomes of a channel written together, per send it may run at once: one statement for many
 * outcomes costs the database and the worker far less than one for each.
 */
export const WRITE_BATCH_PER_SEND = 2;

/**
 * Messages of a channel a worker may have out without their outcome written, per send it may run
 * at once: the sends running, a batch of outcomes being written, and the outcomes of the sends
 * that end meanwhile. Writing then holds sending up only when a write takes longer than a send.
 */
export const UNWRITTEN_PER_SEND = 1 + WRITE_BATCH_PER_SEND + 1;

/** A send's places: taken by `acquire`, given back by `release` once its outcome is written. */
export interface SendSlot {
  readonly sender: GatedSender;
  /** Sends; its place among the sends running at once is given back as soon as it settles. */
  send(delivery: Delivery): Promise<SendResult>;
  release(): void;
}

/**
 * A channel's sender as the worker uses it: at most `maxInFlight` sends at once, and no more than
 * `ratePerSecond` a second when the channel has a quota. Sends wait their turn (back-pressure).
 *
 * A send also holds a place among the channel's unwritten messages until its slot is released,
 * which the worker does once the send's outcome is written: a worker that dies has then left at
 * most `UNWRITTEN_PER_SEND × maxInFlight` messages of the channel sent and not recorded, the only
 * ones sent again when their leases end.
 */
export class GatedSender {
  private readonly sending: Places;
  private readonly unwritten: Places;
  private readonly limiter: RateLimiter | undefined;

  constructor(
    private readonly sender: ChannelSender,
    readonly maxInFlight: number,
    ratePerSecond?: number,
  ) {
    this.sending = new Places(maxInFlight);
    this.unwritten = new Places(UNWRITTEN_PER_SEND * maxInFlight);
    this.limiter = ratePerSecond ? new RateLimiter(ratePerSecond) : undefined;
  }

  /** Waits for the places and the quota; undefined, holding nothing, when the job was aborted meanwhile. */
  async acquire(signal: AbortSignal): Promise<SendSlot | undefined> {
    await this.unwritten.take();
    await this.sending.take();
    const slot = new Slot(this, this.sender, this.sending, this.unwritten);
    try {
      if (this.limiter) await this.limiter.take();
    } catch (error) {
      slot.release();
      throw error;
    }
    if (signal.aborted) {
      slot.release();
      return undefined;
    }
    return slot;
  }

  close(): Promise<void> {
    return this.sender.close?.() ?? Promise.resolve();
  }
}

class Slot implements SendSlot {
  private sending = true;
  private unwritten = true;

  constructor(
    readonly sender: GatedSender,
    private readonly channel: ChannelSender,
    private readonly sendingPlaces: Places,
    private readonly unwrittenPlaces: Places,
  ) {}

  async send(delivery: Delivery): Promise<SendResult> {
    try {
      return await this.channel.send(delivery);
    } finally {
      this.settled();
    }
  }

  release(): void {
    this.settled();
    if (!this.unwritten) return;
    this.unwritten = false;
    this.unwrittenPlaces.give();
  }

  private settled(): void {
    if (!this.sending) return;
    this.sending = false;
    this.sendingPlaces.give();
  }
}

/** A number of places, handed to those waiting in the order they came. */
class Places {
  private taken = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async take(): Promise<void> {
    if (this.taken < this.size) this.taken++;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    // The place passes straight to the next waiter, so the count never dips below the bound.
    const next = this.waiting.shift();
    if (next) next();
    else this.taken--;
  }
}
