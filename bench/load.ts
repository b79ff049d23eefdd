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

/** Alternates reference and subject rounds (after a warm-up of each) and returns both medians. */
export async function compareRates(
  reference: LoadOptions,
  subject: LoadOptions,
  rounds: number,
  seconds: number,
): Promise<{ reference: number; value: number }> {
  await requestsPerSecond(reference, 2);
  await requestsPerSecond(subject, 2);
  const references: number[] = [];
  const values: number[] = [];
  for (let round = 0; round < rounds; round++) {
    references.push(await requestsPerSecond(reference, seconds));
    values.push(await requestsPerSecond(subject, seconds));
  }
  return { reference: median(references), value: median(values) };
}
