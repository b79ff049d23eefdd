import assert from "node:assert/strict";
import { upsertTenant } from "../../identity/tenant-store.ts";
import { upsertUser } from "../../identity/user-store.ts";
import { type NewPushMessage, storePushMessages } from "../../push/push-messages.ts";
import { settledAnswer } from "../../push/push-reads.ts";
import { prunePushMessages } from "../../push/push-retention.ts";
import { EmbeddedBroker } from "../../runtime/broker/embedded-broker.ts";
import { type Database, transaction } from "../../runtime/database.ts";
import { migratedDatabase, testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger, waitFor } from "../support/wait.ts";

// The push rules need a database (and a broker for their notices) and nothing else.
for (const mode of await testModes()) {
  describe(`push messages stored (${mode.name})`, { skip: mode.skip }, () => {
    let db: Database;
    let close: (() => Promise<void>) | undefined;
    const broker = new EmbeddedBroker(silentLogger);
    const deps = { broker, log: silentLogger };
    let tenantId: string;
    const users: Record<string, string> = {};

    const message = (account: string, eid: string, test = false): NewPushMessage => ({
      tenantId,
      userId: users[account]!,
      test,
      type: "task",
      eid,
    });
    const all = (account: string) =>
      settledAnswer(db.sql, { userId: users[account]!, test: false, types: ["task", "cc"] }, 0, 100);

    before(async () => {
      ({ db, close } = await migratedDatabase(mode));
      tenantId = (await upsertTenant(db.sql, { domain: "example.edu", name: "Example" })).id;
      for (const account of ["ann", "ben", "cat", "dan"]) {
        await upsertUser(db.sql, { tenant: "example.edu", account, name: account, mailEnabled: false });
      }
      for (const row of await db.sql<{ id: string; account: string }[]>`select id, account from users`)
        users[row.account] = row.id;
    });

    after(async () => {
      await broker.close();
      await close?.();
    });

    it("gives each user's messages strictly increasing times, in the order given, however many stores run at once", async () => {
      const stores = Array.from({ length: 12 }, (_, n) =>
        transaction(
          db.sql,
          async (tx) =>
            (
              await storePushMessages(tx, deps, [
                message("ann", `${n}-a`),
                message("ben", `${n}-b`),
                message("ann", `${n}-c`),
              ])
            ).messages,
        ),
      );
      const stored = (await Promise.all(stores)).flat();
      const anns = stored.filter((each) => each.userId === users.ann).map((each) => each.time);
      assert.equal(new Set(anns).size, 24, "no two of one user's messages share a time");
      for (let n = 0; n < 12; n++) {
        const [a, c] = [`${n}-a`, `${n}-c`].map((eid) => stored.find((each) => each.eid === eid)!.time);
        assert.equal(c, a! + 1, "a store's messages of one user take consecutive times, in order");
      }
      const read = await all("ann");
      assert.equal(read.messages.length, 24);
      assert.deepEqual(
        read.messages.map((each) => each.time),
        [...anns].sort((x, y) => x - y),
      );
      assert.equal((await all("ben")).messages.length, 12);
    });

    it("keeps each user's newest messages and drops those past their age, in batches", async () => {
      const stored = await transaction(
        db.sql,
        async (tx) =>
          (
            await storePushMessages(
              tx,
              deps,
              ["1", "2", "3", "4", "5"].map((eid) => message("cat", eid)),
            )
          ).messages,
      );
      const kept = await prunePushMessages(
        db.sql,
        { maxAgeMs: 86_400_000, keepPerUser: 3, intervalMs: 1 },
        0,
      );
      assert.ok(kept.complete);
      assert.deepEqual(
        (await all("cat")).messages.map((each) => each.eid),
        ["3", "4", "5"],
      );
      assert.equal((await all("ann")).messages.length, 3, "every user keeps only their newest");
      const later = stored.at(-1)!.time + 86_400_000 + 1;
      await prunePushMessages(db.sql, { maxAgeMs: 86_400_000, keepPerUser: 1000, intervalMs: 1 }, 0, later);
      assert.equal((await all("cat")).messages.length, 0);
    });

    // Needs two connections: the embedded database's one makes a reader wait for a store by itself.
    if (mode.name === "distributed")
      it("never answers a time that would skip a message still being stored", async () => {
        let release!: () => void;
        const held = new Promise<void>((resolve) => {
          release = resolve;
        });
        // Dan has a clock already: a reader finds his row, and must still wait for the store in flight.
        const early = await transaction(db.sql, (tx) =>
          storePushMessages(tx, deps, [message("dan", "early")]),
        );
        const since = early.messages[0]!.time;
        let storedTime = 0;
        const storing = transaction(db.sql, async (tx) => {
          const stored = await storePushMessages(tx, deps, [message("dan", "slow")]);
          storedTime = stored.messages[0]!.time;
          await held;
        });
        await waitFor(() => storedTime > 0, 5000, "the store to be in flight");
        const answering = settledAnswer(
          db.sql,
          { userId: users.dan!, test: false, types: ["task"] },
          since,
          100,
        );
        // The answer waits for the store's commit: its lock is what a reader without it would not see.
        await waitFor(
          async () =>
            (
              await db.sql`select 1 from pg_stat_activity
              where datname = current_database() and wait_event_type = 'Lock'`
            ).length > 0,
          5000,
          "the answer to wait for the store",
        );
        release();
        await storing;
        const answer = await answering;
        assert.deepEqual(
          answer.messages.map((each) => each.eid),
          ["slow"],
        );
        assert.equal(answer.time, storedTime);
      });
  });
}
