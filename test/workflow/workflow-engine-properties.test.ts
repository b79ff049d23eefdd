import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { compile, MemoryProcess } from "../support/engine-harness.ts";
import { blockArbitrary, definitionOf } from "../support/random-workflow-graphs.ts";

type Step =
  | { op: "handle"; pick: number; action: number }
  | { op: "withdraw"; pick: number }
  | { op: "reassign"; pick: number }
  | { op: "childEnds"; pick: number; killed: boolean }
  | { op: "suspend" }
  | { op: "resume" }
  | { op: "kill" };

const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({ op: fc.constant("handle" as const), pick: fc.nat(), action: fc.nat() }),
  },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("withdraw" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant("reassign" as const), pick: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ op: fc.constant("childEnds" as const), pick: fc.nat(), killed: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.constant({ op: "suspend" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "resume" as const }) },
  { weight: 1, arbitrary: fc.constant({ op: "kill" as const }) },
);

function checkInvariants(process: MemoryProcess): void {
  const { state } = process;
  const open = state.tasks.filter((task) => task.status === "todo" || task.status === "waiting");
  // A sub-process step waits on its child; one whose child ended while the process was suspended
  // is done without a trail, and the process goes on past it when resumed.
  const waitingOnChildren = state.tasks.some(
    (task) =>
      task.status === "subprocess" ||
      (state.status === "suspended" &&
        task.status === "done" &&
        task.trail === null &&
        task.node.startsWith("sub")),
  );
  if (state.status === "doing" || state.status === "suspended") {
    assert.ok(
      open.length > 0 || waitingOnChildren,
      "a process that has not ended has an open task or waits on a sub-process",
    );
  } else {
    assert.equal(open.length, 0, "an ended process has no open task");
  }
  // A branch is at one step at a time: a join that fired twice would put two steps in its parent.
  const stepsByBranch = new Map<string, Set<string>>();
  for (const task of open) {
    const groups = stepsByBranch.get(task.branch) ?? new Set();
    groups.add(task.group);
    stepsByBranch.set(task.branch, groups);
  }
  for (const [branch, groups] of stepsByBranch)
    assert.equal(groups.size, 1, `branch "${branch}" is at ${groups.size} steps`);
  for (const task of state.tasks.filter((task) => task.status === "todo")) {
    const branch = state.branches.find((candidate) => candidate.path === task.branch);
    if (task.branch !== "") assert.equal(branch?.status, "active", "an open task runs in an active branch");
  }
}

describe("engine properties", () => {
  it("keeps its invariants over random graphs and random commands", async () => {
    await fc.assert(
      fc.asyncProperty(
        blockArbitrary,
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 3 }),
        fc.array(stepArbitrary, { maxLength: 40 }),
        async (root, x, rowCount, steps) => {
          const workflow = compile(definitionOf(root));
          const rows = Array.from({ length: rowCount }, (_, n) => ({ n }));
          const process = new MemoryProcess(workflow, {}, "owner", { x, rows });
          await process.start();
          const handledCount = new Map<string, number>();
          for (const step of steps) {
            const before = structuredClone(process.state);
            try {
              let result: Awaited<ReturnType<MemoryProcess["apply"]>>;
              if (step.op === "handle") {
                const todo = process.todo();
                if (todo.length === 0) continue;
                const task = todo[step.pick % todo.length]!;
                const actions = workflow.actionsOf(task.node);
                result = await process.apply({
                  kind: "handle",
                  task: task.id,
                  handler: task.candidates[0]!,
                  actualUser: null,
                  actionCode: actions[step.action % actions.length]!.code,
                });
                handledCount.set(task.id, (handledCount.get(task.id) ?? 0) + 1);
              } else if (step.op === "withdraw") {
                const done = process.state.tasks.filter((task) => task.status === "done" && task.handler);
                if (done.length === 0) continue;
                const task = done[step.pick % done.length]!;
                result = await process.apply({ kind: "withdraw", task: task.id, user: task.handler! });
                handledCount.set(task.id, (handledCount.get(task.id) ?? 0) - 1);
              } else if (step.op === "childEnds") {
                const waiting = process.state.tasks.filter((task) => task.status === "subprocess");
                if (waiting.length === 0) continue;
                const task = waiting[step.pick % waiting.length]!;
                const status = step.killed ? "killed" : "done";
                result = await process.apply({ kind: "childEnded", task: task.id, status });
              } else if (step.op === "reassign") {
                // Also a countersign member still waiting for its turn.
                const open = process.state.tasks.filter(
                  (task) => task.status === "todo" || task.status === "waiting",
                );
                if (open.length === 0) continue;
                const task = open[step.pick % open.length]!;
                result = await process.apply({
                  kind: "reassign",
                  task: task.id,
                  candidates: ["stand-in"],
                  user: "admin",
                });
              } else {
                result = await process.apply({ kind: step.op, user: "admin" });
              }
              const changed =
                result.tasksCreated.length + result.tasksChanged.length > 0 ||
                before.status !== process.state.status;
              if (changed) {
                assert.ok(result.activities.length > 0, `${step.op} changed the process without an activity`);
                assert.ok(result.events.length > 0, `${step.op} changed the process without an outbox event`);
              }
            } catch (error) {
              if (!(error instanceof WorkflowRefusal)) throw error;
              assert.deepEqual(
                process.state,
                before,
                `a refused ${step.op} (${error.refusal}) changed nothing`,
              );
            }
            for (const [task, count] of handledCount)
              assert.ok(count <= 1, `task ${task} handled ${count} times`);
            checkInvariants(process);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
