import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";
import { compareRates, startServer } from "../load.ts";

const PORT = 18_931;

export const gatewayBench: BenchCase = {
  name: "gateway",
  description: "a trivial route through the full middleware stack against a bare Hono route",
  async run() {
    const dataDir = await mkdtemp(join(tmpdir(), "op-bench-"));
    const bare = await startServer(new URL("../servers/bare-hono.ts", import.meta.url), PORT, {});
    const platform = await startServer(new URL("../servers/platform.ts", import.meta.url), PORT + 1, {
      DATA_DIR: dataDir,
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      DATABASE_URL: "",
      AMQP_URL: "",
    });
    try {
      const { reference, value, ratio } = await compareRates(
        { url: `http://127.0.0.1:${bare.port}/healthz` },
        { url: `http://127.0.0.1:${platform.port}/healthz` },
        9,
        3,
      );
      return [higherIsBetter("gateway.trivial-route", "req/s", value, reference, 0.7, { ratio })];
    } finally {
      await bare.stop();
      await platform.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};
