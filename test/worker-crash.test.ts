import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { describe, it } from "node:test";
import { startGateway } from "../bin/processes.ts";
import { loadConfig } from "../runtime/config.ts";
import { freePort, testModes, withBootstrap } from "./support/platform.ts";
import { RecordingServer } from "./support/recording-server.ts";
import { waitFor } from "./support/wait.ts";

const ROOT = new URL("..", import.meta.url).pathname;
const SECRET = "crash-app-secret-0123456789abcdefghijklmn";
const RECIPIENTS = 40;
const SENDS = 5;

const distributed = (await testModes()).find((mode) => mode.name === "distributed");

describe("a worker killed in the middle of deliveries", {
  skip: distributed ? false : "needs Postgres and RabbitMQ",
}, () => {
  it("loses nothing: every recipient gets exactly one message by its idempotency key, nothing stays pending", async () => {
    const prepared = await distributed!.prepare();
    // The campus app takes a while per message, so the kill lands while messages are in hand.
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }), 40);
    const env = {
      ...(await withBootstrap(prepared.env, {
        applications: [
          {
            id: "crash-app",
            secret: SECRET,
            name: "Crash",
            scopes: ["send_app_notification", "notifications"],
          },
        ],
        channels: [
          {
            name: "app",
            plugin: "app",
            config: { baseUrl: app.url, token: "t" },
            permittedApplications: ["crash-app"],
          },
        ],
      })),
      LOG_LEVEL: "silent",
      NOTIFY_SEND_TIMEOUT_MS: "2000",
      NOTIFY_RETRY_DELAYS_MS: "1000,2000,4000",
      NOTIFY_SWEEP_INTERVAL_MS: "500",
    };
    const port = await freePort();
    const gateway = await startGateway(loadConfig({ ...env, PORT: String(port), HOST: "127.0.0.1" }));
    const workers: ChildProcess[] = [0, 1].map(() =>
      spawn(process.execPath, ["--import", "tsx", "bin/worker.ts", "notify.app"], {
        cwd: ROOT,
        env: { PATH: process.env.PATH, ...env },
        stdio: ["ignore", "ignore", "inherit"],
      }),
    );
    try {
      const url = `http://127.0.0.1:${port}`;
      const tokenResponse = await fetch(`${url}/oauth2/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`crash-app:${SECRET}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "client_credentials", scope: "send_app_notification" }),
      });
      const { access_token: token } = (await tokenResponse.json()) as { access_token: string };
      for (let send = 0; send < SENDS; send++) {
        const accounts = Array.from({ length: RECIPIENTS }, (_, i) => `user-${send}-${i}`);
        const response = await fetch(`${url}/v1/notification?access_token=${token}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ channels: ["app"], accounts, name: `Batch ${send}` }),
        });
        assert.equal(response.status, 200);
      }
      await waitFor(() => app.requests.length >= 20, 30_000, "deliveries under way");
      workers[0]!.kill("SIGKILL");

      const sql = gateway.platform.db.sql;
      await waitFor(
        async () => {
          const [row] = await sql<{ open: number }[]>`
            select count(*)::int as open from delivery_tasks where sending_status <> 'sent'`;
          return row!.open === 0;
        },
        60_000,
        "every task sent",
      );
      const keys = new Set(app.requests.map((request) => String(request.headers["idempotency-key"])));
      const tasks = await sql<{ id: string; account: string }[]>`select id, account from delivery_tasks`;
      assert.equal(tasks.length, RECIPIENTS * SENDS);
      for (const task of tasks) assert.ok(keys.has(task.id), `task for ${task.account} reached the app`);
      assert.equal(keys.size, RECIPIENTS * SENDS, "one message per recipient, counted by idempotency key");
    } finally {
      for (const worker of workers) {
        if (worker.exitCode === null && worker.signalCode === null) {
          worker.kill("SIGTERM");
          await once(worker, "exit");
        }
      }
      await gateway.stop();
      await app.close();
      await prepared.cleanup();
    }
  });
});
