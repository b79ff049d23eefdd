import { pino } from "pino";
import { loadConfig } from "../../runtime/config.ts";
import { openDatabase, type Queryable, type Sql } from "../../runtime/database.ts";
import { migrate } from "../../runtime/migrations.ts";
import { freshDatabase } from "../../test/support/platform.ts";
import { startOutboxRelay } from "../../workflow/outbox/outbox-relay.ts";
import type { OutboxEvent, OutboxSubscriber } from "../../workflow/outbox/outbox-subscriber.ts";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";
import { DATABASE_URL } from "../platform-env.ts";
import { median } from "../statistics.ts";

const EVENTS = 50_000;
const BATCH = 500;
const ROUNDS = 3;
/** The bar on the ratio to the bare read (docs/benchmark-bars.md), and the 5,000 events a second. */
const RATIO = 0.55;
const ABSOLUTE = 5_000;

const log = pino({ level: "silent" });

/** A subscriber that writes each event's id into a table of its own, in the relay's transaction. */
class TableRecorder implements OutboxSubscriber {
  readonly name = "bench-recorder";
  received = 0;

  async accept(events: readonly OutboxEvent[], tx: Queryable) {
    await tx`insert into bench_received (event_id) select unnest(${events.map((event) => event.id)}::bigint[])`;
    this.received += events.length;
    return undefined;
  }
}

/** `EVENTS` engine-sized events of 1,000 processes, none with a position yet. */
async function writeEvents(sql: Sql): Promise<void> {
  await sql`truncate workflow_events, workflow_outbox_cursors, bench_received`;
  await sql`
    insert into workflow_events (tenant_id, test, process_id, type, task_id, users, payload)
    select '00000000-0000-0000-0000-000000000001', false, ('00000000-0000-0000-0000-' || lpad((i % 1000)::text, 12, '0'))::uuid,
           'todo.created', gen_random_uuid(), array[gen_random_uuid()],
           jsonb_build_object('type', 'todo.created', 'node', 'approve', 'task', gen_random_uuid())
    from generate_series(1, ${EVENTS}) as i`;
  await sql`vacuum analyze workflow_events`;
}

/** The reference: a bare `id > $1 order by id limit N` loop reading every event, events a second. */
async function bareRead(sql: Sql): Promise<number> {
  const started = performance.now();
  let after = 0;
  let read = 0;
  for (;;) {
    const rows = await sql<{ id: number }[]>`
      select id::float8 as id, tenant_id, test, process_id, type, task_id, users, payload, created_at
      from workflow_events where id > ${after} order by id limit ${BATCH}`;
    if (rows.length === 0) break;
    read += rows.length;
    after = rows.at(-1)!.id;
  }
  if (read !== EVENTS) throw new Error(`the bare read took ${read} events of ${EVENTS}`);
  return EVENTS / ((performance.now() - started) / 1000);
}

/** The relay, sequencing and delivering every event to the recorder, events a second. */
async function relayed(sql: Sql): Promise<number> {
  const recorder = new TableRecorder();
  const started = performance.now();
  const relay = startOutboxRelay({ sql, log }, [recorder], { retainSeconds: 86_400, batchSize: BATCH });
  try {
    while (recorder.received < EVENTS) await new Promise((resolve) => setTimeout(resolve, 2));
    return EVENTS / ((performance.now() - started) / 1000);
  } finally {
    await relay.stop();
  }
}

export const outboxRelayBench: BenchCase = {
  name: "outbox-relay",
  description: `${EVENTS.toLocaleString("en")} outbox events sequenced and delivered to a subscriber writing them to a table`,
  async run() {
    const scratch = await freshDatabase(DATABASE_URL);
    const db = await openDatabase(loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: "silent" }), log);
    try {
      await migrate(db.sql, log);
      await db.sql`create table bench_received (event_id bigint not null)`;
      const values: number[] = [];
      const references: number[] = [];
      const ratios: number[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        await writeEvents(db.sql);
        const reference = await bareRead(db.sql);
        const value = await relayed(db.sql);
        references.push(reference);
        values.push(value);
        ratios.push(value / reference);
      }
      return [
        higherIsBetter("outbox-relay.throughput", "events/s", median(values), median(references), RATIO, {
          ratio: median(ratios),
          absoluteTarget: ABSOLUTE,
        }),
      ];
    } finally {
      await db.close();
      await scratch.drop();
    }
  },
};
