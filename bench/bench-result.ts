/**
 * One performance target of an issue. Where the quantity depends on the machine's speed, the bar is
 * on the ratio of the value to a reference measured in the same run (`bar: "ratio"`), so that a row
 * fails because the code got slower, not the machine; the absolute figure the issue named is kept
 * beside it for reference. Quantities no machine's speed changes (memory growth, error counts) keep
 * an absolute bar (`bar: "absolute"`).
 */
export interface BenchResult {
  name: string;
  value: number;
  unit: string;
  reference: number;
  /** value / reference, unless the case measured it otherwise (paired rounds, see `compareRates`). */
  ratio: number;
  /** What `pass` follows: a bound on `ratio` when `bar` is "ratio", on `value` when "absolute". */
  target: number;
  bar: "ratio" | "absolute";
  /** Whether the target is a floor (throughputs) or a ceiling (latencies, memory). */
  better: "higher" | "lower";
  pass: boolean;
  /** The absolute figure the issue named, kept beside a ratio bar: shown, never deciding `pass`. */
  absoluteTarget?: number;
  /** Whether `value` held `absoluteTarget` on this machine. */
  absolutePass?: boolean;
}

function round(n: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Within `target`: at or over a floor, at or under a ceiling. */
function holds(measured: number, target: number, better: BenchResult["better"]): boolean {
  return better === "higher" ? measured >= target : measured <= target;
}

function result(
  name: string,
  unit: string,
  measured: { value: number; reference: number; ratio: number },
  target: number,
  bar: BenchResult["bar"],
  better: BenchResult["better"],
  absoluteTarget: number | undefined,
): BenchResult {
  const { value, reference, ratio } = measured;
  return {
    name,
    value: round(value),
    unit,
    reference: round(reference),
    ratio: round(ratio, 3),
    target,
    bar,
    better,
    pass: holds(bar === "ratio" ? ratio : value, target, better),
    ...(absoluteTarget === undefined
      ? {}
      : { absoluteTarget, absolutePass: holds(value, absoluteTarget, better) }),
  };
}

export interface RatioOptions {
  /** The ratio as the case measured it, when not value / reference (paired rounds, say). */
  ratio?: number;
  /** The absolute figure the issue named, shown beside the ratio bar. */
  absoluteTarget?: number;
}

/** A floor on the ratio to the reference: a throughput at least `target` times the bare one. */
export function higherIsBetter(
  name: string,
  unit: string,
  value: number,
  reference: number,
  target: number,
  options: RatioOptions = {},
): BenchResult {
  const ratio = options.ratio ?? value / reference;
  return result(name, unit, { value, reference, ratio }, target, "ratio", "higher", options.absoluteTarget);
}

/**
 * A ceiling on the ratio to the reference: a latency or a duration at most `target` times one
 * measured in the same run (a bare operation's, or the median's for a tail).
 */
export function ratioAtMost(
  name: string,
  unit: string,
  value: number,
  reference: number,
  target: number,
  options: RatioOptions = {},
): BenchResult {
  const ratio = options.ratio ?? value / reference;
  return result(name, unit, { value, reference, ratio }, target, "ratio", "lower", options.absoluteTarget);
}

/**
 * An absolute ceiling, for quantities no machine's speed changes (memory growth, errors), and for
 * `load.p99`, whose fixed offered rate makes it a question of the machine's capacity (see
 * docs/benchmark-bars.md); the reference is shown for scale.
 */
export function atMost(name: string, unit: string, value: number, reference: number, target: number) {
  return result(
    name,
    unit,
    { value, reference, ratio: value / reference },
    target,
    "absolute",
    "lower",
    undefined,
  );
}

export interface BenchCase {
  name: string;
  description: string;
  run(): Promise<BenchResult[]>;
}
