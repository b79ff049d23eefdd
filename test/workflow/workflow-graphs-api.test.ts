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

/**
 * The graph semantics of spec 001's workflows over HTTP: nested sub-processes, dynamic parallel
 * branches addressed by 4.5's `splitPath`, countersigns, hidden steps and milestones, 4.5's
 * `nextSteps`/`nextUsers`, and a suspend racing a submit.
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
interface Profile {
  account: string;
}
interface Task {
  id: string;
  code: string;
  status: number;
  assignUser: Profile | null;
  actionUser: Profile | null;
  actualUser: Profile | null;
  actionName: string | null;
  sub?: { id: string };
}
interface Milestone {
  name: string;
  percent: number;
  status: "todo" | "doing" | "done";
}
interface Process {
  id: string;
  entry: number;
  status: string;
  tasks: Task[];
  states: { code: string }[];
  milestone: Milestone | null;
  milestones: Milestone[];
  activities: { description: string }[];
  ancestors?: { id: string; entry: number }[];
}

const TODO = 1;
const DONE = 2;
const SUBPROCESS = 3;

// One definition per scenario; the first step of each is the initiator's form, `apply`.

/** Three levels: `parent` waits on `child`, which waits on `grandchild`, whose `check` is the reviewer's. */
const grandchild = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "check", assignees: [{ field: "reviewer" }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "check" },
      { from: "check", to: "done" },
    ],
  },
};
const child = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "inner", workflow: "grandchild", data: { reviewer: "reviewer" } },
      { kind: "task", code: "confirm", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "inner" },
      { from: "inner", to: "confirm" },
      { from: "confirm", to: "done" },
    ],
  },
};
const parent = {
  schema: { fields: [{ name: "reviewer", type: "string" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "outer", workflow: "child", data: { reviewer: "reviewer" } },
      { kind: "task", code: "close", assignees: [{ accounts: ["dan"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "outer" },
      { from: "outer", to: "close" },
      { from: "close", to: "done" },
    ],
  },
};

/** One `grade` task per row of `papers`, for the row's `grader`, open to the system user; `sign` after the join. */
const grading = {
  schema: {
    fields: [
      {
        name: "papers",
        type: "list",
        fields: [
          { name: "title", type: "string" },
          { name: "grader", type: "user" },
        ],
      },
    ],
  },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "dynamicParallel", code: "each", list: "papers" },
      { kind: "task", code: "grade", assignees: [{ field: "grader" }], allowSystemUser: true },
      { kind: "join", code: "gather", split: "each" },
      { kind: "task", code: "sign", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "each" },
      { from: "each", to: "grade" },
      { from: "grade", to: "gather" },
      { from: "gather", to: "sign" },
      { from: "sign", to: "done" },
    ],
  },
};

/** `inTurn`: bob, carol, dan one after another (a rejection ends it); `together`: bob and carol at once. */
const countersign = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      {
        kind: "task",
        code: "inTurn",
        assignees: [{ accounts: ["bob", "carol", "dan"] }],
        mode: "sequential",
        actions: [
          { id: 1, code: "approve", name: "Approve" },
          { id: 2, code: "reject", name: "Reject" },
        ],
      },
      { kind: "task", code: "together", assignees: [{ accounts: ["bob", "carol"] }], mode: "all" },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "inTurn" },
      { from: "inTurn", to: "together", action: "approve" },
      { from: "inTurn", to: "done", action: "reject" },
      { from: "together", to: "done" },
    ],
  },
};

/** `screen` is hidden; each step is a milestone further on. */
const tracked = {
  graph: {
    nodes: [
      { kind: "start", code: "apply", milestone: { name: "Submitted", percent: 10 } },
      {
        kind: "task",
        code: "screen",
        assignees: [{ accounts: ["erin"] }],
        hidden: true,
        milestone: { name: "Screening", percent: 40 },
      },
      {
        kind: "task",
        code: "decide",
        assignees: [{ accounts: ["carol"] }],
        milestone: { name: "Deciding", percent: 70 },
      },
      { kind: "end", code: "done", milestone: { name: "Closed", percent: 100 } },
    ],
    edges: [
      { from: "apply", to: "screen" },
      { from: "screen", to: "decide" },
      { from: "decide", to: "done" },
    ],
  },
};

/** `triage` leads through an exclusive choice to `fast` (bob) or `slow` (dan); `file` is beyond `fast`. */
const routed = {
  schema: { fields: [{ name: "days", type: "number" }] },
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "triage", assignees: [{ accounts: ["carol"] }], allowSystemUser: true },
      { kind: "exclusive", code: "which" },
      { kind: "task", code: "fast", assignees: [{ accounts: ["bob"] }] },
      { kind: "task", code: "slow", assignees: [{ accounts: ["dan"] }] },
      { kind: "task", code: "file", assignees: [{ accounts: ["erin"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "triage" },
      { from: "triage", to: "which" },
      { from: "which", to: "fast", condition: "days <= 2" },
      { from: "which", to: "slow", default: true },
      { from: "fast", to: "file" },
      { from: "file", to: "done" },
      { from: "slow", to: "done" },
    ],
  },
};

/** `approve` (bob), then `after` (carol). */
const simple = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "task", code: "approve", assignees: [{ accounts: ["bob"] }] },
      { kind: "task", code: "after", assignees: [{ accounts: ["carol"] }] },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "approve" },
      { from: "approve", to: "after" },
      { from: "after", to: "done" },
    ],
  },
};

/** `child`, whose step after the sub-process has nobody to handle it and refuses to be skipped. */
const stuck = {
  ...child,
  graph: {
    ...child.graph,
    nodes: child.graph.nodes.map((node) =>
      node.code === "confirm"
        ? { ...node, assignees: [{ accounts: ["nobody-here"] }], whenNobody: "refuse" }
        : node,
    ),
  },
};

/** A parallel split into 20 steps of bob's, joined before carol's `close`. */
const fanOut = (() => {
  const steps = Array.from({ length: 20 }, (_, i) => `part${i}`);
  return {
    graph: {
      nodes: [
        { kind: "start", code: "apply" },
        { kind: "parallel", code: "split" },
        ...steps.map((code) => ({ kind: "task", code, assignees: [{ accounts: ["bob"] }] })),
        { kind: "join", code: "joined", split: "split" },
        { kind: "task", code: "close", assignees: [{ accounts: ["carol"] }] },
        { kind: "end", code: "done" },
      ],
      edges: [
        { from: "apply", to: "split" },
        ...steps.flatMap((code) => [
          { from: "split", to: code },
          { from: code, to: "joined" },
        ]),
        { from: "joined", to: "close" },
        { from: "close", to: "done" },
      ],
    },
  };
})();

/** Starts itself as its sub-process: each level's form is handled at once, so it would nest for ever. */
const recursive = {
  graph: {
    nodes: [
      { kind: "start", code: "apply" },
      { kind: "subprocess", code: "again", workflow: "recursive", data: {} },
      { kind: "end", code: "done" },
    ],
    edges: [
      { from: "apply", to: "again" },
      { from: "again", to: "done" },
    ],
  },
};

const DEFINITIONS: [string, unknown][] = [
  ["recursive", recursive],
  ["fanOut", fanOut],
  ["stuck", stuck],
  ["grandchild", grandchild],
  ["child", child],
  ["parent", parent],
  ["grading", grading],
  ["countersign", countersign],
  ["tracked", tracked],
  ["routed", routed],
  ["simple", simple],
];

/** The tasks of a step, in the order the process lists them. */
const tasksAt = (process: Process, code: string) => process.tasks.filter((task) => task.code === code);
const statuses = (process: Process, code: string) => tasksAt(process, code).map((task) => task.status);
const accountOf = (profile: Profile | null | undefined) => profile?.account ?? null;

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
      for (const [code, definition] of DEFINITIONS) {
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

    it("nests three processes: each parent waits, and finishing the deepest lets each go on", async () => {
      const entry = await startAndApply("parent", { reviewer: "bob" });
      const top = await view(entry);
      assert.equal(top.status, "doing");
      const [outer] = tasksAt(top, "outer");
      assert.equal(outer?.status, SUBPROCESS, "the parent waits on its sub-process");
      assert.deepEqual(top.states, [], "nothing of the parent's is to be done meanwhile");

      const middle = await view(outer!.sub!.id);
      const [inner] = tasksAt(middle, "inner");
      assert.equal(inner?.status, SUBPROCESS, "the child waits on its own sub-process");
      assert.deepEqual(statuses(middle, "apply"), [DONE], "the child's form was handed in at once");
      const deepest = await view(inner!.sub!.id);
      assert.deepEqual(
        deepest.states.map((state) => state.code),
        ["check"],
      );

      // 2.8 of the deepest lists its ancestors, nearest first.
      const withAncestors = await view(deepest.id, sys, { includeAncestors: "true" });
      assert.deepEqual(
        withAncestors.ancestors?.map((ancestor) => [ancestor.id, ancestor.entry]),
        [
          [middle.id, middle.entry],
          [top.id, top.entry],
        ],
      );
      assert.equal((await view(top.id, sys, { includeAncestors: "true" })).ancestors?.length, 0);
      // The initiator sees the deepest through the top process she started.
      assert.equal((await view(deepest.entry, tokens.alice, { entryRef: String(entry) })).id, deepest.id);
      await refused([40402, "PROCESS_NOT_FOUND"], "GET", `/process/${deepest.entry}`, tokens.erin, {
        entryRef: String(entry),
      });
      // Through the top workflow's own application she sees the top only, not the deepest.
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

      // The reviewer named in the top's data, mapped down two levels, handles the deepest step.
      const [check] = tasksAt(deepest, "check");
      await refused([40301, "NOT_A_CANDIDATE"], "POST", `/task/${check!.id}`, tokens.carol);
      await ok<Task>("POST", `/task/${check!.id}`, tokens.bob);
      assert.equal((await view(deepest.id)).status, "done");
      const middleNow = await view(middle.id);
      assert.deepEqual(statuses(middleNow, "inner"), [DONE]);
      assert.deepEqual(
        middleNow.states.map((state) => state.code),
        ["confirm"],
      );
      assert.deepEqual(statuses(await view(entry), "outer"), [SUBPROCESS], "the top still waits");

      await ok<Task>("POST", `/task/${tasksAt(middleNow, "confirm")[0]!.id}`, tokens.carol);
      assert.equal((await view(middle.id)).status, "done");
      const topNow = await view(entry);
      assert.deepEqual(statuses(topNow, "outer"), [DONE]);
      assert.deepEqual(
        topNow.states.map((state) => state.code),
        ["close"],
      );
      await ok<Task>("POST", `/task/${tasksAt(topNow, "close")[0]!.id}`, tokens.dan);
      assert.equal((await view(entry)).status, "done");
    });

    it("refuses to end a sub-process whose parent cannot go on past it, and kills both through the parent", async () => {
      const entry = await startAndApply("stuck", { reviewer: "bob" });
      const child = await view(tasksAt(await view(entry), "inner")[0]!.sub!.id);
      await refused([42206, "NO_ASSIGNEE"], "POST", `/task/${tasksAt(child, "check")[0]!.id}`, tokens.bob);
      const childKill = await act(child.id, { action: "kill" });
      assert.deepEqual([childKill.body.errno, childKill.body.ecode], [42206, "NO_ASSIGNEE"]);
      assert.equal((await view(child.id)).status, "doing", "the refused commands changed nothing");
      assert.deepEqual(statuses(await view(entry), "inner"), [SUBPROCESS]);

      assert.equal((await act(entry, { action: "kill" })).body.errno, 0);
      assert.equal((await view(entry)).status, "killed");
      assert.equal((await view(child.id)).status, "killed");
    });

    it("refuses to nest sub-processes deeper than 16 levels, and nothing of the attempt stays", async () => {
      const { entry, first } = await start("recursive");
      await refused([42212, "SUBPROCESS_TOO_DEEP"], "POST", `/task/${first.id}`, tokens.alice);
      const process = await view(entry);
      assert.deepEqual(statuses(process, "apply"), [TODO], "the form is still to be handed in");
      assert.deepEqual(tasksAt(process, "again"), []);
      const started = await call("GET", "/user/alice/processes/doing", sys, { app: "recursive" });
      assert.equal(started.body.total, 1, "none of the sub-processes it started stays");
    });

    it("lets a parent suspended while its sub-process ended go on when it is resumed", async () => {
      const entry = await startAndApply("child", { reviewer: "bob" });
      const waiting = await view(entry);
      const deepest = await view(tasksAt(waiting, "inner")[0]!.sub!.id);
      assert.equal((await act(entry, { action: "suspend" })).body.errno, 0);

      // The sub-process is not suspended with its parent: it runs to its end.
      await ok<Task>("POST", `/task/${tasksAt(deepest, "check")[0]!.id}`, tokens.bob);
      assert.equal((await view(deepest.id)).status, "done");
      const suspended = await view(entry);
      assert.equal(suspended.status, "suspended");
      assert.deepEqual(suspended.states, [], "a suspended process does not move");

      const resumed = await act(entry, { action: "resume" });
      assert.equal(resumed.body.errno, 0, resumed.body.error);
      const process = await view(entry);
      assert.equal(process.status, "doing");
      assert.deepEqual(statuses(process, "inner"), [DONE]);
      assert.deepEqual(
        process.states.map((state) => state.code),
        ["confirm"],
        "resumed, it goes on past the sub-process that ended meanwhile",
      );
      // Going on past it is written with the step: a second suspend and resume does not enter the
      // step after the sub-process again.
      assert.equal((await act(entry, { action: "suspend" })).body.errno, 0);
      assert.equal((await act(entry, { action: "resume" })).body.errno, 0);
      assert.deepEqual(statuses(await view(entry), "confirm"), [TODO]);
      await ok<Task>("POST", `/task/${tasksAt(process, "confirm")[0]!.id}`, tokens.carol);
      assert.equal((await view(entry)).status, "done");
    });

    it("forks a branch per row, addresses one with splitPath, and joins once when all are done", async () => {
      const papers = [
        { title: "one", grader: "bob" },
        { title: "two", grader: "dan" },
        { title: "three", grader: "bob" },
      ];
      const entry = await startAndApply("grading", { papers });
      const forked = await view(entry);
      assert.deepEqual(statuses(forked, "grade"), [TODO, TODO, TODO]);
      assert.deepEqual(
        tasksAt(forked, "grade")
          .map((task) => accountOf(task.assignUser))
          .sort(),
        ["bob", "bob", "dan"],
        "each row's step is for the row's grader",
      );

      const submit = (params: Record<string, string>) =>
        act(entry, { action: "submit", stepCode: "grade", actionCode: "submit", ...params });
      const ecode = async (params: Record<string, string>) => {
        const { body } = await submit(params);
        return [body.errno, body.ecode];
      };
      assert.deepEqual(await ecode({}), [42210, "STEP_NOT_UNIQUE"]);
      assert.deepEqual(await ecode({ splitPath: "one" }), [42211, "SPLIT_PATH_INVALID"]);
      assert.deepEqual(await ecode({ splitPath: "1/" }), [42211, "SPLIT_PATH_INVALID"]);
      assert.deepEqual(await ecode({ splitPath: "-1" }), [42211, "SPLIT_PATH_INVALID"]);
      assert.deepEqual(await ecode({ splitPath: "3" }), [40401, "TASK_NOT_FOUND"], "there are rows 0 to 2");
      assert.deepEqual(await ecode({ splitPath: "1/0" }), [40401, "TASK_NOT_FOUND"], "one level deep");
      assert.deepEqual(statuses(await view(entry), "grade"), [TODO, TODO, TODO], "refusals change nothing");

      const second = await submit({ splitPath: "1" });
      assert.equal(second.body.errno, 0, second.body.error);
      const afterSecond = second.body.entities[0]!;
      const byAdministrator = tasksAt(afterSecond, "grade").filter((task) => task.status === DONE);
      assert.equal(byAdministrator.length, 1);
      assert.equal(byAdministrator[0]!.actionUser, null, "handled as the system user");
      assert.deepEqual(tasksAt(afterSecond, "sign"), [], "the join waits for the other rows");
      assert.deepEqual(await ecode({ splitPath: "1" }), [40401, "TASK_NOT_FOUND"], "row 1 is handled");

      // The two left, handled at once by their candidate: the join fires exactly once.
      const open = tasksAt(afterSecond, "grade").filter((task) => task.status === TODO);
      assert.equal(open.length, 2);
      const handled = await Promise.all(
        open.map((task) => call<Task>("POST", `/task/${task.id}`, tokens.bob)),
      );
      for (const { body } of handled) assert.equal(body.errno, 0, body.error);
      const joined = await view(entry);
      assert.deepEqual(statuses(joined, "grade"), [DONE, DONE, DONE]);
      assert.deepEqual(statuses(joined, "sign"), [TODO], "one sign task");
      assert.equal(accountOf(tasksAt(joined, "sign")[0]!.assignUser), "carol");

      // `sign` does not allow the system user.
      const bySystem = await act(entry, { action: "submit", stepCode: "sign", actionCode: "submit" });
      assert.deepEqual([bySystem.body.errno, bySystem.body.ecode], [40302, "SYSTEM_USER_NOT_ALLOWED"]);
      await ok<Task>("POST", `/task/${tasksAt(joined, "sign")[0]!.id}`, tokens.carol);
      assert.equal((await view(entry)).status, "done");
    });

    it("countersigns in turn (each after the previous) and all together", async () => {
      const entry = await startAndApply("countersign");
      const memberOf = async (code: string) =>
        tasksAt(await view(entry), code).map((task) => [accountOf(task.assignUser), task.status]);

      assert.deepEqual(await memberOf("inTurn"), [["bob", TODO]], "only the first member's turn");
      await refused([40402, "PROCESS_NOT_FOUND"], "GET", `/process/${entry}`, tokens.erin);
      const [bobs] = tasksAt(await view(entry), "inTurn");
      await refused([40301, "NOT_A_CANDIDATE"], "POST", `/task/${bobs!.id}`, tokens.carol);
      await ok<Task>("POST", `/task/${bobs!.id}`, tokens.bob, { actionCode: "approve" });
      assert.deepEqual(await memberOf("inTurn"), [
        ["bob", DONE],
        ["carol", TODO],
      ]);
      const carols = tasksAt(await view(entry), "inTurn")[1]!;
      await refused([40301, "NOT_A_CANDIDATE"], "POST", `/task/${carols.id}`, tokens.dan);
      await refused([40901, "TASK_ALREADY_HANDLED"], "POST", `/task/${bobs!.id}`, tokens.bob, {
        actionCode: "approve",
      });
      await ok<Task>("POST", `/task/${carols.id}`, tokens.carol, { actionCode: "approve" });
      assert.deepEqual(await memberOf("together"), [], "the step waits for its last member");
      const dans = tasksAt(await view(entry), "inTurn")[2]!;
      assert.equal(accountOf(dans.assignUser), "dan");
      await ok<Task>("POST", `/task/${dans.id}`, tokens.dan, { actionCode: "approve" });

      // `all`: both members at once, the step done when both have handled it.
      const together = await memberOf("together");
      assert.deepEqual(together.map(([, status]) => status).sort(), [TODO, TODO]);
      assert.deepEqual(together.map(([account]) => account).sort(), ["bob", "carol"]);
      const tasks = tasksAt(await view(entry), "together");
      const carolsTurn = tasks.find((task) => accountOf(task.assignUser) === "carol")!;
      const bobsTurn = tasks.find((task) => accountOf(task.assignUser) === "bob")!;
      await refused([40301, "NOT_A_CANDIDATE"], "POST", `/task/${carolsTurn.id}`, tokens.bob);
      await ok<Task>("POST", `/task/${carolsTurn.id}`, tokens.carol);
      const half = await view(entry);
      assert.equal(half.status, "doing", "one member left");
      assert.deepEqual(
        half.states.map((state) => state.code),
        ["together"],
      );
      await ok<Task>("POST", `/task/${bobsTurn.id}`, tokens.bob);
      assert.equal((await view(entry)).status, "done");

      // A rejection in turn decides the step at once: the later member never gets it.
      const rejected = await startAndApply("countersign");
      const first = tasksAt(await view(rejected), "inTurn")[0]!;
      await ok<Task>("POST", `/task/${first.id}`, tokens.bob, { actionCode: "reject", remark: "no" });
      const ended = await view(rejected);
      assert.equal(ended.status, "done");
      assert.deepEqual(
        tasksAt(ended, "inTurn").map((task) => [accountOf(task.assignUser), task.status]),
        [["bob", DONE]],
      );
    });

    it("leaves hidden steps out unless a sys token asks for all, and moves milestones on", async () => {
      const milestonesOf = (process: Process) =>
        process.milestones.map((milestone) => [milestone.name, milestone.status]);
      const { entry, first } = await start("tracked");
      const fresh = await view(entry);
      assert.deepEqual([fresh.milestone?.name, fresh.milestone?.percent], ["Submitted", 10]);
      assert.deepEqual(milestonesOf(fresh), [
        ["Submitted", "doing"],
        ["Screening", "todo"],
        ["Deciding", "todo"],
        ["Closed", "todo"],
      ]);
      await ok<Task>("POST", `/task/${first.id}`, tokens.alice);

      const codes = (process: Process) => process.tasks.map((task) => task.code);
      assert.deepEqual(codes(await view(entry)), ["apply"], "a sys token without visibility=all");
      assert.deepEqual(codes(await view(entry, tokens.alice)), ["apply"]);
      assert.deepEqual(
        codes(await view(entry, tokens.alice, { visibility: "all" })),
        ["apply"],
        "a user token does not see hidden steps",
      );
      assert.deepEqual(
        codes(await view(entry, tokens.erin, { visibility: "all" })),
        ["apply"],
        "nor does the hidden step's own candidate",
      );
      const all = await view(entry, sys, { visibility: "all" });
      assert.deepEqual(codes(all), ["apply", "screen"]);
      assert.deepEqual(
        all.states.map((state) => state.code),
        ["screen"],
      );
      assert.deepEqual((await view(entry)).states, [], "where it stays is hidden too");
      assert.equal(all.milestone?.name, "Screening");
      assert.deepEqual(milestonesOf(all), [
        ["Submitted", "done"],
        ["Screening", "doing"],
        ["Deciding", "todo"],
        ["Closed", "todo"],
      ]);

      // The hidden step is handled as any other, by its candidate only.
      const screen = tasksAt(all, "screen")[0]!;
      await refused([40301, "NOT_A_CANDIDATE"], "POST", `/task/${screen.id}`, tokens.carol);
      await ok<Task>("POST", `/task/${screen.id}`, tokens.erin);
      const deciding = await view(entry);
      assert.deepEqual(codes(deciding), ["apply", "decide"], "the handled hidden step stays hidden");
      // So do its activities: in 2.8 without visibility=all and in 4.13 for a user token.
      const aboutScreen = (descriptions: { description: string }[]) =>
        descriptions.filter((activity) => activity.description.startsWith("screen")).length;
      assert.equal(aboutScreen(deciding.activities), 0);
      assert.ok(aboutScreen((await view(entry, sys, { visibility: "all" })).activities) > 0);
      const activities = async (token: string) =>
        (await call<{ description: string }>("GET", `/process/${entry}/activities`, token)).body.entities;
      assert.equal(aboutScreen(await activities(tokens.alice)), 0);
      assert.ok(aboutScreen(await activities(sys)) > 0);
      assert.deepEqual([deciding.milestone?.name, deciding.milestone?.percent], ["Deciding", 70]);
      assert.deepEqual(milestonesOf(deciding), [
        ["Submitted", "done"],
        ["Screening", "done"],
        ["Deciding", "doing"],
        ["Closed", "todo"],
      ]);

      await ok<Task>("POST", `/task/${tasksAt(deciding, "decide")[0]!.id}`, tokens.carol);
      const closed = await view(entry);
      assert.equal(closed.status, "done");
      assert.deepEqual([closed.milestone?.name, closed.milestone?.percent], ["Closed", 100]);
      assert.ok(
        closed.milestones.every((milestone) => milestone.status === "done"),
        JSON.stringify(closed.milestones),
      );
    });

    it("routes 4.5's submit to nextSteps and nextUsers, given together and naming a following step", async () => {
      const entry = await startAndApply("routed", { days: 1 });
      const submit = (params: Record<string, string>) =>
        act(entry, { action: "submit", stepCode: "triage", actionCode: "submit", ...params });
      const refusals: [Record<string, string>, number, string][] = [
        [{ nextSteps: "slow" }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextUsers: "erin" }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: "file", nextUsers: "erin" }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: "nowhere", nextUsers: "erin" }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: "apply", nextUsers: "erin" }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: "slow,fast", nextUsers: "erin" }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: "slow", nextUsers: "nobody-here" }, 40405, "USER_NOT_FOUND"],
      ];
      for (const [params, errno, ecode] of refusals) {
        const { body } = await submit(params);
        assert.deepEqual([body.errno, body.ecode], [errno, ecode], JSON.stringify(params));
      }
      const untouched = await view(entry);
      assert.deepEqual(statuses(untouched, "triage"), [TODO], "the refusals changed nothing");
      assert.deepEqual(
        untouched.states.map((state) => state.code),
        ["triage"],
      );

      // The data would lead to `fast` (bob); the override sends it to `slow`, for erin and carol (named twice is once).
      const jumped = await submit({ nextSteps: "slow", nextUsers: "erin,carol,erin" });
      assert.equal(jumped.body.errno, 0, jumped.body.error);
      const process = jumped.body.entities[0]!;
      assert.deepEqual(
        process.states.map((state) => state.code),
        ["slow"],
      );
      assert.deepEqual(tasksAt(process, "fast"), []);
      const [slow] = tasksAt(process, "slow");
      assert.deepEqual(
        (await call<Profile>("GET", `/task/${slow!.id}/candidates`, sys)).body.entities
          .map((user) => user.account)
          .sort(),
        ["carol", "erin"],
      );
      await refused([40301, "NOT_A_CANDIDATE"], "POST", `/task/${slow!.id}`, tokens.dan);
      await ok<Task>("POST", `/task/${slow!.id}`, tokens.erin);
      assert.equal((await view(entry)).status, "done");

      // Without the override the graph decides.
      const plain = await startAndApply("routed", { days: 1 });
      const routedByData = await act(plain, { action: "submit", stepCode: "triage", actionCode: "submit" });
      assert.equal(routedByData.body.errno, 0, routedByData.body.error);
      const fast = tasksAt(routedByData.body.entities[0]!, "fast");
      assert.deepEqual(
        fast.map((task) => [task.status, accountOf(task.assignUser)]),
        [[TODO, "bob"]],
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
