import type { Queryable, Sql } from "../../runtime/database.ts";
import { transaction } from "../../runtime/database.ts";
import { startableApp } from "../../workflow/app-store.ts";
import type { CallbackOutboxEvent } from "../../workflow/messenger/callback-events.ts";
import { callbackSubscriber } from "../../workflow/messenger/callback-subscriber.ts";
import { startProcess } from "../../workflow/process-commands.ts";

/** The outbox events after `cursor`, in order, as the relay hands them on. */
export async function outboxAfter(sql: Queryable, cursor: string): Promise<CallbackOutboxEvent[]> {
  return sql<CallbackOutboxEvent[]>`
    select id::text, tenant_id as "tenantId", test, process_id as "processId", type, task_id as "taskId", users,
           payload, created_at as "createdAt"
    from workflow_events where id > ${cursor}::bigint order by id`;
}

/**
 * Does what the outbox relay does for the callback subscriber: hands it the events after the
 * cursor in one transaction, and answers the cursor after them.
 */
export class TestRelay {
  cursor = "0";

  constructor(private readonly sql: Sql) {}

  async run(): Promise<CallbackOutboxEvent[]> {
    const events = await outboxAfter(this.sql, this.cursor);
    if (events.length === 0) return events;
    await transaction(this.sql, (tx) => callbackSubscriber.accept(events, tx));
    this.cursor = String(events.at(-1)!.id);
    return events;
  }

  /** Offers the same events again, as the relay does after a failure to advance its cursor. */
  async offerAgain(events: readonly CallbackOutboxEvent[]): Promise<void> {
    await transaction(this.sql, (tx) => callbackSubscriber.accept(events, tx));
  }
}

/** Starts a process of the app `code` for `account` (formal data), and relays the events so far. */
export async function startAndRelay(sql: Sql, account: string, code: string): Promise<void> {
  const [user] = await sql<{ id: string; tenantId: string }[]>`
    select id, tenant_id as "tenantId" from users where account = ${account}`;
  const app = await startableApp(sql, user!.tenantId, code, false);
  if (!app) throw new Error(`no startable app ${code}`);
  await sql.begin((tx) =>
    startProcess(tx, {
      tenantId: user!.tenantId,
      test: false,
      app,
      ownerId: user!.id,
      actualUserId: null,
      data: {},
      businessId: null,
    }),
  );
  await new TestRelay(sql).run();
}

/** The bootstrap file's entry of `hooks`, a workflow that only starts and ends, calling back `url` when it starts. */
export function hooksWorkflow(tenant: string, url: string) {
  return {
    tenant,
    code: "hooks",
    name: "Hooks",
    versions: [
      {
        online: true,
        definition: {
          graph: {
            nodes: [
              { kind: "start", code: "apply" },
              { kind: "end", code: "done" },
            ],
            edges: [{ from: "apply", to: "done" }],
          },
          events: [{ on: "started", url }],
        },
      },
    ],
  };
}
