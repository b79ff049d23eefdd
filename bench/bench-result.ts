/** One performance target of an issue, measured against a reference in the same run. */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  reference: number;
  /** value / reference, or reference / value for "lower is better" units, so higher is always better. */
  ratio: number;
  target: number;
  pass: boolean;
}

export function higherIsBetter(
  name: string,
  unit: string,
  value: number,
  reference: number,
  target: number,
): BenchResult {
  const ratio = value / reference;
  return {
    name,
    value: round(value),
    unit,
    reference: round(reference),
    ratio: round(ratio, 3),
    target,
    pass: ratio >= target,
  };
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** A target where less is better (a latency): passes at or under `target`; ratio is target / value. */
export function lowerIsBetter(
  name: string,
  unit: string,
  value: number,
  reference: number,
  target: number,
): BenchResult {
  const ratio = target / value;
  return {
    name,
    value: round(value),
    unit,
    reference: round(reference),
    ratio: round(ratio, 3),
    target,
    pass: value <= target,
  };
}

/** A target given as an absolute floor (deliveries a second, say) next to a reference from the same run. */
export function atLeast(
  name: string,
  unit: string,
  value: number,
  reference: number,
  target: number,
): BenchResult {
  return {
    name,
    value: round(value),
    unit,
    reference: round(reference),
    ratio: round(value / reference, 3),
    target,
    pass: value >= target,
  };
}

export interface BenchCase {
  name: string;
  description: string;
  run(): Promise<BenchResult[]>;
}
