import assert from "node:assert/strict";
import postgres from "postgres";
import { joinFragments } from "../../runtime/database.ts";
import { freshDatabase } from "../support/platform.ts";
import { realServices } from "../support/services.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const services = await realServices();

describe("fragments joined into one", { skip: services ? false : "Postgres unreachable" }, () => {
  let database: { url: string; drop(): Promise<void> };
  let sql: postgres.Sql;

  before(async () => {
    database = await freshDatabase(services!.databaseUrl);
    sql = postgres(database.url, { max: 1, onnotice: () => {} });
  });

  after(async () => {
    await sql?.end({ timeout: 5 });
    await database?.drop();
  });

  const lettersOf = async (letters: string[]) => {
    const fragments = letters.map((letter) => sql`${letter}::text`);
    const [row] = await sql<
      { letters: string[] }[]
    >`select array[${joinFragments(sql, fragments, ", ")}] as letters`;
    return row!.letters;
  };

  it("keeps each fragment's parameters, in order, between the separators", async () => {
    assert.deepEqual(await lettersOf(["a", "b", "c"]), ["a", "b", "c"]);
    const [row] = await sql<{ n: number }[]>`
      select ${joinFragments(sql, [sql`${2}::int`, sql`${3}::int`, sql`${4}::int`], " * ")} as n`;
    assert.equal(row!.n, 24);
  });

  it("joins a single fragment to itself alone", async () => {
    assert.deepEqual(await lettersOf(["z"]), ["z"]);
  });

  it("joins a list longer than one template holds, in parts, in order", async () => {
    const letters = Array.from({ length: 100 }, (_, i) => `l${i}`);
    assert.deepEqual(await lettersOf(letters), letters);
  });

  it("runs the same shape again with other values", async () => {
    assert.deepEqual(await lettersOf(["x", "y", "z"]), ["x", "y", "z"]);
    assert.deepEqual(await lettersOf(["c", "b", "a"]), ["c", "b", "a"]);
  });
});
