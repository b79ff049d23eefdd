import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  portalApplication,
  portalUserTokens,
  sysToken,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * What the workflow API tells a caller of processes that are not theirs: a user who took no part
 * in a process learns nothing of its tasks from 4.8, and serial numbers count per tenant, so a
 * tenant's numbers say nothing of how many processes another starts.
 */

const SECRET = "workflow-disclosure-secret-0123456789abc";
const ADMIN_TOKEN = "workflow-disclosure-admin-token-01234567";
const USER_SCOPES = "start submit process task task_edit";
const SYS_SCOPES = "sys_start sys_process";

/** The applicant's form, then bob's review, then the end. */
const memo = {
  schema: { fields: [{ name: "note", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "review", assignees: [{ accounts: ["bob"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "review" },
      { from: "review", to: "done" },
    ],
  },
};

interface Started {
  entry: number;
  task: { id: string };
}

for (const mode of await testModes()) {
  describe(`what the workflow API discloses of others' processes (${mode.name})`, { skip: mode.skip }, () => {
    let platform: TestPlatform;
    let cleanup: (() => Promise<void>) | undefined;
    let tokens: Record<string, string> = {};
    const sys: Record<string, string> = {};
    const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);

    /** A memo started by `token` (a user's, or a sys token naming `userId`). */
    async function start(token: string, params: Record<string, string> = {}): Promise<Started> {
      const started = await api.ok<unknown>("PUT", "/process", token, { code: "memo", ...params });
      const [entry, , , task] = started.entities as [number, number, string, { id: string }];
      return { entry, task };
    }

    before(async () => {
      const prepared = await mode.prepare();
      cleanup = prepared.cleanup;
      const env = await withBootstrap(prepared.env, {
        tenants: WORKFLOW_TENANTS,
        applications: [
          portalApplication(SECRET, [...USER_SCOPES.split(" "), ...SYS_SCOPES.split(" ")]),
          otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
        ],
        users: [
          ...["alice", "bob", "carol"].map((account) => ({ tenant: "example.edu", account, name: account })),
          { tenant: "other.edu", account: "olga", name: "olga" },
        ].map((user) => ({ ...user, password: WORKFLOW_PASSWORD })),
        workflows: ["example.edu", "other.edu"].map((tenant) => ({
          tenant,
          code: "memo",
          name: `Memo of ${tenant}`,
          versions: [{ definition: memo, online: true, beta: true }],
        })),
      });
      platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
      tokens = await portalUserTokens(platform.url, SECRET, ["alice", "bob", "carol"], USER_SCOPES);
      sys.example = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
      sys.other = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
    });

    after(async () => {
      await platform?.stop();
      await cleanup?.();
    });

    it("4.8 answers TASK_NOT_FOUND to a user who took no part in the task's process, whatever the task's state", async () => {
      const { task } = await start(tokens.alice!);
      const unknown = await api.call("DELETE", "/task/00000000-0000-4000-8000-000000000000", tokens.carol!);
      assert.equal(unknown.body.ecode, "TASK_NOT_FOUND");

      // To do: a stranger is not told it is not handled yet.
      const todo = await api.call("DELETE", `/task/${task.id}`, tokens.carol!);
      assert.deepEqual([todo.status, todo.body.ecode, todo.body.errno], [200, "TASK_NOT_FOUND", 40401]);

      // Handled, and led to bob's review: a stranger is not told who may take it back either.
      await api.ok("POST", `/task/${task.id}`, tokens.alice!);
      const handled = await api.call("DELETE", `/task/${task.id}`, tokens.carol!);
      assert.equal(handled.body.ecode, "TASK_NOT_FOUND");
      assert.equal(
        handled.body.error,
        unknown.body.error.replace("00000000-0000-4000-8000-000000000000", task.id),
      );

      // Bob takes part (the review is his): he is told why he may not.
      const bobs = await api.call("DELETE", `/task/${task.id}`, tokens.bob!);
      assert.equal(bobs.body.ecode, "WITHDRAW_NOT_ALLOWED");
      // And the handler takes it back.
      const taken = await api.call("DELETE", `/task/${task.id}`, tokens.alice!);
      assert.equal(taken.body.errno, 0, taken.body.error);
    });

    it("numbers each tenant's processes on their own, one after another whatever other tenants start", async () => {
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let i = 0; i < 3; i++) {
        ours.push((await start(sys.example!, { userId: "alice" })).entry);
        for (let j = 0; j < 2; j++) theirs.push((await start(sys.other!, { userId: "olga" })).entry);
      }
      for (const numbers of [ours, theirs]) {
        assert.deepEqual(
          numbers,
          numbers.map((_, i) => numbers[0]! + i),
          `consecutive: ${numbers}`,
        );
      }
      assert.deepEqual(theirs.slice(0, 1), [1], "the other tenant's first process is its number 1");

      // One number names each tenant's own process.
      const shared = theirs.find((entry) => ours.includes(entry))!;
      assert.ok(shared !== undefined, `a number both tenants have: ${ours} and ${theirs}`);
      const mine = await api.ok<{ name: string }>("GET", `/process/${shared}`, sys.example!);
      const other = await api.ok<{ name: string }>("GET", `/process/${shared}`, sys.other!);
      assert.equal(mine.entities[0]!.name, "Memo of example.edu");
      assert.equal(other.entities[0]!.name, "Memo of other.edu");
    });

    it("gives concurrent starts of one tenant distinct numbers, without gaps", async () => {
      const started = await Promise.all(
        Array.from({ length: 12 }, () => start(sys.other!, { userId: "olga" })),
      );
      const numbers = started.map(({ entry }) => entry).sort((a, b) => a - b);
      assert.deepEqual(
        numbers,
        numbers.map((_, i) => numbers[0]! + i),
      );
    });
  });
}
