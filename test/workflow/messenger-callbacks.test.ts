import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { stat } from "node:fs/promises";
import { join } from "node:path";
import {
  MESSENGER_EVENT_TYPES,
  type MessengerEventType,
  workflowDefinitionSchema,
} from "../../contracts/workflow-definition.ts";
import { upsertTenant } from "../../identity/tenant-store.ts";
import { upsertUser } from "../../identity/user-store.ts";
import type { Database } from "../../runtime/database.ts";
import type { ResolvedAddress } from "../../runtime/outbound-address.ts";
import { CallbackLoop } from "../../workers/notify/callback-loop.ts";
import {
  deployVersion,
  type StartableApp,
  setVersionOnline,
  startableApp,
  upsertWorkflowApp,
} from "../../workflow/app-store.ts";
import {
  deadCallbacks,
  replayAppCallbacks,
  rotateCallbackSecret,
} from "../../workflow/messenger/callback-admin.ts";
import { CallbackPoster } from "../../workflow/messenger/callback-delivery.ts";
import { callbackTypeOf } from "../../workflow/messenger/callback-events.ts";
import {
  CALLBACK_KEY_FILE,
  CallbackKeyMismatch,
  CallbackSecrets,
} from "../../workflow/messenger/callback-secrets.ts";
import {
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  verifyCallback,
} from "../../workflow/messenger/callback-signature.ts";
import { handleTask, startProcess } from "../../workflow/process-commands.ts";
import { CallbackReceiver } from "../support/callback-receiver.ts";
import { TestRelay } from "../support/callback-relay.ts";
import { migratedDatabase, tempDir, testModes } from "../support/platform.ts";
import { after, afterEach, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger, waitFor } from "../support/wait.ts";

/** Three posts after the first: a callback is tried four times, each retry soon after the last. */
const RETRY_DELAYS_MS = [30, 30, 30];

/** Alice asks, Carol approves: started, two tasks made and handled, ended. */
function approvalWith(events: { on: MessengerEventType; url: string }[]) {
  return workflowDefinitionSchema.parse({
    graph: {
      nodes: [
        { kind: "start", code: "ask" },
        { kind: "task", code: "approve", assignees: [{ accounts: ["carol"] }] },
        { kind: "end", code: "done" },
      ],
      edges: [
        { from: "ask", to: "approve" },
        { from: "approve", to: "done" },
      ],
    },
    events,
  });
}

/** Every callback type, to `url`. */
const everything = (url: string) => MESSENGER_EVENT_TYPES.map((on) => ({ on, url }));

describe("messenger callback types", () => {
  it("map the engine's events, and no others", () => {
    const typeOf = (type: string, payload: Record<string, unknown> = {}) => callbackTypeOf({ type, payload });
    assert.equal(typeOf("process.started"), "started");
    assert.equal(typeOf("process.ended", { type: "process.ended", status: "done" }), "ended");
    assert.equal(typeOf("process.ended", { type: "process.ended", status: "killed" }), "killed");
    assert.equal(typeOf("process.suspended"), "suspended");
    assert.equal(typeOf("process.resumed"), "resumed");
    assert.equal(typeOf("todo.created"), "taskCreated");
    assert.equal(typeOf("todo.done"), "taskHandled");
    assert.equal(typeOf("compensate"), "compensate");
    for (const other of ["cc", "todo.withdrawn", "task.reassigned", "subprocess.ended"])
      assert.equal(typeOf(other), undefined, other);
  });
});

for (const mode of await testModes()) {
  describe(`messenger callbacks (${mode.name})`, { skip: mode.skip }, () => {
    let db: Database;
    let close: (() => Promise<void>) | undefined;
    let tenantId: string;
    let relay: TestRelay;
    const users: Record<string, string> = {};
    const secrets = new CallbackSecrets({ secretKey: randomBytes(32), dataDir: "/nonexistent" });
    /** What a test started, closed after it whether it passed or not. */
    let receivers: CallbackReceiver[] = [];
    let loops: CallbackLoop[] = [];

    before(async () => {
      ({ db, close } = await migratedDatabase(mode));
      relay = new TestRelay(db.sql);
      tenantId = (await upsertTenant(db.sql, { domain: "example.edu", name: "Example" })).id;
      for (const account of ["alice", "carol"]) {
        await upsertUser(db.sql, { tenant: "example.edu", account, name: account, mailEnabled: false });
      }
      for (const row of await db.sql<{ id: string; account: string }[]>`select id, account from users`)
        users[row.account] = row.id;
    });

    afterEach(async () => {
      const [ending, stopping] = [receivers, loops];
      [receivers, loops] = [[], []];
      // A loop waits for its posts under way: the receivers go first, cutting those they hold.
      await Promise.all(ending.map((receiver) => receiver.close()));
      await Promise.all(stopping.map((running) => running.close()));
      // What a test left on its way goes nowhere in the next.
      await db.sql`update workflow_callback_deliveries set status = 'dead' where status = 'pending'`;
    });

    after(async () => {
      await close?.();
    });

    const receiver = async (...args: Parameters<typeof CallbackReceiver.start>) => {
      const started = await CallbackReceiver.start(...args);
      receivers.push(started);
      return started;
    };

    /** A worker's callback loop; `allowed` is CALLBACK_ALLOWED_HOSTS. */
    const loop = (
      allowed: string[],
      options: {
        hostConcurrency?: number;
        timeoutMs?: number;
        resolve?: (host: string) => Promise<ResolvedAddress[]>;
      } = {},
    ) => {
      const timeoutMs = options.timeoutMs ?? 5000;
      const poster = new CallbackPoster({ allowedHosts: allowed, timeoutMs, resolve: options.resolve });
      const running = new CallbackLoop(
        { sql: db.sql, log: silentLogger, secrets, poster, retryDelaysMs: RETRY_DELAYS_MS },
        { concurrency: 8, hostConcurrency: options.hostConcurrency ?? 2, pollIntervalMs: 20, timeoutMs },
      );
      loops.push(running);
      running.start();
      return running;
    };

    const deploy = async (code: string, events: { on: MessengerEventType; url: string }[]) => {
      const app = await upsertWorkflowApp(db.sql, tenantId, { code, name: code });
      const { version } = await deployVersion(db.sql, app.id, approvalWith(events));
      await setVersionOnline(db.sql, app.id, version.id, false, true);
      return (await startableApp(db.sql, tenantId, code, false))!;
    };

    /** Runs a process of `app` to its end (or only starts it), and relays its events. */
    const runProcess = async (app: StartableApp, through: "end" | "start" = "end") => {
      const started = await db.sql.begin((tx) =>
        startProcess(tx, {
          tenantId,
          test: false,
          app,
          ownerId: users.alice!,
          actualUserId: null,
          data: {},
          businessId: null,
        }),
      );
      const handle = (account: string, taskId: string) =>
        db.sql.begin((tx) =>
          handleTask(tx, { tenantId, test: false, taskId, actor: { user: users[account]! }, sys: false }),
        );
      if (through === "end") {
        await handle("alice", started.firstTask.id);
        const [approval] = await db.sql<{ id: string }[]>`
          select id from workflow_tasks where process_id = ${started.process.id} and node = 'approve'`;
        await handle("carol", approval!.id);
      }
      await relay.run();
      return started.process.id;
    };

    const activitiesOf = (processId: string) =>
      db.sql<{ tags: string; level: string; description: string }[]>`
        select tags, level, description from workflow_activities
        where process_id = ${processId} and category = 'MESSENGER' order by id`;

    it("posts a process's events to its receiver signed, in order, never two at once, each once", async () => {
      const hooks = await receiver(() => 200, 15);
      const app = await deploy("signed", everything(`${hooks.url}/hooks?token=abc`));
      const secret = await rotateCallbackSecret(db.sql, secrets, "example.edu", "signed");
      const processId = await runProcess(app);
      const [{ count: made } = { count: 0 }] = await db.sql<{ count: number }[]>`
        select count(*)::int from workflow_callback_deliveries where process_id = ${processId}`;
      // The relay offers a batch again when it could not advance its cursor: nothing is made twice.
      const events = await db.sql`select id from workflow_events where process_id = ${processId}`;
      await relay.offerAgainFrom(events.map((row) => String(row.id)));
      const [{ count: again } = { count: 0 }] = await db.sql<{ count: number }[]>`
        select count(*)::int from workflow_callback_deliveries where process_id = ${processId}`;
      assert.equal(again, made);
      assert.equal(made, 6);

      loop([`127.0.0.1:${hooks.port}`], { hostConcurrency: 4 });
      await waitFor(() => hooks.accepted().length === 6, 10_000, "six callbacks");
      const bodies = hooks.received.map((callback) => JSON.parse(callback.body));
      assert.deepEqual(
        bodies.map((body) => body.type),
        ["started", "taskCreated", "taskHandled", "taskCreated", "taskHandled", "ended"],
      );
      const ids = bodies.map((body) => BigInt(body.id));
      assert.deepEqual(
        ids,
        [...ids].sort((a, b) => (a < b ? -1 : 1)),
        "in event order",
      );
      assert.equal(hooks.mostOpenPerProcess, 1, "the next waits for the one before");
      assert.deepEqual(
        { ...bodies[0], id: undefined, occurredAt: undefined },
        {
          id: undefined,
          occurredAt: undefined,
          type: "started",
          tenant: tenantId,
          test: false,
          app: "signed",
          version: 1,
          process: processId,
        },
      );
      assert.equal(bodies[1].task !== undefined && bodies[1].users[0] === users.alice, true);
      for (const callback of hooks.received) {
        const headers = {
          timestamp: callback.headers[TIMESTAMP_HEADER.toLowerCase()] as string,
          signature: callback.headers[SIGNATURE_HEADER.toLowerCase()] as string,
        };
        assert.ok(verifyCallback(secret, headers, callback.body, new Date()), "signed with the secret shown");
        assert.ok(!verifyCallback(`${secret}x`, headers, callback.body, new Date()));
        assert.equal(callback.headers["x-platform-event-id"], JSON.parse(callback.body).id);
      }
      await waitFor(async () => (await activitiesOf(processId)).length === 6, 5000, "six activities");
      const activities = await activitiesOf(processId);
      assert.ok(activities.every((activity) => activity.tags === "CALLBACK_DELIVERED"));
      assert.match(
        activities[0]!.description,
        /^callback started to 127\.0\.0\.1:\d+ .* delivered after 1 attempt$/,
      );
      assert.ok(
        !activities.some((activity) => activity.description.includes("token=abc")),
        "the URL's query stays out",
      );
      const [{ count: outbox } = { count: 0 }] = await db.sql<{ count: number }[]>`
        select count(*)::int from workflow_events where process_id = ${processId}`;
      assert.equal(outbox, events.length, "an outcome writes no outbox event: it makes no callback itself");
    });

    it("posts each event once more after failures, never twice once received, and records the tries", async () => {
      const flaky = await receiver((_callback, index) => (index < 3 ? 500 : 200));
      const app = await deploy("flaky", everything(flaky.url));
      const processId = await runProcess(app);
      loop([`127.0.0.1:${flaky.port}`]);
      await waitFor(() => flaky.accepted().length === 6, 10_000, "six callbacks received");
      const perEvent = new Map<string, number>();
      for (const callback of flaky.accepted())
        perEvent.set(callback.eventId, (perEvent.get(callback.eventId) ?? 0) + 1);
      assert.deepEqual([...perEvent.values()], [1, 1, 1, 1, 1, 1]);
      assert.equal(flaky.received.length, 9, "the first event three times in vain, then every one once");
      assert.equal(new Set(flaky.received.slice(0, 4).map((callback) => callback.eventId)).size, 1);
      await waitFor(async () => (await activitiesOf(processId)).length === 6, 5000, "six activities");
      const [first] = await activitiesOf(processId);
      assert.match(first!.description, /delivered after 4 attempts$/);
      assert.equal(first!.level, "INFO");
    });

    it("ends a callback dead when its receiver never recovers, lists it, and delivers it when replayed", async () => {
      const down = await receiver(() => 503);
      const app = await deploy("down", [
        { on: "started", url: down.url },
        { on: "taskCreated", url: down.url },
      ]);
      const processId = await runProcess(app, "start");
      loop([`127.0.0.1:${down.port}`]);
      const dead = async () => deadCallbacks(db.sql, { domain: "example.edu", app: "down" }, null, 10);
      await waitFor(async () => (await dead()).length === 2, 10_000, "two dead callbacks");
      // Four posts each: the dead first does not keep the second from its own four.
      assert.equal(down.received.length, 8);
      const listed = await dead();
      assert.deepEqual(
        listed.map((row) => [row.type, row.attempts, row.lastError]),
        [
          ["taskCreated", 4, "answered 503"],
          ["started", 4, "answered 503"],
        ],
      );
      const activities = await activitiesOf(processId);
      assert.deepEqual(
        activities.map((activity) => [activity.tags, activity.level]),
        [
          ["CALLBACK_DEAD", "WARNING"],
          ["CALLBACK_DEAD", "WARNING"],
        ],
      );
      assert.match(activities[0]!.description, /dead after 4 attempts: answered 503$/);
      assert.equal(
        (await deadCallbacks(db.sql, { domain: "example.edu", app: "signed" }, null, 10)).length,
        0,
      );

      down.reply = () => 200;
      assert.equal(await replayAppCallbacks(db.sql, "example.edu", "down"), 2);
      await waitFor(() => down.accepted().length === 2, 10_000, "the replayed callbacks");
      assert.deepEqual(
        down.accepted().map((callback) => JSON.parse(callback.body).type),
        ["started", "taskCreated"],
        "replayed in order",
      );
      assert.equal((await dead()).length, 0);
      await waitFor(
        async () => (await activitiesOf(processId)).length === 4,
        5000,
        "the replay's activities",
      );
      assert.match((await activitiesOf(processId))[2]!.description, /delivered after 1 attempt$/);
    });

    it("refuses internal addresses, by the URL or by what its name resolves to, unless the host is allowed", async () => {
      const inside = await receiver();
      const named = `http://hooks.example.edu:${inside.port}/in`;
      const app = await deploy("inside", [
        { on: "started", url: `${inside.url}/literal` },
        { on: "started", url: named },
      ]);
      const resolve = async (host: string): Promise<ResolvedAddress[]> => {
        assert.equal(host, "hooks.example.edu");
        return [{ address: "127.0.0.1", family: 4 }];
      };
      const refused = loop([], { resolve });
      await runProcess(app, "start");
      const dead = async () => deadCallbacks(db.sql, { domain: "example.edu", app: "inside" }, null, 10);
      await waitFor(async () => (await dead()).length === 2, 10_000, "both refused");
      assert.equal(inside.received.length, 0, "nothing reached the internal address");
      const reasons = (await dead()).map((row) => [row.attempts, row.lastError]).sort();
      assert.deepEqual(reasons, [
        [1, `127.0.0.1 is an internal address not allowed by CALLBACK_ALLOWED_HOSTS`],
        [
          1,
          `hooks.example.edu resolves to 127.0.0.1, an internal address not allowed by CALLBACK_ALLOWED_HOSTS`,
        ],
      ]);
      await refused.close();

      loop([`127.0.0.1:${inside.port}`, `hooks.example.edu:${inside.port}`], { resolve });
      await replayAppCallbacks(db.sql, "example.edu", "inside");
      await waitFor(() => inside.accepted().length === 2, 10_000, "both delivered once allowed");
      assert.deepEqual(inside.received.map((callback) => callback.headers.host).sort(), [
        `127.0.0.1:${inside.port}`,
        `hooks.example.edu:${inside.port}`,
      ]);
    });

    it("keeps an app's secret encrypted under a key every process must share", async () => {
      const app = await deploy("keyed", [{ on: "started", url: "https://hooks.example.edu/" }]);
      const dir = await tempDir();
      try {
        const fromFile = new CallbackSecrets({ secretKey: undefined, dataDir: dir.path });
        const secret = await rotateCallbackSecret(db.sql, fromFile, "example.edu", "keyed");
        const [row] = await db.sql<{ ciphertext: Buffer; nonce: Buffer }[]>`
          select ciphertext, nonce from workflow_callback_secrets where app_id = ${app.id}`;
        assert.ok(!row!.ciphertext.toString("latin1").includes(secret), "not stored as it is");
        assert.equal(row!.nonce.length, 12);
        assert.equal((await stat(join(dir.path, CALLBACK_KEY_FILE))).mode & 0o777, 0o600);
        const sameDirectory = new CallbackSecrets({ secretKey: undefined, dataDir: dir.path });
        assert.equal(
          await sameDirectory.secretFor(db.sql, app.id),
          secret,
          "a process on the same key reads it",
        );
        await assert.rejects(
          secrets.secretFor(db.sql, app.id),
          CallbackKeyMismatch,
          "another key is named, not used",
        );
      } finally {
        await dir.remove();
      }
    });

    it("lets a slow receiver hold its own posts only: another receiver gets its callbacks meanwhile", async () => {
      const slow = await receiver(() => "hold");
      const quick = await receiver();
      const app = await deploy("slow", [
        { on: "started", url: slow.url },
        { on: "started", url: quick.url },
      ]);
      loop([`127.0.0.1:${slow.port}`, `127.0.0.1:${quick.port}`], { hostConcurrency: 2, timeoutMs: 60_000 });
      for (let i = 0; i < 4; i++) await runProcess(app, "start");
      await waitFor(() => quick.accepted().length === 4, 10_000, "the quick receiver's four callbacks");
      await waitFor(() => slow.received.length === 2, 5000, "the slow receiver holding two");
      assert.equal(slow.received.length, 2, "no more than CALLBACK_HOST_CONCURRENCY held by the slow one");
    });
  });
}
