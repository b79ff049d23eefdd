/**
 * A token bucket: up to `perSecond` sends at once after a quiet spell, then `perSecond` a second.
 * `take` waits for a token, so an upstream's quota slows deliveries down instead of failing them.
 */
export class RateLimiter {
  private tokens: number;
  private updatedAt = performance.now();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly perSecond: number) {
    this.tokens = Math.max(1, perSecond);
  }

  take(): Promise<void> {
    // Callers are served in order, each waiting for the one before it.
    const turn = this.queue.then(() => this.waitForToken());
    this.queue = turn;
    return turn;
  }

  private async waitForToken(): Promise<void> {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(
        Math.max(1, this.perSecond),
        this.tokens + ((now - this.updatedAt) / 1000) * this.perSecond,
      );
      this.updatedAt = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, ((1 - this.tokens) / this.perSecond) * 1000));
    }
  }
}
