import { pino } from "pino";
import type { Broker, DeadLetter } from "../../contracts/broker.ts";
import type { Database } from "../../runtime/database.ts";

export const silentLogger = pino({ level: process.env.TEST_LOG_LEVEL ?? "silent" });

/** Polls until the condition holds, failing the test after `timeoutMs`. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = "condition",
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until a statement of this database waits on a lock (a row another transaction holds). */
export function waitForLockWaiter(db: Database): Promise<void> {
  return waitFor(
    async () => {
      const [row] = await db.sql<{ n: number }[]>`
        select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`;
      return row!.n > 0;
    },
    5000,
    "a statement waiting on a lock",
  );
}

/** Collects dead letters of a queue until `count` have arrived. */
export async function waitForDeadLetters(
  broker: Broker,
  queue: string,
  count: number,
): Promise<DeadLetter[]> {
  const letters: DeadLetter[] = [];
  await waitFor(
    async () => {
      letters.push(...(await broker.takeDeadLetters(queue, 10)));
      return letters.length >= count;
    },
    10_000,
    `${count} dead letters on ${queue}`,
  );
  return letters;
}
