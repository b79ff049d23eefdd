import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { authorizationCodeToken } from "../support/tokens.ts";
import {
  PORTAL_REDIRECT,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
} from "../support/workflow-fixture.ts";
import {
  child,
  DONE,
  fanOut,
  grandchild,
  type Process,
  type Profile,
  parent,
  routed,
  simple,
  statuses,
  type Task,
  TODO,
  tasksAt,
} from "../support/workflow-graphs.ts";

/**
 * Spec 001's workflow graphs as a client sees them over HTTP: 2.8's and 4.5's parameters read from
 * the query, a Workflow application's token, concurrent calls racing each other, and versions
 * deployed through the admin API. The graphs' own rules (sub-processes, dynamic branches,
 * countersigns, hidden steps, milestones, nextSteps) are workflow-graphs.test.ts's, on the services.
 */

const ADMIN_TOKEN = "workflow-graphs-admin-token-0123456789abc";
const SECRET = "workflow-graphs-secret-0123456789abcdefgh";
const _REDIRECT = PORTAL_REDIRECT;
const PASSWORD = WORKFLOW_PASSWORD;
const USER_SCOPES = "start submit process process_edit task";
const SYS_SCOPES = "sys_start sys_submit sys_process sys_process_edit sys_task";
const ACCOUNTS = ["alice", "bob", "carol", "dan", "erin"] as const;
type Account = (typeof ACCOUNTS)[number];

interface Envelope<T> {
  errno: number;
  ecode: string;
  error: string;
  total: number;
  entities: T[];
}
for (const mode of await testModes()) {
  describe(`workflow graphs over HTTP (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: () => Promise<void>;
    const tokens = {} as Record<Account, string>;
    let sys: string;

    async function call<T>(
      method: string,
      path: string,
      token: string,
      params: Record<string, string> = {},
    ): Promise<{ status: number; body: Envelope<T> }> {
      const query = new URLSearchParams(params).toString();
      const response = await fetch(`${platform.url}/apis/v2${path}${query ? `?${query}` : ""}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        signal: AbortSignal.timeout(10_000),
      });
      return { status: response.status, body: (await response.json()) as Envelope<T> };
    }

    /** A call that must succeed: its single entity. */
    async function ok<T>(method: string, path: string, token: string, params: Record<string, string> = {}) {
      const { status, body } = await call<T>(method, path, token, params);
      assert.equal(status, 200, `${method} ${path}`);
      assert.equal(body.errno, 0, `${method} ${path}: ${body.ecode} ${body.error}`);
      return body.entities[0]!;
    }

    /** A call that must be refused with this ecode and errno, answering HTTP 200. */
    async function refused(
      [errno, ecode]: [number, string],
      method: string,
      path: string,
      token: string,
      params: Record<string, string> = {},
    ) {
      const { status, body } = await call(method, path, token, params);
      assert.equal(status, 200, `${method} ${path}`);
      assert.deepEqual([body.errno, body.ecode], [errno, ecode], body.error);
    }

    const view = (ref: string | number, token = sys, params: Record<string, string> = {}) =>
      ok<Process>("GET", `/process/${ref}`, token, params);

    /** 4.5: an administrator acts on the process. */
    const act = (ref: string | number, params: Record<string, string>) =>
      call<Process>("POST", `/process/${ref}`, sys, params);

    /** 3.2 for alice: the serial number and the first task. */
    async function start(code: string, data: Record<string, unknown> = {}) {
      const { status, body } = await call<unknown>("PUT", "/process", tokens.alice, {
        code,
        data: JSON.stringify(data),
      });
      assert.equal(status, 200);
      assert.equal(body.errno, 0, `${code}: ${body.ecode} ${body.error}`);
      const [entry, , , first] = body.entities as [number, number, string, Task];
      return { entry, first };
    }

    /** Starts a process for alice and hands in her form; answers its serial number. */
    async function startAndApply(code: string, data: Record<string, unknown> = {}): Promise<number> {
      const { entry, first } = await start(code, data);
      await ok<Task>("POST", `/task/${first.id}`, tokens.alice);
      return entry;
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: [{ domain: "example.edu", name: "Example University" }],
        applications: [
          portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
          // The top workflow's own application: its users' tokens see that workflow only.
          {
            id: "parent-app",
            secret: SECRET,
            name: "Parent",
            type: "workflow",
            tenant: "example.edu",
            workflowCode: "parent",
            redirectUris: [PORTAL_REDIRECT],
            scopes: USER_SCOPES.split(" "),
          },
        ],
        users: ACCOUNTS.map((account) => ({
          tenant: "example.edu",
          account,
          name: account,
          password: PASSWORD,
        })),
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      Object.assign(tokens, await portalUserTokens(platform.url, SECRET, ACCOUNTS, USER_SCOPES));
      sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      for (const [code, definition] of Object.entries({
        grandchild,
        child,
        parent,
        routed,
        simple,
        fanOut,
      })) {
        const deployed = await fetch(`${platform.url}/admin/workflows/example.edu/${code}/versions`, {
          method: "PUT",
          headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
          body: JSON.stringify({ definition, online: true, app: { name: code } }),
        });
        assert.equal(deployed.status, 200, `${code}: ${await deployed.text()}`);
      }
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("reads 2.8's entryRef and includeAncestors from the query, a Workflow application's token its own workflow only", async () => {
      const entry = await startAndApply("parent", { reviewer: "bob" });
      const subOf = async (ref: string | number, step: string) =>
        view(tasksAt(await view(ref), step)[0]!.sub!.id);
      const top = await view(entry);
      const middle = await subOf(entry, "outer");
      const deepest = await subOf(middle.id, "inner");
      const withAncestors = await view(deepest.id, sys, { includeAncestors: "true" });
      assert.deepEqual(
        withAncestors.ancestors?.map((ancestor) => ancestor.entry),
        [middle.entry, top.entry],
      );
      assert.equal((await view(deepest.entry, tokens.alice, { entryRef: String(entry) })).id, deepest.id);
      await refused([40402, "PROCESS_NOT_FOUND"], "GET", `/process/${deepest.entry}`, tokens.erin, {
        entryRef: String(entry),
      });
      const parentAppToken = await authorizationCodeToken(
        platform.url,
        { id: "parent-app", secret: SECRET, redirectUri: PORTAL_REDIRECT },
        { account: "alice", password: PASSWORD },
        USER_SCOPES,
      );
      assert.equal((await view(entry, parentAppToken)).id, top.id);
      await refused([40307, "WORKFLOW_MISMATCH"], "GET", `/process/${deepest.entry}`, parentAppToken, {
        entryRef: String(entry),
      });
    });

    it("takes 4.5's nextSteps and nextUsers as comma lists, a user named twice once", async () => {
      const entry = await startAndApply("routed", { days: 1 });
      const submit = (params: Record<string, string>) =>
        act(entry, { action: "submit", stepCode: "triage", actionCode: "submit", ...params });
      const unknown = await submit({ nextSteps: "slow", nextUsers: "nobody-here" });
      assert.deepEqual(
        [unknown.status, unknown.body.errno, unknown.body.ecode],
        [200, 40405, "USER_NOT_FOUND"],
      );
      const jumped = await submit({ nextSteps: "slow", nextUsers: "erin,carol,erin" });
      assert.equal(jumped.body.errno, 0, jumped.body.error);
      const [slow] = tasksAt(jumped.body.entities[0]!, "slow");
      assert.deepEqual(
        (await call<Profile>("GET", `/task/${slow!.id}/candidates`, sys)).body.entities
          .map((user) => user.account)
          .sort(),
        ["carol", "erin"],
      );
    });

    it("keeps a suspend racing a submit consistent: handled then suspended, or refused as suspended", async () => {
      const outcomes = { handledFirst: 0, suspendedFirst: 0 };
      for (let attempt = 0; attempt < 20; attempt++) {
        const entry = await startAndApply("simple");
        const [approve] = tasksAt(await view(entry), "approve");
        const [suspend, handle] = await Promise.all([
          act(entry, { action: "suspend" }),
          call<Task>("POST", `/task/${approve!.id}`, tokens.bob),
        ]);
        assert.equal(suspend.status, 200);
        assert.equal(suspend.body.errno, 0, `the suspend always succeeds: ${suspend.body.error}`);
        assert.equal(handle.status, 200);
        const now = await view(entry);
        assert.equal(now.status, "suspended", "the suspend is never lost");
        if (handle.body.errno === 0) {
          outcomes.handledFirst++;
          assert.equal(handle.body.entities[0]!.status, DONE);
          assert.deepEqual(statuses(now, "approve"), [DONE]);
          assert.deepEqual(statuses(now, "after"), [TODO], "the handling went on to the next step");
        } else {
          outcomes.suspendedFirst++;
          assert.deepEqual([handle.body.errno, handle.body.ecode], [40903, "PROCESS_SUSPENDED"]);
          assert.deepEqual(statuses(now, "approve"), [TODO], "the refused handling changed nothing");
          assert.deepEqual(tasksAt(now, "after"), []);
          await refused([40903, "PROCESS_SUSPENDED"], "POST", `/task/${approve!.id}`, tokens.bob);
        }
        // Resumed, it goes on from where it was, each task handled once.
        assert.equal((await act(entry, { action: "resume" })).body.errno, 0);
        if (handle.body.errno !== 0) await ok<Task>("POST", `/task/${approve!.id}`, tokens.bob);
        await refused([40901, "TASK_ALREADY_HANDLED"], "POST", `/task/${approve!.id}`, tokens.bob);
        const resumed = await view(entry);
        assert.equal(resumed.status, "doing");
        assert.deepEqual(statuses(resumed, "after"), [TODO]);
      }
      assert.equal(outcomes.handledFirst + outcomes.suspendedFirst, 20);
    });

    it("lets exactly one of 50 concurrent submits of a task through over HTTP, with one next step", async () => {
      const entry = await startAndApply("simple");
      const [approve] = tasksAt(await view(entry), "approve");
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => call<Task>("POST", `/task/${approve!.id}`, tokens.bob)),
      );
      const outcomes = answers.map(({ status, body }) => [status, body.errno, body.ecode].join(" "));
      assert.equal(outcomes.filter((outcome) => outcome === "200 0 SUCCESS").length, 1, outcomes.join(", "));
      assert.equal(outcomes.filter((outcome) => outcome === "200 40901 TASK_ALREADY_HANDLED").length, 49);
      assert.deepEqual(statuses(await view(entry), "after"), [TODO], "one next step");
    });

    it("fires a 20-way join once when its branches are handled over HTTP at the same time", async () => {
      const entry = await startAndApply("fanOut");
      const parts = (await view(entry)).tasks.filter((task) => task.code.startsWith("part"));
      assert.equal(parts.length, 20);
      const answers = await Promise.all(
        parts.map((task) => call<Task>("POST", `/task/${task.id}`, tokens.bob)),
      );
      for (const { body } of answers) assert.equal(body.errno, 0, body.error);
      const joined = await view(entry);
      assert.deepEqual(statuses(joined, "close"), [TODO], "the join fired once");
      assert.equal(
        joined.tasks.filter((task) => task.code.startsWith("part") && task.status === DONE).length,
        20,
      );
    });

    it("keeps a process on the version it started on when a newer one goes on line", async () => {
      const put = (domain: string, code: string, definition: unknown, token = ADMIN_TOKEN) =>
        fetch(`${platform.url}/admin/workflows/${domain}/${code}/versions`, {
          method: "PUT",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({ definition, online: true, app: { name: code } }),
        });
      assert.equal((await put("example.edu", "versioned", simple)).status, 200);
      const early = await startAndApply("versioned");
      const shorter = structuredClone(simple);
      shorter.graph.nodes = shorter.graph.nodes.filter((node) => node.code !== "after");
      shorter.graph.edges = [
        { from: "apply", to: "approve" },
        { from: "approve", to: "done" },
      ];
      const second = await put("example.edu", "versioned", shorter);
      assert.equal(second.status, 200, await second.clone().text());
      assert.equal(((await second.json()) as { number: number }).number, 2);
      const late = await startAndApply("versioned");

      await ok<Task>("POST", `/task/${tasksAt(await view(early), "approve")[0]!.id}`, tokens.bob);
      assert.deepEqual(statuses(await view(early), "after"), [TODO], "the first version's flow");
      await ok<Task>("POST", `/task/${tasksAt(await view(late), "approve")[0]!.id}`, tokens.bob);
      assert.equal((await view(late)).status, "done", "the second version's flow");

      assert.equal((await put("nowhere.edu", "versioned", simple)).status, 404, "an unknown tenant");
      assert.equal((await put("example.edu", "versioned", simple, "not-the-admin-token")).status, 401);
    });

    it("keeps a kill of a parent racing the end of its sub-process consistent, whichever comes first", async () => {
      const outcomes = { endedFirst: 0, killedFirst: 0 };
      for (let attempt = 0; attempt < 20; attempt++) {
        const entry = await startAndApply("child", { reviewer: "bob" });
        const deepest = await view(tasksAt(await view(entry), "inner")[0]!.sub!.id);
        const [kill, handle] = await Promise.all([
          act(entry, { action: "kill" }),
          call<Task>("POST", `/task/${tasksAt(deepest, "check")[0]!.id}`, tokens.bob),
        ]);
        assert.deepEqual(
          [kill.status, kill.body.errno],
          [200, 0],
          `the kill always succeeds: ${kill.body.error}`,
        );
        assert.equal(handle.status, 200, "neither waits on the other for ever");
        assert.equal((await view(entry)).status, "killed");
        const sub = await view(deepest.id);
        if (handle.body.errno === 0) {
          outcomes.endedFirst++;
          assert.equal(sub.status, "done");
        } else {
          outcomes.killedFirst++;
          assert.equal(handle.body.ecode, "PROCESS_ENDED", handle.body.error);
          assert.equal(sub.status, "killed", "the parent's kill reached its sub-process");
        }
      }
      assert.equal(outcomes.endedFirst + outcomes.killedFirst, 20);
    });
  });
}
