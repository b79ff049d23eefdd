import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { RateLimiter } from "../../workers/notify/rate-limiter.ts";

describe("channel rate limiter", () => {
  it("lets a burst of one second's quota through, then paces the rest", async () => {
    const limiter = new RateLimiter(10);
    const started = performance.now();
    const done: number[] = [];
    await Promise.all(
      Array.from({ length: 15 }, () => limiter.take().then(() => done.push(performance.now() - started))),
    );
    done.sort((a, b) => a - b);
    assert.equal(done.length, 15, "every caller gets through");
    assert.ok(done[9]! < 50, `the first ten pass at once (${done[9]} ms)`);
    assert.ok(done[14]! >= 450, `the fifteenth waits for its tokens (${done[14]} ms)`);
  });
});
