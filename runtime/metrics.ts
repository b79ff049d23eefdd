/**
 * Counters, histograms and gauges in the Prometheus text format (version 0.0.4). Label values are
 * given positionally, in the order of the metric's label names, so recording costs one string join
 * and one map lookup, with no object per call; a hot path keeps the series it records to and pays
 * neither.
 */

type LabelValues = readonly string[];
export type Sample = [LabelValues, number];

export interface Metric {
  readonly name: string;
  render(): string | Promise<string>;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function labelText(names: readonly string[], values: LabelValues, extra?: [string, string]): string {
  const pairs = names.map((name, i) => `${name}="${escapeLabel(values[i] ?? "")}"`);
  if (extra) pairs.push(`${extra[0]}="${extra[1]}"`);
  return pairs.length === 0 ? "" : `{${pairs.join(",")}}`;
}

function header(name: string, help: string, type: string): string {
  return `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n`;
}

/** Series keyed by their label values joined with a character no label value holds in practice. */
function keyOf(values: LabelValues): string {
  return values.join("\u0001");
}

/** One series of a counter: a hot path may keep it and count without looking it up again. */
export class CounterSeries {
  count = 0;

  constructor(readonly values: LabelValues) {}

  inc(by = 1): void {
    this.count += by;
  }
}

export class Counter implements Metric {
  private readonly seriesByKey = new Map<string, CounterSeries>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[] = [],
  ) {}

  /** The series of these label values, made on first use; rendered once it has counted. */
  series(values: LabelValues = []): CounterSeries {
    const key = keyOf(values);
    let entry = this.seriesByKey.get(key);
    if (!entry) {
      entry = new CounterSeries([...values]);
      this.seriesByKey.set(key, entry);
    }
    return entry;
  }

  inc(values: LabelValues = [], by = 1): void {
    this.series(values).inc(by);
  }

  /** The count of one series; 0 when it was never incremented. */
  get(values: LabelValues = []): number {
    return this.seriesByKey.get(keyOf(values))?.count ?? 0;
  }

  render(): string {
    let text = header(this.name, this.help, "counter");
    for (const { values, count } of this.seriesByKey.values()) {
      if (count === 0) continue;
      text += `${this.name}${labelText(this.labelNames, values)} ${count}\n`;
    }
    return text;
  }
}

/** One series of a histogram: a hot path may keep it and observe without looking it up again. */
export class HistogramSeries {
  /** Observations per bucket, not cumulated: rendering adds them up. */
  readonly buckets: number[];
  sum = 0;
  count = 0;

  constructor(
    readonly values: LabelValues,
    private readonly bounds: readonly number[],
  ) {
    this.buckets = new Array(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    let index = 0;
    while (index < this.bounds.length && value > this.bounds[index]!) index++;
    this.buckets[index]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

export class Histogram implements Metric {
  private readonly seriesByKey = new Map<string, HistogramSeries>();

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly bounds: readonly number[],
  ) {}

  /** The series of these label values, made on first use; rendered once it has observed. */
  series(values: LabelValues): HistogramSeries {
    const key = keyOf(values);
    let entry = this.seriesByKey.get(key);
    if (!entry) {
      entry = new HistogramSeries([...values], this.bounds);
      this.seriesByKey.set(key, entry);
    }
    return entry;
  }

  observe(values: LabelValues, value: number): void {
    this.series(values).observe(value);
  }

  render(): string {
    let text = header(this.name, this.help, "histogram");
    for (const entry of this.seriesByKey.values()) {
      if (entry.count === 0) continue;
      let cumulative = 0;
      for (let i = 0; i <= this.bounds.length; i++) {
        cumulative += entry.buckets[i]!;
        const le = i < this.bounds.length ? String(this.bounds[i]) : "+Inf";
        text += `${this.name}_bucket${labelText(this.labelNames, entry.values, ["le", le])} ${cumulative}\n`;
      }
      const labels = labelText(this.labelNames, entry.values);
      text += `${this.name}_sum${labels} ${entry.sum}\n${this.name}_count${labels} ${entry.count}\n`;
    }
    return text;
  }
}

/** A gauge family in the text format, from its current samples. */
export function gaugeText(
  name: string,
  help: string,
  labelNames: readonly string[],
  samples: Sample[],
): string {
  let text = header(name, help, "gauge");
  for (const [values, value] of samples) text += `${name}${labelText(labelNames, values)} ${value}\n`;
  return text;
}

/** A gauge read when scraped: `collect` returns the current value of each series. */
export class Gauge implements Metric {
  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly labelNames: readonly string[],
    private readonly collect: () => Promise<Sample[]> | Sample[],
  ) {}

  async render(): Promise<string> {
    return gaugeText(this.name, this.help, this.labelNames, await this.collect());
  }
}

/** The metrics of one process, rendered together for a scrape. */
export class MetricsRegistry {
  private readonly metrics = new Map<string, Metric>();

  /** Registers a metric, or returns the one already registered under its name. */
  register<M extends Metric>(metric: M): M {
    const existing = this.metrics.get(metric.name);
    if (existing) return existing as M;
    this.metrics.set(metric.name, metric);
    return metric;
  }

  /** Replaces a metric: its source belongs to the process parts started last (a broker, say). */
  replace(metric: Metric): void {
    this.metrics.set(metric.name, metric);
  }

  async render(): Promise<string> {
    const parts = await Promise.all(
      [...this.metrics.values()].map(async (metric) => {
        try {
          return await metric.render();
        } catch {
          // A gauge whose source is down (the broker, say) is left out of this scrape.
          return "";
        }
      }),
    );
    return parts.join("");
  }
}

/** Every metric of this process: the gateway's and the workers' when they share one. */
export const metrics = new MetricsRegistry();

export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
