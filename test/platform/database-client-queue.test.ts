import assert from "node:assert/strict";
import postgres from "postgres";
import { realServices } from "../support/services.ts";
import { describe, it } from "../support/skippable-suites.ts";

const services = await realServices();

/**
 * The longest stretch of an array any `indexOf` searches while `work` runs, and the longest array
 * searched. The client's connection queue finds a connection with `indexOf` each time the
 * connection changes state (bin/patch-dependencies.ts).
 */
async function longestSearches(work: () => Promise<void>): Promise<{ searched: number; array: number }> {
  const indexOf = Array.prototype.indexOf;
  const longest = { searched: 0, array: 0 };
  Array.prototype.indexOf = function (this: unknown[], element: unknown, from?: number) {
    longest.searched = Math.max(longest.searched, this.length - (from ?? 0));
    longest.array = Math.max(longest.array, this.length);
    return indexOf.call(this, element, from);
  };
  try {
    await work();
  } finally {
    Array.prototype.indexOf = indexOf;
  }
  return longest;
}

describe("the database client's connection queue", {
  skip: services ? false : "Postgres unreachable",
}, () => {
  it("stays as long as its connections while every connection is kept busy", async () => {
    const connections = 5;
    const sql = postgres(services!.databaseUrl, { max: connections, onnotice: () => {} });
    try {
      await Promise.all(Array.from({ length: connections }, () => sql`select 1`));
      // Fifty callers keep all five connections busy, so each query goes to a busy connection.
      let left = 5_000;
      const longest = await longestSearches(async () => {
        await Promise.all(
          Array.from({ length: 50 }, async () => {
            while (left-- > 0) await sql`select 1`;
          }),
        );
      });
      assert.ok(longest.searched <= connections, `a search went through ${longest.searched} elements`);
      assert.ok(longest.array <= 200, `the queue's array grew to ${longest.array} elements`);
    } finally {
      await sql.end();
    }
  });
});
