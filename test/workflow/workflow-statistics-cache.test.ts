import assert from "node:assert/strict";
import { upsertTenant } from "../../identity/tenant-store.ts";
import type { Sql } from "../../runtime/database.ts";
import type { StatisticsCache } from "../../workflow/statistics/statistics-cache.ts";
import { emptyHour } from "../../workflow/statistics/statistics-deltas.ts";
import { addToHours } from "../../workflow/statistics/statistics-store.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import { portalApplication, sysToken } from "../support/workflow-fixture.ts";
import { formOnlyWorkflow } from "../support/workflow-graphs.ts";

/**
 * Spec 001's 2-minute cache of statistics, over HTTP, with the gateway's clock moved by the test:
 * a question asked again within 2 minutes answers what was counted the first time, whatever
 * happened since, a switch of the setting included; from 2 minutes on it is counted anew.
 */

const ADMIN_TOKEN = "cache-admin-token-0123456789abcdefghijklm";
const SECRET = "cache-portal-secret-0123456789abcdefghijk";
const SYS_SCOPES = ["sys_stats"];
const TENANT = { domain: "example.edu", name: "Example University" };
const HOUR = new Date("2026-03-02T10:00:00Z");
const STATUS = "/stats/app/*/processes/status";
const RECENT = "/stats/app/*/processes/recent";
const finish = String(Date.parse("2026-03-02T12:00:00Z") / 1000);

for (const mode of await testModes()) {
  describe(`workflow statistics' cache (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: (() => Promise<void>) | undefined;
    let sql: Sql;
    let token: string;
    let cache: StatisticsCache;
    let now = Date.parse("2026-03-02T12:00:00Z");
    let tenantId: string;
    let appId: string;
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const ask = async (path: string, params: Record<string, string> = {}) =>
      (await api.ok("GET", path, token, params)).entities[0] as Record<string, unknown>;
    const running = async (params: Record<string, string> = {}) => (await ask(STATUS, params)).running;
    /** One more process counted as running in the roll-ups, as the subscriber would write it. */
    const countOneMore = () =>
      addToHours(
        sql,
        [{ ...emptyHour({ tenantId, test: false, appId, hour: HOUR }), started: 1, running: 1 }],
        new Map([[tenantId, "UTC"]]),
      );

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: [{ ...TENANT, workflow: { statistics: { on: true } } }],
        applications: [portalApplication(SECRET, SYS_SCOPES)],
        workflows: [formOnlyWorkflow(TENANT.domain, "leave", "HR")],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN }, "http only");
      sql = platform.running.platform.db.sql;
      cache = platform.running.statistics!;
      cache.now = () => now;
      token = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES.join(" "));
      const [app] = await sql<{ id: string; tenantId: string }[]>`
        select id, tenant_id as "tenantId" from workflow_apps where code = 'leave'`;
      appId = app!.id;
      tenantId = app!.tenantId;
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("answers an identical question within 2 minutes from the cache, and counts anew after", async () => {
      await countOneMore();
      assert.equal(await running(), 1);
      const recent = await ask(RECENT, { finish });
      await countOneMore();
      now += 119_000;
      assert.equal(await running(), 1, "the same question, 1 minute 59 seconds later");
      assert.deepEqual(await ask(RECENT, { finish }), recent);
      assert.equal(await running({ start: "1" }), 2, "another question is counted");
      now += 1_000;
      assert.equal(await running(), 2, "2 minutes after it was counted");
      assert.notDeepEqual(await ask(RECENT, { finish }), recent);
    });

    it("answers a switch of the setting within at most 2 minutes", async () => {
      assert.equal(await running(), 2);
      await upsertTenant(sql, { ...TENANT, workflow: { statistics: { on: false, timeZone: "UTC" } } });
      now += 60_000;
      assert.equal(await running(), 2, "still the answer counted while on");
      now += 60_000;
      assert.equal(await running(), 0, "off: zeros");
      await upsertTenant(sql, { ...TENANT, workflow: { statistics: { on: true, timeZone: "UTC" } } });
      assert.equal(await running(), 0, "on again: the answer counted while off, for now");
      now += 120_000;
      assert.equal(await running(), 2);
    });
  });
}
