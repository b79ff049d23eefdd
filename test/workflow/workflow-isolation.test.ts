import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
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

/**
 * Every operation that names a process or a task keeps it to its tenant and data mode: another
 * tenant's application, and the same application on the other data mode, neither read it nor
 * change it, whether they name the process by serial number or GUID, or the task by its GUID.
 */

const SECRET = "isolation-secret-0123456789abcdefghijklm";
const ADMIN_TOKEN = "isolation-admin-token-0123456789abcdefg";
const SYS_SCOPES = "sys_process sys_process_edit sys_submit sys_task sys_task_edit";

/** The applicant's form, then bob's review (open to the system user), then the end. */
const memo = {
  schema: { fields: [{ name: "note", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "review", assignees: [{ accounts: ["bob"] }], allowSystemUser: true },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "review" },
      { from: "review", to: "done" },
    ],
  },
};

interface Process {
  id: string;
  status: string;
  tasks: { id: string; code: string; status: number }[];
  activities: unknown[];
}

const [embedded] = await testModes();

describe("workflow isolation of tenants and data modes", { skip: embedded!.skip }, () => {
  let platform: TestPlatform;
  let cleanup: () => Promise<void>;
  let tokens: Record<string, string>;
  let sys: string;
  let otherSys: string;
  const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);

  before(async () => {
    const prepared = await embedded!.prepare();
    cleanup = prepared.cleanup;
    const env = await withBootstrap(prepared.env, {
      tenants: WORKFLOW_TENANTS,
      applications: [
        portalApplication(SECRET, ["start", "submit", ...SYS_SCOPES.split(" ")]),
        otherTenantApplication(SECRET, SYS_SCOPES.split(" ")),
      ],
      users: [
        ...["alice", "bob"].map((account) => ({ tenant: "example.edu", account, name: account })),
        { tenant: "other.edu", account: "bob", name: "bob of other.edu" },
      ].map((user) => ({ ...user, password: WORKFLOW_PASSWORD })),
      workflows: ["example.edu", "other.edu"].map((tenant) => ({
        tenant,
        code: "memo",
        name: "Memo",
        versions: [{ definition: memo, online: true, beta: true }],
      })),
    });
    platform = await startTestPlatform({ ...env, ADMIN_TOKEN });
    tokens = await portalUserTokens(platform.url, SECRET, ["alice"], "start submit");
    sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES);
    otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES);
  });

  after(async () => {
    await platform?.stop();
    await cleanup?.();
  });

  it("answers another tenant and the other data mode as if the process and its task did not exist", async () => {
    const started = await api.ok<unknown>("PUT", "/process", tokens.alice!, {
      code: "memo",
      data: '{"note":"n"}',
    });
    const [entry, , , first] = started.entities as [number, number, string, { id: string }];
    await api.ok("POST", `/task/${first.id}`, tokens.alice!);
    const seen = async () =>
      (await api.ok<Process>("GET", `/process/${entry}`, sys, { visibility: "all" })).entities[0]!;
    const before = await seen();
    const review = before.tasks.find((task) => task.code === "review")!;

    const byProcess = (ref: string | number): [string, string, Record<string, string>][] => [
      ["GET", `/process/${ref}`, {}],
      ["GET", `/process/${ref}/data`, {}],
      ["POST", `/process/${ref}/data`, { data: '{"note":"changed"}' }],
      ["GET", `/process/${ref}/admin`, {}],
      ["GET", `/process/${ref}/activities`, {}],
      ["POST", `/process/${ref}`, { action: "suspend" }],
      ["POST", `/process/${ref}`, { action: "kill" }],
      ["POST", `/process/${ref}`, { action: "mark", priority: "critical" }],
      ["POST", `/process/${ref}`, { action: "submit", stepCode: "review", actionCode: "submit" }],
    ];
    const byTask: [string, string, Record<string, string>][] = [
      ["POST", `/task/${review.id}`, {}],
      ["GET", `/task/${review.id}/candidates`, {}],
      ["POST", `/task/${review.id}/candidates`, { users: "bob" }],
    ];
    for (const [intruder, token, base] of [
      ["another tenant", otherSys, "/apis/v2"],
      ["the test-data API", sys, "/apis/v2d"],
    ] as const) {
      for (const [method, path, params] of [...byProcess(entry), ...byProcess(before.id), ...byTask]) {
        const { status, body } = await api.call(method, path, token, params, base);
        const expected = path.startsWith("/task/") ? "TASK_NOT_FOUND" : "PROCESS_NOT_FOUND";
        assert.deepEqual([status, body.ecode], [200, expected], `${intruder}: ${method} ${base}${path}`);
      }
      const everyActivity = await api.ok<{ entryId: number }>(
        "GET",
        "/process/*/activities",
        token,
        {},
        base,
      );
      assert.ok(
        everyActivity.entities.every((activity) => activity.entryId !== entry),
        `${intruder} lists none of the process's activities`,
      );
    }
    assert.deepEqual(await seen(), before, "nothing changed");
  });
});
