import type { ChannelSender, Delivery, SendResult } from "../../contracts/channel-plugin.ts";
import { RateLimiter } from "./rate-limiter.ts";

/**
 * A channel's sender as the worker uses it: at most `maxInFlight` sends at once, and no more than
 * `ratePerSecond` a second when the channel has a quota. Sends wait their turn (back-pressure);
 * one whose job was aborted while waiting is not started and resolves to undefined.
 */
export class GatedSender {
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];
  private readonly limiter: RateLimiter | undefined;

  constructor(
    private readonly sender: ChannelSender,
    private readonly maxInFlight: number,
    ratePerSecond?: number,
  ) {
    this.limiter = ratePerSecond ? new RateLimiter(ratePerSecond) : undefined;
  }

  async send(delivery: Delivery, signal: AbortSignal): Promise<SendResult | undefined> {
    if (this.inFlight >= this.maxInFlight) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight++;
    try {
      if (this.limiter) await this.limiter.take();
      if (signal.aborted) return undefined;
      return await this.sender.send(delivery);
    } finally {
      // The slot passes straight to the next waiter, so the count never dips below the bound.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight--;
    }
  }

  close(): Promise<void> {
    return this.sender.close?.() ?? Promise.resolve();
  }
}
