import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import postgres from "postgres";
import { freshDatabase, tempDir } from "../../test/support/platform.ts";
import { RecordingServer } from "../../test/support/recording-server.ts";
import { atLeast, type BenchCase, type BenchResult, lowerIsBetter } from "../bench-result.ts";
import { startServer } from "../load.ts";
import { rawAmqplib } from "./broker-throughput.ts";

const DATABASE_URL = process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres";
const AMQP_URL = process.env.AMQP_URL || "amqp://guest:guest@127.0.0.1:5672";
const PORT = 18_961;
const SENDS = 100;
const RECIPIENTS = 100;
const PARALLEL_SENDS = 10;
const SECRET = "bench-notify-secret-0123456789abcdefghijk";

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const notificationBench: BenchCase = {
  name: "notifications",
  description: `${SENDS} sends × ${RECIPIENTS} recipients through RabbitMQ and Postgres to a local campus-app stand-in`,
  async run(): Promise<BenchResult[]> {
    const dir = await tempDir("op-bench-");
    const db = await freshDatabase(DATABASE_URL);
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }));
    const bootstrap = join(dir.path, "bootstrap.json");
    await writeFile(
      bootstrap,
      JSON.stringify({
        applications: [{ id: "bench-app", secret: SECRET, name: "Bench", scopes: ["send_app_notification"] }],
        channels: [
          {
            name: "app",
            plugin: "app",
            config: { baseUrl: app.url, token: "t" },
            permittedApplications: ["bench-app"],
          },
        ],
      }),
    );
    const platform = await startServer(new URL("../servers/gateway.ts", import.meta.url), PORT, {
      DATA_DIR: dir.path,
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      DATABASE_URL: db.url,
      AMQP_URL,
      BOOTSTRAP_FILE: bootstrap,
    });
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      const url = `http://127.0.0.1:${PORT}`;
      const tokenResponse = await fetch(`${url}/oauth2/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`bench-app:${SECRET}`).toString("base64")}`,
        },
        body: "grant_type=client_credentials&scope=send_app_notification",
      });
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
      const latencies: number[] = [];
      const started = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: PARALLEL_SENDS }, async () => {
          while (next < SENDS) {
            const send = next++;
            const accounts = Array.from({ length: RECIPIENTS }, (_, i) => `user-${send}-${i}`);
            const before = performance.now();
            const response = await fetch(`${url}/v1/notification?access_token=${token}`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ channels: ["app"], accounts, name: `Notice ${send}`, content: "Bench" }),
            });
            await response.arrayBuffer();
            if (response.status !== 200) throw new Error(`send answered ${response.status}`);
            latencies.push(performance.now() - before);
          }
        }),
      );
      const total = SENDS * RECIPIENTS;
      for (;;) {
        const [row] = await sql<
          { sent: number }[]
        >`select count(*)::int as sent from delivery_tasks where sending_status = 'sent'`;
        if (row!.sent >= total) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const seconds = (performance.now() - started) / 1000;
      const rate = total / seconds;
      const reference = await rawAmqplib();
      const p99 = percentile(latencies, 99);
      return [
        // Ratio: against raw amqplib publish + consume of as many messages, measured just after.
        atLeast("notifications.deliveries", "deliveries/s", rate, reference, 2000),
        // Reference: the median send in the same run; the target is the p99 itself.
        lowerIsBetter("notifications.send-p99", "ms", p99, percentile(latencies, 50), 50),
      ];
    } finally {
      await sql.end();
      await platform.stop();
      await app.close();
      await db.drop();
      await dir.remove();
    }
  },
};
