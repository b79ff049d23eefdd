import assert from "node:assert/strict";
import postgres from "postgres";
import { sendCommitBehind, transaction } from "../../runtime/database.ts";
import { freshDatabase } from "../support/platform.ts";
import { realServices } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const services = await realServices();

describe("transactions", { skip: services ? false : "Postgres unreachable" }, () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: postgres.Sql;

  /** The rows kept, or those holding `value`. */
  const count = async (value?: number) =>
    Number(
      (
        await sql`select count(*)::int as n from kept ${value === undefined ? sql`` : sql`where n = ${value}`}`
      )[0]!.n,
    );

  before(async () => {
    database = await freshDatabase(services!.databaseUrl);
    // One connection: a transaction that left it reserved or mid-transaction would stall the next one.
    sql = postgres(database.url, { max: 1, onnotice: () => {} });
    await sql`create table kept (n integer not null)`;
  });

  after(async () => {
    await sql?.end({ timeout: 5 });
    await database?.drop();
  });

  it("commits what the work wrote and answers what it returned", async () => {
    const answer = await transaction(sql, async (tx) => {
      await tx`insert into kept values (1)`;
      return "done";
    });
    assert.equal(answer, "done");
    assert.equal(await count(), 1);
  });

  it("rolls back everything when the work fails", async () => {
    const before = await count();
    await assert.rejects(
      transaction(sql, async (tx) => {
        await tx`insert into kept values (2)`;
        throw new Error("the work changed its mind");
      }),
      /changed its mind/,
    );
    assert.equal(await count(), before);
  });

  it("commits with the commit sent behind the last statement, which still runs inside the transaction", async () => {
    const answer = await transaction(sql, async (tx) => {
      // A setting local to the transaction: a statement run after its commit would not see it.
      await tx`select set_config('op.marker', '7', true)`;
      const write = tx`
        insert into kept values (coalesce(nullif(current_setting('op.marker', true), '')::int, -1))
        returning n`.execute();
      sendCommitBehind(tx);
      const [row] = await write;
      return row!.n;
    });
    assert.equal(answer, 7);
    assert.equal(await count(7), 1);
  });

  it("rolls back a last statement that fails behind which the commit was sent", async () => {
    const before = await count();
    await assert.rejects(
      transaction(sql, async (tx) => {
        await tx`insert into kept values (5)`;
        const write = tx`insert into kept values (1 / 0)`.execute();
        sendCommitBehind(tx);
        await write;
      }),
      /division by zero/,
    );
    assert.equal(await count(), before);
    assert.equal(await count(5), 0);
  });

  it("sends no commit outside a transaction", async () => {
    sendCommitBehind(sql);
    await sql`insert into kept values (6)`;
    assert.equal(await count(6), 1);
  });

  it("fails a transaction a statement aborted, even when the work caught that statement's error", async () => {
    const before = await count();
    await assert.rejects(
      transaction(sql, async (tx) => {
        await tx`insert into kept values (3)`;
        await tx`select 1 / 0`.catch(() => undefined);
      }),
      /rolled back/,
    );
    assert.equal(await count(), before);
  });
});
