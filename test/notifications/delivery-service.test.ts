import assert from "node:assert/strict";
import { ErrorCode, isPlatformError } from "../../contracts/errors.ts";
import { jobCatalogue, queueDefinition } from "../../contracts/jobs.ts";
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
import { EmbeddedBroker } from "../../runtime/broker/embedded-broker.ts";
import { createJobClient } from "../../runtime/broker/job-client.ts";
import { type Database, transaction } from "../../runtime/database.ts";
import { migratedDatabase, testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger, waitFor } from "../support/wait.ts";

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

const EMAIL_QUEUE = jobCatalogue.notifyEmail.queue;

/** A broker of this process, with the e-mail channel's queue. */
async function emailBroker(): Promise<{ broker: EmbeddedBroker; queue: DeliveryQueue }> {
  const broker = new EmbeddedBroker(silentLogger);
  await broker.declare([queueDefinition(jobCatalogue.notifyEmail)]);
  return { broker, queue: { jobs: createJobClient(broker), brokerConnected: () => broker.isConnected() } };
}

/** How many jobs wait on the e-mail queue. */
async function waitingJobs(broker: EmbeddedBroker): Promise<number> {
  return (await broker.queueStats()).find((stats) => stats.queue === EMAIL_QUEUE)?.ready ?? 0;
}

/** The task ids of each job waiting on the e-mail queue, taken off it. */
async function takePublished(broker: EmbeddedBroker): Promise<string[][]> {
  const waiting = await waitingJobs(broker);
  const taken: string[][] = [];
  if (waiting === 0) return taken;
  const consumer = await broker.consume(
    EMAIL_QUEUE,
    async (message) => {
      taken.push((message as { taskIds: string[] }).taskIds);
      return { outcome: "done" };
    },
    { concurrency: 8, timeoutMs: 5000 },
  );
  try {
    await waitFor(() => taken.length === waiting, 5000, "the published jobs");
  } finally {
    await consumer.stop(1000);
  }
  return taken;
}

// The capability's delivery functions need a database and a broker, nothing else.
for (const mode of await testModes()) {
  describe(`notification delivery on its own (${mode.name})`, { skip: mode.skip }, () => {
    let db: Database;
    let close: (() => Promise<void>) | undefined;
    let broker: EmbeddedBroker;
    let queue: DeliveryQueue;
    const taskIdsOf = async (id: string) =>
      (
        await db.sql<{ id: string }[]>`
          select id from delivery_tasks where notification_id = ${id} order by position`
      ).map((row) => row.id);

    before(async () => {
      ({ broker, queue } = await emailBroker());
      ({ db, close } = await migratedDatabase(mode));
      await db.sql`
        insert into applications (id, name, type)
        values ('delivery-test', 'Delivery test', 'global')`;
    });

    after(async () => {
      await broker?.close();
      await close?.();
    });

    it("refuses before anything is recorded when the broker is not connected", async () => {
      const closed = await emailBroker();
      await closed.broker.close();
      let ran = false;
      await assert.rejects(
        recordAndPublish(closed.queue, async () => {
          ran = true;
        }),
        (error) => isPlatformError(error) && error.code === ErrorCode.Unavailable,
      );
      assert.equal(ran, false);
    });

    it("publishes the tasks recorded in a transaction once it is done; an id taken adds nothing", async () => {
      const id = newNotificationId();
      const answer = await recordAndPublish(queue, (record) =>
        transaction(db.sql, async (tx) => {
          assert.equal(await record(tx, emailTo(id, ["a@example.edu", "b@example.edu"])), true);
          assert.equal(await waitingJobs(broker), 0, "nothing is published before the commit");
          return "recorded";
        }),
      );
      assert.equal(answer, "recorded");
      assert.deepEqual(await takePublished(broker), [await taskIdsOf(id)]);

      const again = await recordAndPublish(queue, (record) => record(db.sql, emailTo(id, ["c@example.edu"])));
      assert.equal(again, false);
      assert.deepEqual(await takePublished(broker), []);
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
      assert.deepEqual(await takePublished(broker), []);
      assert.deepEqual(await taskIdsOf(id), []);
    });

    it("leases a job's tasks to one worker at a time; an outcome or a release ends a lease", async () => {
      const id = newNotificationId();
      await recordAndPublish(queue, (record) =>
        record(db.sql, emailTo(id, ["a@example.edu", "b@example.edu"])),
      );
      await takePublished(broker);
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
