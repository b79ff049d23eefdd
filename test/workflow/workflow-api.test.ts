import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { authorizationCodeToken, issueToken } from "../support/tokens.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

const ADMIN_TOKEN = "workflow-admin-token-0123456789abcdefghij";
const SECRET = "workflow-portal-secret-0123456789abcdefgh";
const REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
/** The challenge of a task link that opens nothing where it is used. */
const LINK_REFUSED =
  'Bearer error="invalid_token", error_description="the task link has expired or does not open this operation"';
const leaveRequest = JSON.parse(
  await readFile(new URL("../../examples/leave-request.workflow.json", import.meta.url), "utf8"),
);

const USER_SCOPES = "start submit process process_edit task task_edit entrust entrust_edit app app_edit";
const SYS_SCOPES =
  "sys_start sys_submit sys_process sys_process_edit sys_task sys_task_edit sys_entrust sys_entrust_edit sys_thing sys_thing_edit sys_app sys_app_edit";

type Task = {
  id: string;
  code: string;
  status: number;
  actionName: string | null;
  actualUser: { account: string } | null;
  actionUser: { account: string } | null;
};
type Process = {
  id: string;
  entry: number;
  status: string;
  tasks: Task[];
  states: { code: string }[];
  priority: string;
  milestone: { name: string } | null;
  update: number;
  sort: number;
  screen: string | null;
};

const users = [
  ["alice", "cs", "lecturer"],
  ["bob", "cs", "lecturer"],
  ["carol", "cs", "head"],
  ["dan", "office", "dean"],
  ["erin", "hr", "clerk"],
] as const;

for (const mode of await testModes()) {
  describe(`workflow API (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const tokens: Record<string, string> = {};
    let sys: string;
    let otherSys: string;

    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const call = api.call.bind(api);
    const deploy = (code: string, body: unknown) => api.deploy("example.edu", code, body);

    async function start(token: string, params: Record<string, string> = {}) {
      const started = await call<unknown>("PUT", "/process", token, {
        code: "leave",
        data: JSON.stringify({ days: 2, reason: "a conference" }),
        ...params,
      });
      assert.equal(started.body.errno, 0, started.body.error);
      const [entry, step, uri, task] = started.body.entities as [number, number, string, Task];
      return { entry, step, uri, task };
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: WORKFLOW_TENANTS,
        applications: [
          portalApplication(SECRET, [
            ...USER_SCOPES.split(" "),
            ...SYS_SCOPES.split(" "),
            "sys_triple_edit",
            "send_notification",
          ]),
          {
            id: "narrow",
            secret: SECRET,
            name: "Narrow",
            type: "enterprise",
            tenant: "example.edu",
            redirectUris: [REDIRECT],
            scopes: ["process"],
          },
          otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
        ],
        users: [
          ...users.map(([account]) => ({
            tenant: "example.edu",
            account,
            name: account,
            password: PASSWORD,
          })),
          // A quick user: an account without a password, who opens tasks through 3.2's secure URL.
          { tenant: "example.edu", account: "quinn", name: "Quinn" },
        ],
        workflows: [
          {
            tenant: "example.edu",
            code: "survey",
            name: "Survey",
            tags: "feedback",
            versions: [
              { name: "first", definition: leaveRequest },
              {
                name: "second",
                definition: {
                  ...leaveRequest,
                  schema: { fields: [...leaveRequest.schema.fields, { name: "note", type: "text" }] },
                },
                online: true,
              },
            ],
          },
        ],
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(
        tokens,
        await portalUserTokens(
          platform.url,
          SECRET,
          users.map(([account]) => account),
          USER_SCOPES,
        ),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
      // The directory: departments, posts and who holds which, through the triple and position APIs.
      const triples = await sysToken(platform.url, "portal", SECRET, "sys_triple_edit");
      await api.placeInDirectory(triples, users);
      assert.equal(
        (await deploy("leave", { definition: leaveRequest, online: true, app: { name: "Leave request" } }))
          .status,
        200,
      );
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("refuses a definition that breaks a rule, naming the node, and deploys a good one once", async () => {
      const broken = structuredClone(leaveRequest);
      broken.graph.edges.push({ from: "record", to: "nowhere" });
      const refused = await deploy("leave", { definition: broken, online: true });
      assert.equal(refused.status, 400);
      assert.match(
        ((await refused.json()) as { error: string }).error,
        /the edge record → nowhere: there is no node nowhere/,
      );

      const deployed = await deploy("leave", {
        definition: leaveRequest,
        online: true,
        app: { name: "Leave request" },
      });
      assert.equal(deployed.status, 200);
      const first = (await deployed.json()) as { version: string; number: number; created: boolean };
      assert.equal(first.created, false, "the setup deployed it already");
      const again = (await (
        await deploy("leave", { definition: leaveRequest, online: true })
      ).json()) as typeof first;
      assert.deepEqual([again.version, again.created], [first.version, false]);
    });

    it("starts a process for the token's user and answers serial number, step, URL and first task", async () => {
      const { entry, step, uri, task } = await start(tokens.alice!);
      assert.ok(Number.isInteger(entry) && entry > 0);
      assert.equal(step, 1);
      assert.match(uri, new RegExp(`/apis/v2/process/${entry}`));
      assert.equal(task.code, "apply");
      assert.equal(task.status, 1);
      const view = await call<Process>("GET", `/process/${entry}`, tokens.alice!);
      assert.equal(view.body.errno, 0);
      assert.deepEqual(
        view.body.entities[0]!.states.map((state) => state.code),
        ["apply"],
      );
      const byId = await call<Process>("GET", `/process/${view.body.entities[0]!.id}`, tokens.alice!);
      assert.equal(byId.body.entities[0]!.entry, entry);
      const { update, sort, screen } = view.body.entities[0]!;
      assert.deepEqual(
        { sort, screen },
        { sort: update, screen: null },
        "spec 001's sort and screen are there",
      );
    });

    it("starts one process for a start sent again with the same Idempotency-Key, also at once", async () => {
      const params = { code: "leave", data: JSON.stringify({ days: 2, reason: "a retried start" }) };
      const keyed = (key: string, extra: Record<string, string> = {}) =>
        call<unknown>("PUT", "/process", tokens.alice!, { ...params, ...extra }, undefined, {
          "idempotency-key": key,
        });
      const entryOf = (answer: Awaited<ReturnType<typeof keyed>>) => {
        assert.equal(answer.body.errno, 0, answer.body.error);
        return answer.body.entities[0] as number;
      };
      const first = await keyed("start-1");
      const again = await keyed("start-1");
      assert.equal(entryOf(again), entryOf(first));
      assert.deepEqual(again.body.entities[3], first.body.entities[3], "the same first task");
      const together = await Promise.all(Array.from({ length: 5 }, () => keyed("start-2")));
      const entries = new Set(together.map(entryOf));
      assert.equal(entries.size, 1, "five concurrent starts with one key make one process");
      // Serial numbers count up by one per process: nothing else was started in between.
      const { entry: next } = await start(tokens.alice!);
      assert.equal(next, [...entries][0]! + 1);
      assert.equal([...entries][0], entryOf(first) + 1);

      const reused = await keyed("start-1", { data: JSON.stringify({ days: 3, reason: "another" }) });
      assert.equal(reused.body.ecode, "IDEMPOTENCY_KEY_REUSED");
      assert.equal(reused.body.errno, 40908);
      const malformed = await keyed("a key with spaces");
      assert.notEqual(malformed.body.errno, 0);
      assert.match(malformed.body.error, /idempotency-key/);
    });

    it("takes a request through its steps over HTTP, each task handled once", async () => {
      const { entry, task } = await start(tokens.alice!);
      const handled = await call<Task>("POST", `/task/${task.id}`, tokens.alice!);
      assert.equal(handled.body.errno, 0, handled.body.error);
      assert.equal(handled.body.entities[0]!.status, 2);
      const again = await call("POST", `/task/${task.id}`, tokens.alice!);
      assert.equal(again.status, 200);
      assert.deepEqual([again.body.errno, again.body.ecode], [40901, "TASK_ALREADY_HANDLED"]);

      const view = await call<Process>("GET", `/process/${entry}`, tokens.carol!);
      const department = view.body.entities[0]!.tasks.find((t) => t.code === "department" && t.status === 1)!;
      const notHers = await call("POST", `/task/${department.id}`, tokens.bob!, { actionCode: "approve" });
      assert.equal(notHers.body.ecode, "NOT_A_CANDIDATE");
      const noRemark = await call("POST", `/task/${department.id}`, tokens.carol!, { actionCode: "reject" });
      assert.equal(noRemark.body.ecode, "REMARK_REQUIRED");
      const noAction = await call("POST", `/task/${department.id}`, tokens.carol!);
      assert.equal(noAction.body.ecode, "ACTION_REQUIRED");
      const approved = await call<Task>("POST", `/task/${department.id}`, tokens.carol!, { actionId: "1" });
      assert.equal(approved.body.entities[0]!.actionName, "Approve");

      // The record step allows the system user: 4.5 submit finds it by step code.
      const submitted = await call<Process>("POST", `/process/${entry}`, sys, {
        action: "submit",
        stepCode: "record",
        actionCode: "submit",
      });
      assert.equal(submitted.body.errno, 0, submitted.body.error);
      assert.equal(submitted.body.entities[0]!.status, "done");
      assert.equal(submitted.body.entities[0]!.milestone?.name, "Granted");
    });

    it("sends a long leave through the dean and the hand-over countersign, joining once; a rejection ends it", async () => {
      const steps = async (entry: number) =>
        (await call<Process>("GET", `/process/${entry}`, sys)).body.entities[0]!.states.map(
          (state) => state.code,
        );
      /** The to-do task of a step, the one `account` may handle when the step has several. */
      const openTask = async (entry: number, code: string, account?: string) =>
        (
          await call<Process>("GET", `/process/${entry}`, sys, { includeExecutors: "true" })
        ).body.entities[0]!.tasks.find(
          (t) =>
            t.code === code &&
            t.status === 1 &&
            (!account ||
              (t as Task & { executors: { account: string }[] }).executors.some(
                (user) => user.account === account,
              )),
        )!.id;
      const handle = async (taskId: string, token: string, params: Record<string, string> = {}) => {
        const answer = await call<Task>("POST", `/task/${taskId}`, token, params);
        assert.equal(answer.body.errno, 0, answer.body.error);
      };

      const long = await start(tokens.alice!, {
        data: JSON.stringify({ days: 5, reason: "a sabbatical", reviewers: ["bob", "erin"] }),
      });
      await handle(long.task.id, tokens.alice!);
      await handle(await openTask(long.entry, "department"), tokens.carol!, { actionCode: "approve" });
      assert.deepEqual(
        (await steps(long.entry)).sort(),
        ["dean", "hand-over"],
        "more than three days: both branches",
      );
      await handle(await openTask(long.entry, "hand-over", "bob"), tokens.bob!);
      await handle(await openTask(long.entry, "dean"), tokens.dan!);
      assert.deepEqual(await steps(long.entry), ["hand-over"], "the countersign waits for its last member");
      await handle(await openTask(long.entry, "hand-over"), tokens.erin!);
      assert.deepEqual(await steps(long.entry), ["record"], "the join fired once");

      const refused = await start(tokens.alice!);
      await handle(refused.task.id, tokens.alice!);
      await handle(await openTask(refused.entry, "department"), tokens.carol!, {
        actionCode: "reject",
        remark: "busy",
      });
      const ended = (await call<Process>("GET", `/process/${refused.entry}`, sys)).body.entities[0]!;
      assert.deepEqual([ended.status, ended.states], ["done", []], "the reject edge leads to the end");
    });

    it("refuses data that is not JSON or breaks the form, naming the field", async () => {
      const notJson = await call("PUT", "/process", tokens.alice!, { code: "leave", data: "{days:" });
      assert.deepEqual([notJson.body.errno, notJson.body.ecode], [42209, "DATA_INVALID"]);
      const unknown = await call("PUT", "/process", tokens.alice!, {
        code: "leave",
        data: JSON.stringify({ weeks: 1 }),
      });
      assert.match(unknown.body.error, /data\.weeks: no such field in the form/);
      const wrongType = await call("PUT", "/process", tokens.alice!, {
        code: "leave",
        data: JSON.stringify({ days: "two" }),
      });
      assert.match(wrongType.body.error, /data\.days: a number/);
    });

    it("checks scopes and token kinds, and refuses password-grant tokens", async () => {
      const narrow = await authorizationCodeToken(
        platform.url,
        { id: "narrow", secret: SECRET, redirectUri: REDIRECT },
        { account: "alice", password: PASSWORD },
        "process",
      );
      const noScope = await call("PUT", "/process", narrow, { code: "leave" });
      assert.equal(noScope.status, 403);
      const password = await issueToken(
        platform.url,
        { id: "portal", secret: SECRET },
        {
          grant_type: "password",
          username: "alice",
          password: PASSWORD,
          scope: "send_notification",
        },
      );
      assert.equal((await call("PUT", "/process", password, { code: "leave" })).status, 403);
      const userOnly = await call("DELETE", `/task/00000000-0000-0000-0000-000000000000`, sys);
      assert.equal(userOnly.status, 403, "4.8 takes user tokens only");
      const sysOnly = await call(
        "GET",
        `/task/00000000-0000-0000-0000-000000000000/candidates`,
        tokens.alice!,
      );
      assert.equal(sysOnly.status, 403, "4.6 takes sys tokens only");
      const unauthenticated = await call("GET", "/process/1", "not-a-token");
      assert.equal(unauthenticated.status, 401);
    });

    it("starts for a user a sys token names, and the first step for assignTo", async () => {
      const missing = await call("PUT", "/process", sys, { code: "leave" });
      assert.equal(missing.body.ecode, "USER_NOT_FOUND");
      const { entry, task } = await start(sys, { userId: "alice", assignTo: "bob" });
      const view = await call<Process>("GET", `/process/${entry}`, tokens.bob!);
      assert.equal(view.body.errno, 0, "bob, the first step's assignee, sees it");
      const byBob = await call("POST", `/task/${task.id}`, tokens.bob!);
      assert.equal(byBob.body.errno, 0, byBob.body.error);
    });

    it("gives a quick user's first step a secure URL that opens that task alone, until it expires", async () => {
      const { entry, uri, task } = await start(sys, {
        userId: "alice",
        assignTo: "quinn",
        secureURIExpire: "600",
      });
      const link = new URL(uri).searchParams.get("access_token");
      assert.ok(link, `the URL carries a token: ${uri}`);
      const opened = (await (await fetch(uri)).json()) as { errno: number; entities: Process[] };
      assert.equal(opened.errno, 0, "the URL alone opens the process");
      assert.equal(opened.entities[0]!.entry, entry);

      const withLink = (path: string, method = "GET", base = "/apis/v2") =>
        fetch(`${platform.url}${base}${path}${path.includes("?") ? "&" : "?"}access_token=${link}`, {
          method,
        });
      assert.equal(
        (await withLink(`/process/${entry}`)).status,
        401,
        "without its task the link opens nothing",
      );
      assert.equal((await withLink("/me/processes/doing")).status, 401, "nor a list");
      assert.equal((await withLink(`/process/${entry}?task=${task.id}`, "GET", "/apis/v2d")).status, 401);
      const other = await start(sys, { userId: "alice", assignTo: "quinn", secureURIExpire: "600" });
      assert.equal((await withLink(`/task/${other.task.id}`, "POST")).status, 401, "nor another task");
      const elsewhere = await fetch(`${platform.url}/apis/v2/me/positions?access_token=${link}`);
      assert.equal(elsewhere.status, 401, "nor the rest of the platform");
      assert.equal(elsewhere.headers.get("www-authenticate"), LINK_REFUSED);
      await elsewhere.arrayBuffer();

      const handled = (await (await withLink(`/task/${task.id}`, "POST")).json()) as {
        errno: number;
        error: string;
        entities: Task[];
      };
      assert.equal(handled.errno, 0, handled.error);
      assert.equal(handled.entities[0]!.actionUser?.account, "quinn");
      const again = (await (await withLink(`/task/${task.id}`, "POST")).json()) as { errno: number };
      assert.notEqual(again.errno, 0, "handled once");

      const signsIn = await start(sys, { userId: "alice", assignTo: "bob", secureURIExpire: "600" });
      assert.equal(new URL(signsIn.uri).searchParams.get("access_token"), null, "bob signs in instead");

      const account = (action: string) =>
        fetch(`${platform.url}/admin/users/example.edu/quinn/${action}`, {
          method: "POST",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        });
      const later = await start(sys, { userId: "alice", assignTo: "quinn", secureURIExpire: "600" });
      assert.equal((await account("disable")).status, 200);
      assert.equal((await fetch(later.uri)).status, 401, "a disabled account's link opens nothing");
      assert.equal((await account("enable")).status, 200);
      assert.equal((await fetch(later.uri)).status, 200);

      const brief = await start(sys, { userId: "alice", assignTo: "quinn", secureURIExpire: "1" });
      await new Promise((resolve) => setTimeout(resolve, 2100));
      const expired = await fetch(brief.uri, { headers: { "accept-language": "zh" } });
      assert.equal(expired.status, 401, "an expired link opens nothing");
      assert.equal(expired.headers.get("www-authenticate"), LINK_REFUSED);
      assert.equal(((await expired.json()) as { error: string }).error, "任务链接已过期或不能用于此操作");
    });

    it("keeps other users, other tenants and test data away from a process", async () => {
      const { entry } = await start(tokens.alice!);
      assert.equal((await call("GET", `/process/${entry}`, tokens.dan!)).body.ecode, "PROCESS_NOT_FOUND");
      assert.equal((await call("GET", `/process/${entry}`, otherSys)).body.ecode, "PROCESS_NOT_FOUND");
      assert.equal(
        (await call("GET", `/process/${entry}`, sys, {}, "/apis/v2d")).body.ecode,
        "PROCESS_NOT_FOUND",
      );
      const testStart = await call("PUT", "/process", tokens.alice!, { code: "leave" }, "/apis/v2d");
      assert.equal(testStart.body.ecode, "APP_NOT_STARTABLE", "no version is online for test data");
    });

    it("suspends, resumes, marks and kills; archiving needs nobody else to have taken part", async () => {
      const { entry, task } = await start(tokens.alice!);
      const suspended = await call<Process>("POST", `/process/${entry}`, sys, { action: "suspend" });
      assert.equal(suspended.body.entities[0]!.status, "suspended");
      assert.equal((await call("POST", `/task/${task.id}`, tokens.alice!)).body.ecode, "PROCESS_SUSPENDED");
      await call("POST", `/process/${entry}`, sys, { action: "resume" });
      const marked = await call<Process>("POST", `/process/${entry}`, tokens.alice!, {
        action: "mark",
        priority: "critical",
      });
      assert.equal(marked.body.entities[0]!.priority, "critical");
      assert.equal(
        (await call("POST", `/process/${entry}`, tokens.alice!, { action: "submit" })).body.ecode,
        "NOT_SUPPORTED",
      );
      assert.equal(
        (await call("POST", `/process/${entry}`, tokens.alice!, { action: "tag" })).body.ecode,
        "DATA_INVALID",
      );
      assert.equal(
        (await call("POST", `/process/${entry}`, tokens.alice!, { action: "archive" })).body.errno,
        0,
      );
      // The steps an archived process goes on to stay out of the to-do lists, as its earlier ones do.
      assert.equal((await call("POST", `/task/${task.id}`, tokens.alice!)).body.errno, 0);
      const carols = await call<{ process: { entry: number } }>("GET", "/me/tasks/todo", tokens.carol!);
      assert.equal(carols.body.errno, 0, carols.body.error);
      assert.ok(!carols.body.entities.some((todo) => todo.process.entry === entry));

      const other = await start(tokens.alice!);
      await call("POST", `/task/${other.task.id}`, tokens.alice!);
      const view = await call<Process>("GET", `/process/${other.entry}`, sys);
      const department = view.body.entities[0]!.tasks.find((t) => t.code === "department")!;
      await call("POST", `/task/${department.id}`, tokens.carol!, { actionCode: "approve" });
      assert.equal(
        (await call("POST", `/process/${other.entry}`, tokens.alice!, { action: "archive" })).body.ecode,
        "OTHERS_TOOK_PART",
      );
      assert.equal(
        (await call("POST", `/process/${other.entry}`, tokens.carol!, { action: "kill" })).body.ecode,
        "NOT_THE_INITIATOR",
      );
      // compensate records a messenger event for the callbacks, and changes nothing else.
      const compensated = await call("POST", `/process/${other.entry}`, sys, {
        action: "compensate",
        remark: "refund the deposit",
      });
      assert.equal(compensated.body.errno, 0, compensated.body.error);
      const messenger = await call<{ tags: string; description: string }>(
        "GET",
        `/process/${other.entry}/activities`,
        sys,
        { categories: "MESSENGER" },
      );
      assert.deepEqual(
        messenger.body.entities.map((activity) => [activity.tags, activity.description]),
        [["COMPENSATE", "compensate: refund the deposit"]],
      );
      // 4.13's filters, each narrowing the process's records.
      type Record = { id: string; description: string; level: string; user: string | null; entryId: number };
      const records = async (params: { [name: string]: string }, ref: string | number = other.entry) =>
        (await call<Record>("GET", `/process/${ref}/activities`, sys, params)).body;
      const all = await records({});
      assert.ok(all.total >= 4, `${all.total} records`);
      assert.deepEqual(
        (await records({ keyword: "deposit" })).entities.map((record) => record.description),
        ["compensate: refund the deposit"],
      );
      assert.ok((await records({ userId: "carol" })).entities.every((record) => record.user === "carol"));
      assert.ok((await records({ userId: "carol" })).total > 0);
      const now = Math.floor(Date.now() / 1000);
      assert.equal((await records({ timestamps: `${now - 600}~${now + 600}` })).total, all.total);
      assert.equal((await records({ timestamps: "0~1000" })).total, 0);
      assert.equal((await records({ levels: "WARNING" })).total, 0);
      assert.equal((await records({ levels: "INFO" })).total, all.total);
      const [firstPage, secondPage] = [
        await records({ limit: "1" }),
        await records({ start: "1", limit: "1" }),
      ];
      assert.deepEqual(
        [firstPage.total, firstPage.entities.length, firstPage.entities[0]!.id, secondPage.entities[0]!.id],
        [all.total, 1, all.entities[0]!.id, all.entities[1]!.id],
      );
      const everyLeave = await records({ app: "leave", limit: "1000" }, "*");
      assert.ok(everyLeave.entities.some((record) => record.entryId === other.entry));
      assert.ok(
        !(await records({ app: "survey", limit: "1000" }, "*")).entities.some(
          (r) => r.entryId === other.entry,
        ),
      );
      const killed = await call<Process>("POST", `/process/${other.entry}`, tokens.alice!, {
        action: "kill",
      });
      assert.equal(killed.body.entities[0]!.status, "killed");
      const activities = await call<{ tags: string }>(
        "GET",
        `/process/${other.entry}/activities`,
        tokens.alice!,
      );
      assert.equal(activities.body.entities[0]!.tags, "INSTANCE_KILL", "newest first");
      assert.ok(activities.body.total >= 4);
      const past9999 = await call("GET", `/process/${other.entry}/activities`, tokens.alice!, {
        timestamps: "0~99999999999999999999",
      });
      assert.equal(past9999.status, 400, "a time Postgres cannot hold is refused at the edge");
      assert.match(past9999.body.error, /timestamps/);
    });

    it("answers each refusal of 3.1, 3.2, 4.1, 4.2 and 4.5 with its errno and changes nothing", async () => {
      const refusal = async (method: string, path: string, token: string, params: Record<string, string>) => {
        const { status, body } = await call(method, path, token, params);
        assert.equal(status, 200, `${method} ${path}`);
        return [body.errno, body.ecode];
      };
      assert.deepEqual(
        await refusal("PUT", "/process", tokens.alice!, { code: "leave", entrance: "side-door" }),
        [42208, "UNKNOWN_ENTRANCE"],
      );
      const noVersion = { version: "00000000-0000-0000-0000-000000000000" };
      assert.deepEqual(await refusal("GET", "/app/leave", sys, noVersion), [40404, "VERSION_NOT_FOUND"]);
      assert.deepEqual(await refusal("POST", "/app/leave", sys, { online: noVersion.version }), [
        40404,
        "VERSION_NOT_FOUND",
      ]);

      const { entry, task } = await start(tokens.alice!);
      await call("POST", `/task/${task.id}`, tokens.alice!);
      const seen = async () => (await call<Process>("GET", `/process/${entry}`, sys)).body.entities[0]!;
      const before = await seen();
      const department = before.tasks.find((t) => t.code === "department")!;
      const at = `/task/${department.id}`;
      assert.deepEqual(await refusal("POST", at, tokens.carol!, {}), [42201, "ACTION_REQUIRED"]);
      assert.deepEqual(await refusal("POST", at, tokens.carol!, { actionCode: "maybe" }), [
        42202,
        "UNKNOWN_ACTION",
      ]);
      assert.deepEqual(await refusal("POST", at, tokens.carol!, { actionId: "9" }), [
        42202,
        "UNKNOWN_ACTION",
      ]);
      assert.deepEqual(await refusal("POST", at, tokens.carol!, { actionCode: "reject" }), [
        42203,
        "REMARK_REQUIRED",
      ]);
      assert.deepEqual(await refusal("POST", at, sys, { userId: "bob" }), [40301, "NOT_A_CANDIDATE"]);
      const process = `/process/${entry}`;
      assert.deepEqual(await refusal("POST", process, tokens.alice!, { action: "rate", rating: "5" }), [
        40906,
        "PROCESS_NOT_ENDED",
      ]);
      assert.deepEqual(await refusal("POST", process, tokens.alice!, { action: "resume" }), [
        40904,
        "PROCESS_NOT_SUSPENDED",
      ]);
      assert.deepEqual(await seen(), before, "the refusals changed nothing");

      // `actionId` wins over `actionCode`; a sys token handles for the candidate its userId names.
      const handled = await call<Task>("POST", at, sys, {
        userId: "carol",
        actionId: "1",
        actionCode: "reject",
      });
      assert.equal(handled.body.errno, 0, handled.body.error);
      assert.deepEqual(
        [handled.body.entities[0]!.actionName, handled.body.entities[0]!.actionUser?.account],
        ["Approve", "carol"],
      );
    });

    it("lets the handler take a task back, and an administrator change who may handle one", async () => {
      const { entry, task } = await start(tokens.alice!);
      await call("POST", `/task/${task.id}`, tokens.alice!);
      const view = await call<Process>("GET", `/process/${entry}`, sys);
      const department = view.body.entities[0]!.tasks.find((t) => t.code === "department")!;
      const candidates = await call<{ account: string }>("GET", `/task/${department.id}/candidates`, sys);
      assert.deepEqual(
        candidates.body.entities.map((user) => user.account),
        ["carol"],
      );
      const changed = await call("POST", `/task/${department.id}/candidates`, sys, { users: "dan,bob" });
      assert.equal(changed.body.errno, 0, changed.body.error);
      const now = await call<{ account: string }>("GET", `/task/${department.id}/candidates`, sys);
      assert.deepEqual(now.body.entities.map((user) => user.account).sort(), ["bob", "dan"]);

      const taken = await call<Task>("DELETE", `/task/${task.id}`, tokens.alice!);
      assert.equal(taken.body.errno, 0, taken.body.error);
      assert.equal(taken.body.entities[0]!.status, 1, "to-do again");
      const after = await call<Process>("GET", `/process/${entry}`, sys);
      assert.deepEqual(
        after.body.entities[0]!.states.map((state) => state.code),
        ["apply"],
      );
      // Carol is no longer among the step's candidates: for her the task does not exist.
      const notHers = await call("DELETE", `/task/${department.id}`, tokens.carol!);
      assert.equal(notHers.body.ecode, "TASK_NOT_FOUND");
      const records = await call<{ tags: string }>("GET", `/process/${entry}/activities`, sys);
      assert.equal(records.body.entities[0]!.tags, "INSTANCE_WITHDRAW", "the withdraw is recorded");
      const cancelled = (await call<Process>("GET", `/process/${entry}`, sys)).body.entities[0]!.tasks;
      assert.ok(!cancelled.some((t) => t.id === department.id), "the step it led to is gone");

      // Handed in again and approved: the step it led to has been handled, so it stays.
      await call("POST", `/task/${task.id}`, tokens.alice!);
      const again = (await call<Process>("GET", `/process/${entry}`, sys)).body.entities[0]!;
      const next = again.tasks.find((t) => t.code === "department" && t.status === 1)!;
      assert.equal(
        (await call("POST", `/task/${next.id}`, tokens.carol!, { actionCode: "approve" })).body.errno,
        0,
      );
      const late = await call("DELETE", `/task/${task.id}`, tokens.alice!);
      assert.equal(late.body.ecode, "WITHDRAW_NOT_ALLOWED");
    });

    it("hands a delegated task to the entrustee, who handles it for the entruster", async () => {
      const now = Math.floor(Date.now() / 1000);
      const window = { app: "leave", from: String(now - 60), to: String(now + 3600) };
      const refused = await call("PUT", "/user/carol/entrustees/dan", tokens.bob!, window);
      assert.equal(refused.body.ecode, "NOT_YOUR_OWN");
      const backwards = await call("PUT", "/user/carol/entrustees/dan", tokens.carol!, {
        ...window,
        to: String(now - 120),
      });
      assert.deepEqual([backwards.body.ecode, backwards.body.error], ["DATA_INVALID", "to: after from"]);
      const put = await call<{ entrustee: { account: string }; from: number }>(
        "PUT",
        "/user/carol/entrustees/bob",
        tokens.carol!,
        window,
      );
      assert.equal(put.body.errno, 0, put.body.error);
      assert.deepEqual(
        [put.body.entities[0]!.entrustee.account, put.body.entities[0]!.from],
        ["bob", now - 60],
      );
      const listed = await call<{ entrustee: { account: string } }>(
        "GET",
        "/user/carol/entrustees",
        tokens.carol!,
      );
      assert.deepEqual(
        listed.body.entities.map((e) => e.entrustee.account),
        ["bob"],
      );
      const entrusters = await call<{ entruster: { account: string } }>("GET", "/user/bob/entrusters", sys);
      assert.deepEqual(
        entrusters.body.entities.map((e) => e.entruster.account),
        ["carol"],
      );
      // A delegation belongs to the data mode it was made in.
      assert.deepEqual(
        (await call("GET", "/user/carol/entrustees", tokens.carol!, {}, "/apis/v2d")).body.entities,
        [],
      );
      const testDelegation = await call(
        "PUT",
        "/user/carol/entrustees/dan",
        tokens.carol!,
        window,
        "/apis/v2d",
      );
      assert.equal(testDelegation.body.errno, 0, testDelegation.body.error);
      assert.equal((await call("GET", "/user/dan/entrusters", sys)).body.total, 0);
      try {
        const { entry, task } = await start(tokens.alice!);
        await call("POST", `/task/${task.id}`, tokens.alice!);
        const view = await call<Process>("GET", `/process/${entry}`, tokens.bob!);
        assert.equal(view.body.errno, 0, "bob sees the process he may handle");
        // 2.8's includeExecutors names who may handle each to-do task, the delegate too.
        type WithExecutors = Omit<Process, "tasks"> & {
          pendingTasks: string;
          tasks: (Task & { executors?: { account: string }[] })[];
        };
        const executors = await call<WithExecutors>("GET", `/process/${entry}`, sys, {
          includeExecutors: "true",
        });
        const withExecutors = executors.body.entities[0]!;
        assert.equal(withExecutors.pendingTasks, "Department approval");
        assert.deepEqual(
          withExecutors.tasks
            .find((t) => t.code === "department")!
            .executors?.map((user) => user.account)
            .sort(),
          ["bob", "carol"],
        );
        assert.equal(
          Object.hasOwn(view.body.entities[0]!.tasks.find((t) => t.code === "department")!, "executors"),
          false,
        );
        const notDans = await call("GET", `/process/${entry}`, tokens.dan!);
        assert.equal(
          notDans.body.ecode,
          "PROCESS_NOT_FOUND",
          "the test-data delegation reaches no formal task",
        );
        const department = view.body.entities[0]!.tasks.find((t) => t.code === "department")!;
        const handled = await call<Task>("POST", `/task/${department.id}`, tokens.bob!, {
          actionCode: "approve",
        });
        assert.equal(handled.body.errno, 0, handled.body.error);
        assert.equal(handled.body.entities[0]!.actionUser?.account, "carol");
        assert.equal(handled.body.entities[0]!.actualUser?.account, "bob");
      } finally {
        const ended = await call("DELETE", "/user/carol/entrustees/bob", tokens.carol!);
        assert.equal(ended.body.total, 1);
      }
      const gone = await call("DELETE", "/user/carol/entrustees/bob", tokens.carol!);
      assert.equal(gone.body.ecode, "ENTRUST_NOT_FOUND");
    });

    it("collects an item with a pickup code, on behalf of the user it was made for", async () => {
      const loan = {
        schema: { fields: [{ name: "book", type: "thing" }] },
        graph: {
          nodes: [
            { kind: "start", code: "borrow" },
            { kind: "task", code: "collect", assignees: [{ initiator: true }], requiresThing: true },
            { kind: "end", code: "done" },
          ],
          edges: [
            { from: "borrow", to: "collect" },
            { from: "collect", to: "done" },
          ],
        },
      };
      assert.equal((await deploy("loan", { definition: loan, online: true })).status, 200);
      const made = await call<{ pickup: string; user: { account: string } }>(
        "PUT",
        "/thing/B-1/pickup",
        sys,
        {
          name: "A book",
          userId: "alice",
        },
      );
      assert.equal(made.body.errno, 0, made.body.error);
      const { pickup } = made.body.entities[0]!;
      const expired = await call("PUT", "/thing/B-2/pickup", sys, { expire: "1000" });
      assert.deepEqual([expired.body.ecode, expired.body.error], ["DATA_INVALID", "expire: a time to come"]);
      assert.match(pickup, /^[2-9A-Z]{8}$/);
      assert.equal((await call<{ name: string }>("GET", "/thing/B-1", sys)).body.entities[0]!.name, "A book");
      // Items and their codes belong to the data mode they were made in.
      assert.equal((await call("GET", "/thing/B-1", sys, {}, "/apis/v2d")).body.ecode, "THING_NOT_FOUND");
      assert.equal(
        (await call("GET", `/pickup/${pickup}/things`, sys, {}, "/apis/v2d")).body.ecode,
        "PICKUP_NOT_FOUND",
      );

      const started = await call<unknown>("PUT", "/process", tokens.alice!, {
        code: "loan",
        data: JSON.stringify({ book: "B-1" }),
      });
      const [entry, , , first] = started.body.entities as [number, number, string, Task];
      await call("POST", `/task/${first.id}`, tokens.alice!);
      const mine = await call<Task & { collect: string }>("GET", "/thing/B-1/tasks", tokens.alice!);
      assert.deepEqual(
        mine.body.entities.map((task) => [task.code, task.collect]),
        [["collect", "mine"]],
      );
      const others = await call<Task & { collect: string }>("GET", "/thing/B-1/tasks", tokens.bob!);
      assert.deepEqual(
        others.body.entities.map((task) => task.collect),
        ["others"],
      );

      // A suspended process's step waits for nobody until it is resumed.
      await call("POST", `/process/${entry}`, sys, { action: "suspend" });
      assert.deepEqual((await call("GET", "/thing/B-1/tasks", tokens.alice!)).body.entities, []);
      await call("POST", `/process/${entry}`, sys, { action: "resume" });
      const collect = mine.body.entities[0]!;
      assert.equal((await call("POST", `/task/${collect.id}`, tokens.alice!)).body.ecode, "THING_REQUIRED");
      // The code stands for alice on the processes of its item only, not on any task of hers.
      const unrelated = await start(tokens.alice!);
      const misused = await call("POST", `/task/${unrelated.task.id}`, tokens.bob!, { pickup, thing: "B-1" });
      assert.equal(misused.body.ecode, "THING_NOT_FOUND");
      const byBob = await call<Task>("POST", `/task/${collect.id}`, tokens.bob!, { pickup });
      assert.equal(byBob.body.errno, 0, byBob.body.error);
      assert.equal(byBob.body.entities[0]!.actionUser?.account, "alice");
      assert.equal(byBob.body.entities[0]!.actualUser?.account, "bob");
      const view = await call<Process>("GET", `/process/${entry}`, tokens.alice!);
      assert.equal(view.body.entities[0]!.status, "done");
      assert.deepEqual((await call("GET", `/pickup/${pickup}/things`, sys)).body.entities, []);
      const collected = await call<Task & { collect: string }>("GET", "/thing/B-1/tasks", tokens.bob!);
      assert.deepEqual(
        collected.body.entities.map((task) => task.collect),
        ["collected"],
      );
      // A code is spent once.
      const again = await call<unknown>("PUT", "/process", tokens.alice!, {
        code: "loan",
        data: JSON.stringify({ book: "B-1" }),
      });
      const [, , , againFirst] = again.body.entities as [number, number, string, Task];
      const collectAgain = await call<Task>("POST", `/task/${againFirst.id}`, tokens.alice!);
      assert.equal(collectAgain.body.errno, 0, collectAgain.body.error);
      const waiting = (await call<Task & { collect: string }>("GET", "/thing/B-1/tasks", tokens.alice!)).body
        .entities;
      const reused = await call(
        "POST",
        `/task/${waiting.find((t) => t.collect === "mine")!.id}`,
        tokens.bob!,
        {
          pickup,
        },
      );
      assert.deepEqual([reused.body.errno, reused.body.ecode], [40905, "PICKUP_USED"]);
    });

    it("reads an app with its form and versions, and takes versions on and off line per data mode", async () => {
      type App = {
        ready: boolean;
        currentVersion: {
          id: string;
          schema: { fields: { name: string }[] };
          graph: { nodes: { code: string }[]; edges: unknown[] };
          events: unknown[];
        } | null;
        versions: { current: boolean }[];
      };
      const read = await call<App>("GET", "/app/leave", sys, { includeVersions: "true" });
      assert.equal(read.body.errno, 0, read.body.error);
      const app = read.body.entities[0]!;
      assert.deepEqual(
        app.currentVersion!.schema.fields.map((field) => field.name),
        ["days", "reason", "reviewers"],
      );
      // The flow a client draws: the version's steps and edges as deployed, and its callbacks.
      assert.deepEqual(
        app.currentVersion!.graph.nodes.map((node) => node.code),
        leaveRequest.graph.nodes.map((node: { code: string }) => node.code),
      );
      assert.equal(app.currentVersion!.graph.edges.length, leaveRequest.graph.edges.length);
      assert.deepEqual(app.currentVersion!.events, []);
      assert.deepEqual(
        app.versions.map((version) => version.current),
        [true],
      );
      const byUser = await call<App>("GET", "/app/leave", tokens.alice!);
      assert.equal(byUser.body.errno, 0, "a user token reads with the app scope");
      assert.equal(
        (await call("POST", "/app/leave", tokens.alice!, { ready: "false" })).body.ecode,
        "NOT_AN_ADMINISTRATOR",
      );

      const version = app.currentVersion!.id;
      const testData = await call<App>("POST", "/app/leave", sys, { online: version }, "/apis/v2d");
      assert.equal(testData.body.errno, 0, testData.body.error);
      // The test-data API takes the beta version on and off line, never the app's own settings.
      const readyOnTestData = await call("POST", "/app/leave", sys, { ready: "false" }, "/apis/v2d");
      assert.equal(readyOnTestData.body.ecode, "DATA_INVALID");
      assert.match(readyOnTestData.body.error, /^ready:/);
      assert.equal((await call<App>("GET", "/app/leave", sys)).body.entities[0]!.ready, true);
      const described = await call<App & { department: string; contact: string }>("POST", "/app/leave", sys, {
        department: "Human resources",
        contact: "hr@example.edu",
      });
      assert.deepEqual(
        [described.body.entities[0]!.department, described.body.entities[0]!.contact],
        ["Human resources", "hr@example.edu"],
      );
      // With beta, the formal API takes a version on and off line for test data.
      const startOnTestData = async () =>
        (await call("PUT", "/process", tokens.alice!, { code: "leave", data: "{}" }, "/apis/v2d")).body.ecode;
      await call("POST", "/app/leave", sys, { offline: version }, "/apis/v2d");
      assert.equal(await startOnTestData(), "APP_NOT_STARTABLE");
      const betaOn = await call("POST", "/app/leave", sys, { online: version, beta: "true" });
      assert.equal(betaOn.body.errno, 0, betaOn.body.error);
      assert.equal(await startOnTestData(), "SUCCESS", "online for test data now");
      await call("POST", "/app/leave", sys, { offline: version });
      assert.equal(
        (await call("PUT", "/process", tokens.alice!, { code: "leave" })).body.ecode,
        "APP_NOT_STARTABLE",
      );
      await call("POST", "/app/leave", sys, { online: version });
      assert.equal((await call("PUT", "/process", tokens.alice!, { code: "leave" })).body.errno, 0);
    });

    it("deploys the bootstrap file's workflows at start, each version on line as the file says", async () => {
      type App = {
        name: string;
        tags: string;
        currentVersion: { name: string } | null;
        versions: { name: string; online: boolean }[];
      };
      const survey = await call<App>("GET", "/app/survey", sys, { includeVersions: "true" });
      assert.equal(survey.body.errno, 0, survey.body.error);
      const app = survey.body.entities[0]!;
      assert.deepEqual([app.name, app.tags, app.currentVersion?.name], ["Survey", "feedback", "second"]);
      assert.deepEqual(
        app.versions.map((version) => [version.name, version.online]),
        [
          ["second", true],
          ["first", false],
        ],
      );
    });
  });
}
