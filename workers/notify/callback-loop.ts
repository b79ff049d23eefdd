import type { Logger } from "../../runtime/logger.ts";
import {
  type CallbackDeliveryDeps,
  type ClaimedDelivery,
  claimCallbacks,
  deliverCallback,
} from "../../workflow/messenger/callback-delivery.ts";

export interface CallbackLoopLimits {
  /** Posts under way at once in this process, and to one host and port. */
  concurrency: number;
  hostConcurrency: number;
  pollIntervalMs: number;
  /** One post's timeout: the claim of a delivery outlives it. */
  timeoutMs: number;
}

/** How long a claim outlives its post's timeout, so a post still running is never posted twice by another worker. */
const LEASE_MARGIN_MS = 30_000;

/**
 * Posts messenger callbacks as they become due, in every worker process that runs it (several
 * claim together without taking the same delivery). Posts run side by side up to `concurrency`,
 * at most `hostConcurrency` to one receiver, and a claim never waits for a post: a slow or dead
 * receiver holds its own slots and postpones its own deliveries, nobody else's. It looks for due
 * callbacks every `pollIntervalMs`, and again as soon as a post ends, so a process's next event
 * for the same receiver follows at once.
 */
export class CallbackLoop {
  private readonly busy = new Map<string, number>();
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private claiming = false;
  private claimAgain = false;

  constructor(
    private readonly deps: CallbackDeliveryDeps & { log: Logger },
    private readonly limits: CallbackLoopLimits,
  ) {}

  /** Starts looking for due callbacks; answers the function that stops looking. */
  start(): () => void {
    this.stopped = false;
    this.schedule(0);
    return () => this.stop();
  }

  private stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.claim(), delayMs);
    this.timer.unref();
  }

  private async claim(): Promise<void> {
    if (this.stopped) return;
    if (this.claiming) {
      this.claimAgain = true;
      return;
    }
    this.claiming = true;
    try {
      const free = this.limits.concurrency - this.running.size;
      const claimed = await claimCallbacks(this.deps.sql, {
        limit: free,
        perHost: this.limits.hostConcurrency,
        busy: this.busy,
        leaseMs: this.limits.timeoutMs + LEASE_MARGIN_MS,
      });
      for (const delivery of claimed) this.post(delivery);
    } catch (error) {
      this.deps.log.warn({ err: (error as Error).message }, "callback claim failed");
    } finally {
      this.claiming = false;
      const again = this.claimAgain;
      this.claimAgain = false;
      this.schedule(again ? 0 : this.limits.pollIntervalMs);
    }
  }

  private post(delivery: ClaimedDelivery): void {
    this.busy.set(delivery.host, (this.busy.get(delivery.host) ?? 0) + 1);
    const done = deliverCallback(this.deps, delivery)
      .catch((error: unknown) =>
        // Its claim lapses and it is posted again: nothing is lost, at worst posted twice.
        this.deps.log.warn(
          { delivery: delivery.id, err: (error as Error).message },
          "callback outcome not recorded",
        ),
      )
      .finally(() => {
        const left = (this.busy.get(delivery.host) ?? 1) - 1;
        if (left > 0) this.busy.set(delivery.host, left);
        else this.busy.delete(delivery.host);
        this.running.delete(done);
        if (this.claiming) this.claimAgain = true;
        else this.schedule(0);
      });
    this.running.add(done);
  }

  /**
   * Stops looking and lets the posts under way end, for at most their timeout; then ends those
   * left, which count as failed and are posted again later.
   */
  async close(): Promise<void> {
    this.stop();
    const ended = Promise.all(this.running);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.limits.timeoutMs);
    });
    await Promise.race([ended, late]);
    clearTimeout(timer);
    await this.deps.poster.close();
    await ended;
  }
}
