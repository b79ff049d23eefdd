import assert from "node:assert/strict";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { checkConsistency } from "../../workflow/consistency-check.ts";
import { processesOf } from "../../workflow/inbox.ts";
import type { ProcessActionInput } from "../../workflow/process-actions.ts";
import { commandProcess } from "../../workflow/process-commands.ts";
import {
  actOnProcessFor,
  handleTask,
  processActivities,
  type ReadInput,
  readProcess,
  startProcessFor,
  taskCandidates,
} from "../../workflow/process-service.ts";
import type { WorkflowCaller } from "../../workflow/workflow-caller.ts";
import { testModes } from "../support/platform.ts";
import { after, before, describe, it } from "../support/skippable-suites.ts";
import { waitForLockWaiter } from "../support/wait.ts";
import {
  accountOf,
  child,
  countersign,
  DONE,
  fanOutChildren,
  grading,
  grandchild,
  type Process,
  parent,
  recursive,
  routed,
  SUBPROCESS,
  statuses,
  stuck,
  type Task,
  TODO,
  tasksAt,
  tracked,
} from "../support/workflow-graphs.ts";
import { assertRefused, type WorkflowWorld, workflowWorld } from "../support/workflow-services.ts";

/**
 * The graph semantics of spec 001's workflows, on the workflow's services and a database: nested
 * sub-processes, dynamic parallel branches addressed by 4.5's `splitPath`, countersigns, hidden
 * steps and milestones, and 4.5's `nextSteps`/`nextUsers`. What a client sees of them over HTTP is
 * workflow-graphs-api.test.ts's.
 */

const ACCOUNTS = ["alice", "bob", "carol", "dan", "erin"] as const;
type Account = (typeof ACCOUNTS)[number];

for (const mode of await testModes()) {
  describe(`workflow graphs on the services (${mode.name})`, { skip: mode.skip }, () => {
    let world: WorkflowWorld;
    let sys: WorkflowCaller;
    const as = (account: Account) => world.caller({ user: account });

    const view = async (ref: string | number, who = sys, input: ReadInput = {}) =>
      (await readProcess(world.deps, who, String(ref), input)) as unknown as Process;

    /** 4.5: an administrator acts on the process. */
    const act = async (ref: string | number, input: ProcessActionInput) =>
      (await actOnProcessFor(world.deps, sys, String(ref), input)) as unknown as Process;

    /** 3.1: the caller handles the task. */
    const handle = async (
      taskId: string,
      who: Account,
      input: { actionCode?: string; remark?: string } = {},
    ) => (await handleTask(world.deps, as(who), taskId, input)) as unknown as Task;

    /** 3.2 for alice: the serial number and the first task. */
    async function start(code: string, data: Record<string, unknown> = {}) {
      const started = await startProcessFor(world.deps, as("alice"), { code, data: JSON.stringify(data) });
      const [entry, , , first] = started as [number, number, string, Task];
      return { entry, first };
    }

    /** Starts a process for alice and hands in her form; answers its serial number. */
    async function startAndApply(code: string, data: Record<string, unknown> = {}): Promise<number> {
      const { entry, first } = await start(code, data);
      await handle(first.id, "alice");
      return entry;
    }

    before(async () => {
      world = await workflowWorld(
        mode,
        [{ domain: "example.edu", name: "Example University" }],
        ACCOUNTS.map((account) => ["example.edu", account, account] as const),
      );
      sys = world.caller({ sys: true });
      for (const [code, definition] of Object.entries({
        recursive,
        stuck,
        grandchild,
        child,
        parent,
        fanOutChildren,
        grading,
        countersign,
        tracked,
        routed,
      }))
        await world.deploy(code, definition);
    });

    after(async () => {
      await world?.close();
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
      const withAncestors = await view(deepest.id, sys, { includeAncestors: true });
      assert.deepEqual(
        withAncestors.ancestors?.map((ancestor) => [ancestor.id, ancestor.entry]),
        [
          [middle.id, middle.entry],
          [top.id, top.entry],
        ],
      );
      assert.equal((await view(top.id, sys, { includeAncestors: true })).ancestors?.length, 0);
      // The initiator sees the deepest through the top process she started.
      assert.equal((await view(deepest.entry, as("alice"), { entryRef: entry })).id, deepest.id);
      await assertRefused(view(deepest.entry, as("erin"), { entryRef: entry }), [40402, "PROCESS_NOT_FOUND"]);
      // Through the top workflow's own application she sees the top only, not the deepest.
      const throughParentApp = world.caller({ user: "alice", workflowCode: "parent" });
      assert.equal((await view(entry, throughParentApp)).id, top.id);
      await assertRefused(view(deepest.entry, throughParentApp, { entryRef: entry }), [
        40307,
        "WORKFLOW_MISMATCH",
      ]);

      // The reviewer named in the top's data, mapped down two levels, handles the deepest step.
      const [check] = tasksAt(deepest, "check");
      await assertRefused(handle(check!.id, "carol"), [40301, "NOT_A_CANDIDATE"]);
      await handle(check!.id, "bob");
      assert.equal((await view(deepest.id)).status, "done");
      const middleNow = await view(middle.id);
      assert.deepEqual(statuses(middleNow, "inner"), [DONE]);
      assert.deepEqual(
        middleNow.states.map((state) => state.code),
        ["confirm"],
      );
      assert.deepEqual(statuses(await view(entry), "outer"), [SUBPROCESS], "the top still waits");

      await handle(tasksAt(middleNow, "confirm")[0]!.id, "carol");
      assert.equal((await view(middle.id)).status, "done");
      const topNow = await view(entry);
      assert.deepEqual(statuses(topNow, "outer"), [DONE]);
      assert.deepEqual(
        topNow.states.map((state) => state.code),
        ["close"],
      );
      await handle(tasksAt(topNow, "close")[0]!.id, "dan");
      assert.equal((await view(entry)).status, "done");
    });

    it("refuses to end a sub-process whose parent cannot go on past it, and kills both through the parent", async () => {
      const entry = await startAndApply("stuck", { reviewer: "bob" });
      const child = await view(tasksAt(await view(entry), "inner")[0]!.sub!.id);
      await assertRefused(handle(tasksAt(child, "check")[0]!.id, "bob"), [42206, "NO_ASSIGNEE"]);
      await assertRefused(act(child.id, { action: "kill" }), [42206, "NO_ASSIGNEE"]);
      assert.equal((await view(child.id)).status, "doing", "the refused commands changed nothing");
      assert.deepEqual(statuses(await view(entry), "inner"), [SUBPROCESS]);

      await act(entry, { action: "kill" });
      assert.equal((await view(entry)).status, "killed");
      assert.equal((await view(child.id)).status, "killed");
    });

    it("refuses to nest sub-processes deeper than 16 levels, and nothing of the attempt stays", async () => {
      const { entry, first } = await start("recursive");
      await assertRefused(handle(first.id, "alice"), [42212, "SUBPROCESS_TOO_DEEP"], "", /at most 16 levels/);
      const process = await view(entry);
      assert.deepEqual(statuses(process, "apply"), [TODO], "the form is still to be handed in");
      assert.deepEqual(tasksAt(process, "again"), []);
      const started = await processesOf(world.deps, sys, "alice", "doing", {
        app: "recursive",
        start: 0,
        limit: 20,
      });
      assert.equal(started.total, 1, "none of the sub-processes it started stays");
    });

    it("lets a parent suspended while its sub-process ended go on when it is resumed", async () => {
      const entry = await startAndApply("child", { reviewer: "bob" });
      const waiting = await view(entry);
      const deepest = await view(tasksAt(waiting, "inner")[0]!.sub!.id);
      await act(entry, { action: "suspend" });

      // The sub-process is not suspended with its parent: it runs to its end.
      await handle(tasksAt(deepest, "check")[0]!.id, "bob");
      assert.equal((await view(deepest.id)).status, "done");
      const suspended = await view(entry);
      assert.equal(suspended.status, "suspended");
      assert.deepEqual(suspended.states, [], "a suspended process does not move");

      await act(entry, { action: "resume" });
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
      await act(entry, { action: "suspend" });
      await act(entry, { action: "resume" });
      assert.deepEqual(statuses(await view(entry), "confirm"), [TODO]);
      await handle(tasksAt(process, "confirm")[0]!.id, "carol");
      assert.equal((await view(entry)).status, "done");
    });

    // The embedded database has one connection: no command can wait on another's lock there.
    if (mode.name !== "embedded") {
      it("ends a sub-process only once it holds its parent, so a kill of the parent meanwhile takes both", async () => {
        const entry = await startAndApply("child", { reviewer: "bob" });
        const top = await view(entry);
        const deepest = await view(tasksAt(top, "inner")[0]!.sub!.id);
        let handled: Promise<unknown> | undefined;
        try {
          await world.db.sql.begin(async (tx) => {
            // The kill's first step: the parent is locked.
            await tx`select from workflow_processes where id = ${top.id} for update`;
            // Bob's handling ends the sub-process, which tells the parent: it waits for the parent.
            handled = handle(tasksAt(deepest, "check")[0]!.id, "bob").catch((error: unknown) => error);
            await waitForLockWaiter(world.db);
            // Waiting, it holds nothing of the sub-process: the kill takes it next, as it would.
            const free = await tx`
              select from workflow_processes where id = ${deepest.id} for update skip locked`;
            assert.equal(free.length, 1, "the handling waiting on the parent holds the sub-process");
            await commandProcess(tx, world.tenantId(), false, { id: top.id }, () => ({
              kind: "kill",
              user: null,
            }));
          });
        } finally {
          await handled;
        }
        const outcome = await handled;
        assert.ok(outcome instanceof WorkflowRefusal, String(outcome));
        assert.equal(outcome.refusal, "PROCESS_ENDED");
        assert.equal((await view(entry)).status, "killed");
        assert.equal((await view(deepest.id)).status, "killed", "the kill reached the sub-process");
        assert.deepEqual(await checkConsistency(world.db.sql, [top.id, deepest.id]), []);
      });
    }

    it("keeps a kill of a parent racing the ends of its five sub-processes consistent, each answer a success or a clean refusal", async () => {
      for (let attempt = 0; attempt < 5; attempt++) {
        const entry = await startAndApply("fanOutChildren", { reviewer: "bob" });
        const top = await view(entry);
        const subs = await Promise.all(
          top.tasks.filter((task) => task.code.startsWith("sub")).map((task) => view(task.sub!.id)),
        );
        assert.equal(subs.length, 5);
        const [kill, ...handlings] = await Promise.allSettled([
          act(entry, { action: "kill" }),
          ...subs.map((sub) => handle(tasksAt(sub, "check")[0]!.id, "bob")),
        ]);
        assert.equal(
          kill!.status,
          "fulfilled",
          `the kill always succeeds: ${"reason" in kill! && kill.reason}`,
        );
        for (const [i, handling] of handlings.entries()) {
          const sub = await view(subs[i]!.id);
          if (handling.status === "fulfilled") {
            assert.equal(sub.status, "done");
          } else {
            assert.ok(handling.reason instanceof WorkflowRefusal, String(handling.reason));
            assert.equal(handling.reason.refusal, "PROCESS_ENDED");
            assert.equal(sub.status, "killed", "the parent's kill reached its sub-process");
          }
        }
        assert.equal((await view(entry)).status, "killed");
        assert.deepEqual(await checkConsistency(world.db.sql, [top.id, ...subs.map((sub) => sub.id)]), []);
      }
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

      const submit = (input: Partial<ProcessActionInput>) =>
        act(entry, { action: "submit", stepCode: "grade", actionCode: "submit", ...input });
      await assertRefused(submit({}), [42210, "STEP_NOT_UNIQUE"]);
      await assertRefused(submit({ splitPath: "one" }), [42211, "SPLIT_PATH_INVALID"]);
      await assertRefused(submit({ splitPath: "1/" }), [42211, "SPLIT_PATH_INVALID"]);
      await assertRefused(submit({ splitPath: "-1" }), [42211, "SPLIT_PATH_INVALID"]);
      await assertRefused(submit({ splitPath: "3" }), [40401, "TASK_NOT_FOUND"], "there are rows 0 to 2");
      await assertRefused(submit({ splitPath: "1/0" }), [40401, "TASK_NOT_FOUND"], "one level deep");
      assert.deepEqual(statuses(await view(entry), "grade"), [TODO, TODO, TODO], "refusals change nothing");

      const afterSecond = await submit({ splitPath: "1" });
      const byAdministrator = tasksAt(afterSecond, "grade").filter((task) => task.status === DONE);
      assert.equal(byAdministrator.length, 1);
      assert.equal(byAdministrator[0]!.actionUser, null, "handled as the system user");
      assert.deepEqual(tasksAt(afterSecond, "sign"), [], "the join waits for the other rows");
      await assertRefused(submit({ splitPath: "1" }), [40401, "TASK_NOT_FOUND"], "row 1 is handled");

      // The two left, handled at once by their candidate: the join fires exactly once.
      const open = tasksAt(afterSecond, "grade").filter((task) => task.status === TODO);
      assert.equal(open.length, 2);
      await Promise.all(open.map((task) => handle(task.id, "bob")));
      const joined = await view(entry);
      assert.deepEqual(statuses(joined, "grade"), [DONE, DONE, DONE]);
      assert.deepEqual(statuses(joined, "sign"), [TODO], "one sign task");
      assert.equal(accountOf(tasksAt(joined, "sign")[0]!.assignUser), "carol");

      // `sign` does not allow the system user.
      await assertRefused(act(entry, { action: "submit", stepCode: "sign", actionCode: "submit" }), [
        40302,
        "SYSTEM_USER_NOT_ALLOWED",
      ]);
      await handle(tasksAt(joined, "sign")[0]!.id, "carol");
      assert.equal((await view(entry)).status, "done");
    });

    it("countersigns in turn (each after the previous) and all together", async () => {
      const entry = await startAndApply("countersign");
      const memberOf = async (code: string) =>
        tasksAt(await view(entry), code).map((task) => [accountOf(task.assignUser), task.status]);

      assert.deepEqual(await memberOf("inTurn"), [["bob", TODO]], "only the first member's turn");
      await assertRefused(view(entry, as("erin")), [40402, "PROCESS_NOT_FOUND"]);
      const [bobs] = tasksAt(await view(entry), "inTurn");
      await assertRefused(handle(bobs!.id, "carol"), [40301, "NOT_A_CANDIDATE"]);
      await handle(bobs!.id, "bob", { actionCode: "approve" });
      assert.deepEqual(await memberOf("inTurn"), [
        ["bob", DONE],
        ["carol", TODO],
      ]);
      const carols = tasksAt(await view(entry), "inTurn")[1]!;
      await assertRefused(handle(carols.id, "dan"), [40301, "NOT_A_CANDIDATE"]);
      await assertRefused(handle(bobs!.id, "bob", { actionCode: "approve" }), [
        40901,
        "TASK_ALREADY_HANDLED",
      ]);
      await handle(carols.id, "carol", { actionCode: "approve" });
      assert.deepEqual(await memberOf("together"), [], "the step waits for its last member");
      const dans = tasksAt(await view(entry), "inTurn")[2]!;
      assert.equal(accountOf(dans.assignUser), "dan");
      await handle(dans.id, "dan", { actionCode: "approve" });

      // `all`: both members at once, the step done when both have handled it.
      const together = await memberOf("together");
      assert.deepEqual(together.map(([, status]) => status).sort(), [TODO, TODO]);
      assert.deepEqual(together.map(([account]) => account).sort(), ["bob", "carol"]);
      const tasks = tasksAt(await view(entry), "together");
      const carolsTurn = tasks.find((task) => accountOf(task.assignUser) === "carol")!;
      const bobsTurn = tasks.find((task) => accountOf(task.assignUser) === "bob")!;
      await assertRefused(handle(carolsTurn.id, "bob"), [40301, "NOT_A_CANDIDATE"]);
      await handle(carolsTurn.id, "carol");
      const half = await view(entry);
      assert.equal(half.status, "doing", "one member left");
      assert.deepEqual(
        half.states.map((state) => state.code),
        ["together"],
      );
      await handle(bobsTurn.id, "bob");
      assert.equal((await view(entry)).status, "done");

      // A rejection in turn decides the step at once: the later member never gets it.
      const rejected = await startAndApply("countersign");
      const first = tasksAt(await view(rejected), "inTurn")[0]!;
      await handle(first.id, "bob", { actionCode: "reject", remark: "no" });
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
      /** The milestones of `tracked` in order, each with the status given. */
      const reached = (...states: string[]) =>
        ["Submitted", "Screening", "Deciding", "Closed"].map((name, i) => [name, states[i]]);
      const { entry, first } = await start("tracked");
      const fresh = await view(entry);
      assert.deepEqual([fresh.milestone?.name, fresh.milestone?.percent], ["Submitted", 10]);
      assert.deepEqual(milestonesOf(fresh), reached("doing", "todo", "todo", "todo"));
      await handle(first.id, "alice");

      const codes = (process: Process) => process.tasks.map((task) => task.code);
      assert.deepEqual(codes(await view(entry)), ["apply"], "a sys token without visibility=all");
      assert.deepEqual(codes(await view(entry, as("alice"))), ["apply"]);
      assert.deepEqual(
        codes(await view(entry, as("alice"), { visibility: "all" })),
        ["apply"],
        "a user token does not see hidden steps",
      );
      assert.deepEqual(
        codes(await view(entry, as("erin"), { visibility: "all" })),
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
      assert.deepEqual(milestonesOf(all), reached("done", "doing", "todo", "todo"));

      // The hidden step is handled as any other, by its candidate only.
      const screen = tasksAt(all, "screen")[0]!;
      await assertRefused(handle(screen.id, "carol"), [40301, "NOT_A_CANDIDATE"]);
      await handle(screen.id, "erin");
      const deciding = await view(entry);
      assert.deepEqual(codes(deciding), ["apply", "decide"], "the handled hidden step stays hidden");
      // So do its activities: in 2.8 without visibility=all and in 4.13 for a user token.
      const aboutScreen = (descriptions: { description: string }[]) =>
        descriptions.filter((activity) => activity.description.startsWith("screen")).length;
      assert.equal(aboutScreen(deciding.activities), 0);
      assert.ok(aboutScreen((await view(entry, sys, { visibility: "all" })).activities) > 0);
      const activities = async (who: WorkflowCaller) =>
        (await processActivities(world.deps, who, String(entry), { start: 0, limit: 20 })).activities;
      assert.equal(aboutScreen(await activities(as("alice"))), 0);
      assert.ok(aboutScreen(await activities(sys)) > 0);
      assert.deepEqual([deciding.milestone?.name, deciding.milestone?.percent], ["Deciding", 70]);
      assert.deepEqual(milestonesOf(deciding), reached("done", "done", "doing", "todo"));

      await handle(tasksAt(deciding, "decide")[0]!.id, "carol");
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
      const submit = (input: Partial<ProcessActionInput>) =>
        act(entry, { action: "submit", stepCode: "triage", actionCode: "submit", ...input });
      const refusals: [Partial<ProcessActionInput>, number, string][] = [
        [{ nextSteps: ["slow"] }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextUsers: ["erin"] }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: ["file"], nextUsers: ["erin"] }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: ["nowhere"], nextUsers: ["erin"] }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: ["apply"], nextUsers: ["erin"] }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: ["slow", "fast"], nextUsers: ["erin"] }, 42207, "NEXT_STEPS_INVALID"],
        [{ nextSteps: ["slow"], nextUsers: ["nobody-here"] }, 40405, "USER_NOT_FOUND"],
      ];
      for (const [input, errno, ecode] of refusals)
        await assertRefused(submit(input), [errno, ecode], JSON.stringify(input));
      const untouched = await view(entry);
      assert.deepEqual(statuses(untouched, "triage"), [TODO], "the refusals changed nothing");
      assert.deepEqual(
        untouched.states.map((state) => state.code),
        ["triage"],
      );

      // The data would lead to `fast` (bob); the override sends it to `slow`, for erin and carol.
      const process = await submit({ nextSteps: ["slow"], nextUsers: ["erin", "carol"] });
      assert.deepEqual(
        process.states.map((state) => state.code),
        ["slow"],
      );
      assert.deepEqual(tasksAt(process, "fast"), []);
      const [slow] = tasksAt(process, "slow");
      assert.deepEqual((await taskCandidates(world.deps, sys, slow!.id)).map((user) => user.account).sort(), [
        "carol",
        "erin",
      ]);
      await assertRefused(handle(slow!.id, "dan"), [40301, "NOT_A_CANDIDATE"]);
      await handle(slow!.id, "erin");
      assert.equal((await view(entry)).status, "done");

      // Without the override the graph decides.
      const plain = await startAndApply("routed", { days: 1 });
      const routedByData = await act(plain, { action: "submit", stepCode: "triage", actionCode: "submit" });
      const fast = tasksAt(routedByData, "fast");
      assert.deepEqual(
        fast.map((task) => [task.status, accountOf(task.assignUser)]),
        [[TODO, "bob"]],
      );
    });
  });
}
