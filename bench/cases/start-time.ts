import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
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
 * A start at most this many times the embedded database's own start on the same data directory
 * (docs/benchmark-bars.md says where the bars come from); the times are kept beside them.
 */
const WARM_RATIO = 2.3;
const FIRST_RATIO = 4.1;
/** A warm start beside a process that keeps one of the machine's cores busy, at most this many times a quiet one. */
const BESIDE_BUSY_RATIO = 2;
/** The reference: the embedded database started, connected to and asked one query, nothing else. */
const DATABASE_START = fileURLToPath(new URL("../servers/embedded-database-start.mjs", import.meta.url));

/** Milliseconds from spawning the embedded database alone on `dataDir` until it answered a query. */
async function databaseStart(dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, [DATABASE_START, dataDir], {
    cwd: PROJECT,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const exited = once(child, "exit");
  let answered: number | undefined;
  child.stdout.on("data", (chunk: Buffer) => {
    if (answered === undefined && chunk.toString().includes("ready")) answered = performance.now();
  });
  const [code] = await exited;
  if (code !== 0 || answered === undefined)
    throw new Error(`the embedded database alone exited with code ${code}`);
  return answered - started;
}

/** Milliseconds from spawning `node <args>` in the project until it exits, which it must do cleanly. */
async function timeToExit(args: string[]): Promise<number> {
  const started = performance.now();
  const child = spawn(process.execPath, args, { cwd: PROJECT, stdio: ["ignore", "ignore", "inherit"] });
  const [code] = await once(child, "exit");
  if (code !== 0) throw new Error(`node ${args.join(" ")} exited with code ${code}`);
  return performance.now() - started;
}

/** What `npm start` runs (its script in package.json), run by the shell as npm runs it, npm's own start aside. */
async function startCommand(): Promise<string> {
  const manifest = JSON.parse(await readFile(join(PROJECT, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  return manifest.scripts.start;
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
 * Milliseconds from spawning the platform as `npm start` runs it (its script, embedded database
 * and broker) until its first 200 on /readyz; then stops it.
 */
async function timeToReady(command: string, dataDir: string): Promise<number> {
  const started = performance.now();
  const child = spawn("/bin/sh", ["-c", command], {
    cwd: PROJECT,
    env: {
      ...process.env,
      NODE_OPTIONS: profileFlags(),
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

function profileFlags(): string {
  const dir = process.env.BENCH_PROFILE_DIR;
  return dir ? `--cpu-prof --cpu-prof-dir=${dir}` : (process.env.NODE_OPTIONS ?? "");
}

/** Starts a process that keeps one core busy until it is stopped: another workload on the machine. */
function busyProcess(): ChildProcess {
  return spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
}

export const startBench: BenchCase = {
  name: "start",
  description:
    "npm start (embedded mode) from spawn to the first 200 of /readyz, on its data directory and on a new one, and beside a process keeping a core busy, against the embedded database's own start",
  async run(): Promise<BenchResult[]> {
    const scratch = await mkdtemp(join(tmpdir(), "op-bench-start-"));
    const command = await startCommand();
    try {
      const warmDir = join(scratch, "warm");
      // Not timed: makes the data directory the warm starts reuse (and the build npm start runs),
      // and fills the caches every start after a machine's first reads (the cluster template, the OS's).
      await timeToReady(command, warmDir);
      const bare: number[] = [];
      const references: number[] = [];
      const warm: number[] = [];
      const first: number[] = [];
      const besideBusy: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        bare.push(await timeToExit(["-e", ""]));
        references.push(await databaseStart(warmDir));
        warm.push(await timeToReady(command, warmDir));
        first.push(await timeToReady(command, join(scratch, `first-${round}`)));
        const busy = busyProcess();
        try {
          besideBusy.push(await timeToReady(command, warmDir));
        } finally {
          await stop(busy);
        }
      }
      const reference = median(references);
      const list = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(", ");
      console.error(
        `start: node -e '' ${median(bare).toFixed(0)} ms, the embedded database alone ${reference.toFixed(0)} ms ` +
          `(${list(references)}), warm ${list(warm)}, first ${list(first)}, warm beside a busy core ${list(besideBusy)}`,
      );
      return [
        ratioAtMost("start.embedded-ready-warm", "ms", median(warm), reference, WARM_RATIO, {
          absoluteTarget: WARM_TARGET_MS,
        }),
        ratioAtMost("start.embedded-ready-first", "ms", median(first), reference, FIRST_RATIO, {
          absoluteTarget: FIRST_TARGET_MS,
        }),
        ratioAtMost(
          "start.embedded-ready-warm-beside-busy-core",
          "ms",
          median(besideBusy),
          median(warm),
          BESIDE_BUSY_RATIO,
        ),
      ];
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  },
};
