import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";

/** V8's `%GetOptimizationStatus` bits (src/runtime/runtime.h). */
const INTERPRETED = 1 << 7;
const TURBOFANNED = 1 << 6;

/**
 * In a new process: nextTick's optimization status before and after the warm-up, and the ticks that
 * ran. TurboFan compiles on a background thread, which on a busy machine may still hold the job the
 * warm-up queued: `%FinalizeOptimization` waits for it, so the status read is the compile's outcome.
 */
const child = `
const status = new Function("f", "return %GetOptimizationStatus(f)");
const finishBackgroundCompiles = new Function("%FinalizeOptimization()");
const { warmUpNextTick } = await import(${JSON.stringify(new URL("../../runtime/next-tick-warm-up.ts", import.meta.url).href)});
const before = status(process.nextTick);
const ran = await warmUpNextTick();
finishBackgroundCompiles();
console.log(JSON.stringify({ before, after: status(process.nextTick), ran }));
`;

describe("the nextTick warm-up a process runs before it starts", () => {
  it("leaves process.nextTick optimized by TurboFan, every queued tick run", async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--allow-natives-syntax", "--import", "tsx", "--input-type=module", "-e", child],
      { cwd: new URL("../..", import.meta.url) },
    );
    const { before, after, ran } = JSON.parse(stdout) as { before: number; after: number; ran: number };
    assert.ok(before & INTERPRETED, `nextTick starts interpreted (status ${before.toString(2)})`);
    assert.ok(after & TURBOFANNED, `nextTick is optimized after the warm-up (status ${after.toString(2)})`);
    assert.equal(ran, 20_000);
  });
});
