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

export interface BenchCase {
  name: string;
  description: string;
  run(): Promise<BenchResult[]>;
}
