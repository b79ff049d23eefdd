/** One performance target of an issue, measured against a reference in the same run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  reference: number;
  /** How the value compares, higher always better: value / reference, or target / value for latencies. */
  ratio: number;
  target: number;
  /** Whether the target is a floor (throughputs, ratios) or a ceiling (latencies, memory). */
  better: "higher" | "lower";
  pass: boolean;
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

function result(
  name: string,
  unit: string,
  measured: { value: number; reference: number; ratio: number },
  target: number,
  better: BenchResult["better"],
  pass: boolean,
): BenchResult {
  const { value, reference, ratio } = measured;
  return {
    name,
    value: round(value),
    unit,
    reference: round(reference),
    ratio: round(ratio, 3),
    target,
    better,
    pass,
  };
}

/**
 * A target given as a ratio to the reference: passes when the ratio reaches it. The ratio is
 * value / reference unless the case measured it otherwise (paired rounds, see `compareRates`).
 */
export function higherIsBetter(
  name: string,
  unit: string,
  value: number,
  reference: number,
  target: number,
  ratio = value / reference,
) {
  return result(name, unit, { value, reference, ratio }, target, "higher", ratio >= target);
}

/** A target given as an absolute floor (deliveries a second, say), shown beside a same-run reference. */
export function atLeast(name: string, unit: string, value: number, reference: number, target: number) {
  return result(
    name,
    unit,
    { value, reference, ratio: value / reference },
    target,
    "higher",
    value >= target,
  );
}

/** A target where less is better (a latency, memory): passes at or under `target`. */
export function lowerIsBetter(name: string, unit: string, value: number, reference: number, target: number) {
  return result(name, unit, { value, reference, ratio: target / value }, target, "lower", value <= target);
}

export interface BenchCase {
  name: string;
  description: string;
  run(): Promise<BenchResult[]>;
}
