import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { authorizationCodeToken } from "../support/tokens.ts";
import { type Envelope, WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * Spec 001's app lists and the reads by app permission over HTTP: 2.1 (apps a user may start), 4.3
 * (apps a user administers or views), 4.4 (their processes), 4.10 (recommended apps), 4.11 (rated
 * processes of an app), 4.12 (administrators of a process), with the administrators and guests the
 * bootstrap file and the admin API give.
 */

const ADMIN_TOKEN = "workflow-apps-admin-token-0123456789abcdef";
const SECRET = "workflow-apps-secret-0123456789abcdefghijk";
const REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
const USER_SCOPES = "start submit process process_edit app profile";
const SYS_SCOPES = "sys_start sys_process sys_process_edit sys_app sys_app_edit";
/** 4.6 and 4.7's scopes, and 10.x's. */
const TASK_SCOPES = ["sys_task", "sys_task_edit", "sys_entrust", "sys_entrust_edit"];

type App = { code: string; ready: boolean; rating: number; rated: number; recommend: number; uri: string };
type Process = { entry: number; app: { code: string }; owner: { account: string }; rating: number | null };

/** Two steps: the initiator's form, then an end; handling the form ends the process. */
const simple = (field: string) => ({
  schema: { fields: [{ name: field, type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply", name: "Apply" },
      { kind: "end", code: "done", name: "Done" },
    ],
    edges: [{ from: "apply", to: "done" }],
  },
});

const workflow = (code: string, fields: Record<string, unknown>, version: Record<string, unknown>) => ({
  tenant: "example.edu",
  code,
  name: code[0]!.toUpperCase() + code.slice(1),
  ...fields,
  versions: [{ definition: simple(`${code}Note`), ...version }],
});

for (const mode of await testModes()) {
  describe(`workflow app lists (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const tokens: Record<string, string> = {};
    let sys: string;
    let otherSys: string;
    let globalSys: string;
    let ownWorkflowSys: string;
    let taskSys: string;

    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const call = api.call.bind(api);
    const ok = api.ok.bind(api);

    const codes = (body: Envelope<App>) => body.entities.map((app) => app.code);
    const entries = (body: Envelope<Process>) => body.entities.map((process) => process.entry);

    /** Starts a process of `code` for the token's user; with `end`, its first step is handled and it is done. */
    async function start(token: string, code: string, options: { base?: string; end?: boolean } = {}) {
      const started = await ok<unknown>("PUT", "/process", token, { code }, options.base);
      const [entry, , , task] = started.entities as [number, number, string, { id: string }];
      if (options.end) await ok("POST", `/task/${task.id}`, token, {}, options.base);
      return entry;
    }

    const deploy = (code: string, body: unknown) => api.deploy("example.edu", code, body);

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: WORKFLOW_TENANTS,
        applications: [
          portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" "), ...TASK_SCOPES]),
          {
            id: "narrow",
            secret: SECRET,
            name: "Narrow",
            type: "enterprise",
            tenant: "example.edu",
            redirectUris: [REDIRECT],
            scopes: ["start", "sys_process"],
          },
          otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
          { id: "global", secret: SECRET, name: "Global", scopes: ["sys_app"] },
          {
            id: "leave-app",
            secret: SECRET,
            name: "Leave application",
            type: "workflow",
            tenant: "example.edu",
            workflowCode: "leave",
            scopes: [...SYS_SCOPES.split(" "), ...TASK_SCOPES],
          },
        ],
        users: [
          ...["alice", "bob", "carol", "dan"].map((account) => ({
            tenant: "example.edu",
            account,
            name: account,
            password: PASSWORD,
          })),
          { tenant: "other.edu", account: "olga", name: "olga", password: PASSWORD },
        ],
        workflows: [
          workflow(
            "leave",
            { recommendation: 5, administrators: ["carol"], guests: ["bob"] },
            { online: true },
          ),
          workflow("survey", { recommendation: 9, guests: ["carol"] }, { online: true, beta: true }),
          workflow("hidden", { recommendation: 8, visible: false }, { online: true }),
          workflow("closed", { recommendation: 7, ready: false }, { online: true }),
          workflow("draft", { recommendation: 6, administrators: ["bob"] }, { online: false, beta: true }),
          {
            ...workflow("leave", { recommendation: 3, administrators: ["olga"] }, { online: true }),
            tenant: "other.edu",
          },
        ],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(
        tokens,
        await portalUserTokens(platform.url, SECRET, ["alice", "bob", "carol", "dan"], USER_SCOPES),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
      globalSys = await sysToken(platform.url, "global", SECRET, "sys_app");
      ownWorkflowSys = await sysToken(
        platform.url,
        "leave-app",
        SECRET,
        [SYS_SCOPES, ...TASK_SCOPES].join(" "),
      );
      taskSys = await sysToken(platform.url, "portal", SECRET, TASK_SCOPES.join(" "));
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("2.1 lists the apps a user may start: ready, visible, online for the data mode", async () => {
      const formal = await ok<App>("GET", "/me/apps", tokens.alice!);
      assert.deepEqual(codes(formal), ["leave", "survey"], "hidden, closed and draft (offline) are left out");
      assert.equal(formal.total, 0, "2.1 is not paged: total 0");
      assert.ok(formal.entities.every((app) => app.ready));
      assert.match(formal.entities[0]!.uri, /\/apis\/v2\/app\/leave$/);
      const test = await ok<App>("GET", "/me/apps", tokens.alice!, {}, "/apis/v2d");
      assert.deepEqual(codes(test), ["draft", "survey"], "the test data's versions online are beta");

      // Each condition changes the answer: 4.2 takes survey out of the ready ones, then back.
      await ok("POST", "/app/survey", sys, { ready: "false" });
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.alice!)), ["leave"]);
      await ok("POST", "/app/survey", sys, { ready: "true", visible: "false" });
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.alice!)), ["leave"]);
      await ok("POST", "/app/survey", sys, { visible: "true" });
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps", tokens.alice!)), ["leave", "survey"]);
    });

    it("1.3 answers the tenant's apps shown to users as TenantApps, most recommended first", async () => {
      const idOf = async (code: string) =>
        (await ok<{ id: string }>("GET", `/app/${code}`, sys)).entities[0]!.id;
      const [profile] = (
        await ok<{ TenantApps: string[] }>("GET", "/me/preference/FavoriteApps", tokens.alice!)
      ).entities;
      // survey 9, draft 6, leave 5; hidden is not visible, closed not ready, other.edu's leave not ours.
      assert.deepEqual(profile!.TenantApps, [await idOf("survey"), await idOf("draft"), await idOf("leave")]);
    });

    it("2.1's sys form names the user; tokens of the wrong kind, scope or tenant are refused", async () => {
      assert.deepEqual(codes(await ok<App>("GET", "/user/alice/apps", sys)), ["leave", "survey"]);
      const nobody = await call("GET", "/user/nobody/apps", sys);
      assert.deepEqual([nobody.status, nobody.body.ecode], [200, "USER_NOT_FOUND"]);
      assert.equal((await call("GET", "/user/alice/apps", tokens.alice!)).status, 403, "sys form: sys only");
      assert.equal((await call("GET", "/me/apps", sys)).status, 403, "/me: user tokens only");
      const narrow = await authorizationCodeToken(
        platform.url,
        { id: "narrow", secret: SECRET, redirectUri: REDIRECT },
        { account: "alice", password: PASSWORD },
        "start",
      );
      assert.equal((await call("GET", "/me/apps", narrow)).status, 403, "needs the app scope");
      assert.equal((await call("GET", "/me/apps", "not-a-token")).status, 401);

      // Another tenant's application sees its own tenant's apps and users only.
      assert.deepEqual(codes(await ok<App>("GET", "/user/olga/apps", otherSys)), ["leave"]);
      assert.equal((await call("GET", "/user/alice/apps", otherSys)).body.ecode, "USER_NOT_FOUND");
      // A Workflow application's token sees its own workflow only.
      assert.deepEqual(codes(await ok<App>("GET", "/user/alice/apps", ownWorkflowSys)), ["leave"]);
    });

    it("a Workflow application's token neither reads nor changes another workflow's tasks or activities", async () => {
      const started = await ok<unknown>("PUT", "/process", sys, { code: "survey", userId: "alice" });
      const [, , , first] = started.entities as [number, number, string, { id: string }];
      const refused: [string, string, Record<string, string>][] = [
        ["GET", `/task/${first.id}/candidates`, {}],
        ["POST", `/task/${first.id}/candidates`, { users: "bob" }],
        ["GET", "/process/*/activities", { app: "survey" }],
      ];
      for (const [method, path, params] of refused) {
        const answer = await call(method, path, ownWorkflowSys, params);
        assert.equal(answer.body.ecode, "WORKFLOW_MISMATCH", `${method} ${path}`);
      }
      const candidates = await ok<{ account: string }>("GET", `/task/${first.id}/candidates`, taskSys);
      assert.deepEqual(
        candidates.entities.map((user) => user.account),
        ["alice"],
        "the refused reassignment changed nothing",
      );
      const own = await call("GET", "/process/*/activities", ownWorkflowSys, { app: "leave" });
      assert.equal(own.body.errno, 0, own.body.error);
    });

    it("a Workflow application's token delegates, lists and ends delegations of its own workflow only", async () => {
      const window = { to: "253402300799" };
      const elsewhere = await call("PUT", "/user/alice/entrustees/dan", ownWorkflowSys, {
        ...window,
        app: "survey",
      });
      assert.equal(elsewhere.body.ecode, "WORKFLOW_MISMATCH");
      const everyApp = await call<{ app: { code: string } | null }>(
        "PUT",
        "/user/alice/entrustees/dan",
        ownWorkflowSys,
        window,
      );
      assert.equal(everyApp.body.entities[0]!.app?.code, "leave", "without app, its own workflow");
      await ok("PUT", "/user/alice/entrustees/bob", taskSys, { ...window, app: "survey" });
      const listed = (token: string) =>
        ok<{ entrustee: { account: string } }>("GET", "/user/alice/entrustees", token).then((body) =>
          body.entities.map((entrustment) => entrustment.entrustee.account).sort(),
        );
      assert.deepEqual(await listed(taskSys), ["bob", "dan"]);
      assert.deepEqual(await listed(ownWorkflowSys), ["dan"], "survey's delegation is not its to see");
      const ended = await call("DELETE", "/user/alice/entrustees/bob", ownWorkflowSys);
      assert.equal(ended.body.ecode, "ENTRUST_NOT_FOUND", "nor to end");
      assert.deepEqual(await listed(taskSys), ["bob", "dan"]);
      await ok("DELETE", "/user/alice/entrustees/dan", ownWorkflowSys);
      await ok("DELETE", "/user/alice/entrustees/bob", taskSys);
    });

    it("3.2 starts the Workflow application's own workflow, the one others name, ready ones only", async () => {
      type Started = [number, number, string, { id: string }];
      const view = async (entry: number) =>
        (await ok<Process & { businessId: string | null }>("GET", `/process/${entry}`, sys)).entities[0]!;
      const own = await ok<unknown>("PUT", "/process", ownWorkflowSys, {
        userId: "alice",
        businessId: "HR-42",
      });
      const [ownEntry] = own.entities as Started;
      const ownProcess = await view(ownEntry);
      assert.deepEqual(
        [ownProcess.app.code, ownProcess.owner.account, ownProcess.businessId],
        ["leave", "alice", "HR-42"],
      );
      const another = await call("PUT", "/process", ownWorkflowSys, { userId: "alice", code: "survey" });
      assert.equal(another.body.ecode, "WORKFLOW_MISMATCH");
      const unnamed = await call("PUT", "/process", sys, { userId: "alice" });
      assert.deepEqual([unnamed.body.errno, unnamed.body.ecode], [40403, "APP_NOT_FOUND"]);
      assert.match(unnamed.body.error, /^code:/);
      const closed = await call("PUT", "/process", sys, { userId: "alice", code: "closed" });
      assert.equal(closed.body.ecode, "APP_NOT_STARTABLE", "an app not ready is not started");
      // A user token starts for its own user whoever userId names.
      const mine = await ok<unknown>("PUT", "/process", tokens.alice!, { code: "leave", userId: "bob" });
      assert.equal((await view((mine.entities as Started)[0])).owner.account, "alice");
    });

    it("4.3 lists the apps a user administers, and those they may view (administered ones too)", async () => {
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/admin", tokens.carol!)), ["leave"]);
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/guest", tokens.carol!)), ["leave", "survey"]);
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/guest", tokens.bob!)), ["draft", "leave"]);
      assert.deepEqual(
        codes(await ok<App>("GET", "/me/apps/admin", tokens.bob!)),
        ["draft"],
        "an app not startable is still administered",
      );
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/admin", tokens.alice!)), []);
      assert.deepEqual(codes(await ok<App>("GET", "/user/carol/apps/admin", sys)), ["leave"]);
      assert.deepEqual(codes(await ok<App>("GET", "/user/carol/apps/guest", ownWorkflowSys)), ["leave"]);
      assert.equal((await call("GET", "/me/apps/admin", sys)).status, 403);
      assert.equal((await call("GET", "/user/carol/apps/admin", tokens.carol!)).status, 403);
    });

    it("the admin API's lists replace the earlier ones; an unknown account is refused", async () => {
      const refused = await deploy("leave", {
        definition: simple("leaveNote"),
        online: true,
        app: { administrators: ["nobody"] },
      });
      assert.equal(refused.status, 400);
      assert.match(((await refused.json()) as { error: string }).error, /administrators: no account nobody/);
      const moved = await deploy("leave", {
        definition: simple("leaveNote"),
        online: true,
        app: { administrators: ["dan"] },
      });
      assert.equal(moved.status, 200, await moved.clone().text());
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/admin", tokens.carol!)), []);
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/admin", tokens.dan!)), ["leave"]);
      assert.deepEqual(
        codes(await ok<App>("GET", "/me/apps/guest", tokens.bob!)),
        ["draft", "leave"],
        "guests, not given, stay",
      );
      const back = await deploy("leave", {
        definition: simple("leaveNote"),
        online: true,
        app: { administrators: ["carol"] },
      });
      assert.equal(back.status, 200);
      assert.deepEqual(codes(await ok<App>("GET", "/me/apps/admin", tokens.dan!)), []);
    });

    it("4.4 pages the processes of administered or viewable apps, newest first, in the caller's data mode", async () => {
      const leave = [];
      for (let i = 0; i < 3; i++) leave.push(await start(tokens.alice!, "leave"));
      const survey = await start(tokens.dan!, "survey");
      const testSurvey = await start(tokens.dan!, "survey", { base: "/apis/v2d" });
      const newestLeave = [...leave].reverse();

      const bob = await ok<Process>("GET", "/me/processes/guest", tokens.bob!, { limit: "100" });
      assert.deepEqual(entries(bob).slice(0, 3), newestLeave);
      assert.ok(bob.entities.every((process) => process.app.code === "leave"));
      assert.equal(bob.total, bob.entities.length);
      const carolGuest = await ok<Process>("GET", "/me/processes/guest", tokens.carol!, { limit: "100" });
      assert.deepEqual(entries(carolGuest).slice(0, 4), [survey, ...newestLeave]);
      const carolAdmin = await ok<Process>("GET", "/me/processes/admin", tokens.carol!, { limit: "100" });
      assert.ok(!entries(carolAdmin).includes(survey), "survey is viewed, not administered");
      assert.deepEqual(entries(carolAdmin), entries(bob));
      assert.equal((await ok<Process>("GET", "/me/processes/admin", tokens.alice!)).total, 0);
      assert.equal(carolGuest.entities[0]!.owner.account, "dan");

      // Pages of two: no duplicates, no gaps, the total exact on each.
      const seen: number[] = [];
      for (let start = 0; start < carolGuest.total; start += 2) {
        const page = await ok<Process>("GET", "/me/processes/guest", tokens.carol!, {
          start: String(start),
          limit: "2",
        });
        assert.equal(page.total, carolGuest.total);
        seen.push(...entries(page));
      }
      assert.deepEqual(seen, entries(carolGuest));
      const past = await ok<Process>("GET", "/me/processes/guest", tokens.carol!, { start: "1000" });
      assert.deepEqual([past.entities.length, past.total], [0, carolGuest.total]);

      // Test data apart from formal data.
      const testList = await ok<Process>("GET", "/me/processes/guest", tokens.carol!, {}, "/apis/v2d");
      assert.deepEqual(entries(testList), [testSurvey]);
      assert.ok(!entries(carolGuest).includes(testSurvey));

      // An archived process leaves the lists.
      await ok("POST", `/process/${leave[0]}`, tokens.alice!, { action: "archive" });
      const afterArchive = await ok<Process>("GET", "/me/processes/guest", tokens.bob!, { limit: "100" });
      assert.equal(afterArchive.total, bob.total - 1);
      assert.ok(!entries(afterArchive).includes(leave[0]!));

      assert.deepEqual(
        entries(await ok<Process>("GET", "/user/bob/processes/guest", sys, { limit: "100" })),
        entries(afterArchive),
      );
      assert.equal((await call("GET", "/me/processes/guest", tokens.bob!, { limit: "1001" })).status, 400);
      assert.equal((await call("GET", "/me/processes/guest", tokens.bob!, { start: "-1" })).status, 400);
      assert.equal((await call("GET", "/user/bob/processes/guest", otherSys)).body.ecode, "USER_NOT_FOUND");
    });

    it("4.12 names the administrators of a process's app to whoever may see it; other cate values are refused", async () => {
      const entry = await start(tokens.alice!, "leave");
      for (const token of [tokens.alice!, tokens.bob!, tokens.carol!, sys]) {
        const admins = await ok<{ account: string }>("GET", `/process/${entry}/admin`, token);
        assert.deepEqual(
          admins.entities.map((user) => user.account),
          ["carol"],
        );
      }
      assert.equal(
        (await call("GET", `/process/${entry}/admin`, tokens.dan!)).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      const other = await call("GET", `/process/${entry}/operator`, tokens.alice!);
      assert.deepEqual([other.status, other.body.errno, other.body.ecode], [200, 50101, "NOT_SUPPORTED"]);
      assert.equal((await call("GET", `/process/${entry}/admin`, otherSys)).body.ecode, "PROCESS_NOT_FOUND");
      assert.equal(
        (await call("GET", `/process/${entry}/admin`, sys, {}, "/apis/v2d")).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      // The fixed paths beside it still answer as themselves.
      const activities = await ok<{ category: string }>("GET", `/process/${entry}/activities`, tokens.alice!);
      assert.ok(activities.entities.length > 0);
    });

    it("4.10 lists startable apps with a recommendation, highest first; a Global application names the tenant", async () => {
      const recommended = await ok<App>("GET", "/apps/recommended", sys);
      assert.deepEqual(
        codes(recommended),
        ["survey", "leave"],
        "hidden, closed and draft are recommended but not startable",
      );
      assert.deepEqual(
        recommended.entities.map((app) => app.recommend),
        [9, 5],
      );
      const first = await ok<App>("GET", "/apps/recommended", sys, { limit: "1" });
      assert.deepEqual([codes(first), first.total], [["survey"], 2]);
      assert.deepEqual(
        codes(await ok<App>("GET", "/apps/recommended", sys, {}, "/apis/v2d")),
        ["survey", "draft"],
        "draft is online for test data",
      );
      await ok("POST", "/app/leave", sys, { recommendation: "0" });
      assert.deepEqual(codes(await ok<App>("GET", "/apps/recommended", sys)), ["survey"]);
      await ok("POST", "/app/leave", sys, { recommendation: "10" });
      assert.deepEqual(codes(await ok<App>("GET", "/apps/recommended", sys)), ["leave", "survey"]);

      assert.deepEqual(
        codes(await ok<App>("GET", "/apps/recommended", globalSys, { domain: "example.edu" })),
        ["leave", "survey"],
      );
      assert.deepEqual(codes(await ok<App>("GET", "/apps/recommended", globalSys, { domain: "other.edu" })), [
        "leave",
      ]);
      assert.equal(
        (await call("GET", "/apps/recommended", globalSys)).status,
        400,
        "a Global app names the tenant",
      );
      assert.equal((await call("GET", "/apps/recommended", sys, { domain: "other.edu" })).status, 403);
      assert.equal((await call("GET", "/apps/recommended", tokens.alice!)).status, 403, "sys tokens only");
    });

    it("4.11 pages the rated processes of an app; the app's rating follows them", async () => {
      const rated: number[] = [];
      for (const stars of ["4", "2"]) {
        const entry = await start(tokens.alice!, "survey", { end: true });
        await ok("POST", `/process/${entry}`, tokens.alice!, { action: "rate", rating: stars, remark: "ok" });
        rated.push(entry);
      }
      await start(tokens.alice!, "survey", { end: true });
      const ratings = await ok<Process>("GET", "/app/survey/ratings", sys);
      assert.equal(ratings.total, 2, "the unrated process is left out");
      assert.deepEqual(new Set(entries(ratings)), new Set(rated));
      assert.deepEqual(new Set(ratings.entities.map((process) => process.rating)), new Set([4, 2]));
      const page = await ok<Process>("GET", "/app/survey/ratings", sys, { start: "1", limit: "1" });
      assert.deepEqual([page.entities.length, page.total], [1, 2]);
      assert.equal((await ok<Process>("GET", "/app/survey/ratings", sys, {}, "/apis/v2d")).total, 0);
      const app = (await ok<App>("GET", "/me/apps", tokens.alice!)).entities.find(
        (a) => a.code === "survey",
      )!;
      assert.deepEqual([app.rating, app.rated], [60, 2]);

      assert.equal((await call("GET", "/app/nothing/ratings", sys)).body.ecode, "APP_NOT_FOUND");
      assert.equal(
        (await ok<Process>("GET", "/app/leave/ratings", otherSys)).total,
        0,
        "its own tenant's leave",
      );
      assert.equal((await call("GET", "/app/survey/ratings", ownWorkflowSys)).body.ecode, "APP_NOT_FOUND");
      assert.equal((await call("GET", "/app/survey/ratings", tokens.alice!)).status, 403);
    });
  });
}
