import type { Sql } from "../../runtime/database.ts";
import { startableApp } from "../../workflow/app-store.ts";
import { callbackSubscriber } from "../../workflow/messenger/callback-subscriber.ts";
import { deliverBatches } from "../../workflow/outbox/outbox-delivery.ts";
import { sequenceEvents } from "../../workflow/outbox/outbox-sequencer.ts";
import { startProcess } from "../../workflow/process-commands.ts";
import { silentLogger } from "./wait.ts";

/**
 * The outbox relay's rounds for the callback subscriber, run when a test says (the relay runs them
 * on its own timer): numbers what committed, then hands the subscriber every batch after its cursor.
 */
export class TestRelay {
  constructor(private readonly sql: Sql) {}

  async run(): Promise<void> {
    await this.sql`
      insert into workflow_outbox_cursors (subscriber) values (${callbackSubscriber.name}) on conflict do nothing`;
    while ((await sequenceEvents(this.sql, 500)) > 0);
    for (;;) {
      const { accepted, failed } = await deliverBatches(this.sql, [callbackSubscriber], 500, silentLogger);
      const error = failed.get(callbackSubscriber.name);
      if (error) throw error;
      if (!accepted.get(callbackSubscriber.name)) break;
    }
  }

  /** Moves the cursor back before the first of these events and runs: the relay's offer after a failed commit. */
  async offerAgainFrom(eventIds: readonly string[]): Promise<void> {
    await this.sql`
      update workflow_outbox_cursors
      set position = (select min(position) - 1 from workflow_events where id = any(${eventIds as string[]}::bigint[]))
      where subscriber = ${callbackSubscriber.name}`;
    await this.run();
  }
}

/** Starts a process of the app `code` for `account` (formal data); the platform's relay takes its events on. */
export async function startHooksProcess(sql: Sql, account: string, code: string): Promise<void> {
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
