import assert from "node:assert/strict";
import type { Sql } from "../../runtime/database.ts";
import { sequenceEvents } from "../../workflow/outbox/outbox-sequencer.ts";
import { metricSamples } from "../support/metric-samples.ts";
import { startTestPlatform, type TestPlatform, testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";

const ADMIN_TOKEN = "outbox-admin-token-0123456789abcdefghijkl";
const METRICS_TOKEN = "outbox-scraper-token-0123456789";

/** Writes `count` events of made-up processes, `ageSeconds` old. */
async function insertEvents(sql: Sql, count: number, ageSeconds: number): Promise<void> {
  await sql`
    insert into workflow_events (tenant_id, test, process_id, type, created_at)
    select gen_random_uuid(), false, gen_random_uuid(), 'test.event', now() - make_interval(secs => ${ageSeconds})
    from generate_series(1, ${count})`;
}

for (const mode of await testModes()) {
  describe(`the outbox relay's lag for operators (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let delivered: number;

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      // A gateway alone runs no relay: these cursors and events are the test's alone.
      platform = await startTestPlatform({ ...prepared.env, ADMIN_TOKEN, METRICS_TOKEN }, "http only");
      const sql = platform.running.platform.db.sql;
      await insertEvents(sql, 4, 600);
      await insertEvents(sql, 3, 120);
      await sequenceEvents(sql, 100);
      await insertEvents(sql, 2, 30);
      const [fourth] = await sql<{ position: number }[]>`
        select position::float8 as position from workflow_events where position is not null
        order by workflow_events.position offset 3 limit 1`;
      delivered = fourth!.position;
      await sql`
        insert into workflow_outbox_cursors (subscriber, position)
        values ('push', ${delivered}), ('callbacks', 0)`;
    });
    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("GET /admin/workflows/outbox gives each subscriber's position, events and seconds behind", async () => {
      const response = await fetch(`${platform!.url}/admin/workflows/outbox`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as {
        unsequenced: number;
        subscribers: {
          subscriber: string;
          position: number;
          eventsBehind: number;
          secondsBehind: number;
          updatedAt: string;
        }[];
      };
      assert.equal(body.unsequenced, 2);
      assert.deepEqual(
        body.subscribers.map(({ subscriber, position, eventsBehind }) => ({
          subscriber,
          position,
          eventsBehind,
        })),
        [
          { subscriber: "callbacks", position: 0, eventsBehind: 9 },
          { subscriber: "push", position: delivered, eventsBehind: 5 },
        ],
      );
      const [callbacks, push] = body.subscribers;
      assert.ok(
        callbacks!.secondsBehind >= 600 && callbacks!.secondsBehind < 660,
        String(callbacks!.secondsBehind),
      );
      assert.ok(push!.secondsBehind >= 120 && push!.secondsBehind < 180, String(push!.secondsBehind));
      assert.ok(Math.abs(Date.parse(push!.updatedAt) - Date.now()) < 60_000);

      const refused = await fetch(`${platform!.url}/admin/workflows/outbox`);
      assert.equal(refused.status, 401);
    });

    it("GET /admin/workflows/consistency names the processes whose rows disagree", async () => {
      const check = async () => {
        const response = await fetch(`${platform!.url}/admin/workflows/consistency`, {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
        assert.equal(response.status, 200);
        return ((await response.json()) as { inconsistencies: { processId: string; rule: string }[] })
          .inconsistencies;
      };
      assert.deepEqual(await check(), []);
      // A to-do row whose task is gone from the to-do: the rows of a process that disagree.
      const sql = platform!.running.platform.db.sql;
      const [tenant] = await sql<{ id: string }[]>`
        insert into tenants (domain, name) values ('check.edu', 'Check') returning id`;
      const [user] = await sql<{ id: string }[]>`
        insert into users (tenant_id, account, name) values (${tenant!.id}, 'una', 'Una') returning id`;
      const [app] = await sql<{ id: string }[]>`
        insert into workflow_apps (tenant_id, code, name) values (${tenant!.id}, 'a', 'A') returning id`;
      const [version] = await sql<{ id: string }[]>`
        insert into workflow_versions (app_id, number, definition, digest)
        values (${app!.id}, 1, '{}', 'd') returning id`;
      const [process] = await sql<{ id: string }[]>`
        insert into workflow_processes (tenant_id, test, app_id, version_id, name, owner_id, status)
        values (${tenant!.id}, false, ${app!.id}, ${version!.id}, 'P', ${user!.id}, 'doing') returning id`;
      const found = await check();
      assert.ok(
        found.some(
          (finding) =>
            finding.processId === process!.id && finding.rule === "a process going on with no task open",
        ),
        JSON.stringify(found),
      );
    });

    it("/metrics has the same figures as gauges", async () => {
      const response = await fetch(`${platform!.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      assert.equal(response.status, 200);
      const samples = metricSamples(await response.text());
      assert.equal(samples.get("workflow_outbox_unsequenced_events"), 2);
      assert.equal(samples.get('workflow_outbox_position{subscriber="push"}'), delivered);
      assert.equal(samples.get('workflow_outbox_events_behind{subscriber="push"}'), 5);
      assert.equal(samples.get('workflow_outbox_events_behind{subscriber="callbacks"}'), 9);
      const behind = samples.get('workflow_outbox_seconds_behind{subscriber="callbacks"}') ?? 0;
      assert.ok(behind >= 600 && behind < 660, String(behind));
    });
  });
}
