import assert from "node:assert/strict";
import { ErrorCode, isPlatformError } from "../../contracts/errors.ts";
import {
  leaseDeliveryTasks,
  recordDeliveryOutcomes,
  releaseUnattempted,
} from "../../notifications/delivery-service.ts";
import {
  type DeliveryQueue,
  type NotificationToRecord,
  newNotificationId,
  recordAndPublish,
} from "../../notifications/notification-delivery.ts";
import type { JobClient } from "../../runtime/broker/job-client.ts";
import { loadConfig } from "../../runtime/config.ts";
import { type Database, openDatabase, transaction } from "../../runtime/database.ts";
import { migrate } from "../../runtime/migrations.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger } from "../support/wait.ts";

/** An e-mail notification of the test application to the addresses. */
function emailTo(id: string, emails: string[]): NotificationToRecord {
  return {
    id,
    applicationId: "delivery-test",
    senderUserId: null,
    tenantId: null,
    body: { id, channels: ["email"], name: "Hello", content: "Hello there", emails },
  };
}

// The capability's delivery functions need a database and a place to publish, nothing else.
for (const mode of await testModes()) {
  describe(`notification delivery on its own (${mode.name})`, { skip: mode.skip }, () => {
    let db: Database;
    let cleanup: () => Promise<void>;
    let connected = true;
    const published: { name: string; taskIds: string[] }[] = [];
    const jobs = {
      async enqueue(name: string, payload: { taskIds: string[] }) {
        published.push({ name, taskIds: payload.taskIds });
      },
    } as unknown as JobClient;
    const queue: DeliveryQueue = { jobs, brokerConnected: () => connected };
    const taskIdsOf = async (id: string) =>
      (
        await db.sql<{ id: string }[]>`
          select id from delivery_tasks where notification_id = ${id} order by position`
      ).map((row) => row.id);

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      db = await openDatabase(loadConfig({ ...prepared.env, LOG_LEVEL: "silent" }), silentLogger);
      await migrate(db.sql, silentLogger);
      await db.sql`
        insert into applications (id, name, type)
        values ('delivery-test', 'Delivery test', 'global')`;
    });

    after(async () => {
      await db?.close();
      await cleanup?.();
    });

    it("refuses before anything is recorded when the broker is not connected", async () => {
      connected = false;
      let ran = false;
      try {
        await assert.rejects(
          recordAndPublish(queue, async () => {
            ran = true;
          }),
          (error) => isPlatformError(error) && error.code === ErrorCode.Unavailable,
        );
      } finally {
        connected = true;
      }
      assert.equal(ran, false);
      assert.deepEqual(published, []);
    });

    it("publishes the tasks recorded in a transaction once it is done; an id taken adds nothing", async () => {
      const id = newNotificationId();
      const answer = await recordAndPublish(queue, (record) =>
        transaction(db.sql, async (tx) => {
          assert.equal(await record(tx, emailTo(id, ["a@example.edu", "b@example.edu"])), true);
          assert.deepEqual(published, [], "nothing is published before the commit");
          return "recorded";
        }),
      );
      assert.equal(answer, "recorded");
      assert.deepEqual(published, [{ name: "notifyEmail", taskIds: await taskIdsOf(id) }]);
      published.length = 0;

      const again = await recordAndPublish(queue, (record) => record(db.sql, emailTo(id, ["c@example.edu"])));
      assert.equal(again, false);
      assert.deepEqual(published, []);
      assert.equal((await taskIdsOf(id)).length, 2);
    });

    it("publishes nothing, and keeps nothing, when the work fails after recording", async () => {
      const id = newNotificationId();
      await assert.rejects(
        recordAndPublish(queue, (record) =>
          transaction(db.sql, async (tx) => {
            await record(tx, emailTo(id, ["a@example.edu"]));
            throw new Error("the work's next step failed");
          }),
        ),
        /next step failed/,
      );
      assert.deepEqual(published, []);
      assert.deepEqual(await taskIdsOf(id), []);
    });

    it("leases a job's tasks to one worker at a time; an outcome or a release ends a lease", async () => {
      const id = newNotificationId();
      await recordAndPublish(queue, (record) =>
        record(db.sql, emailTo(id, ["a@example.edu", "b@example.edu"])),
      );
      published.length = 0;
      const [sent, unattempted] = await taskIdsOf(id);
      const options = { leaseSeconds: 60, reopenFailed: false };

      const first = await leaseDeliveryTasks(db.sql, [sent!, unattempted!], options);
      assert.deepEqual(first.tasks.map((task) => task.id).sort(), [sent!, unattempted!].sort());
      assert.equal(first.held, 0);
      assert.equal(first.notifications.get(id)?.body.name, "Hello");

      const second = await leaseDeliveryTasks(db.sql, [sent!, unattempted!], options);
      assert.equal(second.tasks.length, 0);
      assert.equal(second.held, 2);
      assert.equal(second.notifications.size, 0);

      const outcome = {
        id: sent!,
        status: "sent" as const,
        channel: "email",
        detail: null,
        providerMessageId: "m-1",
        nextAttemptAt: null,
      };
      await recordDeliveryOutcomes(db.sql, [outcome], 1000);
      await releaseUnattempted(db.sql, first.tasks, [outcome]);
      const third = await leaseDeliveryTasks(db.sql, [sent!, unattempted!], options);
      assert.deepEqual(
        third.tasks.map((task) => task.id),
        [unattempted!],
      );
      assert.equal(third.held, 0);
    });
  });
}
