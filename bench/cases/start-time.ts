import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type BenchCase, type BenchResult, lowerIsBetter } from "../bench-result.ts";
import { median } from "../statistics.ts";

const PORT = 18_961;
const ROUNDS = 5;
const PROJECT = fileURLToPath(new URL("../..", import.meta.url));
/** A start that has not answered by then has failed. */
const DEADLINE_MS = 60_000;
const WARM_TARGET_MS = 2_000;
const FIRST_TARGET_MS = 5_000;

/** Milliseconds from spawning `node <args>` until it exits. */
async function timeToExit(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { stdio: "ignore" });
  await once(child, "exit");
  return performance.now() - started;
}

async function readyAnswered(url: string): Promise<boolean> {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
    return response.status === 200;
  } catch {
    return false;
  }
}

/**
 * Milliseconds from spawning the platform as `npm start` runs it (node --import tsx
 * bin/platform.ts, embedded database and broker) until its first 200 on /readyz; then stops it.
 */
async function timeToReady(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [...profileFlags(), "--import", "tsx", "bin/platform.ts"], {
    cwd: PROJECT,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "warn",
      DATABASE_URL: "",
      AMQP_URL: "",
    },
    stdio: ["ignore", process.env.BENCH_LOG_LEVEL ? "inherit" : "ignore", "inherit"],
  });
  try {
    let exit: number | null | undefined;
    child.once("exit", (code) => {
      exit = code;
    });
    while (!(await readyAnswered(`http://127.0.0.1:${PORT}/readyz`))) {
      if (exit !== undefined) throw new Error(`the platform exited (code ${exit}) before it was ready`);
      if (performance.now() - started > DEADLINE_MS) throw new Error("the platform was not ready in time");
      await sleep(5);
    }
    return performance.now() - started;
  } finally {
    await stop(child);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  await exited;
}

function profileFlags(): string[] {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [];
}

export const startBench: BenchCase = {
  name: "start",
  description:
    "npm start (embedded mode) from spawn to the first 200 of /readyz, on its data directory and on a new one, against spawning node -e ''",
  async run(): Promise<BenchResult[]> {
    const scratch = await mkdtemp(join(tmpdir(), "op-bench-start-"));
    try {
      const warmDir = join(scratch, "warm");
      // Not timed: makes the data directory the warm starts reuse, and fills the caches every start
      // after a machine's first reads (the TypeScript loader's, the cluster template, the OS's).
      await timeToReady(warmDir);
      const references: number[] = [];
      const warm: number[] = [];
      const first: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        references.push(await timeToExit(["-e", ""]));
        warm.push(await timeToReady(warmDir));
        first.push(await timeToReady(join(scratch, `first-${round}`)));
      }
      const reference = median(references);
      return [
        lowerIsBetter("start.embedded-ready-warm", "ms", median(warm), reference, WARM_TARGET_MS),
        lowerIsBetter("start.embedded-ready-first", "ms", median(first), reference, FIRST_TARGET_MS),
      ];
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
