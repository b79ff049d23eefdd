import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type BenchCase, type BenchResult, ratioAtMost } from "../bench-result.ts";
import { median } from "../statistics.ts";

// A port no other case uses: the start waits for the first 200 any process there answers.
const PORT = 18_951;
const ROUNDS = 5;
const PROJECT = fileURLToPath(new URL("../..", import.meta.url));
/** A start that has not answered by then has failed. */
const DEADLINE_MS = 60_000;
const WARM_TARGET_MS = 2_000;
const FIRST_TARGET_MS = 5_000;
/**
 * A start at most this many times the reference's time, loading the same modules and exiting
 * (docs/benchmark-bars.md says where the bars come from); the times are kept beside them.
 */
const WARM_RATIO = 2.6;
const FIRST_RATIO = 4.4;
/** The reference: `npm start`'s modules loaded as it loads them, on the same loader, nothing run. */
const MODULES = fileURLToPath(new URL("../servers/platform-modules.ts", import.meta.url));

/** Milliseconds from spawning `node <args>` in the project until it exits, which it must do cleanly. */
async function timeToExit(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: PROJECT, stdio: ["ignore", "ignore", "inherit"] });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with code ${code}`);
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
    "npm start (embedded mode) from spawn to the first 200 of /readyz, on its data directory and on a new one, against spawning node to load the same modules",
  async run(): Promise<BenchResult[]> {
    const scratch = await mkdtemp(join(tmpdir(), "op-bench-start-"));
    try {
      const warmDir = join(scratch, "warm");
      // Not timed: makes the data directory the warm starts reuse, and fills the caches every start
      // after a machine's first reads (the TypeScript loader's, the cluster template, the OS's).
      await timeToReady(warmDir);
      const bare: number[] = [];
      const references: number[] = [];
      const warm: number[] = [];
      const first: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        bare.push(await timeToExit(["-e", ""]));
        references.push(await timeToExit(["--import", "tsx", MODULES]));
        warm.push(await timeToReady(warmDir));
        first.push(await timeToReady(join(scratch, `first-${round}`)));
      }
      const reference = median(references);
      console.error(
        `start: node -e '' ${median(bare).toFixed(0)} ms, loading the modules ${reference.toFixed(0)} ms ` +
          `(${references.map((ms) => ms.toFixed(0)).join(", ")}), warm ${warm.map((ms) => ms.toFixed(0)).join(", ")}, ` +
          `first ${first.map((ms) => ms.toFixed(0)).join(", ")}`,
      );
      return [
        ratioAtMost("start.embedded-ready-warm", "ms", median(warm), reference, WARM_RATIO, {
          absoluteTarget: WARM_TARGET_MS,
        }),
        ratioAtMost("start.embedded-ready-first", "ms", median(first), reference, FIRST_RATIO, {
          absoluteTarget: FIRST_TARGET_MS,
        }),
      ];
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
