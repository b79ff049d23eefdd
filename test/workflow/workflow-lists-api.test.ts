import assert from "node:assert/strict";
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
import {
  LIST_APPS,
  LIST_PEOPLE,
  type Listed,
  makeListScenario,
  type TodoTask,
} from "../support/workflow-lists.ts";

/**
 * Spec 001's lists as a client sees them over HTTP: the to-do list and its parameters, paging,
 * copies read through 4.5 and 2.12, the data modes, tenants and token forms, and a malformed
 * parameter answered 400. Which processes each category and filter holds, and the orders, are
 * workflow-list-filters.test.ts's, on the services.
 */

const ADMIN_TOKEN = "workflow-lists-admin-token-0123456789abcdef";
const SECRET = "workflow-lists-secret-0123456789abcdefghij";
const _REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
const USER_SCOPES = "start submit process process_edit task entrust entrust_edit";
const SYS_SCOPES = "sys_start sys_submit sys_process sys_process_edit sys_task";

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
        users: LIST_PEOPLE.map(([account, name]) => ({
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
          LIST_PEOPLE.map(([account]) => account),
          USER_SCOPES,
        ),
      );
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
      for (const [code, definition, app] of LIST_APPS)
        assert.equal((await deploy(code, definition, app)).status, 200);
      Object.assign(
        made,
        await makeListScenario({
          begin: (owner, code, data, test) => begin(owner, code, data, test ? "/apis/v2d" : undefined),
          async draft(owner, code) {
            const drafted = await ok<unknown>("PUT", "/process", tokens[owner]!, { code, data: "{}" });
            return drafted.entities[0] as number;
          },
          async act(user, entry, action, rating) {
            const params: Record<string, string> = {
              action,
              ...(rating === undefined ? {} : { rating: String(rating) }),
            };
            await ok("POST", `/process/${entry}`, tokens[user]!, params);
          },
          async handleStep(entry, step, user) {
            await ok("POST", `/task/${await openTask(entry, step)}`, tokens[user]!);
          },
          async entrust(user, other, app, from, to) {
            await ok("PUT", `/user/${user}/entrustees/${other}`, tokens[user]!, {
              app,
              from: String(from),
              to: String(to),
            });
          },
          async endEntrusting(user, other) {
            await ok("DELETE", `/user/${user}/entrustees/${other}`, tokens[user]!);
          },
        }),
      );
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

    it("answers a malformed list parameter 400 in the envelope, naming the parameter", async () => {
      for (const [parameter, value] of [
        ["order", "sideways"],
        ["ratings", "0.5~5"],
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
