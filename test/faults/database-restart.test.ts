import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { before, describe, it } from "node:test";
import { promisify } from "node:util";
import { appChannelBootstrap, idempotencyKeys, waitUntilAllSent } from "../support/app-channel.ts";
import { distributedSetup, PlatformProcess, requireRealServices } from "../support/platform-processes.ts";
import { RecordingServer } from "../support/recording-server.ts";

const run = promisify(execFile);
const SECRET = "restart-app-secret-0123456789abcdefghijkl";
const LANES = 4;

/** Restarts the local Postgres cluster the way an operator (or a package upgrade) does. */
async function restartPostgres(): Promise<number> {
  const [version] = await readdir("/etc/postgresql");
  const started = performance.now();
  await run("pg_ctlcluster", ["--skip-systemctl-redirect", version!, "main", "restart"]);
  return performance.now() - started;
}

type Kind = "token" | "send" | "status";

describe("Postgres restarted under load", () => {
  before(requireRealServices);

  it("requests in flight fail with 503 and the envelope, then succeed again without restarting the platform", async () => {
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }));
    const setup = await distributedSetup(
      appChannelBootstrap({ id: "pg-app", secret: SECRET, name: "Restart" }, app.url),
      {
        NOTIFY_SWEEP_INTERVAL_MS: "500",
        NOTIFY_PENDING_AGE_SECONDS: "2",
        NOTIFY_RETRY_DELAYS_MS: "500,1000,2000,4000",
      },
    );
    const gateway = await PlatformProcess.gateway(setup.env);
    const worker = await PlatformProcess.worker(setup.env, ["notify.app"]);
    const basic = `Basic ${Buffer.from(`pg-app:${SECRET}`).toString("base64")}`;
    try {
      const accepted = new Set<string>();
      const unexpected: string[] = [];
      const answers: { kind: Kind; status: number; at: number }[] = [];
      let sending = true;
      let token = "";

      const issue = async (): Promise<boolean> => {
        const response = await fetch(`${gateway.url}/oauth2/token`, {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded", authorization: basic },
          body: new URLSearchParams({
            grant_type: "client_credentials",
            scope: "send_app_notification notifications",
          }),
        });
        const body = (await response.json()) as { access_token?: string; error?: string };
        answers.push({ kind: "token", status: response.status, at: performance.now() });
        if (response.status === 200 && body.access_token) {
          token = body.access_token;
          return true;
        }
        if (!(response.status === 503 && body.error === "temporarily_unavailable"))
          unexpected.push(`token: ${response.status} ${JSON.stringify(body)}`);
        return false;
      };

      /** One request of the open API; a 503 must carry the envelope. */
      const call = async (kind: Kind, url: string, init?: RequestInit): Promise<boolean> => {
        const response = await fetch(url, init);
        const body = (await response.json()) as { errno: number; error: string; total: number };
        answers.push({ kind, status: response.status, at: performance.now() });
        if (response.status === 200 && body.errno === 0) return true;
        const wellFormed =
          response.status === 503 &&
          body.errno === 10503 &&
          typeof body.error === "string" &&
          body.total === 0;
        if (!wellFormed) unexpected.push(`${kind}: ${response.status} ${JSON.stringify(body)}`);
        return false;
      };

      const lane = async (lane: number) => {
        for (let n = 0; sending; n++) {
          if (n % 10 === 0) await issue();
          const id = randomUUID();
          // A send is retried with its id until taken, as a client should: never twice, never lost.
          for (let attempt = 0; sending || attempt === 0; attempt++) {
            const taken = await call("send", `${gateway.url}/v1/notification?access_token=${token}`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({
                id,
                channels: ["app"],
                accounts: [`lane${lane}-${n}`],
                name: "Restart",
              }),
            });
            if (taken) {
              accepted.add(id);
              break;
            }
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await call("status", `${gateway.url}/notification/status?id=${id}&access_token=${token}`);
        }
      };

      assert.ok(await issue(), `a token before the restart: ${unexpected.join()}`);
      const lanes = Array.from({ length: LANES }, (_, i) => lane(i));
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const restartStarted = performance.now();
      const restartMs = await restartPostgres();
      const restarted = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 4000));
      sending = false;
      await Promise.all(lanes);

      assert.deepEqual(unexpected, [], "every failure is a 503 with its surface's envelope");
      const during = answers.filter((answer) => answer.at >= restartStarted && answer.status === 503);
      const recovered = answers.filter((answer) => answer.at > restarted + 2000 && answer.status === 200);
      for (const kind of ["token", "send", "status"] as const) {
        assert.ok(
          recovered.some((answer) => answer.kind === kind),
          `${kind} requests succeed again after the restart, in the same processes`,
        );
      }
      assert.ok(gateway.running && worker.running, "no process restarted or died");

      await waitUntilAllSent(setup.sql, 60_000, "every accepted notification delivered");
      const tasks = await setup.sql<{ id: string; notificationId: string }[]>`
        select id, notification_id as "notificationId" from delivery_tasks`;
      const notified = new Set(tasks.map((task) => task.notificationId));
      for (const id of accepted) assert.ok(notified.has(id), `accepted notification ${id} has its task`);
      const keys = idempotencyKeys(app);
      assert.deepEqual(
        [...new Set(keys)].sort(),
        tasks.map((task) => task.id).sort(),
        "every task reached the app",
      );
      assert.equal(keys.length, tasks.length, "and, their outcomes recorded despite the restart, none twice");
      console.log(
        `postgres restart (${Math.round(restartMs)} ms): ${answers.length} answers, ${during.length} of them 503, ${accepted.size} notifications delivered`,
      );
    } finally {
      await gateway.stop();
      await worker.stop();
      await setup.cleanup();
      await app.close();
    }
  });
});
