import assert from "node:assert/strict";
import { workflowDefinitionSchema } from "../../contracts/workflow-definition.ts";
import { upsertTenant } from "../../identity/tenant-store.ts";
import { upsertUser } from "../../identity/user-store.ts";
import { loadConfig } from "../../runtime/config.ts";
import { type Database, openDatabase, type Queryable, type Sql } from "../../runtime/database.ts";
import {
  deployVersion,
  setVersionOnline,
  startableApp,
  upsertWorkflowApp,
} from "../../workflow/app-store.ts";
import { outboxLag } from "../../workflow/outbox/outbox-lag.ts";
import {
  type OutboxRelay,
  type OutboxRelayOptions,
  startOutboxRelay,
} from "../../workflow/outbox/outbox-relay.ts";
import { pruneDeliveredEvents } from "../../workflow/outbox/outbox-retention.ts";
import { sequenceEvents } from "../../workflow/outbox/outbox-sequencer.ts";
import type { OutboxEvent, OutboxSubscriber } from "../../workflow/outbox/outbox-subscriber.ts";
import { handleTask, startProcess } from "../../workflow/process-commands.ts";
import { migratedDatabase, testModes } from "../support/platform.ts";
import { after, afterEach, before, beforeEach, describe, it } from "../support/skippable-suites.ts";
import { silentLogger, waitFor } from "../support/wait.ts";

/** A start (the applicant's form), one step for alice, an end: each process writes six events. */
const oneStep = workflowDefinitionSchema.parse({
  graph: {
    nodes: [
      { kind: "start", code: "s" },
      { kind: "task", code: "check", assignees: [{ accounts: ["alice"] }] },
      { kind: "end", code: "e" },
    ],
    edges: [
      { from: "s", to: "check" },
      { from: "check", to: "e" },
    ],
  },
});

/** Fast pauses, so a test waits milliseconds for what production spaces out. */
const FAST: OutboxRelayOptions = {
  retainSeconds: 3600,
  idlePauseMs: { first: 5, most: 50 },
  gatherPauseMs: 5,
  retryPauseMs: { first: 20, most: 50 },
};

/** A subscriber that records what it accepted in memory and, in the relay's transaction, in a table. */
class Recorder implements OutboxSubscriber {
  readonly events: OutboxEvent[] = [];
  /** While set, `accept` writes its row and then throws. */
  failing = false;
  offers = 0;

  constructor(readonly name: string) {}

  async accept(events: readonly OutboxEvent[], tx: Queryable) {
    this.offers++;
    await tx`
      insert into relay_received (subscriber, event_id, position)
      select ${this.name}, unnest(${events.map((event) => event.id)}::bigint[]), unnest(${events.map((event) => event.position)}::bigint[])`;
    if (this.failing) throw new Error(`${this.name} is down`);
    this.events.push(...events);
    return undefined;
  }
}

/** Writes `count` events of one process (a made-up one unless given), each in its own transaction or all in one. */
async function insertEvents(
  sql: Queryable,
  count: number,
  options: { processId?: string; ageSeconds?: number } = {},
): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    insert into workflow_events (tenant_id, test, process_id, type, created_at)
    select gen_random_uuid(), false, coalesce(${options.processId ?? null}::uuid, gen_random_uuid()), 'test.event',
           now() - make_interval(secs => ${options.ageSeconds ?? 0})
    from generate_series(1, ${count})
    returning id::text as id`;
  return rows.map((row) => row.id);
}

/** Cursors at the start of the outbox: subscribers that ran before the events were written. */
async function subscribedBefore(sql: Sql, ...subscribers: string[]): Promise<void> {
  await sql`insert into workflow_outbox_cursors (subscriber) select unnest(${subscribers}::text[])`;
}

async function cursorOf(sql: Sql, subscriber: string): Promise<number | undefined> {
  const [row] = await sql<{ position: number }[]>`
    select position::float8 as position from workflow_outbox_cursors where subscriber = ${subscriber}`;
  return row?.position;
}

/** Every event id of the outbox, in id order. */
async function allEventIds(sql: Sql): Promise<string[]> {
  return (await sql<{ id: string }[]>`select e.id::text as id from workflow_events e order by e.id`).map(
    (row) => row.id,
  );
}

/** Received rows of the subscriber as committed: [event id, how many times]. */
async function committedReceipts(sql: Sql, subscriber: string): Promise<Map<string, number>> {
  const rows = await sql<{ id: string; times: number }[]>`
    select event_id::text as id, count(*)::int as times from relay_received where subscriber = ${subscriber} group by event_id`;
  return new Map(rows.map((row) => [row.id, row.times]));
}

function assertIncreasing(values: readonly number[], what: string): void {
  for (let i = 1; i < values.length; i++) assert.ok(values[i]! > values[i - 1]!, `${what} increase at ${i}`);
}

for (const mode of await testModes()) {
  describe(`outbox relay (${mode.name})`, { skip: mode.skip }, () => {
    let db: Database;
    let env: Record<string, string>;
    let close: (() => Promise<void>) | undefined;
    const relays: OutboxRelay[] = [];
    const start = (
      subscribers: OutboxSubscriber[],
      options: Partial<OutboxRelayOptions> = {},
      sql = db.sql,
    ) => {
      const relay = startOutboxRelay({ sql, log: silentLogger }, subscribers, { ...FAST, ...options });
      relays.push(relay);
      return relay;
    };

    before(async () => {
      ({ db, env, close } = await migratedDatabase(mode));
      await db.sql`
        create table relay_received (seq bigserial primary key, subscriber text not null, event_id bigint not null, position bigint not null)`;
    });
    after(async () => {
      await close?.();
    });
    beforeEach(async () => {
      await db.sql`truncate workflow_events, workflow_outbox_cursors, relay_received`;
    });
    afterEach(async () => {
      await Promise.all(relays.splice(0).map((relay) => relay.stop()));
    });

    it("hands every event to a subscriber once, in position order, each process's in id order, and moves its cursor", async () => {
      const tenantId = (await upsertTenant(db.sql, { domain: "example.edu", name: "Example" })).id;
      await upsertUser(db.sql, {
        tenant: "example.edu",
        account: "alice",
        name: "Alice",
        mailEnabled: false,
      });
      const [alice] = await db.sql<{ id: string }[]>`select id from users where account = 'alice'`;
      const workflowApp = await upsertWorkflowApp(db.sql, tenantId, { code: "check", name: "Check" });
      const { version } = await deployVersion(db.sql, workflowApp.id, oneStep);
      await setVersionOnline(db.sql, workflowApp.id, version.id, false, true);
      const app = (await startableApp(db.sql, tenantId, "check", false))!;
      const recorder = new Recorder("recorder");
      await subscribedBefore(db.sql, "recorder");
      start([recorder], { batchSize: 7 });
      // Processes started and handled while the relay runs, interleaved with events of no process.
      await Promise.all(
        Array.from({ length: 6 }, async () => {
          const started = await db.sql.begin((tx) =>
            startProcess(tx, {
              tenantId,
              test: false,
              app,
              ownerId: alice!.id,
              actualUserId: null,
              data: {},
              businessId: null,
            }),
          );
          const handle = (taskId: string) =>
            db.sql.begin((tx) =>
              handleTask(tx, { tenantId, test: false, taskId, actor: { user: alice!.id }, sys: false }),
            );
          await handle(started.firstTask.id);
          await insertEvents(db.sql, 3);
          const [task] = await db.sql<{ id: string }[]>`
            select id from workflow_tasks where process_id = ${started.process.id} and node = 'check'`;
          await handle(task!.id);
        }),
      );
      const ids = await allEventIds(db.sql);
      assert.equal(ids.length, 6 * 6 + 6 * 3, `the processes wrote their events (${ids.length})`);
      await waitFor(() => recorder.events.length >= ids.length, 10_000, "every event delivered");

      assert.deepEqual(recorder.events.map((event) => event.id).sort(), [...ids].sort());
      assertIncreasing(
        recorder.events.map((event) => event.position),
        "positions",
      );
      const byProcess = new Map<string, OutboxEvent[]>();
      for (const event of recorder.events)
        byProcess.set(event.processId, [...(byProcess.get(event.processId) ?? []), event]);
      for (const [, events] of byProcess)
        assertIncreasing(
          events.map((event) => Number(event.id)),
          "a process's ids",
        );
      const engineEvents = recorder.events.filter((event) => event.type !== "test.event");
      assert.equal(engineEvents.length, 6 * 6);
      for (const processId of new Set(engineEvents.map((event) => event.processId))) {
        assert.deepEqual(
          byProcess.get(processId)!.map((event) => event.type),
          ["process.started", "todo.created", "todo.done", "todo.created", "todo.done", "process.ended"],
        );
      }
      assert.equal(await cursorOf(db.sql, "recorder"), recorder.events.at(-1)!.position);
      const receipts = await committedReceipts(db.sql, "recorder");
      assert.equal(receipts.size, ids.length);
      assert.ok([...receipts.values()].every((times) => times === 1));
    });

    it("offers a batch its subscriber threw on again, its cursor unmoved, and the other subscribers go on", async () => {
      await subscribedBefore(db.sql, "flaky", "steady");
      const flaky = new Recorder("flaky");
      flaky.failing = true;
      const steady = new Recorder("steady");
      const ids = await insertEvents(db.sql, 20);
      start([flaky, steady], { batchSize: 8 });
      await waitFor(
        () => steady.events.length === 20 && flaky.offers >= 3,
        5000,
        "steady done, flaky offered again",
      );
      assert.equal(await cursorOf(db.sql, "flaky"), 0);
      assert.equal(
        (await committedReceipts(db.sql, "flaky")).size,
        0,
        "the failed batches' writes rolled back",
      );
      assert.equal(flaky.events.length, 0);

      flaky.failing = false;
      await waitFor(() => flaky.events.length === 20, 5000, "flaky's events after it recovered");
      assert.deepEqual(
        flaky.events.map((event) => event.id),
        ids,
      );
      assert.equal(await cursorOf(db.sql, "flaky"), await cursorOf(db.sql, "steady"));
      assert.ok([...(await committedReceipts(db.sql, "flaky")).values()].every((times) => times === 1));
    });

    it("picks up an event committed while it idles within 200 ms", async () => {
      const recorder = new Recorder("recorder");
      await subscribedBefore(db.sql, "recorder");
      // Production's pauses: an idle relay polls every 100 ms at most.
      start([recorder], { idlePauseMs: { first: 10, most: 100 } });
      const latencies: number[] = [];
      for (let trial = 1; trial <= 5; trial++) {
        // Idle past its longest pause, so the poll is at its slowest.
        const idleSince = Date.now();
        await waitFor(() => Date.now() - idleSince >= 300, 1000, "the relay idling");
        const committed = Date.now();
        await insertEvents(db.sql, 1);
        await waitFor(() => recorder.events.length === trial, 2000, `event ${trial}`);
        latencies.push(Date.now() - committed);
      }
      latencies.sort((a, b) => a - b);
      assert.ok(latencies[2]! <= 200, `median pick-up ${latencies[2]} ms (${latencies.join(", ")})`);
    });

    it("stops after the round in flight, leaving nothing running", async () => {
      const recorder = new Recorder("recorder");
      await subscribedBefore(db.sql, "recorder");
      await insertEvents(db.sql, 50);
      const relay = startOutboxRelay({ sql: db.sql, log: silentLogger }, [recorder], {
        ...FAST,
        batchSize: 10,
      });
      await waitFor(() => recorder.events.length > 0, 5000, "a first batch");
      await relay.stop();
      const received = recorder.events.length;
      const cursor = await cursorOf(db.sql, "recorder");
      await insertEvents(db.sql, 5);
      // Were it still polling, it would take the new events within its longest pause (50 ms).
      const since = Date.now();
      await waitFor(() => Date.now() - since >= 200, 1000, "time for a poll");
      assert.equal(recorder.events.length, received);
      assert.equal(await cursorOf(db.sql, "recorder"), cursor);
    });

    it("starts a subscriber it has no cursor of at the end of the outbox, numbered or not", async () => {
      await insertEvents(db.sql, 4);
      await sequenceEvents(db.sql, 2);
      const recorder = new Recorder("newcomer");
      start([recorder]);
      await waitFor(async () => (await cursorOf(db.sql, "newcomer")) !== undefined, 5000, "its cursor");
      const later = await insertEvents(db.sql, 3);
      await waitFor(() => recorder.events.length >= 3, 5000, "the events written after it started");
      await waitFor(
        async () => {
          const [row] = await db.sql<
            { n: number }[]
          >`select count(*)::int as n from workflow_events where position is null`;
          return row!.n === 0;
        },
        5000,
        "every event numbered",
      );
      assert.deepEqual(
        recorder.events.map((event) => event.id),
        later,
      );
    });

    it("with no subscriber, gives no event a position and makes no cursor", async () => {
      await insertEvents(db.sql, 3);
      const relay = start([]);
      const since = Date.now();
      await waitFor(() => Date.now() - since >= 100, 1000, "time for a poll");
      await relay.stop();
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from workflow_events where position is not null`;
      assert.equal(row!.n, 0);
      assert.equal(await cursorOf(db.sql, "recorder"), undefined);
    });

    it("deletes only events every subscriber accepted that are older than the age", async () => {
      const old = await insertEvents(db.sql, 10, { ageSeconds: 7200 });
      const young = await insertEvents(db.sql, 5);
      await sequenceEvents(db.sql, 100);
      const unsequencedOld = await insertEvents(db.sql, 2, { ageSeconds: 7200 });
      const positions = new Map(
        (
          await db.sql<{ id: string; position: number }[]>`
            select id::text as id, position::float8 as position from workflow_events where position is not null`
        ).map((row) => [row.id, row.position]),
      );
      await db.sql`
        insert into workflow_outbox_cursors (subscriber, position)
        values ('ahead', ${positions.get(young[2]!)!}), ('behind', ${positions.get(old[5]!)!})`;

      assert.equal(await pruneDeliveredEvents(db.sql, ["ahead", "behind", "never-ran"], 3600), 0);
      assert.equal(await pruneDeliveredEvents(db.sql, [], 3600), 0);
      assert.equal(await pruneDeliveredEvents(db.sql, ["ahead", "behind"], 3600), 6);
      assert.deepEqual(await allEventIds(db.sql), [...old.slice(6), ...young, ...unsequencedOld]);
      // Only the registered subscribers count: without `behind`, `ahead` has all ten old ones.
      assert.equal(await pruneDeliveredEvents(db.sql, ["ahead"], 3600), 4);
      assert.deepEqual(await allEventIds(db.sql), [...young, ...unsequencedOld]);
    });

    it("reports each cursor's position, the events behind it and the age of the oldest", async () => {
      const delivered = await insertEvents(db.sql, 4, { ageSeconds: 300 });
      const waiting = await insertEvents(db.sql, 3, { ageSeconds: 90 });
      await sequenceEvents(db.sql, 100);
      await insertEvents(db.sql, 2, { ageSeconds: 30 });
      const [last] = await db.sql<{ position: number }[]>`
        select position::float8 as position from workflow_events where id = ${delivered.at(-1)!}`;
      await db.sql`
        insert into workflow_outbox_cursors (subscriber, position) values ('push', ${last!.position}), ('idle', 0)`;
      const lag = await outboxLag(db.sql);
      assert.equal(lag.unsequenced, 2);
      const [idle, push] = lag.subscribers;
      assert.deepEqual(
        lag.subscribers.map((subscriber) => [
          subscriber.subscriber,
          subscriber.position,
          subscriber.eventsBehind,
        ]),
        [
          ["idle", 0, 9],
          ["push", last!.position, waiting.length + 2],
        ],
      );
      assert.ok(
        push!.secondsBehind >= 90 && push!.secondsBehind < 120,
        `push ${push!.secondsBehind} s behind`,
      );
      assert.ok(
        idle!.secondsBehind >= 300 && idle!.secondsBehind < 330,
        `idle ${idle!.secondsBehind} s behind`,
      );
    });

    // Both need two connections at once, which the embedded database (one connection) has not.
    if (mode.name === "distributed") {
      it("never skips an event whose transaction commits after a later one was delivered", async () => {
        const recorder = new Recorder("recorder");
        await subscribedBefore(db.sql, "recorder");
        start([recorder]);
        const early = await db.sql.reserve();
        try {
          await early`begin`;
          const [lowId] = await insertEvents(early, 1);
          const [highId] = await insertEvents(db.sql, 1);
          assert.ok(Number(lowId) < Number(highId));
          await waitFor(() => recorder.events.some((event) => event.id === highId), 5000, "the later event");
          await early`commit`;
          await waitFor(
            () => recorder.events.some((event) => event.id === lowId),
            5000,
            "the event committed late",
          );
          assert.deepEqual(
            recorder.events.map((event) => event.id),
            [highId, lowId],
          );
        } finally {
          await early`rollback`.catch(() => {});
          early.release();
        }
      });

      it("shared by two processes, hands each event to a subscriber exactly once", async () => {
        const second = await openDatabase(loadConfig({ ...env, LOG_LEVEL: "silent" }), silentLogger);
        try {
          const inFirst = new Recorder("audit");
          const inSecond = new Recorder("audit");
          const otherFirst = new Recorder("push");
          const otherSecond = new Recorder("push");
          await subscribedBefore(db.sql, "audit", "push");
          await insertEvents(db.sql, 1500);
          start([inFirst, otherFirst], { batchSize: 50 });
          start([inSecond, otherSecond], { batchSize: 50 }, second.sql);
          // More events while both run, from several writers at once.
          await Promise.all(
            Array.from({ length: 10 }, async () => {
              for (let i = 0; i < 15; i++) await insertEvents(db.sql, 10);
            }),
          );
          const ids = await allEventIds(db.sql);
          assert.equal(ids.length, 3000);
          const total = (a: Recorder, b: Recorder) => a.events.length + b.events.length;
          await waitFor(
            () => total(inFirst, inSecond) >= 3000 && total(otherFirst, otherSecond) >= 3000,
            20_000,
            "every event to both subscribers",
          );
          for (const subscriber of ["audit", "push"]) {
            const receipts = await committedReceipts(db.sql, subscriber);
            assert.deepEqual([...receipts.keys()].sort(), [...ids].sort());
            assert.deepEqual(
              [...receipts.entries()].filter(([, times]) => times !== 1),
              [],
              `${subscriber} got no event twice`,
            );
            const order = await db.sql<{ position: number }[]>`
              select position::float8 as position from relay_received where subscriber = ${subscriber} order by seq`;
            assertIncreasing(
              order.map((row) => row.position),
              `${subscriber}'s positions across both processes`,
            );
          }
          assert.equal(total(inFirst, inSecond), 3000);
        } finally {
          await Promise.all(relays.splice(0).map((relay) => relay.stop()));
          await second.close();
        }
      });
    }
  });
}
