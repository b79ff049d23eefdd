import postgres from "postgres";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";
import { DATABASE_URL } from "../platform-env.ts";

const CONNECTIONS = 5;
const CALLERS = 50;
const SECONDS = 20;
/** How long each window measured: the first after a second of warm-up, the last at the end. */
const WINDOW_SECONDS = 3;

/**
 * The pool the platform's processes use, kept busy by 50 callers of a trivial query for 20 s: the
 * rate of the last 3 s against that of the first 3 s. A queue whose work grows with the queries
 * sent while every connection is busy (bin/patch-dependencies.ts) shows here as a falling rate.
 */
async function saturatedRates(): Promise<{ first: number; last: number }> {
  const sql = postgres(DATABASE_URL, { max: CONNECTIONS, onnotice: () => {} });
  try {
    await Promise.all(Array.from({ length: CONNECTIONS }, () => sql`select 1`));
    const started = performance.now();
    const firstWindow = [started + 1000, started + 1000 + WINDOW_SECONDS * 1000];
    const lastWindow = [started + (SECONDS - WINDOW_SECONDS) * 1000, started + SECONDS * 1000];
    let first = 0;
    let last = 0;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        for (let now = performance.now(); now < lastWindow[1]!; now = performance.now()) {
          await sql`select 1`;
          if (now >= firstWindow[0]! && now < firstWindow[1]!) first++;
          else if (now >= lastWindow[0]!) last++;
        }
      }),
    );
    return { first: first / WINDOW_SECONDS, last: last / WINDOW_SECONDS };
  } finally {
    await sql.end();
  }
}

export const databaseClientBench: BenchCase = {
  name: "database-client",
  description: `the Postgres pool of ${CONNECTIONS} connections kept busy by ${CALLERS} callers for ${SECONDS} s`,
  async run() {
    const { first, last } = await saturatedRates();
    return [higherIsBetter("database-client.saturated-rate", "queries/s", last, first, 0.8)];
  },
};
