import { readFile } from "node:fs/promises";

/** Clock ticks a second in /proc/<pid>/stat (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** CPU time a process has used so far, user and system, in seconds. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** CPU time the whole machine has spent busy (everything but idle and I/O wait), in seconds. */
export async function machineBusySeconds(): Promise<number> {
  const stat = await readFile("/proc/stat", "utf8");
  const [user, nice, system, , , irq, softirq, steal] = stat
    .split("\n")[0]!
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / TICKS_PER_SECOND;
}

/** A process's resident memory now (`VmRSS`) or at its peak so far (`VmHWM`), in MB. */
export async function memoryMb(pid: number, field: "VmRSS" | "VmHWM"): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
}

export interface MemorySeries {
  /** Seconds since sampling began, and resident MB then. */
  points: { seconds: number; mb: number }[];
}

/**
 * Samples the resident memory of each process every `intervalMs` until stopped, so a trend can be
 * told from the sawtooth the garbage collector draws.
 */
export function sampleRss(pids: Record<string, number>, intervalMs: number) {
  const series = new Map<string, MemorySeries>(Object.keys(pids).map((name) => [name, { points: [] }]));
  const started = performance.now();
  const sample = async () => {
    const seconds = (performance.now() - started) / 1000;
    await Promise.all(
      Object.entries(pids).map(async ([name, pid]) => {
        series.get(name)!.points.push({ seconds, mb: await memoryMb(pid, "VmRSS") });
      }),
    );
  };
  let pending = sample();
  const timer = setInterval(() => {
    pending = pending.then(sample);
  }, intervalMs);
  return {
    async stop(): Promise<Map<string, MemorySeries>> {
      clearInterval(timer);
      await pending;
      await sample();
      return series;
    },
  };
}

/** Mean of the first and of the last third of the samples, which a single high or low point cannot swing. */
export function startAndEnd(series: MemorySeries): { start: number; end: number } {
  const third = Math.max(1, Math.floor(series.points.length / 3));
  const mean = (points: MemorySeries["points"]) => points.reduce((sum, p) => sum + p.mb, 0) / points.length;
  return { start: mean(series.points.slice(0, third)), end: mean(series.points.slice(-third)) };
}

/** The least-squares slope of the samples, in MB a minute. */
export function slopePerMinute(series: MemorySeries): number {
  const { points } = series;
  const n = points.length;
  const meanX = points.reduce((sum, p) => sum + p.seconds, 0) / n;
  const meanY = points.reduce((sum, p) => sum + p.mb, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const p of points) {
    covariance += (p.seconds - meanX) * (p.mb - meanY);
    variance += (p.seconds - meanX) ** 2;
  }
  return variance === 0 ? 0 : (covariance / variance) * 60;
}
