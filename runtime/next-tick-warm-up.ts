/**
 * Makes `process.nextTick` hot on a burst of uniform calls before a process starts its work.
 *
 * Node builds each tick in `nextTick` as an object literal with two symbol keys. When V8 optimizes
 * `nextTick` in the middle of a start (modules evaluating, connections opening, timers firing), in
 * about half the processes the optimized code defines those keys through the runtime on every
 * call, with a map migration each time: Node's streams call `nextTick` five times for each HTTP
 * request, and the gateway then serves its plainest route about 15% slower for its whole life.
 * Optimized first on this burst, it did so in none of 25 processes measured.
 */

/** Calls made: enough for V8 to optimize `nextTick`, in batches the background compiler finishes between. */
const CALLS = 20_000;
const BATCH = 1_000;

/** The process's one warm-up: a process that starts the platform again (tests do) has it already. */
let warmUp: Promise<number> | undefined;

/** Resolves with the ticks that ran, once every queued one has. */
export function warmUpNextTick(): Promise<number> {
  warmUp ??= new Promise((resolve) => {
    let queued = 0;
    let ran = 0;
    const tick = (_index: number) => {
      ran++;
    };
    const batch = () => {
      for (const end = Math.min(queued + BATCH, CALLS); queued < end; queued++)
        process.nextTick(tick, queued);
      if (queued < CALLS) setImmediate(batch);
      else setImmediate(() => resolve(ran));
    };
    batch();
  });
  return warmUp;
}
