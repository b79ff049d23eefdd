import { setTimeout as sleep } from "node:timers/promises";

/** One request of an open-loop run: what it was, how long it took from when it was due, how it ended. */
export interface Sample<Kind extends string> {
  kind: Kind;
  /** When the request was due, in ms from the start of the run. */
  dueMs: number;
  /** From the moment the request was due, not when it was sent, so a backlog shows in full. */
  latencyMs: number;
  /** How late the generator itself started the request: when this grows, the generator is the limit. */
  launchLagMs: number;
  error?: string;
}

export interface FixedRateRun<Kind extends string> {
  samples: Sample<Kind>[];
  /** Requests a second asked for. */
  offered: number;
  /** Successful answers a second, over the time from the first due request to the last answer. */
  achieved: number;
}

/**
 * Kinds interleaved in proportion to their weights, evenly rather than in runs (nginx's smooth
 * weighted round robin), so every second of the run carries the same mix.
 */
export function weightedRotation<Kind extends string>(weights: Record<Kind, number>): () => Kind {
  const entries = Object.entries(weights) as [Kind, number][];
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  const current = new Map<Kind, number>(entries.map(([kind]) => [kind, 0]));
  return () => {
    let best = entries[0]![0];
    for (const [kind, weight] of entries) {
      current.set(kind, current.get(kind)! + weight);
      if (current.get(kind)! > current.get(best)!) best = kind;
    }
    current.set(best, current.get(best)! - total);
    return best;
  };
}

/**
 * Starts `call` at a fixed rate for `seconds`, whether or not earlier calls have answered, as
 * independent clients would: a slow answer delays nothing after it, and each latency counts from
 * when its call was due, so a stall cannot hide the queue it causes (no coordinated omission).
 * A call fails by throwing; the run never stops on a failure.
 */
export async function runFixedRate<Kind extends string>(options: {
  rate: number;
  seconds: number;
  next: () => Kind;
  call: (kind: Kind) => Promise<void>;
}): Promise<FixedRateRun<Kind>> {
  const { rate, seconds } = options;
  const count = Math.round(rate * seconds);
  const samples: Sample<Kind>[] = [];
  const inFlight: Promise<void>[] = [];
  const first = performance.now();
  let lastAnswer = first;
  for (let i = 0; i < count; i++) {
    const due = first + (i * 1000) / rate;
    const wait = due - performance.now();
    // Timers fire a millisecond or so late; calls already due go out together rather than drift.
    if (wait > 1) await sleep(wait);
    const kind = options.next();
    const launchLagMs = Math.max(0, performance.now() - due);
    inFlight.push(
      options.call(kind).then(
        () => {
          lastAnswer = performance.now();
          samples.push({ kind, dueMs: due - first, latencyMs: lastAnswer - due, launchLagMs });
        },
        (error: Error) => {
          samples.push({
            kind,
            dueMs: due - first,
            latencyMs: performance.now() - due,
            launchLagMs,
            error: error.message,
          });
        },
      ),
    );
  }
  await Promise.all(inFlight);
  const succeeded = samples.filter((sample) => !sample.error).length;
  const elapsed = Math.max(seconds * 1000, lastAnswer - first) / 1000;
  return { samples, offered: count / seconds, achieved: succeeded / elapsed };
}

/** The value under which `p` percent of the values lie (nearest rank). */
/**
 * The seconds of the run in which requests slower than `thresholdMs` were due, as ranges
 * ("12-14, 41"): a few seconds mean a passing stall, spread ones a steady slowness.
 */
export function slowSeconds(samples: readonly Sample<string>[], thresholdMs: number): string {
  const seconds = [
    ...new Set(samples.filter((s) => s.latencyMs > thresholdMs).map((s) => Math.floor(s.dueMs / 1000))),
  ].sort((a, b) => a - b);
  const ranges: string[] = [];
  for (let i = 0; i < seconds.length; i++) {
    const from = seconds[i]!;
    while (seconds[i + 1] === seconds[i]! + 1) i++;
    ranges.push(from === seconds[i] ? `${from}` : `${from}-${seconds[i]}`);
  }
  return ranges.join(", ");
}
