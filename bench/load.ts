import { fork } from "node:child_process";
import { once } from "node:events";
import autocannon from "autocannon";
import { median } from "./statistics.ts";

/** A server script running in its own process, its log lines discarded. */
export interface BenchServer {
  port: number;
  pid: number;
  /** What the script sent when it was ready (a token, say). */
  ready: unknown;
  /** Sends the script a message and resolves with its next one. */
  ask(message: string): Promise<unknown>;
  stop(): Promise<void>;
}

export async function startServer(
  script: URL,
  port: number,
  env: Record<string, string>,
  nodeFlags: string[] = [],
): Promise<BenchServer> {
  const child = fork(script, {
    execArgv: [
      "--import",
      "tsx",
      ...nodeFlags,
      ...(process.env.BENCH_PROFILE_DIR
        ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`]
        : []),
    ],
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ["ignore", process.env.BENCH_LOG_LEVEL ? "inherit" : "ignore", "inherit", "ipc"],
  });
  const [ready] = await once(child, "message");
  return {
    port,
    pid: child.pid!,
    ready,
    async ask(message) {
      const answer = once(child, "message");
      child.send(message);
      const [reply] = await answer;
      return reply;
    },
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

export interface LoadOptions {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections?: number;
}

/** Average requests per second over `seconds`; any error or non-2xx answer fails the benchmark. */
export async function requestsPerSecond(options: LoadOptions, seconds: number): Promise<number> {
  const result = await autocannon({
    url: options.url,
    method: options.method ?? "GET",
    headers: options.headers ?? {},
    ...(options.body ? { body: options.body } : {}),
    connections: options.connections ?? 50,
    duration: seconds,
  });
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${options.url}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return result.requests.average;
}

/**
 * Alternates reference and subject rounds (after a warm-up of each). The ratio is the median of
 * each round's subject over the reference measured just before it: the machine's speed drifts
 * between rounds (other tenants of the host, frequency scaling), and a ratio of adjacent rounds
 * cancels most of that drift where a ratio of two medians does not.
 */
export async function compareRates(
  reference: LoadOptions,
  subject: LoadOptions,
  rounds: number,
  seconds: number,
): Promise<{ reference: number; value: number; ratio: number }> {
  await requestsPerSecond(reference, 2);
  await requestsPerSecond(subject, 2);
  const references: number[] = [];
  const values: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const referenceRate = await requestsPerSecond(reference, seconds);
    const rate = await requestsPerSecond(subject, seconds);
    references.push(referenceRate);
    values.push(rate);
    ratios.push(rate / referenceRate);
  }
  return { reference: median(references), value: median(values), ratio: median(ratios) };
}
