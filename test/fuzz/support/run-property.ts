import assert from "node:assert/strict";
import fc from "fast-check";
import { RESPONSE_TIMEOUT_MS, send } from "./http-client.ts";
import type { FuzzTally } from "./tally.ts";

/**
 * `FUZZ_RUNS_SCALE=4` runs four times as many inputs (a longer, deeper run); `FUZZ_SEED` (and
 * `FUZZ_PATH`, both from a failure's report) replays a run, straight to its counterexample.
 */
const SCALE = Number(process.env.FUZZ_RUNS_SCALE ?? "1");
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const PATH = process.env.FUZZ_PATH;
/** `FUZZ_NO_SHRINK=1` reports the first failing input as generated, not a smaller one. */
const NO_SHRINK = process.env.FUZZ_NO_SHRINK === "1";

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

/**
 * Errors nothing caught, in the platform running in this process: the test runner would take them
 * in its stride (attributed to some test), where on its own the process would have died.
 */
const escaped: unknown[] = [];
process.on("uncaughtException", (error) => escaped.push(error));
process.on("unhandledRejection", (reason) => escaped.push(reason));

function assertNothingEscaped(): void {
  if (escaped.length === 0) return;
  const [first] = escaped.splice(0);
  throw new Error(
    `the platform threw where nothing catches (the process would have died): ${(first as Error)?.stack ?? String(first)}`,
  );
}

/** The process still serves: asked after every property, so a crash or a wedged server shows at once. */
export async function assertAlive(baseUrl: string): Promise<void> {
  assertNothingEscaped();
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
        try {
          await options.check(input);
        } finally {
          assertNothingEscaped();
        }
      }),
      {
        numRuns: scaledRuns(options.runs),
        includeErrorInReport: true,
        timeout: RESPONSE_TIMEOUT_MS + 5_000,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH === undefined ? {} : { path: PATH }),
        ...(NO_SHRINK ? { endOnFailure: true } : {}),
      },
    );
  } finally {
    options.tally.add(options.family, tried);
  }
  await assertAlive(options.baseUrl);
}
