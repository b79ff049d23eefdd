import assert from "node:assert/strict";
import type { Sql } from "../../runtime/database.ts";
import { type OutboxRelay, startOutboxRelay } from "../../workflow/outbox/outbox-relay.ts";
import { workflowStatisticsSubscriber } from "../../workflow/statistics/statistics-subscriber.ts";
import { waitUntilRelayed } from "../support/outbox.ts";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { silentLogger } from "../support/wait.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
} from "../support/workflow-fixture.ts";
import { formOnly } from "../support/workflow-graphs.ts";

/**
 * Spec 001 8.x over HTTP. The processes are run through the API by a gateway alone; their events'
 * times are then moved to known instants around the spring daylight-saving change of Europe/Paris
 * (2026-03-29 has 23 hours there), and the relay, run by the test, feeds them to the statistics
 * subscriber, whose cursor was made before the first event. The answers must be exactly those times'
 * counts, in each tenant's time zone, for what each caller may see.
 */

const ADMIN_TOKEN = "stats-admin-token-0123456789abcdefghijklmn";
const SECRET = "stats-portal-secret-0123456789abcdefghijk";
const USER_SCOPES = ["start", "submit", "process_edit", "stats"];
const SYS_SCOPES = ["sys_process_edit", "sys_stats"];
const OTHER_REDIRECT = "https://portal.other.edu/callback";

const workflow = (tenant: string, code: string, tags: string, lists: Record<string, string[]> = {}) => ({
  tenant,
  code,
  name: code,
  tags,
  ...lists,
  versions: [{ online: true, beta: true, definition: formOnly }],
});

const at = (iso: string) => new Date(iso);
const unix = (iso: string) => String(Date.parse(iso) / 1000);

for (const mode of await testModes()) {
  describe(`workflow statistics 8.x (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let relay: OutboxRelay | undefined;
    let cleanup: (() => Promise<void>) | undefined;
    let sql: Sql;
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const tokens: Record<string, string> = {};
    const sys: Record<string, string> = {};
    const apps: Record<string, string> = {};

    /** Starts `code` as `account` (the form is theirs to do); answers its serial number and its form task. */
    async function start(account: string, code: string, base = "/apis/v2") {
      const started = await api.ok("PUT", "/process", tokens[account]!, { code }, base);
      const [entry, , , task] = started.entities as unknown as [number, number, string, { id: string }];
      return { entry, task: task.id, base, account };
    }
    type Started = Awaited<ReturnType<typeof start>>;

    /** Moves the process's events and its form's times (its end and handled form to `ended`) to known times. */
    async function backdate(process: Started, started: Date, ended?: Date) {
      const [row] = await sql<
        { id: string }[]
      >`select process_id as id from workflow_tasks where id = ${process.task}`;
      await sql`update workflow_events set created_at = ${started}
                where process_id = ${row!.id} and type not in ('process.ended', 'todo.done')`;
      if (ended) {
        await sql`update workflow_events set created_at = ${ended}
                  where process_id = ${row!.id} and type in ('process.ended', 'todo.done')`;
      }
      await sql`update workflow_tasks set assigned_at = ${started} where process_id = ${row!.id}`;
      if (ended) {
        await sql`update workflow_tasks set handled_at = ${ended}
                  where process_id = ${row!.id} and handled_at is not null`;
      }
    }

    const complete = (process: Started) =>
      api.ok("POST", `/task/${process.task}`, tokens[process.account]!, {}, process.base);
    const act = (process: Started, action: string, tenant = "example.edu") =>
      api.ok("POST", `/process/${process.entry}`, sys[tenant]!, { action }, process.base);

    async function stats<T>(token: string, path: string, params: Record<string, string> = {}, base?: string) {
      return (await api.ok<T>("GET", path, token, params, base)).entities[0]!;
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const people = [
        ["example.edu", "alice"],
        ["example.edu", "bob"],
        ["example.edu", "carol"],
        ["example.edu", "dan"],
        ["other.edu", "olga"],
        ["quiet.edu", "quinn"],
      ] as const;
      const env = await withBootstrap(prepared.env, {
        tenants: [
          {
            domain: "example.edu",
            name: "Example University",
            workflow: { statistics: { on: true, timeZone: "Europe/Paris" } },
          },
          { domain: "other.edu", name: "Other College", workflow: { statistics: { on: true } } },
          { domain: "quiet.edu", name: "Quiet School" },
        ],
        applications: [
          portalApplication(SECRET, [...USER_SCOPES, ...SYS_SCOPES]),
          {
            ...otherTenantApplication(SECRET, [...USER_SCOPES, ...SYS_SCOPES]),
            redirectUris: [OTHER_REDIRECT],
          },
          {
            id: "quiet",
            secret: SECRET,
            name: "Quiet",
            type: "enterprise",
            tenant: "quiet.edu",
            scopes: SYS_SCOPES,
          },
          { ...portalApplication(SECRET, USER_SCOPES), id: "quiet-portal", tenant: "quiet.edu" },
          {
            id: "leave-app",
            secret: SECRET,
            name: "Leave",
            type: "workflow",
            tenant: "example.edu",
            workflowCode: "leave",
            scopes: SYS_SCOPES,
          },
        ],
        users: people.map(([tenant, account]) => ({
          tenant,
          account,
          name: account,
          password: WORKFLOW_PASSWORD,
        })),
        workflows: [
          workflow("example.edu", "leave", "HR,leave", { administrators: ["carol"] }),
          workflow("example.edu", "survey", "HR", { guests: ["bob"] }),
          workflow("example.edu", "trip", "Travel"),
          workflow("other.edu", "leave", "HR"),
          workflow("quiet.edu", "leave", "HR"),
        ],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN }, "http only");
      sql = platform.running.platform.db.sql;
      // Made before the first event: the subscriber is offered every event of the suite.
      await sql`insert into workflow_outbox_cursors (subscriber) values (${workflowStatisticsSubscriber.name})`;
      const scope = USER_SCOPES.join(" ");
      Object.assign(
        tokens,
        await portalUserTokens(platform.url, SECRET, ["alice", "bob", "carol", "dan"], scope),
        await portalUserTokens(platform.url, SECRET, ["olga"], scope, {
          id: "other",
          redirectUri: OTHER_REDIRECT,
        }),
        await portalUserTokens(platform.url, SECRET, ["quinn"], scope, {
          id: "quiet-portal",
          redirectUri: PORTAL_REDIRECT,
        }),
      );
      for (const [tenant, id] of [
        ["example.edu", "portal"],
        ["other.edu", "other"],
        ["quiet.edu", "quiet"],
        ["leave-app", "leave-app"],
      ] as const)
        sys[tenant] = await sysToken(platform.url, id, SECRET, SYS_SCOPES.join(" "));
      for (const row of await sql<{ code: string; domain: string; id: string }[]>`
        select a.code, t.domain, a.id from workflow_apps a join tenants t on t.id = a.tenant_id`)
        apps[`${row.domain} ${row.code}`] = row.id;

      // example.edu (Europe/Paris): CET (+1) until 2026-03-29 01:00Z, CEST (+2) after.
      const p1 = await start("alice", "leave");
      await complete(p1);
      await backdate(p1, at("2026-03-28T10:15:00Z"), at("2026-03-29T00:30:00Z"));
      const p2 = await start("alice", "leave");
      await act(p2, "kill");
      await backdate(p2, at("2026-03-29T21:30:00Z"), at("2026-03-29T22:30:00Z"));
      const p3 = await start("alice", "leave");
      await backdate(p3, at("2026-03-29T22:30:00Z"));
      const p4 = await start("alice", "survey");
      await act(p4, "suspend");
      await backdate(p4, at("2026-03-29T10:20:00Z"));
      const p5 = await start("alice", "leave");
      await complete(p5);
      await backdate(p5, at("2026-03-30T08:00:00Z"), at("2026-03-30T09:45:00Z"));
      // Test data of example.edu; other.edu (UTC) and quiet.edu (statistics off by default).
      const p6 = await start("alice", "leave", "/apis/v2d");
      await backdate(p6, at("2026-03-29T12:00:00Z"));
      const p7 = await start("olga", "leave");
      await complete(p7);
      await backdate(p7, at("2026-03-29T12:00:00Z"), at("2026-03-29T13:00:00Z"));
      const p8 = await start("quinn", "leave");
      await backdate(p8, at("2026-03-29T12:00:00Z"));

      relay = startOutboxRelay({ sql, log: silentLogger }, [workflowStatisticsSubscriber], {
        retainSeconds: 3600,
        idlePauseMs: { first: 5, most: 50 },
        gatherPauseMs: 5,
        retryPauseMs: { first: 20, most: 50 },
      });
      await waitUntilRelayed(sql, 20_000, "the statistics subscriber past every event");
    });

    after(async () => {
      await relay?.stop();
      await platform?.stop();
      await cleanup?.();
    });

    const STATUS = "/stats/app/*/processes/status";
    const RECENT = "/stats/app/*/processes/recent";

    it("8.2 counts the processes started in [start, finish] by their status now, to the second", async () => {
      const token = sys["example.edu"]!;
      assert.deepEqual(
        await stats(token, STATUS, {
          start: unix("2026-03-29T00:00:00Z"),
          finish: unix("2026-03-29T22:30:00Z"),
        }),
        { running: 1, suspend: 1, killed: 1, completed: 0 },
      );
      // A range inside one hour, and ranges whose edges cut hours: read from the processes there.
      const p1 = unix("2026-03-28T10:15:00Z");
      assert.deepEqual(await stats(token, STATUS, { start: p1, finish: p1 }), {
        running: 0,
        suspend: 0,
        killed: 0,
        completed: 1,
      });
      assert.deepEqual(
        await stats(token, STATUS, { start: String(Number(p1) + 1), finish: unix("2026-03-30T08:00:00Z") }),
        { running: 1, suspend: 1, killed: 1, completed: 1 },
      );
      assert.deepEqual(
        await stats(token, STATUS, {
          start: unix("2026-03-29T22:30:01Z"),
          finish: unix("2026-03-30T07:59:59Z"),
        }),
        { running: 0, suspend: 0, killed: 0, completed: 0 },
      );
      assert.deepEqual(await stats(token, "/stats/app/survey/processes/status"), {
        running: 0,
        suspend: 1,
        killed: 0,
        completed: 0,
      });
    });

    it("8.3 counts starts by start time and ends by end time, in the tenant's days, weeks, months and years", async () => {
      const token = sys["example.edu"]!;
      const recent = (cycle: string, finish: string) =>
        stats<Record<string, { started: number; completed: number; killed: number }>>(token, RECENT, {
          cycle,
          finish: unix(finish),
        });
      const none = { started: 0, completed: 0, killed: 0 };

      const days = await recent("day", "2026-03-30T12:00:00Z");
      const dayKeys = Object.keys(days);
      assert.equal(dayKeys.length, 7);
      // Local midnights: 2026-03-29 is 23 hours long in Paris.
      assert.deepEqual(dayKeys.slice(-3), [
        unix("2026-03-27T23:00:00Z"),
        unix("2026-03-28T23:00:00Z"),
        unix("2026-03-29T22:00:00Z"),
      ]);
      assert.deepEqual(Object.values(days), [
        none,
        none,
        none,
        none,
        { started: 1, completed: 0, killed: 0 },
        { started: 2, completed: 1, killed: 0 },
        { started: 2, completed: 1, killed: 1 },
      ]);

      const hours = await recent("hour", "2026-03-30T10:59:59Z");
      assert.equal(Object.keys(hours).length, 24);
      assert.equal(Object.keys(hours)[0], unix("2026-03-29T11:00:00Z"));
      const nonEmpty = Object.entries(hours).filter(
        ([, counts]) => counts.started + counts.completed + counts.killed,
      );
      assert.deepEqual(nonEmpty, [
        [unix("2026-03-29T21:00:00Z"), { started: 1, completed: 0, killed: 0 }],
        [unix("2026-03-29T22:00:00Z"), { started: 1, completed: 0, killed: 1 }],
        [unix("2026-03-30T08:00:00Z"), { started: 1, completed: 0, killed: 0 }],
        [unix("2026-03-30T09:00:00Z"), { started: 0, completed: 1, killed: 0 }],
      ]);

      // 2026-03-30 is a Monday.
      const weeks = await recent("week", "2026-03-30T12:00:00Z");
      assert.equal(Object.keys(weeks).length, 52);
      assert.deepEqual(Object.entries(weeks).slice(-3), [
        [unix("2026-03-15T23:00:00Z"), none],
        [unix("2026-03-22T23:00:00Z"), { started: 3, completed: 1, killed: 0 }],
        [unix("2026-03-29T22:00:00Z"), { started: 2, completed: 1, killed: 1 }],
      ]);
      assert.deepEqual(Object.entries(await recent("month", "2026-03-30T12:00:00Z")), [
        [unix("2025-12-31T23:00:00Z"), none],
        [unix("2026-01-31T23:00:00Z"), none],
        [unix("2026-02-28T23:00:00Z"), { started: 5, completed: 2, killed: 1 }],
      ]);
      const years = await recent("year", "2026-03-30T12:00:00Z");
      assert.deepEqual(Object.keys(years), [
        unix("2021-12-31T23:00:00Z"),
        unix("2022-12-31T23:00:00Z"),
        unix("2023-12-31T23:00:00Z"),
        unix("2024-12-31T23:00:00Z"),
        unix("2025-12-31T23:00:00Z"),
      ]);
      assert.deepEqual(Object.values(years).at(-1), { started: 5, completed: 2, killed: 1 });

      // Without `finish`, the latest period holds now: nothing of March 2026 is in today.
      const today = await stats<Record<string, unknown>>(token, RECENT, { cycle: "hour" });
      assert.equal(Object.keys(today).length, 24);
      assert.ok(Number(Object.keys(today).at(-1)) <= Date.now() / 1000);
      assert.ok(Number(Object.keys(today).at(-1)) > Date.now() / 1000 - 3600);
    });

    it("8.4 gives the mean wait of the to-dos handled in each period, from assignment to handling", async () => {
      const waits = await stats<Record<string, number>>(sys["example.edu"]!, "/stats/app/*/tasks/todo", {
        cycle: "day",
        finish: unix("2026-03-30T12:00:00Z"),
      });
      assert.deepEqual(Object.values(waits), [0, 0, 0, 0, 0, 14 * 3600 + 15 * 60, 3600 + 45 * 60]);
    });

    it("8.1 groups the apps by main tag, with the processes started of each", async () => {
      const answer = await api.ok<{
        tag: string;
        count: number;
        apps: { code: string; processCount: number; creationDate: number; release: number | null }[];
      }>("GET", "/stats/apps", sys["example.edu"]!);
      assert.equal(answer.total, 0, "not paged: total is 0");
      const groups = answer.entities;
      assert.deepEqual(
        groups.map((group) => [
          group.tag,
          group.count,
          group.apps.map((app) => [app.code, app.processCount]),
        ]),
        [
          [
            "HR",
            2,
            [
              ["leave", 4],
              ["survey", 1],
            ],
          ],
          ["Travel", 1, [["trip", 0]]],
        ],
      );
      const leave = groups[0]!.apps[0]!;
      assert.ok(leave.creationDate > 0 && leave.release !== null && leave.release >= leave.creationDate - 1);
      const testGroups = (
        await api.ok<{ apps: { code: string; processCount: number }[] }>(
          "GET",
          "/stats/apps",
          sys["example.edu"]!,
          {},
          "/apis/v2d",
        )
      ).entities;
      assert.deepEqual(
        testGroups[0]!.apps.map((app) => [app.code, app.processCount]),
        [
          ["leave", 1],
          ["survey", 0],
        ],
      );
    });

    it("keeps the data modes apart", async () => {
      const range = { start: unix("2026-03-29T00:00:00Z"), finish: unix("2026-03-29T23:59:59Z") };
      assert.deepEqual(await stats(sys["example.edu"]!, STATUS, range, "/apis/v2d"), {
        running: 1,
        suspend: 0,
        killed: 0,
        completed: 0,
      });
    });

    it("shows a user the apps they administer or view, and no other", async () => {
      const all = { start: "0", finish: unix("2027-01-01T00:00:00Z") };
      assert.deepEqual(await stats(tokens.carol!, STATUS, all), {
        running: 1,
        suspend: 0,
        killed: 1,
        completed: 2,
      });
      assert.deepEqual(await stats(tokens.bob!, STATUS, all), {
        running: 0,
        suspend: 1,
        killed: 0,
        completed: 0,
      });
      assert.deepEqual(await stats(tokens.dan!, STATUS, all), {
        running: 0,
        suspend: 0,
        killed: 0,
        completed: 0,
      });
      const refused = await api.call(
        "GET",
        `/stats/app/${apps["example.edu leave"]}/processes/status`,
        tokens.bob!,
      );
      assert.equal(refused.body.ecode, "NOT_AN_ADMINISTRATOR");
      const carolsApps = (
        await api.ok<{ tag: string; apps: { code: string }[] }>("GET", "/stats/apps", tokens.carol!)
      ).entities;
      assert.deepEqual(
        carolsApps.map((group) => [group.tag, group.apps.map((app) => app.code)]),
        [["HR", ["leave"]]],
      );
    });

    it("shows a Workflow application its own workflow only", async () => {
      const all = { start: "0", finish: unix("2027-01-01T00:00:00Z") };
      assert.deepEqual(await stats(sys["leave-app"]!, STATUS, all), {
        running: 1,
        suspend: 0,
        killed: 1,
        completed: 2,
      });
      const survey = await api.call("GET", "/stats/app/survey/processes/status", sys["leave-app"]!);
      assert.equal(survey.body.ecode, "APP_NOT_FOUND");
    });

    it("keeps each tenant to its own processes and time zone", async () => {
      const all = { start: "0", finish: unix("2027-01-01T00:00:00Z") };
      assert.deepEqual(await stats(sys["other.edu"]!, STATUS, all), {
        running: 0,
        suspend: 0,
        killed: 0,
        completed: 1,
      });
      const days = await stats<Record<string, unknown>>(sys["other.edu"]!, RECENT, {
        cycle: "day",
        finish: unix("2026-03-29T12:00:00Z"),
      });
      assert.deepEqual(Object.entries(days).at(-1), [
        unix("2026-03-29T00:00:00Z"),
        { started: 1, completed: 1, killed: 0 },
      ]);
      const elsewhere = await api.call(
        "GET",
        `/stats/app/${apps["other.edu leave"]}/processes/status`,
        sys["example.edu"]!,
      );
      assert.equal(elsewhere.body.ecode, "APP_NOT_FOUND");
    });

    it("answers zero counts in the right structure for a tenant that did not switch statistics on", async () => {
      const token = sys["quiet.edu"]!;
      assert.deepEqual(await stats(token, STATUS, { start: "0" }), {
        running: 0,
        suspend: 0,
        killed: 0,
        completed: 0,
      });
      const days = await stats<Record<string, unknown>>(token, RECENT, {
        finish: unix("2026-03-29T12:00:00Z"),
      });
      assert.deepEqual(Object.entries(days), [
        [unix("2026-03-23T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
        [unix("2026-03-24T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
        [unix("2026-03-25T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
        [unix("2026-03-26T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
        [unix("2026-03-27T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
        [unix("2026-03-28T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
        [unix("2026-03-29T00:00:00Z"), { started: 0, completed: 0, killed: 0 }],
      ]);
      const groups = (await api.ok<{ apps: { processCount: number }[] }>("GET", "/stats/apps", token))
        .entities;
      assert.deepEqual(
        groups[0]!.apps.map((app) => app.processCount),
        [0],
      );
      const [kept] = await sql<{ rows: number }[]>`
        select count(*)::int as rows from workflow_stats_processes s join tenants t on t.id = s.tenant_id
        where t.domain = 'quiet.edu'`;
      assert.equal(kept!.rows, 0, "nothing kept for a tenant with statistics off");
    });

    it("refuses a bad cycle or time, naming the parameter", async () => {
      const bad = await api.call("GET", RECENT, sys["example.edu"]!, { cycle: "fortnight" });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /cycle/);
      const negative = await api.call("GET", STATUS, sys["example.edu"]!, { start: "-5" });
      assert.equal(negative.status, 400);
      assert.match(negative.body.error, /start/);
    });

    it("lets the operators read and switch the setting in the admin API", async () => {
      const response = await fetch(`${platform.url}/admin/tenants`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const page = (await response.json()) as {
        items: { domain: string; workflow: { statistics: { on: boolean; timeZone: string } } }[];
      };
      const setting = (domain: string) =>
        page.items.find((tenant) => tenant.domain === domain)!.workflow.statistics;
      assert.deepEqual(setting("example.edu"), { on: true, timeZone: "Europe/Paris" });
      assert.deepEqual(setting("quiet.edu"), { on: false, timeZone: "UTC" });
      const refused = await fetch(`${platform.url}/admin/bootstrap`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({
          tenants: [
            {
              domain: "quiet.edu",
              name: "Quiet School",
              workflow: { statistics: { on: true, timeZone: "Mars/Olympus" } },
            },
          ],
        }),
      });
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /time zone/);

      // The setting on its own, as the tenant's other settings are written.
      const put = (value: unknown) =>
        fetch(`${platform.url}/admin/tenants/quiet.edu/settings/workflow.statistics`, {
          method: "PUT",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ value }),
        });
      const wrongZone = await put({ on: true, timeZone: "Mars/Olympus" });
      assert.equal(wrongZone.status, 400);
      assert.match(await wrongZone.text(), /time zone/);
      assert.equal((await put({ on: true, timeZone: "Asia/Tokyo" })).status, 200);
      const switched = await fetch(`${platform.url}/admin/tenants/quiet.edu/statistics`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      const state = (await switched.json()) as { on: boolean; timeZone: string; history: object | null };
      assert.deepEqual([state.on, state.timeZone], [true, "Asia/Tokyo"]);
      assert.notEqual(state.history, null, "switching on asks for the history");
      assert.equal((await put(null)).status, 200);
    });
  });
}
