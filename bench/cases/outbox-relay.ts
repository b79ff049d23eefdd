import { pino } from "pino";
import { EmbeddedBroker } from "../../runtime/broker/embedded-broker.ts";
import { loadConfig } from "../../runtime/config.ts";
import { openDatabase, type Queryable, type Sql } from "../../runtime/database.ts";
import { migrate } from "../../runtime/migrations.ts";
import { freshDatabase } from "../../test/support/platform.ts";
import { startOutboxRelay } from "../../workflow/outbox/outbox-relay.ts";
import type { OutboxEvent, OutboxSubscriber } from "../../workflow/outbox/outbox-subscriber.ts";
import { workflowPushSubscriber } from "../../workflow/workflow-push.ts";
import { type BenchCase, higherIsBetter } from "../bench-result.ts";
import { DATABASE_URL } from "../platform-env.ts";
import { median } from "../statistics.ts";

const EVENTS = 50_000;
const BATCH = 500;
const ROUNDS = 3;
/** The bar on the ratio to the bare read (docs/benchmark-bars.md), and the 5,000 events a second. */
const RATIO = 0.55;
/** The push subscriber writes a message and moves a clock per event: its bar on the same reference. */
const PUSH_RATIO = 0.25;
const ABSOLUTE = 5_000;

const log = pino({ level: "silent" });
const TENANT = "00000000-0000-0000-0000-000000000001";

/** A subscriber that writes each event's id into a table of its own, in the relay's transaction. */
class TableRecorder implements OutboxSubscriber {
  readonly name = "bench-recorder";

  async accept(events: readonly OutboxEvent[], tx: Queryable) {
    await tx`insert into bench_received (event_id) select unnest(${events.map((event) => event.id)}::bigint[])`;
    return undefined;
  }
}

/**
 * `EVENTS` engine-sized events of 1,000 processes, none with a position yet, written after the
 * subscribers' cursors (a subscriber takes the events written once it exists): copies to one of the
 * 1,000 users each, which the push subscriber turns into a message each.
 */
async function writeEvents(sql: Sql, subscribers: readonly string[]): Promise<void> {
  await sql`truncate workflow_events, workflow_outbox_cursors, bench_received, push_messages, push_clocks`;
  await sql`insert into workflow_outbox_cursors (subscriber) select unnest(${subscribers as string[]}::text[])`;
  await sql`
    insert into workflow_events (tenant_id, test, process_id, type, users, payload)
    select ${TENANT}, false, ('00000000-0000-0000-0000-' || lpad((i % 1000)::text, 12, '0'))::uuid,
           'cc', array[u.id], jsonb_build_object('type', 'cc', 'node', 'approve', 'task', null)
    from generate_series(1, ${EVENTS}) as i
    join (select id, row_number() over (order by id) - 1 as n from users) u on u.n = i % 1000`;
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

/** The relay, sequencing and delivering every event to the subscriber, events a second. */
async function relayed(sql: Sql, subscriber: OutboxSubscriber): Promise<number> {
  const started = performance.now();
  const relay = startOutboxRelay({ sql, log }, [subscriber], { retainSeconds: 86_400, batchSize: BATCH });
  try {
    // Every event numbered, and the cursor at the last: the subscriber has accepted them all.
    const done = async () => {
      const [row] = await sql<{ done: boolean }[]>`
        select not exists (select from workflow_events where position is null)
           and (select position from workflow_outbox_cursors where subscriber = ${subscriber.name})
             >= (select max(position) from workflow_events) as done`;
      return row!.done;
    };
    while (!(await done())) await new Promise((resolve) => setTimeout(resolve, 5));
    return EVENTS / ((performance.now() - started) / 1000);
  } finally {
    await relay.stop();
  }
}

export const outboxRelayBench: BenchCase = {
  name: "outbox-relay",
  description: `${EVENTS.toLocaleString("en")} outbox events (copies to 1,000 users) sequenced and delivered to a subscriber writing them to a table, then to the push subscriber storing a message each`,
  async run() {
    const scratch = await freshDatabase(DATABASE_URL);
    const db = await openDatabase(loadConfig({ DATABASE_URL: scratch.url, LOG_LEVEL: "silent" }), log);
    // The push subscriber's notices go out on a broker no gateway listens to here.
    const broker = new EmbeddedBroker(log);
    try {
      await migrate(db.sql, log);
      await db.sql`create table bench_received (event_id bigint not null)`;
      await db.sql`insert into tenants (id, domain, name) values (${TENANT}, 'bench.edu', 'Bench')`;
      await db.sql`
        insert into users (tenant_id, account, name)
        select ${TENANT}, 'user' || i, 'User ' || i from generate_series(1, 1000) as i`;
      const subscribers = {
        recorder: new TableRecorder(),
        push: workflowPushSubscriber({ broker, log }),
      };
      const rows = [];
      for (const [name, subscriber] of Object.entries(subscribers)) {
        const values: number[] = [];
        const references: number[] = [];
        const ratios: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          await writeEvents(db.sql, [subscriber.name]);
          const reference = await bareRead(db.sql);
          const value = await relayed(db.sql, subscriber);
          references.push(reference);
          values.push(value);
          ratios.push(value / reference);
        }
        const row = name === "push" ? "outbox-relay.push-throughput" : "outbox-relay.throughput";
        rows.push(
          higherIsBetter(
            row,
            "events/s",
            median(values),
            median(references),
            name === "push" ? PUSH_RATIO : RATIO,
            {
              ratio: median(ratios),
              absoluteTarget: ABSOLUTE,
            },
          ),
        );
      }
      return rows;
    } finally {
      await broker.close();
      await db.close();
      await scratch.drop();
    }
  },
};
