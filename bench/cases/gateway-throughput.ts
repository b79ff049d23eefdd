import { fork } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";

const PORT = 18_931;
const DURATION_S = 5;
/** Alternating rounds of reference and platform; the median of each is compared. */
const ROUNDS = 3;
const CONNECTIONS = 50;

interface Server {
  url: string;
  stop(): Promise<void>;
}

/** Starts a server script in its own process, its log lines discarded, and waits until it listens. */
async function startServer(script: string, port: number, env: Record<string, string>): Promise<Server> {
  const child = fork(new URL(script, import.meta.url), {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  await once(child, "message");
  return {
    url: `http://127.0.0.1:${port}/healthz`,
    async stop() {
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

async function requestsPerSecond(url: string, seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return result.requests.average;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export const gatewayBench: BenchCase = {
  name: "gateway",
  description: "a trivial route through the full middleware stack against a bare Hono route",
  async run() {
    const dataDir = await mkdtemp(join(tmpdir(), "op-bench-"));
    const bare = await startServer("../servers/bare-hono.ts", PORT, {});
    const platform = await startServer("../servers/gateway.ts", PORT + 1, {
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      DATABASE_URL: "",
      AMQP_URL: "",
    });
    try {
      await requestsPerSecond(bare.url, 2); // warm-up
      await requestsPerSecond(platform.url, 2);
      const reference: number[] = [];
      const value: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        reference.push(await requestsPerSecond(bare.url, DURATION_S));
        value.push(await requestsPerSecond(platform.url, DURATION_S));
      }
      return [higherIsBetter("gateway.trivial-route", "req/s", median(value), median(reference), 0.7)];
    } finally {
      await bare.stop();
      await platform.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
