import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { workflowDefinitionSchema } from "../../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { upsertTenant } from "../../identity/tenant-store.ts";
import { upsertUser } from "../../identity/user-store.ts";
import type { Database } from "../../runtime/database.ts";
import {
  deployVersion,
  type StartableApp,
  setVersionOnline,
  startableApp,
  upsertWorkflowApp,
} from "../../workflow/app-store.ts";
import { commandProcess, handleTask, startProcess, submitTask } from "../../workflow/process-commands.ts";
import { lockProcess, readProcess } from "../../workflow/process-store.ts";
import { migratedDatabase, testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitForLockWaiter } from "../support/wait.ts";

const leaveRequest = workflowDefinitionSchema.parse(
  JSON.parse(await readFile(new URL("../../examples/leave-request.workflow.json", import.meta.url), "utf8")),
);

/** A parallel split into `width` branches, each one task for the same user, then a join. */
function wideJoin(width: number) {
  return workflowDefinitionSchema.parse({
    graph: {
      nodes: [
        { kind: "start", code: "s" },
        { kind: "parallel", code: "split" },
        ...Array.from({ length: width }, (_, i) => ({
          kind: "task",
          code: `b${i}`,
          assignees: [{ accounts: ["alice"] }],
        })),
        { kind: "join", code: "join", split: "split" },
        { kind: "task", code: "after", assignees: [{ accounts: ["carol"] }] },
        { kind: "end", code: "e" },
      ],
      edges: [
        { from: "s", to: "split" },
        ...Array.from({ length: width }, (_, i) => [
          { from: "split", to: `b${i}` },
          { from: `b${i}`, to: "join" },
        ]).flat(),
        { from: "join", to: "after" },
        { from: "after", to: "e" },
      ],
    },
  });
}

/** Exactly one of concurrent submits of one task went through; every other was refused as handled. */
function assertOneHandledOthersRefused(outcomes: PromiseSettledResult<unknown>[]): void {
  assert.equal(outcomes.filter((outcome) => outcome.status === "fulfilled").length, 1);
  for (const outcome of outcomes) {
    if (outcome.status === "rejected") {
      assert.ok(outcome.reason instanceof WorkflowRefusal, String(outcome.reason));
      assert.equal(outcome.reason.refusal, "TASK_ALREADY_HANDLED");
    }
  }
}

for (const mode of await testModes()) {
  describe(`workflow store (${mode.name})`, { skip: mode.skip }, () => {
    let db: Database;
    let close: (() => Promise<void>) | undefined;
    let tenantId: string;
    const users: Record<string, string> = {};
    let leave: StartableApp;
    let wide: StartableApp;

    before(async () => {
      ({ db, close } = await migratedDatabase(mode));
      tenantId = (await upsertTenant(db.sql, { domain: "example.edu", name: "Example" })).id;
      for (const account of ["alice", "bob", "carol", "dan", "erin"]) {
        await upsertUser(db.sql, { tenant: "example.edu", account, name: account, mailEnabled: false });
      }
      for (const row of await db.sql<{ id: string; account: string }[]>`select id, account from users`)
        users[row.account] = row.id;
      await db.sql`
        insert into departments (tenant_id, code, name) values (${tenantId}, 'cs', 'Computer science'), (${tenantId}, 'office', 'Office'), (${tenantId}, 'hr', 'HR')`;
      await db.sql`
        insert into posts (tenant_id, code, name) values (${tenantId}, 'lecturer', 'Lecturer'), (${tenantId}, 'head', 'Head'), (${tenantId}, 'dean', 'Dean'), (${tenantId}, 'clerk', 'Clerk')`;
      for (const [account, dept, post] of [
        ["alice", "cs", "lecturer"],
        ["carol", "cs", "head"],
        ["dan", "office", "dean"],
        ["erin", "hr", "clerk"],
      ] as const) {
        await db.sql`
          insert into occupancies (tenant_id, user_id, dept_id, post_id)
          select ${tenantId}, ${users[account]!}, d.id, p.id from departments d, posts p
          where d.tenant_id = ${tenantId} and d.code = ${dept} and p.tenant_id = ${tenantId} and p.code = ${post}`;
      }
      const leaveApp = await upsertWorkflowApp(db.sql, tenantId, { code: "leave", name: "Leave request" });
      const { version } = await deployVersion(db.sql, leaveApp.id, leaveRequest);
      await setVersionOnline(db.sql, leaveApp.id, version.id, false, true);
      leave = (await startableApp(db.sql, tenantId, "leave", false))!;
      const wideApp = await upsertWorkflowApp(db.sql, tenantId, { code: "wide", name: "Wide join" });
      const wideVersion = await deployVersion(db.sql, wideApp.id, wideJoin(20));
      await setVersionOnline(db.sql, wideApp.id, wideVersion.version.id, false, true);
      wide = (await startableApp(db.sql, tenantId, "wide", false))!;
    });

    after(async () => {
      await close?.();
    });

    const todoOf = async (account: string) =>
      db.sql<{ taskId: string; entrustedBy: string | null }[]>`
        select task_id as "taskId", entrusted_by as "entrustedBy" from workflow_todo
        where user_id = ${users[account]!} and not suspended and test = false order by assigned_at`;

    /** Starts `app` for `account` over live data, in a transaction of its own. */
    const startAs = (account: string, app: StartableApp, data: Record<string, unknown>) =>
      db.sql.begin((tx) =>
        startProcess(tx, {
          tenantId,
          test: false,
          app,
          ownerId: users[account]!,
          actualUserId: null,
          data,
          businessId: null,
        }),
      );

    /** Handles a task as `account`, with the action `actionCode` when given. */
    const handleAs = (account: string, taskId: string, actionCode?: string) =>
      db.sql.begin((tx) =>
        handleTask(tx, {
          tenantId,
          test: false,
          taskId,
          actor: { user: users[account]! },
          sys: false,
          actionCode,
        }),
      );

    /** Handles a task as `account` as 3.1 does: on the pool, from an unlocked read when it can. */
    const submitAs = (account: string, taskId: string) =>
      submitTask(db.sql, { tenantId, test: false, taskId, actor: { user: users[account]! }, sys: false });

    /** Runs `work` while `entruster` has entrusted the leave app to `entrustee` (for the hour around now). */
    /** Runs `work` while each [entruster, entrustee] pair's delegation of the leave app is in force. */
    const whileEntrusted = async (pairs: [string, string][], work: () => Promise<void>) => {
      for (const [entruster, entrustee] of pairs) {
        await db.sql`
          insert into workflow_entrustments (tenant_id, entruster_id, entrustee_id, app_id, valid_from, valid_to)
          values (${tenantId}, ${users[entruster]!}, ${users[entrustee]!}, ${leave.id}, now() - interval '1 hour', now() + interval '1 hour')`;
      }
      try {
        await work();
      } finally {
        await db.sql`delete from workflow_entrustments`;
      }
    };

    it("deploys a definition once: the same definition is the same version", async () => {
      const again = await deployVersion(db.sql, leave.id, leaveRequest);
      assert.equal(again.created, false);
      assert.equal(again.version.number, 1);
    });

    it("starts a process into the owner's to-do and takes it through the directory's positions", async () => {
      const started = await startAs("alice", leave, { days: 2, reason: "conference" });
      assert.ok(started.process.entry > 0);
      assert.deepEqual(
        (await todoOf("alice")).map((row) => row.taskId),
        [started.firstTask.id],
      );
      await handleAs("alice", started.firstTask.id);
      const [department] = await todoOf("carol");
      assert.ok(department, "the head of alice's department has the next step");
      await handleAs("carol", department.taskId, "approve");
      const [record] = await todoOf("erin");
      assert.ok(record, "a short leave goes to the HR clerk");
      const copies = await db.sql`select user_id from workflow_cc where process_id = ${started.process.id}`;
      assert.deepEqual(
        copies.map((row) => row.user_id),
        [users.alice],
      );
      const activities =
        await db.sql`select tags from workflow_activities where process_id = ${started.process.id} order by id`;
      assert.deepEqual(
        activities.map((row) => row.tags),
        ["INSTANCE_START", "TASK_HANDLE", "TASK_HANDLE"],
      );
      const events = await db.sql<{ id: string; type: string }[]>`
        select id, type from workflow_events where process_id = ${started.process.id} order by id`;
      assert.deepEqual(
        events.map((row) => row.type),
        ["process.started", "todo.created", "todo.done", "todo.created", "todo.done", "todo.created", "cc"],
      );
    });

    it("hands a task to the entrustee of its candidate, who handles it for the candidate", async () => {
      await whileEntrusted([["carol", "bob"]], async () => {
        const started = await startAs("alice", leave, { days: 1, reason: "x" });
        await handleAs("alice", started.firstTask.id);
        const entrusted = (await todoOf("bob")).find((row) => row.entrustedBy === users.carol);
        assert.ok(entrusted, "bob has carol's task, marked entrusted");
        const { task } = await handleAs("bob", entrusted.taskId, "approve");
        assert.equal(task.handler, users.carol, "handled on carol's behalf");
        assert.equal(task.actualUser, users.bob, "by bob");
        assert.equal((await todoOf("carol")).filter((row) => row.taskId === entrusted.taskId).length, 0);
      });
    });

    it("leaves a task assigned before a delegation opened with its candidate alone", async () => {
      const before = await startAs("alice", leave, { days: 1, reason: "x" });
      await handleAs("alice", before.firstTask.id);
      const [earlier] = (await todoOf("carol")).filter((row) => row.entrustedBy === null);
      await whileEntrusted([["carol", "bob"]], async () => {
        const bobs = await todoOf("bob");
        assert.ok(
          !bobs.some((row) => row.taskId === earlier!.taskId),
          "the earlier task stays carol's alone",
        );
        const during = await startAs("alice", leave, { days: 1, reason: "y" });
        await handleAs("alice", during.firstTask.id);
        const delegated = (await todoOf("bob")).filter((row) => row.entrustedBy === users.carol);
        assert.equal(delegated.length, 1, "a task assigned while it is in force reaches bob");
        await handleAs("bob", delegated[0]!.taskId, "approve");
      });
      await handleAs("carol", earlier!.taskId, "approve");
    });

    it("follows a chain of delegations to its end once, ignoring the cycle back", async () => {
      const chain: [string, string][] = [
        ["carol", "bob"],
        ["bob", "dan"],
        ["dan", "carol"],
      ];
      await whileEntrusted(chain, async () => {
        const started = await startAs("alice", leave, { days: 1, reason: "x" });
        await handleAs("alice", started.firstTask.id);
        const [own] = (await todoOf("carol")).filter((row) => row.entrustedBy === null);
        assert.ok(own, "carol's own department step");
        const rowsOf = async (account: string) =>
          (await todoOf(account)).filter((row) => row.taskId === own.taskId).map((row) => row.entrustedBy);
        assert.deepEqual(await rowsOf("carol"), [null], "the cycle back to carol adds nothing");
        assert.deepEqual(await rowsOf("bob"), [users.carol]);
        assert.deepEqual(await rowsOf("dan"), [users.carol], "through bob, on carol's behalf");
      });
    });

    it("gives the entrustee of an initiator the first step of a process it starts, in both inboxes", async () => {
      await whileEntrusted([["alice", "dan"]], async () => {
        const started = await startAs("alice", leave, { days: 1, reason: "x" });
        const delegated = (await todoOf("dan")).find((row) => row.taskId === started.firstTask.id);
        assert.equal(delegated?.entrustedBy, users.alice, "dan has alice's first step, marked entrusted");
        const inbox = await db.sql<{ user_id: string; owner: boolean; entrusted: boolean }[]>`
          select user_id, owner, entrusted from workflow_inbox where process_id = ${started.process.id}
          order by owner desc`;
        assert.deepEqual(
          inbox.map((row) => ({ ...row })),
          [
            { user_id: users.alice, owner: true, entrusted: false },
            { user_id: users.dan, owner: false, entrusted: true },
          ],
        );
      });
    });

    it("lets exactly one of 50 concurrent submits of a task through", async () => {
      const started = await startAs("alice", leave, { days: 2, reason: "x" });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, () => handleAs("alice", started.firstTask.id)),
      );
      assertOneHandledOthersRefused(outcomes);
      const next = await db.sql`
        select count(*)::int as n from workflow_tasks where process_id = ${started.process.id} and node = 'department'`;
      assert.equal(next[0]!.n, 1, "one next task");
    });

    it("fires a 20-way join once when every branch is handled at the same time", async () => {
      const started = await startAs("alice", wide, {});
      await handleAs("alice", started.firstTask.id);
      const branches = await db.sql<{ id: string }[]>`
        select id from workflow_tasks where process_id = ${started.process.id} and status = 'todo'`;
      assert.equal(branches.length, 20);
      await Promise.all(branches.map(({ id }) => handleAs("alice", id)));
      const after = await db.sql`
        select count(*)::int as n from workflow_tasks where process_id = ${started.process.id} and node = 'after'`;
      assert.equal(after[0]!.n, 1);
    });

    it("lets exactly one of 50 concurrent submits through the pool, each refused one changing nothing", async () => {
      const started = await startAs("alice", leave, { days: 2, reason: "x" });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 50 }, () => submitAs("alice", started.firstTask.id)),
      );
      assertOneHandledOthersRefused(outcomes);
      const tasks = await db.sql<{ node: string; status: string }[]>`
        select node, status from workflow_tasks where process_id = ${started.process.id} order by assigned_at, id`;
      assert.deepEqual(
        [...tasks],
        [
          { node: "apply", status: "done" },
          { node: "department", status: "todo" },
        ],
      );
      const activities = await db.sql`
        select count(*)::int as n from workflow_activities where process_id = ${started.process.id} and tags = 'TASK_HANDLE'`;
      assert.equal(activities[0]!.n, 1, "one handling recorded");
    });

    it("fires a 20-way join once when every branch is submitted through the pool at the same time", async () => {
      const started = await startAs("alice", wide, {});
      await submitAs("alice", started.firstTask.id);
      const branches = await db.sql<{ id: string }[]>`
        select id from workflow_tasks where process_id = ${started.process.id} and status = 'todo'`;
      assert.equal(branches.length, 20);
      await Promise.all(branches.map(({ id }) => submitAs("alice", id)));
      const tasks = await db.sql<{ node: string; status: string }[]>`
        select node, status from workflow_tasks where process_id = ${started.process.id}`;
      assert.equal(tasks.filter((task) => task.status === "done").length, 21);
      assert.deepEqual(
        tasks.filter((task) => task.status === "todo").map((task) => task.node),
        ["after"],
      );
    });

    it("reads a process for a command alike with and without the lock", async () => {
      const started = await startAs("alice", wide, {});
      await submitAs("alice", started.firstTask.id);
      const [branch] = await db.sql<{ id: string }[]>`
        select id from workflow_tasks where process_id = ${started.process.id} and status = 'todo' limit 1`;
      await submitAs("alice", branch!.id);
      const target = { task: branch!.id };
      const unlocked = await readProcess(db.sql, tenantId, false, target, { handlerFor: users.alice! });
      const locked = await db.sql.begin((tx) =>
        lockProcess(tx, tenantId, false, target, { handlerFor: users.alice! }),
      );
      assert.ok(unlocked && locked);
      assert.equal(unlocked.state.tasks.length, 21);
      assert.equal(unlocked.process.revision, 2, "the start wrote revision 0; each handling raised it");
      assert.deepEqual(unlocked, locked);
    });

    // The embedded database has one connection: no second command can wait on a process's lock there.
    if (mode.name !== "embedded") {
      it("refuses a submit whose unlocked read a suspend overtook, and the suspend stands", async () => {
        const started = await startAs("alice", leave, { days: 2, reason: "x" });
        const ref = { id: started.process.id };
        let submitted: Promise<unknown> | undefined;
        await db.sql.begin(async (tx) => {
          await tx`select from workflow_processes where id = ${started.process.id} for update`;
          // The submit reads the process as it is, decides, and waits on the lock to write.
          submitted = submitAs("alice", started.firstTask.id).catch((error: unknown) => error);
          await waitForLockWaiter(db);
          await commandProcess(tx, tenantId, false, ref, () => ({ kind: "suspend", user: null }));
        });
        const outcome = await submitted;
        assert.ok(outcome instanceof WorkflowRefusal, String(outcome));
        assert.equal(outcome.refusal, "PROCESS_SUSPENDED");
        const [process] =
          await db.sql`select status from workflow_processes where id = ${started.process.id}`;
        assert.equal(process!.status, "suspended");
        const tasks =
          await db.sql`select status from workflow_tasks where process_id = ${started.process.id}`;
        assert.deepEqual(
          tasks.map((task) => task.status),
          ["todo"],
          "the form is still to do",
        );
      });
    }

    it("keeps a suspended process's tasks out of every to-do until it resumes", async () => {
      const started = await startAs("alice", leave, { days: 2, reason: "x" });
      const ref = { id: started.process.id };
      await db.sql.begin((tx) =>
        commandProcess(tx, tenantId, false, ref, () => ({ kind: "suspend", user: null })),
      );
      assert.ok(!(await todoOf("alice")).some((row) => row.taskId === started.firstTask.id));
      await db.sql.begin((tx) =>
        commandProcess(tx, tenantId, false, ref, () => ({ kind: "resume", user: null })),
      );
      assert.ok((await todoOf("alice")).some((row) => row.taskId === started.firstTask.id));
      await db.sql.begin((tx) =>
        commandProcess(tx, tenantId, false, ref, () => ({ kind: "kill", user: null })),
      );
      assert.ok(!(await todoOf("alice")).some((row) => row.taskId === started.firstTask.id));
    });

    it("keeps test data and formal data apart", async () => {
      await assert.rejects(
        db.sql.begin(async (tx) =>
          startProcess(tx, {
            tenantId,
            test: true,
            app: (await startableApp(tx, tenantId, "leave", true))!,
            ownerId: users.alice!,
            actualUserId: null,
            data: {},
            businessId: null,
          }),
        ),
        (error: unknown) => error instanceof WorkflowRefusal && error.refusal === "APP_NOT_STARTABLE",
      );
    });

    it("finds a process by the words of its text: runs of letters and digits, CJK runs as pairs", async () => {
      const cases: [string, string][] = [
        ["Leave-Request, O'Brien #42 (draft)", "leave request o brien 42 draft"],
        ["  Tab\tand\nnew line  ", "tab and new line"],
        ["x+y=z | 100%", "x y z 100"],
        ["Café Ünïcödé", "café ünïcödé"],
        ["...", ""],
        ["", ""],
        ["请假申请 Alice-2", "请假 假申 申请 alice 2"],
        ["人事,张三 王", "人事 张三 王"],
      ];
      for (const [text, words] of cases) {
        const [row] = await db.sql<{ words: string }[]>`select workflow_search_words(${text}) as words`;
        assert.equal(row!.words, words, JSON.stringify(text));
      }
    });
  });
}
