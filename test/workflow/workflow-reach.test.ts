import assert from "node:assert/strict";
import { startTestPlatform, type TestPlatform, testModes, withBootstrap } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { authorizationCodeToken, issueToken } from "../support/tokens.ts";
import { WorkflowClient } from "../support/workflow-client.ts";
import {
  otherTenantApplication,
  PORTAL_REDIRECT,
  portalApplication,
  sysToken,
  WORKFLOW_PASSWORD,
  WORKFLOW_TENANTS,
} from "../support/workflow-fixture.ts";

/**
 * Who reaches what on spec 001's workflow API, on both data modes:
 * - spec 001's table of scopes and token kinds, operation by operation: a token without the
 *   operation's scope is refused naming the scope it needs (the plain scope for a user token, its
 *   `sys_` form for a sys token), a token of the wrong kind is refused, a password-grant token is
 *   refused, and a token with the scope passes the check;
 * - every operation that names a process or a task keeps it to its tenant and data mode: another
 *   tenant's application, and the same application on the other data mode, neither read it nor
 *   change it, whether they name the process by serial number or GUID, or the task by its GUID.
 */

const SECRET = "workflow-reach-secret-0123456789abcdefghi";
const ADMIN_TOKEN = "workflow-reach-admin-token-0123456789abc";
const TASK = "00000000-0000-0000-0000-000000000000";

/** [operation, method, path, the user token's scope (none: sys only), the sys token's (none: user only)] */
const OPERATIONS: [string, string, string, string | null, string | null][] = [
  ["2.1", "GET", "/me/apps", "app", null],
  ["2.1 sys", "GET", "/user/alice/apps", null, "sys_app"],
  ["2.3", "GET", "/me/tasks/todo", "task", null],
  ["2.3 sys", "GET", "/user/alice/tasks/todo", null, "sys_task"],
  ["2.4", "GET", "/me/processes/doing", "process", null],
  ["2.4 sys", "GET", "/user/alice/processes/doing", null, "sys_process"],
  ["2.8", "GET", "/process/1", "process", "sys_process"],
  ["2.9", "GET", "/process/1/data", "process", "sys_process"],
  ["2.10", "GET", "/process/1/data/pdf", "process", "sys_process"],
  ["2.11", "POST", "/process/1/data", "process_edit", "sys_process_edit"],
  ["2.12", "POST", "/me/processes", "process_edit", null],
  ["3.1", "POST", `/task/${TASK}`, "submit", "sys_submit"],
  ["3.2", "PUT", "/process", "start", "sys_start"],
  ["3.3/4.5", "POST", "/process/1", "process_edit", "sys_process_edit"],
  ["3.5", "GET", "/thing/B-1/tasks", "task", null],
  ["4.1", "GET", "/app/leave", "app", "sys_app"],
  ["4.2", "POST", "/app/leave", "app_edit", "sys_app_edit"],
  ["4.3", "GET", "/me/apps/admin", "app", null],
  ["4.3 sys", "GET", "/user/alice/apps/admin", null, "sys_app"],
  ["4.4", "GET", "/me/processes/admin", "process", null],
  ["4.4 sys", "GET", "/user/alice/processes/admin", null, "sys_process"],
  ["4.6", "GET", `/task/${TASK}/candidates`, null, "sys_task"],
  ["4.7", "POST", `/task/${TASK}/candidates`, null, "sys_task_edit"],
  ["4.8", "DELETE", `/task/${TASK}`, "task_edit", null],
  ["4.9", "PUT", `/task/${TASK}/notification`, null, "sys_task_edit"],
  ["4.10", "GET", "/apps/recommended", null, "sys_app"],
  ["4.11", "GET", "/app/leave/ratings", null, "sys_app"],
  ["4.12", "GET", "/process/1/admin", "process", "sys_process"],
  ["4.13", "GET", "/process/1/activities", "process", "sys_process"],
  ["10.1", "GET", "/user/alice/entrustees", "entrust", "sys_entrust"],
  ["10.1 entrusters", "GET", "/user/alice/entrusters", "entrust", "sys_entrust"],
  ["10.2", "PUT", "/user/alice/entrustees/bob", "entrust_edit", "sys_entrust_edit"],
  ["10.3", "DELETE", "/user/alice/entrustees/bob", "entrust_edit", "sys_entrust_edit"],
  ["11.1", "PUT", "/thing/B-1/pickup", null, "sys_thing_edit"],
  ["11.2", "GET", "/thing/B-1", null, "sys_thing"],
  ["11.3", "GET", "/pickup/ABCDEFGH/things", null, "sys_thing"],
];

const USER_SCOPES = [...new Set(OPERATIONS.flatMap(([, , , user]) => (user ? [user] : [])))];
const SYS_SCOPES = [...new Set(OPERATIONS.flatMap(([, , , , sys]) => (sys ? [sys] : [])))];

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

describe("who reaches what on the workflow API", { skip: embedded!.skip }, () => {
  let platform: TestPlatform;
  let cleanup: () => Promise<void>;
  const tokens: Record<"user" | "sys" | "bareUser" | "bareSys" | "password", string> = {
    user: "",
    sys: "",
    bareUser: "",
    bareSys: "",
    password: "",
  };
  let otherSys: string;
  const api = new WorkflowClient(() => platform.url, ADMIN_TOKEN);

  /** The operation's HTTP status and the `WWW-Authenticate` challenge it answered with. */
  async function gate(base: string, method: string, path: string, token: string) {
    const response = await fetch(`${platform.url}${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return { status: response.status, challenge: response.headers.get("www-authenticate") ?? "" };
  }

  before(async () => {
    const prepared = await embedded!.prepare();
    cleanup = prepared.cleanup;
    const env = await withBootstrap(prepared.env, {
      tenants: WORKFLOW_TENANTS,
      applications: [
        portalApplication(SECRET, [
          ...USER_SCOPES,
          ...SYS_SCOPES,
          "profile",
          "sys_profile",
          "send_notification",
        ]),
        otherTenantApplication(SECRET, SYS_SCOPES),
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
    const client = { id: "portal", secret: SECRET, redirectUri: PORTAL_REDIRECT };
    const alice = { account: "alice", password: WORKFLOW_PASSWORD };
    tokens.user = await authorizationCodeToken(platform.url, client, alice, USER_SCOPES.join(" "));
    tokens.bareUser = await authorizationCodeToken(platform.url, client, alice, "profile");
    tokens.sys = await sysToken(platform.url, "portal", SECRET, SYS_SCOPES.join(" "));
    tokens.bareSys = await sysToken(platform.url, "portal", SECRET, "sys_profile");
    otherSys = await sysToken(platform.url, "other", SECRET, SYS_SCOPES.join(" "));
    tokens.password = await issueToken(
      platform.url,
      { id: "portal", secret: SECRET },
      // The password grant gives spec 000's scopes only; the workflow API refuses it before any scope.
      { grant_type: "password", username: "alice", password: WORKFLOW_PASSWORD, scope: "send_notification" },
    );
  });

  after(async () => {
    await platform?.stop();
    await cleanup?.();
  });

  for (const base of ["/apis/v2", "/apis/v2d"]) {
    it(`holds every operation of ${base} to its scope and token kinds`, async () => {
      for (const [operation, method, path, userScope, sysScope] of OPERATIONS) {
        const at = `${operation} ${method} ${base}${path}`;
        for (const [scope, token, bare] of [
          [userScope, tokens.user, tokens.bareUser],
          [sysScope, tokens.sys, tokens.bareSys],
        ] as const) {
          if (scope) {
            const refused = await gate(base, method, path, bare);
            assert.equal(refused.status, 403, `${at} without ${scope}`);
            assert.match(refused.challenge, new RegExp(`scope="${scope}"`), `${at} names ${scope}`);
            const passed = await gate(base, method, path, token);
            assert.ok(![401, 403].includes(passed.status), `${at} with ${scope}: ${passed.status}`);
          } else {
            const wrongKind = await gate(base, method, path, token);
            assert.equal(wrongKind.status, 403, `${at} refuses this kind of token`);
          }
        }
        const password = await gate(base, method, path, tokens.password);
        assert.equal(password.status, 403, `${at} refuses a password-grant token`);
        assert.doesNotMatch(password.challenge, /insufficient_scope/, `${at} refuses it for its grant`);
      }
    });
  }

  it("answers another tenant and the other data mode as if the process and its task did not exist", async () => {
    const started = await api.ok<unknown>("PUT", "/process", tokens.user, {
      code: "memo",
      data: '{"note":"n"}',
    });
    const [entry, , , first] = started.entities as [number, number, string, { id: string }];
    await api.ok("POST", `/task/${first.id}`, tokens.user);
    const seen = async () =>
      (await api.ok<Process>("GET", `/process/${entry}`, tokens.sys, { visibility: "all" })).entities[0]!;
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
      ["the test-data API", tokens.sys, "/apis/v2d"],
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
