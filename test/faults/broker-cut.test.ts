import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { before, describe, it } from "node:test";
import sharp from "sharp";
import { appChannelBootstrap, idempotencyKeys, waitUntilAllSent } from "../support/app-channel.ts";
import { distributedSetup, PlatformProcess, requireRealServices } from "../support/platform-processes.ts";
import { closeVhostConnections, TcpProxy } from "../support/rabbit.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "cut-app-secret-0123456789abcdefghijklmnop";
const SENDERS = 4;
const SECONDS = 9;
const CUTS = 2;

describe("the broker closes every connection while the gateway publishes and workers consume", () => {
  before(requireRealServices);

  it("each send is answered 200 or 503 with the envelope; everything accepted is delivered once; consumers resume", async () => {
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }), 5);
    const setup = await distributedSetup(
      appChannelBootstrap({ id: "cut-app", secret: SECRET, name: "Cut" }, app.url),
      {
        NOTIFY_SWEEP_INTERVAL_MS: "500",
        NOTIFY_PENDING_AGE_SECONDS: "2",
        NOTIFY_RETRY_DELAYS_MS: "500,1000,2000",
      },
    );
    const vhost = decodeURIComponent(new URL(setup.env.AMQP_URL!).pathname.slice(1));
    const gateway = await PlatformProcess.gateway(setup.env);
    const worker = await PlatformProcess.worker(setup.env, ["notify.app"]);
    try {
      const token = await issueToken(
        gateway.url,
        { id: "cut-app", secret: SECRET },
        { grant_type: "client_credentials", scope: "send_app_notification" },
      );
      const accepted = new Set<string>();
      const statuses = new Map<number, number>();
      const unexpected: string[] = [];
      let sending = true;

      /** Sends notifications one after another; a 503 is retried with the same id, as a client should. */
      const sender = async (lane: number) => {
        for (let n = 0; sending; n++) {
          const id = randomUUID();
          for (let attempt = 0; ; attempt++) {
            const response = await fetch(`${gateway.url}/v1/notification?access_token=${token}`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ id, channels: ["app"], accounts: [`lane${lane}-${n}`], name: "Cut" }),
            });
            const body = (await response.json()) as { errno: number; error: string; total: number };
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
            if (response.status === 200 && body.errno === 0) {
              accepted.add(id);
              break;
            }
            const wellFormed =
              response.status === 503 &&
              body.errno === 10503 &&
              typeof body.error === "string" &&
              body.total === 0;
            if (!wellFormed) unexpected.push(`${response.status} ${JSON.stringify(body)}`);
            if (attempt > 200) throw new Error("the gateway never took the notification again");
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
        }
      };
      const senders = Array.from({ length: SENDERS }, (_, lane) => sender(lane));

      const pause = (seconds: number) => new Promise((resolve) => setTimeout(resolve, seconds * 1000));
      const cuts: number[] = [];
      for (let cut = 0; cut < CUTS; cut++) {
        await pause(SECONDS / (CUTS + 1));
        cuts.push(await closeVhostConnections(vhost));
      }
      await pause(SECONDS / (CUTS + 1));
      sending = false;
      await Promise.all(senders);

      assert.deepEqual(unexpected, [], "every failure is a 503 with the envelope");
      for (const closed of cuts)
        assert.ok(closed >= 2, `the gateway's and the worker's connections closed (${closed})`);
      assert.ok(accepted.size > 50, `notifications accepted during the run: ${accepted.size}`);

      await waitUntilAllSent(setup.sql, 60_000, "every accepted notification delivered");
      const tasks = await setup.sql<{ id: string; notificationId: string }[]>`
        select id, notification_id as "notificationId" from delivery_tasks`;
      const notified = new Set(tasks.map((task) => task.notificationId));
      for (const id of accepted) assert.ok(notified.has(id), `accepted notification ${id} has its task`);
      const keys = idempotencyKeys(app);
      assert.equal(new Set(keys).size, tasks.length, "every task reached the app");
      assert.equal(keys.length, tasks.length, "and none of them twice");

      // The worker consumes again without a restart: a notification sent now is delivered.
      const after = await fetch(`${gateway.url}/v1/notification?access_token=${token}`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ channels: ["app"], accounts: ["after-the-cuts"], name: "After" }),
      });
      assert.equal(after.status, 200);
      await waitFor(
        () => app.requests.some((request) => request.body.includes("after-the-cuts")),
        10_000,
        "a delivery after the cuts",
      );
      console.log(
        `broker cut: ${accepted.size} notifications accepted, answers ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    } finally {
      await gateway.stop();
      await worker.stop();
      await setup.cleanup();
      await app.close();
    }
  });

  it("an upload whose thumbnail job cannot be published answers 503 and keeps no file", async () => {
    const setup = await distributedSetup({
      applications: [{ id: "cut-app", secret: SECRET, name: "Cut", scopes: ["notifications"] }],
    });
    const amqp = new URL(setup.env.AMQP_URL!);
    const proxy = await TcpProxy.start(amqp);
    const relayed = new URL(amqp);
    relayed.port = String(proxy.port);
    const gateway = await PlatformProcess.gateway({ ...setup.env, AMQP_URL: relayed.toString() });
    try {
      const token = await issueToken(
        gateway.url,
        { id: "cut-app", secret: SECRET },
        { grant_type: "client_credentials", scope: "notifications" },
      );
      const photo = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#336699" } })
        .png()
        .toBuffer();
      const upload = async () => {
        const form = new FormData();
        form.set("thumbsizes", "32x32");
        form.set("file", new Blob([photo]), "photo.png");
        const response = await fetch(`${gateway.url}/file?access_token=${token}`, {
          method: "PUT",
          body: form,
        });
        return { status: response.status, body: (await response.json()) as { errno: number; error: string } };
      };
      const files = async () =>
        (await setup.sql<{ n: number }[]>`select count(*)::int as n from files`)[0]!.n;

      proxy.cut();
      await waitFor(async () => (await fetch(`${gateway.url}/readyz`)).status === 503, 10_000, "broker gone");
      const refused = await upload();
      assert.equal(refused.status, 503, JSON.stringify(refused.body));
      assert.equal(await files(), 0, "no file the caller was told failed");

      proxy.restore();
      await waitFor(async () => (await fetch(`${gateway.url}/readyz`)).status === 200, 30_000, "broker back");
      assert.equal((await upload()).status, 200);
      assert.equal(await files(), 1);
    } finally {
      await gateway.stop();
      await proxy.close();
      await setup.cleanup();
    }
  });
});
