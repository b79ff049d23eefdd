import assert from "node:assert/strict";
import fc from "fast-check";
import { RESPONSE_TIMEOUT_MS, send } from "./http-client.ts";
import type { FuzzTally } from "./tally.ts";

/** `FUZZ_RUNS_SCALE=4` runs four times as many inputs (a longer, deeper run); `FUZZ_SEED` replays one. */
const SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? "1");
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

export function scaledRuns(runs: number): number {
  return Math.max(1, Math.round(runs * (Number.isFinite(SCALE) && SCALE > 0 ? SCALE : 1)));
}

export interface PropertyOptions<T> {
  baseUrl: string;
  tally: FuzzTally;
  /** The route family the inputs count towards in the summary. */
  family: string;
  runs: number;
  arbitrary: fc.Arbitrary<T>;
  check: (input: T) => Promise<void>;
}

/** The process still serves: asked after every property, so a crash or a wedged server shows at once. */
export async function assertAlive(baseUrl: string): Promise<void> {
  const answer = await send(baseUrl, { method: "GET", path: "/healthz" });
  assert.equal(answer.status, 200, `/healthz answered ${answer.status}`);
  assert.deepEqual(JSON.parse(answer.body.toString()), { status: "ok" });
}

/**
 * Runs a fast-check property over real requests. A failure names its seed and path (fast-check's
 * report), so `FUZZ_SEED=<seed>` replays it; each input has a deadline, so a hang fails too.
 */
export async function fuzzProperty<T>(options: PropertyOptions<T>): Promise<void> {
  let tried = 0;
  try {
    await fc.assert(
      fc.asyncProperty(options.arbitrary, async (input) => {
        tried++;
        await options.check(input);
      }),
      {
        numRuns: scaledRuns(options.runs),
        includeErrorInReport: true,
        timeout: RESPONSE_TIMEOUT_MS + 5_000,
        ...(SEED === undefined ? {} : { seed: SEED }),
      },
    );
  } finally {
    options.tally.add(options.family, tried);
  }
  await assertAlive(options.baseUrl);
}
