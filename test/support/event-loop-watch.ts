import { readFileSync } from "node:fs";

/** What a watch saw between its start and its stop. */
export interface EventLoopReport {
  /**
   * The most CPU time the main thread spent between two turns of the watch's timer: how long the
   * event loop was kept from answering anything, in milliseconds, to the 10 ms of the kernel's
   * accounting. Time the machine gave to other processes does not count.
   */
  longestBlockMs: number;
  /** The longest wall-clock gap between two turns, waiting for the CPU included. */
  longestGapMs: number;
  /** The process's resident memory when the watch started, and the most it held since. */
  startRss: number;
  peakRss: number;
}

const STAT = `/proc/${process.pid}/task/${process.pid}/stat`;

/** The main thread's CPU time so far in ms, or undefined where /proc does not say (not Linux). */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(STAT, "latin1");
    // utime and stime, the 14th and 15th fields, in ticks of 1/100 s; the name before ")" may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/**
 * Watches this process's event loop (the embedded platform runs in the test's process) and its
 * memory. The platform's share of a busy machine is not the platform's doing, so a block is
 * measured in the main thread's own CPU time, not in the wall-clock time a timer came late by.
 */
export function watchEventLoop(intervalMs = 5): { stop(): EventLoopReport } {
  const startRss = process.memoryUsage.rss();
  let peakRss = startRss;
  let longestBlockMs = 0;
  let longestGapMs = 0;
  let lastWall = performance.now();
  let lastCpu = mainThreadCpuMs();
  const turn = () => {
    const wall = performance.now();
    const cpu = mainThreadCpuMs();
    const gap = wall - lastWall;
    longestGapMs = Math.max(longestGapMs, gap);
    longestBlockMs = Math.max(
      longestBlockMs,
      cpu === undefined || lastCpu === undefined ? gap : cpu - lastCpu,
    );
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
    lastWall = wall;
    lastCpu = cpu;
  };
  const timer = setInterval(turn, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      turn();
      return { longestBlockMs, longestGapMs, startRss, peakRss };
    },
  };
}
