import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { UNWRITTEN_PER_SEND } from "../../workers/notify/gated-sender.ts";
import {
  appChannelBootstrap,
  idempotencyKeys,
  repeatedKeys,
  waitUntilAllSent,
} from "../support/app-channel.ts";
import { makePdf, sealPng } from "../support/pdf-fixtures.ts";
import { tempDir, withBootstrap } from "../support/platform.ts";
import {
  type DistributedSetup,
  distributedSetup,
  PlatformProcess,
  requireRealServices,
} from "../support/platform-processes.ts";
import { RecordingServer } from "../support/recording-server.ts";
import { issueToken } from "../support/tokens.ts";
import { waitFor } from "../support/wait.ts";

const SECRET = "fault-app-secret-0123456789abcdefghijklmn";
const ADMIN_TOKEN = "fault-admin-token-0123456789abcdefghijklmnop";
const FEED_AUTH = "Bearer fault-feed-secret";

/** Starts the processes, runs the scenario, and always stops what is left and drops the data. */
async function withProcesses(
  setup: DistributedSetup,
  start: () => Promise<PlatformProcess[]>,
  scenario: (processes: PlatformProcess[]) => Promise<void>,
): Promise<void> {
  let processes: PlatformProcess[] = [];
  try {
    processes = await start();
    await scenario(processes);
  } finally {
    await Promise.all(processes.map((process) => process.stop()));
    await setup.cleanup();
  }
}

describe("a worker killed (SIGKILL) in the middle of its work", () => {
  before(requireRealServices);

  it("notifications: the survivor delivers the rest; only the victim's sends in flight reach the app twice, nothing pending", async () => {
    const RECIPIENTS = 40;
    const SENDS = 5;
    // The channel's sends at once per worker, which bounds what a killed worker sent without recording it.
    const IN_FLIGHT = 2;
    const WINDOW = UNWRITTEN_PER_SEND * IN_FLIGHT;
    // The campus app takes a while per message, so the kill lands while messages are in hand.
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }), 10);
    try {
      const setup = await distributedSetup(
        appChannelBootstrap({ id: "crash-app", secret: SECRET, name: "Crash" }, app.url, {
          maxInFlight: IN_FLIGHT,
        }),
        {
          NOTIFY_SEND_TIMEOUT_MS: "2000",
          NOTIFY_RETRY_DELAYS_MS: "1000,2000,4000",
          NOTIFY_SWEEP_INTERVAL_MS: "500",
          NOTIFY_PENDING_AGE_SECONDS: "2",
        },
      );
      await withProcesses(
        setup,
        async () => [
          await PlatformProcess.gateway(setup.env),
          await PlatformProcess.worker(setup.env, ["notify.app"]),
          await PlatformProcess.worker(setup.env, ["notify.app"]),
        ],
        async ([gateway, victim, survivor]) => {
          const token = await issueToken(
            gateway!.url,
            { id: "crash-app", secret: SECRET },
            { grant_type: "client_credentials", scope: "send_app_notification" },
          );
          for (let send = 0; send < SENDS; send++) {
            const accounts = Array.from({ length: RECIPIENTS }, (_, i) => `user-${send}-${i}`);
            const response = await fetch(`${gateway!.url}/v1/notification?access_token=${token}`, {
              method: "PUT",
              headers: { "content-type": "application/json" },
              body: JSON.stringify({ channels: ["app"], accounts, name: `Batch ${send}` }),
            });
            assert.equal(response.status, 200);
          }
          // Far into the victim's first job: more of its messages out than it may have in flight.
          await waitFor(() => app.requests.length >= 40, 30_000, "deliveries under way");
          await victim!.kill();

          await waitUntilAllSent(setup.sql, 60_000, "every task sent");
          const keys = new Set(idempotencyKeys(app));
          const tasks = await setup.sql<
            { id: string; account: string }[]
          >`select id, account from delivery_tasks`;
          assert.equal(tasks.length, RECIPIENTS * SENDS);
          for (const task of tasks) assert.ok(keys.has(task.id), `task for ${task.account} reached the app`);
          assert.equal(keys.size, RECIPIENTS * SENDS, "every recipient reached, counted by idempotency key");
          const repeated = repeatedKeys(app);
          assert.ok(
            repeated.length <= WINDOW,
            `${repeated.length} messages reached the app twice; the victim had at most ${WINDOW} out unrecorded`,
          );
          const survived = await survivor!.metrics();
          assert.ok(
            (survived.get('jobs_redelivered_total{queue="notify.app"}') ?? 0) >= 1,
            "the survivor took over jobs the victim held",
          );
        },
      );
    } finally {
      await app.close();
    }
  });

  it("seal jobs: every caller still gets its sealed PDF, one file record each, no result left behind", async () => {
    const REQUESTS = 16;
    const setup = await distributedSetup(
      {
        tenants: [{ domain: "example.edu", name: "Example University" }],
        applications: [
          {
            id: "seal-app",
            secret: SECRET,
            name: "Contracts",
            type: "enterprise",
            tenant: "example.edu",
            scopes: ["signature"],
          },
        ],
        seals: [
          {
            code: "UNIV-SEAL",
            tenant: "example.edu",
            name: "Seal",
            image: "seal.png",
            width: 100,
            height: 100,
          },
        ],
      },
      { SIGN_TIMEOUT_MS: "60000" },
    );
    await writeFile(join(setup.env.DATA_DIR!, "seal.png"), sealPng());
    // Long enough that each seal takes a while, so the kill finds jobs in the victim's hands.
    const pdf = await makePdf(Array.from({ length: 300 }, () => ({})));
    await withProcesses(
      setup,
      async () => [
        await PlatformProcess.gateway(setup.env),
        await PlatformProcess.worker(setup.env, ["sign"]),
        await PlatformProcess.worker(setup.env, ["sign"]),
      ],
      async ([gateway, victim, survivor]) => {
        const token = await issueToken(
          gateway!.url,
          { id: "seal-app", secret: SECRET },
          { grant_type: "client_credentials", scope: "signature" },
        );
        const answers = Array.from({ length: REQUESTS }, async () => {
          const form = new FormData();
          form.set("locations", JSON.stringify([{ pageNo: 1, left: 10, bottom: 10 }]));
          form.set(
            "qrCodeLocations",
            JSON.stringify([{ pageNo: 2, right: 20, bottom: 20, width: 80, height: 80 }]),
          );
          form.set("file", new Blob([pdf], { type: "application/pdf" }), "contract.pdf");
          const response = await fetch(`${gateway!.url}/v1/signature/UNIV-SEAL?access_token=${token}`, {
            method: "POST",
            body: form,
          });
          const bytes = Buffer.from(await response.arrayBuffer());
          return { status: response.status, seals: response.headers.get("x-seals"), bytes };
        });
        await waitFor(
          async () => ((await victim!.metrics()).get('jobs_in_progress{queue="sign"}') ?? 0) >= 1,
          30_000,
          "the victim sealing",
        );
        await victim!.kill();

        const results = await Promise.all(answers);
        for (const result of results) {
          assert.equal(result.status, 200, result.bytes.toString().slice(0, 200));
          assert.equal(result.seals, "1");
          assert.equal(result.bytes.subarray(0, 5).toString(), "%PDF-");
        }
        const files = await setup.sql<{ count: number }[]>`select count(*)::int as count from files`;
        assert.equal(files[0]!.count, REQUESTS, "one file record per sealed document, none doubled");
        const survived = await survivor!.metrics();
        assert.ok(
          (survived.get('jobs_redelivered_total{queue="sign"}') ?? 0) >= 1,
          "the survivor took over seal jobs the victim held",
        );
      },
    );
  });

  it("a feed sync: the run the victim held is taken over and applied once, nothing left running", async () => {
    const USERS = 2000;
    let occupiesAsked = 0;
    const requests: string[] = [];
    const rows: Record<string, unknown[]> = {
      users: Array.from({ length: USERS }, (_, i) => ({
        account: `u${i}`,
        name: `User ${i}`,
        timestamp: null,
      })),
      depts: [
        { organizeId: "CS", organizeName: "Computer Science", parentOrganizeId: null, timestamp: null },
      ],
      posts: [{ postCode: "PROF", postName: "Professor", timestamp: null }],
      occupies: Array.from({ length: USERS }, (_, i) => ({
        account: `u${i}`,
        deptCode: "CS",
        postCode: "PROF",
        timestamp: null,
      })),
    };
    // The first run's last address hangs, so the victim dies holding a run with users already staged.
    const provider = createServer((request, response) => {
      const entity = new URL(request.url!, "http://feed").pathname.slice(1);
      requests.push(entity);
      if (request.headers.authorization !== FEED_AUTH || !rows[entity])
        return void response.writeHead(404).end();
      if (entity === "occupies" && ++occupiesAsked === 1) return;
      const body = JSON.stringify({
        errno: 0,
        error: "",
        total: rows[entity]!.length,
        entities: rows[entity],
      });
      response.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => provider.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/`;
    const setup = await distributedSetup(
      {
        tenants: [{ domain: "a.edu", name: "University A" }],
        feeds: [
          {
            tenant: "a.edu",
            url,
            addresses: "{entity}",
            authorizationEnv: "FAULT_FEED_AUTHORIZATION",
            intervalSeconds: 0,
            timeoutSeconds: 120,
          },
        ],
      },
      { ADMIN_TOKEN, FAULT_FEED_AUTHORIZATION: FEED_AUTH, FEED_RUN_STALE_SECONDS: "3" },
    );
    await withProcesses(
      setup,
      async () => [
        await PlatformProcess.gateway(setup.env),
        await PlatformProcess.worker(setup.env, ["feed.sync"]),
      ],
      async ([gateway, victim]) => {
        const trigger = await fetch(`${gateway!.url}/admin/feeds/a.edu/runs`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(trigger.status, 202);
        await waitFor(() => occupiesAsked === 1, 30_000, "the victim's run reading its last address");
        await victim!.kill();
        const survivor = await PlatformProcess.worker(setup.env, ["feed.sync"]);
        try {
          await waitFor(
            async () => {
              const [row] = await setup.sql<{ done: number }[]>`
                select count(*)::int as done from feed_runs where status = 'succeeded'`;
              return row!.done === 1;
            },
            60_000,
            "the taken-over run to succeed",
          );
          const runs = await setup.sql<
            { status: string }[]
          >`select status from feed_runs order by started_at`;
          assert.deepEqual(
            runs.map((run) => run.status),
            ["abandoned", "succeeded"],
          );
          const [users] = await setup.sql<{ count: number; distinct: number }[]>`
            select count(*)::int as count, count(distinct account)::int as distinct from users`;
          assert.equal(users!.count, USERS);
          assert.equal(users!.distinct, USERS);
          const [held] = await setup.sql<{ count: number }[]>`select count(*)::int as count from occupancies`;
          assert.equal(held!.count, USERS, "each occupancy applied once");
          assert.equal(
            requests.filter((entity) => entity === "users").length,
            2,
            "the survivor pulled again",
          );
          assert.ok(((await survivor.metrics()).get('jobs_redelivered_total{queue="feed.sync"}') ?? 0) >= 1);
        } finally {
          await survivor.stop();
        }
      },
    );
    provider.closeAllConnections();
    await new Promise((resolve) => provider.close(resolve));
  });
});

describe("the platform killed (SIGKILL) in the embedded mode, its workers with it", () => {
  it("notifications: started again on its data directory, it delivers the rest; only the sends in flight at the kill reach the app twice", async () => {
    // One job per send, so the kill lands in the middle of one.
    const RECIPIENTS = 100;
    const SENDS = 2;
    const IN_FLIGHT = 2;
    const WINDOW = UNWRITTEN_PER_SEND * IN_FLIGHT;
    const application = { id: "embedded-app", secret: SECRET, name: "Embedded" };
    const app = await RecordingServer.start(() => ({ status: 200, body: { id: "push" } }), 10);
    const dir = await tempDir("op-fault-");
    let platform: PlatformProcess | undefined;
    try {
      const env = await withBootstrap(
        {
          DATA_DIR: dir.path,
          LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent",
          NOTIFY_SEND_TIMEOUT_MS: "2000",
          NOTIFY_RETRY_DELAYS_MS: "1000,2000,4000",
          NOTIFY_SWEEP_INTERVAL_MS: "500",
          // The embedded broker's jobs die with the process: the tasks left pending are published again.
          NOTIFY_PENDING_AGE_SECONDS: "2",
        },
        appChannelBootstrap(application, app.url, { maxInFlight: IN_FLIGHT }),
      );
      platform = await PlatformProcess.allInOne(env);
      const scope = { grant_type: "client_credentials", scope: "send_app_notification notifications" };
      let token = await issueToken(platform.url, application, scope);
      const ids: string[] = [];
      for (let send = 0; send < SENDS; send++) {
        const accounts = Array.from({ length: RECIPIENTS }, (_, i) => `user-${send}-${i}`);
        const response = await fetch(`${platform.url}/v1/notification?access_token=${token}`, {
          method: "PUT",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ channels: ["app"], accounts, name: `Batch ${send}` }),
        });
        assert.equal(response.status, 200);
        ids.push(((await response.json()) as { entities: { id: string }[] }).entities[0]!.id);
      }
      await waitFor(() => app.requests.length >= 50, 30_000, "half the first job out");
      await platform.kill();
      const beforeRestart = app.requests.length;
      assert.ok(beforeRestart < RECIPIENTS * SENDS, "the kill came before every message was out");

      platform = await PlatformProcess.allInOne(env);
      token = await issueToken(platform.url, application, scope);
      let tasks: { taskId: string; sendingStatus: string }[] = [];
      await waitFor(
        async () => {
          const answer = await fetch(
            `${platform!.url}/notification/status?id=${ids.join(",")}&access_token=${token}`,
          );
          const body = (await answer.json()) as { entities: { tasks: typeof tasks }[] };
          tasks = body.entities.flatMap((entity) => entity.tasks);
          return tasks.length > 0 && tasks.every((task) => task.sendingStatus === "sent");
        },
        60_000,
        "every task sent after the restart",
      );
      assert.equal(tasks.length, RECIPIENTS * SENDS);
      const keys = new Set(idempotencyKeys(app));
      for (const task of tasks) assert.ok(keys.has(task.taskId), `task ${task.taskId} reached the app`);
      const repeated = repeatedKeys(app);
      assert.ok(
        repeated.length <= WINDOW,
        `${repeated.length} messages reached the app twice; the platform had at most ${WINDOW} out unrecorded`,
      );
    } finally {
      await platform?.stop();
      await app.close();
      await dir.remove();
    }
  });
});
