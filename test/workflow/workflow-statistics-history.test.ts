import assert from "node:assert/strict";
import { upsertTenant } from "../../identity/tenant-store.ts";
import type { Sql } from "../../runtime/database.ts";
import { type OutboxRelay, startOutboxRelay } from "../../workflow/outbox/outbox-relay.ts";
import { STATISTICS_TTL_MS } from "../../workflow/statistics/statistics-cache.ts";
import {
  countHistoryBatch,
  startStatisticsHistory,
} from "../../workflow/statistics/statistics-history-job.ts";
import { workflowStatisticsSubscriber } from "../../workflow/statistics/statistics-subscriber.ts";
import { waitUntilRelayed } from "../support/outbox.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger, waitFor } from "../support/wait.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
} from "../support/workflow-fixture.ts";
import { formOnlyWorkflow } from "../support/workflow-graphs.ts";

/**
 * A tenant switching statistics on gets the processes it started before counted once, by the
 * history's batches, while the subscriber counts what happens meanwhile: a process ending after
 * its batch, one ending before its batch, one started during the counting, the relay running
 * alongside. The answers over HTTP are those of every process counted exactly once.
 */

const ADMIN_TOKEN = "history-admin-token-0123456789abcdefghijk";
const SECRET = "history-portal-secret-0123456789abcdefghi";
const USER_SCOPES = ["start", "submit"];
const SYS_SCOPES = ["sys_process_edit", "sys_stats"];
const TENANT = { domain: "example.edu", name: "Example University" };

for (const mode of await testModes()) {
  describe(`workflow statistics' history (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let relay: OutboxRelay | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let sql: Sql;
    let token: string;
    let alice: string;
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);

    /** Starts a process; answers its serial number and its form, whose submission completes it. */
    const start = async () => {
      const started = await api.ok("PUT", "/process", alice, { code: "leave" });
      const [entry, , , task] = started.entities as unknown as [number, number, string, { id: string }];
      return { entry, task: task.id };
    };
    const complete = (process: { task: string }) => api.ok("POST", `/task/${process.task}`, alice, {});
    const kill = (process: { entry: number }) =>
      api.ok("POST", `/process/${process.entry}`, token, { action: "kill" });
    /** The gateway's clock, moved past the cache's 2 minutes before each question. */
    let now = Date.now();
    const fresh = () => {
      now += STATISTICS_TTL_MS;
    };
    const status = async () => {
      fresh();
      return (await api.ok("GET", "/stats/app/*/processes/status", token)).entities[0] as Record<
        string,
        number
      >;
    };
    const recentTotals = async () => {
      fresh();
      const days = (await api.ok("GET", "/stats/app/*/processes/recent", token)).entities[0] as Record<
        string,
        Record<string, number>
      >;
      const sum = { started: 0, completed: 0, killed: 0 };
      for (const day of Object.values(days)) {
        sum.started += day.started!;
        sum.completed += day.completed!;
        sum.killed += day.killed!;
      }
      return sum;
    };
    const progress = async () => {
      const response = await fetch(`${platform.url}/admin/tenants/${TENANT.domain}/statistics`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(response.status, 200);
      return (await response.json()) as {
        on: boolean;
        history: {
          startedAt: string | null;
          finishedAt: string | null;
          total: number;
          examined: number;
          counted: number;
        } | null;
      };
    };
    const drain = async (batchSize: number) => {
      while (!(await countHistoryBatch(sql, batchSize))?.finished);
    };
    const startRelay = () =>
      startOutboxRelay({ sql, log: silentLogger }, [workflowStatisticsSubscriber], {
        retainSeconds: 3600,
        idlePauseMs: { first: 5, most: 20 },
        gatherPauseMs: 1,
        retryPauseMs: { first: 20, most: 50 },
        batchSize: 1,
      });

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: [TENANT],
        applications: [portalApplication(SECRET, [...USER_SCOPES, ...SYS_SCOPES])],
        users: [{ tenant: TENANT.domain, account: "alice", name: "alice", password: WORKFLOW_PASSWORD }],
        workflows: [formOnlyWorkflow(TENANT.domain, "leave", "HR")],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN }, "http only");
      sql = platform.running.platform.db.sql;
      platform.running.statistics!.now = () => now;
      await sql`insert into workflow_outbox_cursors (subscriber) values (${workflowStatisticsSubscriber.name})`;
      token = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES.join(" "));
      alice = (await portalUserTokens(platform.url, SECRET, ["alice"], USER_SCOPES.join(" "))).alice!;
    });

    after(async () => {
      await relay?.stop();
      await platform?.stop();
      await cleanup?.();
    });

    /** Makes the process's to-do wait `hours` longer than it has. */
    const waited = (process: { task: string }, hours: number) =>
      sql`update workflow_tasks set assigned_at = assigned_at - make_interval(hours => ${hours}) where id = ${process.task}`;
    /** The to-dos counted into 8.4, and the seconds they waited in all. */
    const todoSums = async () => {
      const [row] = await sql<{ handled: number; seconds: number }[]>`
        select coalesce(sum(todo_handled), 0)::int as handled, coalesce(sum(todo_wait_seconds), 0)::int as seconds
        from workflow_stats_hours`;
      return row!;
    };
    /** 8.4 by year: the mean wait of this year's to-dos, in seconds. */
    const meanWaitThisYear = async () => {
      fresh();
      const years = (await api.ok("GET", "/stats/app/*/tasks/todo?cycle=year", token)).entities[0] as Record<
        string,
        number
      >;
      return Object.values(years).at(-1)!;
    };
    const nearly = (actual: number, expected: number) =>
      assert.ok(Math.abs(actual - expected) <= 3, `${actual} is not about ${expected}`);

    it("counts the processes started before statistics were on once, with the ones that change meanwhile", async () => {
      // Statistics off: the subscriber is offered these processes' events and keeps nothing.
      const done = await start();
      await waited(done, 1);
      await complete(done);
      const killed = await start();
      await kill(killed);
      const endsAfterItsBatch = await start();
      const endsBeforeItsBatch = await start();
      const handledBeforeItsBatch = await start();
      relay = startRelay();
      await waitUntilRelayed(sql, 20_000, "the subscriber past the events of the tenant off");
      await relay.stop();
      relay = undefined;
      assert.deepEqual(await status(), { running: 0, suspend: 0, killed: 0, completed: 0 });
      assert.equal((await progress()).history, null);

      await upsertTenant(sql, { ...TENANT, workflow: { statistics: { on: true, timeZone: "UTC" } } });
      const requested = await progress();
      assert.equal(requested.on, true);
      assert.equal(requested.history?.startedAt, null);

      assert.equal((await countHistoryBatch(sql, 3))?.finished, false);
      const midway = (await progress()).history!;
      assert.equal(midway.total, 5);
      assert.equal(midway.examined, 3);
      assert.equal(midway.finishedAt, null);

      await complete(endsAfterItsBatch);
      await kill(endsBeforeItsBatch);
      // Handled after the switch, before its batch: its event has yet to reach the subscriber when
      // the batch counts the to-do, and the subscriber passes the event over.
      await waited(handledBeforeItsBatch, 3);
      await complete(handledBeforeItsBatch);
      const startedMeanwhile = await start();
      assert.equal((await countHistoryBatch(sql, 2))?.finished, false);
      const [noted] = await sql<{ todos: string[] | null }[]>`
        select history_todos as todos from workflow_stats_processes s
        join workflow_processes p on p.id = s.process_id where p.entry = ${handledBeforeItsBatch.entry}`;
      assert.deepEqual(noted?.todos, [handledBeforeItsBatch.task]);
      // The relay's subscriber and the history's batches at once, one event per relay batch.
      relay = startRelay();
      await drain(1);
      await waitUntilRelayed(sql, 20_000, "the subscriber past every event");

      const counted = { running: 1, suspend: 0, killed: 2, completed: 3 };
      assert.deepEqual(await status(), counted);
      assert.deepEqual(await recentTotals(), { started: 6, completed: 3, killed: 2 });
      // Three to-dos handled, each counted once: 1 hour, 0 and 3 hours of waiting.
      const todos = await todoSums();
      assert.equal(todos.handled, 3);
      nearly(todos.seconds, 4 * 3600);
      nearly(await meanWaitThisYear(), (4 * 3600) / 3);
      const finished = (await progress()).history!;
      assert.equal(finished.total, 5);
      assert.equal(finished.examined, 6);
      assert.ok(finished.counted === 5 || finished.counted === 6, `counted ${finished.counted}`);
      assert.ok(finished.finishedAt && finished.startedAt && finished.finishedAt >= finished.startedAt);
      assert.equal(await countHistoryBatch(sql), undefined, "nothing left to count");

      // Off and on again: the history is gone through anew and adds nothing already counted. The
      // process ending while off is brought to its state by the worker's job.
      await upsertTenant(sql, { ...TENANT, workflow: { statistics: { on: false, timeZone: "UTC" } } });
      await kill(startedMeanwhile);
      await waitUntilRelayed(sql, 20_000, "the subscriber past the end while off");
      await upsertTenant(sql, { ...TENANT, workflow: { statistics: { on: true, timeZone: "UTC" } } });
      const stop = startStatisticsHistory({ sql, log: silentLogger }, 10);
      try {
        await waitFor(
          async () => (await progress()).history?.finishedAt != null,
          20_000,
          "the history counted again",
        );
      } finally {
        stop();
      }
      assert.deepEqual(await status(), { running: 0, suspend: 0, killed: 3, completed: 3 });
      assert.deepEqual(await recentTotals(), { started: 6, completed: 3, killed: 3 });
      assert.deepEqual(await todoSums(), todos);
      const again = (await progress()).history!;
      assert.deepEqual([again.total, again.examined, again.counted], [6, 6, 0]);
    });
  });
}
