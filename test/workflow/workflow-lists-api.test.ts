import assert from "node:assert/strict";
import { setTimeout as sleep } from "node:timers/promises";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { authorizationCodeToken, issueToken } from "../support/tokens.ts";
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

const ADMIN_TOKEN = "workflow-lists-admin-token-0123456789abcdef";
const SECRET = "workflow-lists-secret-0123456789abcdefghij";
const _REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
const USER_SCOPES = "start submit process process_edit task entrust entrust_edit";
const SYS_SCOPES = "sys_start sys_submit sys_process sys_process_edit sys_task";

/** A memo: drafted by its initiator, reviewed by `reviewer`, copied to `watchers` on review. */
const memo = {
  schema: {
    fields: [
      { name: "reviewer", type: "user" },
      { name: "watchers", type: "users" },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "draft", name: "Draft", milestone: { name: "Drafted", percent: 10 } },
      {
        kind: "task",
        code: "review",
        name: "Review",
        assignees: [{ field: "reviewer" }],
        cc: [{ field: "watchers" }],
        milestone: { name: "Reviewed", percent: 60 },
      },
      { kind: "end", code: "closed", milestone: { name: "Closed", percent: 100 } },
    ],
    edges: [
      { from: "draft", to: "review" },
      { from: "review", to: "closed" },
    ],
  },
};
/** A loan: the initiator collects the book the form names. */
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

interface Listed {
  id: string;
  entry: number;
  name: string;
  tags: string;
  create: number;
  update: number;
  sort: number | null;
  read: number | null;
  status: string;
  rating: number | null;
  states: { code: string }[];
  milestone: { percent: number } | null;
  app: { code: string };
  owner: { account: string; name: string };
}
interface TodoTask {
  id: string;
  code: string;
  entrusted: boolean;
  requiresThing: boolean;
  assignUser: { account: string } | null;
  process: { entry: number; owner: { account: string } };
}

const people = [
  ["alice", "Alice Liu"],
  ["bob", "Bob"],
  ["carol", "Carol"],
  ["dan", "张三"],
  ["erin", "Erin"],
] as const;

for (const mode of await testModes()) {
  describe(`workflow lists (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const tokens: Record<string, string> = {};
    let sys: string;
    let otherSys: string;
    /** The processes made in `before`, by name. */
    const made: Record<string, number> = {};

    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);
    const call = api.call.bind(api);
    const ok = api.ok.bind(api);

    function deploy(code: string, definition: unknown, app: Record<string, string>) {
      return fetch(`${platform.url}/admin/workflows/example.edu/${code}/versions`, {
        method: "PUT",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify({ definition, online: true, beta: true, app }),
      });
    }

    /** Starts a process and hands in its first step; answers the serial number. */
    async function begin(owner: string, code: string, data: Record<string, unknown>, base = "/apis/v2") {
      const started = await ok<unknown>(
        "PUT",
        "/process",
        tokens[owner]!,
        { code, data: JSON.stringify(data) },
        base,
      );
      const [entry, , , task] = started.entities as [number, number, string, { id: string }];
      await ok("POST", `/task/${task.id}`, tokens[owner]!, {}, base);
      return entry;
    }

    async function openTask(entry: number, code: string, base = "/apis/v2"): Promise<string> {
      const view = await ok<{ tasks: { id: string; code: string; status: number }[] }>(
        "GET",
        `/process/${entry}`,
        sys,
        {},
        base,
      );
      return view.entities[0]!.tasks.find((task) => task.code === code && task.status === 1)!.id;
    }

    const list = (who: string, category: string, params: Record<string, string> = {}, base?: string) =>
      ok<Listed>("GET", `/me/processes/${category}`, tokens[who]!, { limit: "1000", ...params }, base);
    const entries = (body: Envelope<Listed>) => body.entities.map((process) => process.entry);
    /** A user token of the Workflow application confined to the qingjia workflow. */
    const qingjiaAppToken = (account: string, scope: string) =>
      authorizationCodeToken(
        platform.url,
        { id: "qingjia-app", secret: SECRET, redirectUri: PORTAL_REDIRECT },
        { account, password: PASSWORD },
        scope,
      );

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: WORKFLOW_TENANTS,
        applications: [
          portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
          otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
          {
            id: "qingjia-app",
            secret: SECRET,
            name: "Leave requests",
            type: "workflow",
            tenant: "example.edu",
            workflowCode: "qingjia",
            redirectUris: [PORTAL_REDIRECT],
            scopes: USER_SCOPES.split(" "),
          },
        ],
        users: people.map(([account, name]) => ({
          tenant: "example.edu",
          account,
          name,
          password: PASSWORD,
        })),
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(
        tokens,
        await portalUserTokens(
          platform.url,
          SECRET,
          people.map(([account]) => account),
          USER_SCOPES,
        ),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
      for (const [code, definition, app] of [
        ["memo", memo, { name: "Memo", tags: "office,notes" }],
        ["qingjia", memo, { name: "请假申请", tags: "人事" }],
        ["loan", loan, { name: "Loan", tags: "library" }],
      ] as const) {
        assert.equal((await deploy(code, definition, app)).status, 200);
      }

      // The first second: three memos of alice's.
      made.reviewed = await begin("alice", "memo", { reviewer: "bob", watchers: ["carol"] });
      made.qingjia = await begin("alice", "qingjia", { reviewer: "bob", watchers: ["carol", "dan"] });
      made.rated = await begin("alice", "memo", { reviewer: "bob" });
      await sleep(1100);
      // The next: dan's memos for alice to review, and alice's others.
      made.dans = await begin("dan", "memo", { reviewer: "alice", watchers: ["carol"] });
      made.dansOpen = await begin("dan", "memo", { reviewer: "alice" });
      for (let queued = 0; queued < 3; queued++) await begin("dan", "memo", { reviewer: "bob" });
      const drafted = await ok<unknown>("PUT", "/process", tokens.alice!, { code: "memo", data: "{}" });
      made.draft = drafted.entities[0] as number;
      made.suspended = await begin("alice", "memo", { reviewer: "bob" });
      await ok("POST", `/process/${made.suspended}`, tokens.alice!, { action: "suspend" });
      made.killed = await begin("alice", "memo", { reviewer: "bob" });
      await ok("POST", `/process/${made.killed}`, tokens.alice!, { action: "kill" });
      const archived = await ok<unknown>("PUT", "/process", tokens.alice!, { code: "memo", data: "{}" });
      made.archived = archived.entities[0] as number;
      await ok("POST", `/process/${made.archived}`, tokens.alice!, { action: "archive" });
      made.loan = await begin("alice", "loan", { book: "B-1" });
      made.test = await begin("alice", "memo", { reviewer: "bob", watchers: ["carol"] }, "/apis/v2d");
      await sleep(1100);
      // The last: the reviews, so updates come in another order than starts.
      await ok("POST", `/task/${await openTask(made.reviewed!, "review")}`, tokens.bob!);
      await ok("POST", `/task/${await openTask(made.rated!, "review")}`, tokens.bob!);
      await ok("POST", `/process/${made.rated}`, tokens.alice!, { action: "rate", rating: "4" });
      await ok("POST", `/task/${await openTask(made.dans!, "review")}`, tokens.alice!);
      // bob entrusts his memos to erin while one is started.
      const now = Math.floor(Date.now() / 1000);
      await ok("PUT", "/user/bob/entrustees/erin", tokens.bob!, {
        app: "memo",
        from: String(now - 60),
        to: String(now + 3600),
      });
      made.entrusted = await begin("dan", "memo", { reviewer: "bob" });
      await ok("DELETE", "/user/bob/entrustees/erin", tokens.bob!);
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("lists the to-do tasks: own by default, entrusted ones with entrust=true, sep and thing, suspended absent", async () => {
      const todo = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.alice!, { limit: "100" });
      const of = (body: Envelope<TodoTask>) =>
        body.entities.map((task) => task.process.entry).sort((a, b) => a - b);
      assert.deepEqual(
        of(todo),
        [made.dansOpen, made.draft, made.loan].sort((a, b) => a! - b!),
      );
      assert.equal(todo.total, 3);
      const sep = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.alice!, { sep: "true" });
      assert.deepEqual(of(sep), [made.dansOpen]);
      const own = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.alice!, { sep: "false" });
      assert.deepEqual(
        of(own),
        [made.draft, made.loan].sort((a, b) => a! - b!),
      );
      const thing = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.alice!, { thing: "true" });
      assert.deepEqual(of(thing), [made.loan]);
      assert.equal(thing.entities[0]!.requiresThing, true);
      const noThing = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.alice!, { thing: "false" });
      assert.equal(noThing.total, 2);
      // 3.5: the loan's step waits for alice's book; the qingjia application sees no loan.
      const waiting = await ok<TodoTask>("GET", "/thing/B-1/tasks", tokens.alice!);
      assert.deepEqual(
        waiting.entities.map((task) => task.process.entry),
        [made.loan],
      );
      const onQingjia = await ok<TodoTask>("GET", "/thing/B-1/tasks", await qingjiaAppToken("alice", "task"));
      assert.deepEqual(onQingjia.entities, []);

      const erin = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.erin!);
      assert.deepEqual([erin.total, erin.entities.length], [0, 0], "only her own by default");
      const entrusted = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.erin!, { entrust: "true" });
      assert.deepEqual(of(entrusted), [made.entrusted]);
      assert.deepEqual(
        [
          entrusted.entities[0]!.entrusted,
          entrusted.entities[0]!.assignUser?.account,
          entrusted.entities[0]!.code,
        ],
        [true, "bob", "review"],
      );

      // A suspended process's tasks leave the to-do list and come back when it resumes.
      const suspendedTask = await openTask(made.suspended!, "review");
      const bob = async () =>
        (await ok<TodoTask>("GET", "/me/tasks/todo", tokens.bob!, { limit: "100" })).entities;
      assert.ok(!(await bob()).some((task) => task.id === suspendedTask));
      await ok("POST", `/process/${made.suspended}`, tokens.alice!, { action: "resume" });
      assert.ok((await bob()).some((task) => task.id === suspendedTask));
      await ok("POST", `/process/${made.suspended}`, tokens.alice!, { action: "suspend" });
      assert.ok(!(await bob()).some((task) => task.id === suspendedTask));
    });

    it("pages the to-do list and the process lists without duplicates or gaps, total exact", async () => {
      for (const [path, who] of [
        ["/me/tasks/todo", "bob"],
        ["/me/processes/completed", "alice"],
      ] as const) {
        const whole = await ok<{ id: string }>("GET", path, tokens[who]!, { limit: "1000" });
        assert.ok(whole.total >= 4, `${path} has enough to page`);
        const paged: string[] = [];
        for (let start = 0; start < whole.total + 2; start += 3) {
          const page = await ok<{ id: string }>("GET", path, tokens[who]!, {
            start: String(start),
            limit: "3",
          });
          assert.equal(page.total, whole.total, "total counts every match on every page");
          paged.push(...page.entities.map((entity) => entity.id));
        }
        assert.deepEqual(
          paged,
          whole.entities.map((entity) => entity.id),
        );
        assert.equal(new Set(paged).size, paged.length);
      }
      const bob = await ok("GET", "/me/tasks/todo", tokens.bob!, { limit: "1000" });
      assert.equal(bob.entities.length, bob.total);
    });

    it("answers doing, done, completed, unrated and operator by what the user is to each process", async () => {
      const doing = entries(await list("alice", "doing"));
      assert.deepEqual(
        doing.sort((a, b) => a - b),
        [made.qingjia, made.draft, made.suspended, made.loan].sort((a, b) => a! - b!),
        "started or handled, not ended (suspended included); archived left out",
      );
      const done = entries(await list("alice", "done"));
      assert.deepEqual(
        done.sort((a, b) => a - b),
        [made.reviewed, made.rated, made.dans, made.killed].sort((a, b) => a! - b!),
        "ended ones, the killed included, and dan's alice handled",
      );
      const completed = await list("alice", "completed");
      assert.equal(completed.total, doing.length + done.length);
      assert.deepEqual(
        entries(await list("alice", "unrated")).sort((a, b) => a - b),
        [made.reviewed, made.killed],
      );
      const handled = [
        made.reviewed,
        made.qingjia,
        made.rated,
        made.dans,
        made.suspended,
        made.killed,
        made.loan,
      ];
      assert.deepEqual(
        entries(await list("alice", "operator")).sort((a, b) => a - b),
        handled.sort((a, b) => a! - b!),
        "processes she handled a step of (her own first steps too)",
      );
      const withArchived = entries(await list("alice", "doing", { archive: "true" }));
      assert.ok(withArchived.includes(made.archived!) && !doing.includes(made.archived!));
      assert.deepEqual(entries(await list("erin", "entrusted")), [made.entrusted]);
      assert.deepEqual(
        entries(await list("erin", "doing")),
        [],
        "a delegate who has not handled it took no part",
      );
    });

    it("filters by every parameter of the table, each changing the answer", async () => {
      const all = (await list("alice", "completed", { archive: "true" })).entities;
      const check = async (
        params: Record<string, string>,
        keep: (process: Listed) => boolean,
        category = "completed",
      ) => {
        const expected = all
          .filter(keep)
          .map((process) => process.entry)
          .sort((a, b) => a - b);
        const answer = await list("alice", category, { archive: "true", ...params });
        const got = entries(answer).sort((a, b) => a - b);
        assert.deepEqual(got, expected, JSON.stringify(params));
        assert.equal(answer.total, expected.length);
        assert.ok(
          expected.length > 0 && expected.length < all.length,
          `${JSON.stringify(params)} changes the answer`,
        );
      };
      const text = (process: Listed) =>
        [process.name, process.tags, process.owner.account, process.owner.name, process.entry]
          .join(" ")
          .toLowerCase();
      await check({ app: "qingjia" }, (process) => process.app.code === "qingjia");
      await check({ entry: String(made.dans) }, (process) => process.entry === made.dans);
      await check({ keyword: "lice" }, (process) => text(process).includes("lice"));
      await check(
        { keyword: "假申, 张" },
        (process) => text(process).includes("假申") || text(process).includes("张"),
      );
      await check({ keyword: String(made.loan) }, (process) => text(process).includes(String(made.loan)));
      await check({ keyword: "alice", fullText: "true" }, (process) => process.owner.account === "alice");
      await check({ keyword: "假申", fullText: "true" }, (process) => process.name === "请假申请");
      await check(
        { keyword: "人事 张三", fullText: "true" },
        (process) => process.tags === "人事" || process.owner.name === "张三",
      );
      assert.equal(
        (await list("alice", "completed", { keyword: "lice", fullText: "true" })).total,
        0,
        "whole words",
      );
      assert.equal(
        (await list("alice", "completed", { keyword: "申请请假", fullText: "true" })).total,
        0,
        "in order",
      );
      const creates = [...new Set(all.map((process) => process.create))].sort();
      const first = creates[0]!;
      await check({ timestamps: `${first}~${first}` }, (process) => process.create === first);
      await check({ timestamps: `${first + 1}~` }, (process) => process.create >= first + 1);
      const updates = [...new Set(all.map((process) => process.update))].sort();
      const last = updates[updates.length - 1]!;
      await check({ lastUpdate: `${last}~` }, (process) => process.update >= last);
      await check({ lastUpdate: `~${last - 1}` }, (process) => process.update <= last - 1);
      await check({ order: "create", orderTimes: `~${first}` }, (process) => process.create <= first);
      await check({ milestones: "60~100" }, (process) => (process.milestone?.percent ?? -1) >= 60);
      await check(
        { milestones: "~10" },
        (process) => process.milestone !== null && process.milestone.percent <= 10,
      );
      await check({ ratings: "-1~-1" }, (process) => process.rating === null);
      await check({ ratings: "3~5" }, (process) => process.rating !== null && process.rating >= 3);
      await check({ ratings: "-1~3" }, (process) => process.rating === null || process.rating <= 3);
      await check({ statuses: "suspended,killed" }, (process) =>
        ["suspended", "killed"].includes(process.status),
      );
      await check({ states: "review,collect" }, (process) =>
        process.states.some((state) => ["review", "collect"].includes(state.code)),
      );
      await check({ sep: "true" }, (process) => process.owner.account !== "alice");
      await check({ sep: "false" }, (process) => process.owner.account === "alice");
      await check({ thing: "true" }, (process) => process.entry === made.loan);
      await check({ thing: "false" }, (process) => process.entry !== made.loan);
      assert.equal((await list("alice", "completed", { statuses: "draft" })).total, 0);
    });

    it("orders by update, create, action and auto, descending or ascending, sort carrying the time", async () => {
      const orders: Record<string, number[]> = {};
      for (const field of ["update", "create", "action", "auto"]) {
        for (const direction of ["desc", "asc"]) {
          const answer = await list("alice", "completed", { order: `${field} ${direction}` });
          const sorts = answer.entities.map((process) => process.sort);
          const timed = sorts.filter((sort): sort is number => sort !== null);
          assert.deepEqual(sorts.slice(0, timed.length), timed, "those without the time come last");
          const sorted = [...timed].sort((a, b) => (direction === "desc" ? b - a : a - b));
          assert.deepEqual(timed, sorted, `${field} ${direction} is in order`);
          if (field === "update" || field === "create") {
            assert.deepEqual(
              sorts,
              answer.entities.map((process) => process[field]),
            );
          }
          orders[`${field} ${direction}`] = entries(answer);
        }
      }
      assert.deepEqual(
        orders["auto desc"],
        entries(await list("alice", "completed")),
        "auto desc is the default",
      );
      assert.notDeepEqual(
        orders["update desc"],
        orders["create desc"],
        "the data orders differently by each",
      );
      assert.equal(orders["action desc"]![0], made.dans, "dan's memo is the one alice handled last");
      assert.notEqual(orders["update desc"]![0], made.dans);
    });

    it("refuses a malformed range, order or status, naming the parameter", async () => {
      for (const [parameter, value] of [
        ["order", "sideways"],
        ["order", "update up"],
        ["timestamps", "yesterday"],
        ["milestones", "100~60"],
        ["ratings", "1-5"],
        ["orderTimes", "~x"],
        ["lastUpdate", "1~2~3"],
        // Values Postgres would refuse (a fraction for an integer column, a time past year 9999)
        // are refused here, not answered as a server error.
        ["ratings", "0.5~5"],
        ["milestones", "50.5~"],
        ["milestones", "~99999999999"],
        ["timestamps", "0~99999999999999999999"],
        ["lastUpdate", "253402300800~"],
        ["statuses", "doing,lost"],
      ] as const) {
        const answer = await call("GET", "/me/processes/doing", tokens.alice!, { [parameter]: value });
        assert.equal(answer.status, 400, `${parameter}=${value}`);
        assert.notEqual(answer.body.errno, 0);
        assert.match(answer.body.error, new RegExp(parameter), `${parameter}=${value}: ${answer.body.error}`);
      }
    });

    it("keeps copies unread until read by 4.5 or 2.12, which reads formal and test copies alike", async () => {
      const cc = await list("carol", "cc");
      assert.deepEqual(
        entries(cc).sort((a, b) => a - b),
        [made.reviewed, made.qingjia, made.dans],
      );
      assert.ok(cc.entities.every((process) => process.read === null));
      assert.deepEqual(entries(await list("carol", "cc", {}, "/apis/v2d")), [made.test]);
      await ok("POST", `/process/${made.qingjia}`, tokens.carol!, { action: "read" });
      assert.deepEqual(entries(await list("carol", "cc", { unread: "false" })), [made.qingjia]);
      assert.deepEqual(
        entries(await list("carol", "cc", { unread: "true" })).sort((a, b) => a - b),
        [made.reviewed, made.dans],
      );
      const read = await list("carol", "cc", { entry: String(made.qingjia) });
      assert.ok(read.entities[0]!.read! > 0);
      await ok("POST", `/process/${made.qingjia}`, tokens.carol!, { action: "unread" });
      assert.equal((await list("carol", "cc", { unread: "true" })).total, 3);

      // A Workflow application's user token reads its workflow's copies only.
      const carolOnQingjia = await qingjiaAppToken("carol", "process_edit");
      const ownRead = await ok<number>("POST", "/me/processes", carolOnQingjia, { action: "read" });
      assert.equal(ownRead.entities[0], 1, "the qingjia copy alone");
      assert.deepEqual(entries(await list("carol", "cc", { unread: "false" })), [made.qingjia]);

      const marked = await ok<number>("POST", "/me/processes", tokens.carol!, { action: "read" });
      assert.equal(marked.entities[0], 3, "two formal copies and one of test data");
      assert.equal((await list("carol", "cc", { unread: "true" })).total, 0);
      assert.equal((await list("carol", "cc", { unread: "true" }, "/apis/v2d")).total, 0);
      assert.equal((await list("carol", "cc", { unread: "false" })).total, 3);
      assert.equal((await list("dan", "cc", { unread: "true" })).total, 1, "dan's copy is his own");
      const again = await ok<number>("POST", "/me/processes", tokens.carol!, { action: "read" });
      assert.equal(again.entities[0], 0);

      // 4.5 `dismiss` with `userId=*` takes every user's copy of the process away.
      const [dansCopy] = entries(await list("dan", "cc"));
      const dismissed = await call("POST", `/process/${dansCopy}`, sys, { action: "dismiss", userId: "*" });
      assert.equal(dismissed.body.errno, 0, dismissed.body.error);
      assert.equal((await list("dan", "cc")).total, 0);
      assert.ok(!entries(await list("carol", "cc")).includes(dansCopy!), "nobody's copy is left");
    });

    it("keeps data modes and tenants apart, and takes user tokens under /me and sys tokens under /user/{userId}", async () => {
      const formal = entries(await list("alice", "completed"));
      const test = entries(await list("alice", "completed", {}, "/apis/v2d"));
      assert.deepEqual(test, [made.test]);
      assert.ok(!formal.includes(made.test!));
      const testTodo = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.bob!, {}, "/apis/v2d");
      assert.deepEqual(
        testTodo.entities.map((task) => task.process.entry),
        [made.test],
      );

      const mine = await ok<TodoTask>("GET", "/me/tasks/todo", tokens.alice!);
      const bySys = await ok<TodoTask>("GET", "/user/alice/tasks/todo", sys);
      assert.deepEqual(
        bySys.entities.map((task) => task.id),
        mine.entities.map((task) => task.id),
      );
      const sysDoing = await ok<Listed>("GET", "/user/alice/processes/completed", sys, { limit: "1000" });
      assert.deepEqual(entries(sysDoing), formal);
      assert.equal((await call("GET", "/me/tasks/todo", sys)).status, 403, "the /me form takes user tokens");
      assert.equal(
        (await call("GET", "/user/alice/tasks/todo", tokens.alice!)).status,
        403,
        "the sys form sys ones",
      );
      assert.equal((await call("GET", "/me/processes/cc", sys)).status, 403);
      assert.equal((await call("POST", "/me/processes", sys, { action: "read" })).status, 403);
      const narrow = await issueToken(
        platform.url,
        { id: "portal", secret: SECRET },
        { grant_type: "client_credentials", scope: "sys_process" },
      );
      assert.equal((await call("GET", "/user/alice/tasks/todo", narrow)).status, 403, "sys_task is needed");
      const elsewhere = await call("GET", "/user/alice/processes/completed", otherSys);
      assert.equal(elsewhere.body.ecode, "USER_NOT_FOUND", "another tenant's application sees no alice");
      const unknown = await call("GET", "/user/nobody/tasks/todo", sys);
      assert.equal(unknown.body.ecode, "USER_NOT_FOUND");
    });
  });
}
