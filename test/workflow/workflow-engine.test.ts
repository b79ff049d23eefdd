import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import {
  type WorkflowDefinitionInput,
  workflowDefinitionSchema,
} from "../../contracts/workflow-definition.ts";
import { definitionProblems } from "../../contracts/workflow-definition-rules.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { evaluate, holds, parseExpression } from "../../contracts/workflow-expression.ts";
import { applyCommand, newProcessState } from "../../workflow/engine/apply-command.ts";
import { questionKey } from "../../workflow/engine/directory-questions.ts";
import { taskOfStep } from "../../workflow/engine/engine-queries.ts";
import { compile, type Directory, MemoryProcess } from "../support/engine-harness.ts";

const leaveRequest = JSON.parse(
  await readFile(new URL("../../examples/leave-request.workflow.json", import.meta.url), "utf8"),
) as WorkflowDefinitionInput;

const directory: Directory = {
  "cs:lecturer": ["alice", "bob"],
  "cs:head": ["carol"],
  "office:dean": ["dan"],
  "hr:clerk": ["erin", "frank"],
};

async function refusal(promise: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof WorkflowRefusal, String(error));
    assert.equal(error.refusal, code, error.message);
    return true;
  });
}

describe("condition expressions", () => {
  it("evaluates comparisons, logic, lists, functions and the action taken", () => {
    const data = { days: 5, type: "sick", tags: ["urgent"], items: [1, 2], dept: "cs", nested: { level: 3 } };
    const cases: [string, unknown][] = [
      ['days > 3 && type == "sick"', true],
      ["days > 3 and type == 'annual'", false],
      ['action == "reject" || days >= 10', true],
      ['contains(tags, "urgent")', true],
      ["len(items) > 2", false],
      ['dept in ["cs", "math"]', true],
      ["not (days < 1)", true],
      ["nested.level * 2 + 1", 7],
      ["missing == null", true],
      ["empty(missing)", true],
      ['"5" == 5', false],
      ["days / 0", null],
      ['days < "9"', false],
    ];
    for (const [source, expected] of cases) {
      assert.deepEqual(evaluate(parseExpression(source), { ...data, action: "reject" }), expected, source);
    }
    assert.equal(holds(parseExpression("len(items)"), data), true);
  });

  it("refuses what does not parse, naming where", () => {
    const broken: [string, RegExp][] = [
      ["days >", /ends too early/],
      ["days > 3 &&& x", /unexpected "&"/],
      ["f(1)", /no function f/],
      ["len(1, 2)", /len takes 1 argument/],
      ['"open', /string is not closed at character 1/],
      ["a < b < c", /unexpected "<" at character 7/],
      ["(((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))", /nested too deeply/],
    ];
    for (const [source, message] of broken) assert.throws(() => parseExpression(source), message, source);
  });
});

describe("definition rules", () => {
  const base = (): WorkflowDefinitionInput => structuredClone(leaveRequest);
  const problemsOf = (input: WorkflowDefinitionInput) =>
    definitionProblems(workflowDefinitionSchema.parse(input)).map((problem) => problem.message);

  it("accepts the leave request example", () => {
    assert.deepEqual(problemsOf(base()), []);
  });

  it("names the node and the rule each broken definition breaks", () => {
    const cases: [string, (definition: WorkflowDefinitionInput) => void, RegExp][] = [
      [
        "unreachable",
        (d) => d.graph.nodes.push({ kind: "task", code: "orphan", assignees: [{ initiator: true }] }),
        /node orphan: no start leads to it/,
      ],
      [
        "edge to nothing",
        (d) => d.graph.edges.push({ from: "record", to: "nowhere" }),
        /the edge record → nowhere: there is no node nowhere/,
      ],
      [
        "join without split",
        (d) => {
          d.graph.nodes.push({ kind: "join", code: "stray", split: "record" });
          d.graph.edges.push({ from: "apply", to: "stray" }, { from: "stray", to: "granted" });
        },
        /node stray: joins record, which is no parallel split/,
      ],
      [
        "expression",
        (d) => {
          d.graph.edges.find((e) => e.condition)!.condition = "days >> 3";
        },
        /the edge long-leave → countersign: the condition does not parse: unexpected ">" at character 7/,
      ],
      [
        "unknown field",
        (d) => {
          d.graph.edges.find((e) => e.condition)!.condition = "weeks > 1";
        },
        /the edge long-leave → countersign: the condition reads weeks, which is no field of the form/,
      ],
      [
        "unknown action",
        (d) => {
          d.graph.edges.find((e) => e.action === "reject")!.action = "deny";
        },
        /the edge department → refused: node department offers no action deny/,
      ],
      [
        "branch escapes its join",
        (d) => {
          d.graph.edges.find((e) => e.from === "dean")!.to = "granted";
        },
        /node granted: a branch of countersign ends before its join countersigned/,
      ],
      [
        "no end reachable",
        (d) => {
          d.graph.nodes.push(
            { kind: "task", code: "limbo", assignees: [{ initiator: true }] },
            { kind: "task", code: "limbo2", assignees: [{ initiator: true }] },
          );
          d.graph.edges.push(
            { from: "long-leave", to: "limbo", condition: "days > 100" },
            { from: "limbo", to: "limbo2" },
            { from: "limbo2", to: "limbo" },
          );
        },
        /node limbo: no end can be reached from it/,
      ],
      [
        "two default entries",
        (d) => {
          d.graph.nodes.push({ kind: "start", code: "apply2" });
          d.graph.edges.push({ from: "apply2", to: "department" });
        },
        /exactly one start that is not automatic/,
      ],
      [
        "dynamic split over a field that is no list",
        (d) => {
          d.graph.nodes.push({ kind: "dynamicParallel", code: "each", list: "days" });
        },
        /node each: days is no list field of the form/,
      ],
    ];
    for (const [what, breakIt, message] of cases) {
      const definition = base();
      breakIt(definition);
      const problems = problemsOf(definition);
      assert.ok(
        problems.some((problem) => message.test(problem)),
        `${what}: expected ${message}, got ${JSON.stringify(problems)}`,
      );
    }
  });
});

describe("the engine", () => {
  const workflow = compile(leaveRequest);
  const start = async (data: Record<string, unknown>) => {
    const process = new MemoryProcess(workflow, directory, "alice", data);
    await process.start();
    return process;
  };

  it("takes a short leave through the department to the record, routing by data", async () => {
    const process = await start({ days: 2, reason: "moving house", reviewers: [] });
    assert.deepEqual(
      process.todo().map((task) => [task.node, task.candidates]),
      [["apply", ["alice"]]],
    );
    assert.equal(process.state.milestone?.percent, 10);
    await process.handleStep("apply");
    assert.deepEqual(
      process.todo("department")[0]!.candidates,
      ["carol"],
      "the head of the initiator's department",
    );
    await process.handleStep("department", "approve");
    const record = process.todo("record");
    assert.deepEqual(record[0]!.candidates, ["erin", "frank"]);
    const cc = process.results.at(-1)!.events.find((event) => event.type === "cc");
    assert.deepEqual(cc, { type: "cc", task: null, node: "record", users: ["alice"] });
    await process.handleStep("record");
    assert.equal(process.state.status, "done");
    assert.equal(process.state.milestone?.percent, 100);
    assert.deepEqual(process.results.at(-1)!.events.at(-1), { type: "process.ended", status: "done" });
  });

  it("routes by the action taken, and asks for a remark and an action where the step says so", async () => {
    const process = await start({ days: 2, reason: "x" });
    await process.handleStep("apply");
    const task = process.todo("department")[0]!;
    await refusal(
      process.apply({ kind: "handle", task: task.id, handler: "carol", actualUser: null }),
      "ACTION_REQUIRED",
    );
    await refusal(
      process.apply({
        kind: "handle",
        task: task.id,
        handler: "carol",
        actualUser: null,
        actionCode: "reject",
      }),
      "REMARK_REQUIRED",
    );
    await refusal(
      process.apply({
        kind: "handle",
        task: task.id,
        handler: "bob",
        actualUser: null,
        actionCode: "approve",
      }),
      "NOT_A_CANDIDATE",
    );
    await process.apply({
      kind: "handle",
      task: task.id,
      handler: "carol",
      actualUser: null,
      actionId: 2,
      remark: "exams",
    });
    assert.equal(process.state.status, "done");
    assert.equal(process.state.tasks.find((t) => t.id === task.id)!.action, "reject");
  });

  it("refuses a required field left empty when the form is submitted", async () => {
    const process = await start({ days: 2 });
    await refusal(process.handleStep("apply"), "DATA_INVALID");
  });

  it("handles a task once: the second submit is refused and changes nothing", async () => {
    const process = await start({ days: 2, reason: "x" });
    const [first] = process.todo("apply");
    await process.apply({ kind: "handle", task: first!.id, handler: "alice", actualUser: null });
    const before = structuredClone(process.state);
    await refusal(
      process.apply({ kind: "handle", task: first!.id, handler: "alice", actualUser: null }),
      "TASK_ALREADY_HANDLED",
    );
    assert.deepEqual(process.state, before);
  });

  it("forks a long leave to the dean and an all-members countersign, and joins once", async () => {
    const process = await start({ days: 5, reason: "x", reviewers: ["bob", "frank"] });
    await process.handleStep("apply");
    await process.handleStep("department", "approve");
    assert.deepEqual(
      process.todo().map((task) => [task.node, task.candidates]),
      [
        ["dean", ["dan"]],
        ["hand-over", ["bob"]],
        ["hand-over", ["frank"]],
      ],
    );
    await process.handleStep("dean");
    const [bob, frank] = process.todo("hand-over");
    const unchanged = structuredClone(process.state);
    await refusal(
      process.apply({
        kind: "handle",
        task: bob!.id,
        handler: "bob",
        actualUser: null,
        nextSteps: ["record"],
        nextUsers: ["zoe"],
      }),
      "NEXT_STEPS_INVALID",
    );
    assert.deepEqual(
      process.state,
      unchanged,
      "a member does not choose where a step it does not complete goes",
    );
    await process.apply({ kind: "handle", task: bob!.id, handler: "bob", actualUser: null });
    assert.equal(process.todo("record").length, 0, "the join waits for the last member");
    await process.apply({ kind: "handle", task: frank!.id, handler: "frank", actualUser: null });
    assert.equal(process.todo("record").length, 1, "the join fires once");
    assert.equal(process.state.milestone?.name, "Recorded");
    assert.deepEqual(
      process.state.branches.map((branch) => branch.status),
      ["joined", "joined"],
    );
    const dean = process.state.tasks.find((task) => task.node === "dean")!;
    const before = structuredClone(process.state);
    await refusal(process.apply({ kind: "withdraw", task: dean.id, user: "dan" }), "WITHDRAW_NOT_ALLOWED");
    assert.deepEqual(process.state, before, "a branch the join has gone past is not reopened");
    await process.apply({ kind: "withdraw", task: frank!.id, user: "frank" });
    assert.equal(process.todo("record").length, 0, "taking back the last arrival undoes the join");
    assert.deepEqual(
      process.state.branches.map((branch) => branch.status),
      ["arrived", "active"],
    );
  });

  it("keeps a countersign member's handling once another member's completed the step, in the same instant too", async () => {
    const process = await start({ days: 5, reason: "x", reviewers: ["bob", "frank"] });
    await process.handleStep("apply");
    await process.handleStep("department", "approve");
    await process.handleStep("dean");
    const [bob, frank] = process.todo("hand-over");
    await process.apply({ kind: "handle", task: bob!.id, handler: "bob", actualUser: null });
    process.now -= 1000; // frank's handling lands in the same millisecond as bob's
    await process.apply({ kind: "handle", task: frank!.id, handler: "frank", actualUser: null });
    assert.equal(process.todo("record").length, 1);
    const before = structuredClone(process.state);
    await refusal(process.apply({ kind: "withdraw", task: bob!.id, user: "bob" }), "WITHDRAW_NOT_ALLOWED");
    assert.deepEqual(process.state, before, "the step frank completed stays completed");
  });

  it("passes a countersign step with nobody in it when the step says so", async () => {
    const process = await start({ days: 5, reason: "x", reviewers: [] });
    await process.handleStep("apply");
    await process.handleStep("department", "approve");
    assert.deepEqual(
      process.todo().map((task) => task.node),
      ["dean"],
    );
    await process.handleStep("dean");
    assert.equal(process.todo("record").length, 1);
  });

  it("takes a handled task back while what it led to is untouched, and not after", async () => {
    const process = await start({ days: 5, reason: "x", reviewers: ["bob"] });
    await process.handleStep("apply");
    const department = process.todo("department")[0]!;
    await process.handleStep("department", "approve");
    assert.equal(process.state.milestone?.name, "Department");
    await refusal(
      process.apply({ kind: "withdraw", task: department.id, user: "bob" }),
      "WITHDRAW_NOT_ALLOWED",
    );
    const taken = await process.apply({ kind: "withdraw", task: department.id, user: "carol" });
    assert.deepEqual(
      process.todo().map((task) => task.node),
      ["department"],
    );
    assert.deepEqual(
      process.state.branches.map((branch) => branch.status),
      ["cancelled", "cancelled"],
    );
    assert.ok(taken.events.some((event) => event.type === "todo.withdrawn"));
    assert.equal(taken.activities[0]!.tags, "INSTANCE_WITHDRAW");

    await process.handleStep("department", "approve");
    await process.handleStep("dean");
    const again = process.state.tasks.find((task) => task.node === "department" && task.status === "done")!;
    await refusal(process.apply({ kind: "withdraw", task: again.id, user: "carol" }), "WITHDRAW_NOT_ALLOWED");
  });

  it("refuses a command whose flow never comes to rest: a loop of steps skipped for want of a handler", async () => {
    const looping = compile({
      schema: {
        fields: [
          { name: "reviewer", type: "user" },
          { name: "again", type: "boolean" },
        ],
      },
      graph: {
        nodes: [
          { kind: "start", code: "s" },
          { kind: "task", code: "review", assignees: [{ field: "reviewer" }], whenNobody: "skip" },
          { kind: "exclusive", code: "more" },
          { kind: "end", code: "done" },
        ],
        edges: [
          { from: "s", to: "review" },
          { from: "review", to: "more" },
          { from: "more", to: "review", condition: "again == true" },
          { from: "more", to: "done", default: true },
        ],
      },
    });
    const process = new MemoryProcess(looping, {}, "alice", { again: true });
    await process.start();
    await refusal(process.handleStep("s"), "NO_ROUTE");
    assert.deepEqual(
      process.todo().map((task) => task.node),
      ["s"],
      "the refused command changed nothing",
    );
  });

  it("gives back on withdraw only a milestone that nothing has moved since", async () => {
    const branches = compile({
      schema: { fields: [] },
      graph: {
        nodes: [
          { kind: "start", code: "s", milestone: { name: "Applied", percent: 10 } },
          { kind: "parallel", code: "split" },
          { kind: "task", code: "a1", assignees: [{ accounts: ["u1"] }] },
          {
            kind: "task",
            code: "a2",
            assignees: [{ accounts: ["u1"] }],
            milestone: { name: "A", percent: 40 },
          },
          { kind: "task", code: "b1", assignees: [{ accounts: ["u2"] }] },
          {
            kind: "task",
            code: "b2",
            assignees: [{ accounts: ["u2"] }],
            milestone: { name: "B", percent: 60 },
          },
          { kind: "join", code: "both", split: "split" },
          { kind: "end", code: "done" },
        ],
        edges: [
          { from: "s", to: "split" },
          { from: "split", to: "a1" },
          { from: "split", to: "b1" },
          { from: "a1", to: "a2" },
          { from: "b1", to: "b2" },
          { from: "a2", to: "both" },
          { from: "b2", to: "both" },
          { from: "both", to: "done" },
        ],
      },
    });
    /** Both branches' first steps handled, a1's first: the milestone is b2's. */
    const bothHandled = async () => {
      const process = new MemoryProcess(branches, {}, "alice");
      await process.start();
      await process.handleStep("s");
      const [a1] = process.todo("a1");
      const [b1] = process.todo("b1");
      await process.handleStep("a1");
      await process.handleStep("b1");
      assert.equal(process.state.milestone?.name, "B");
      return { process, a1: a1!, b1: b1! };
    };
    const taken = await bothHandled();
    await taken.process.apply({ kind: "withdraw", task: taken.a1.id, user: "u1" });
    assert.equal(taken.process.state.milestone?.name, "B", "the other branch's milestone stays");

    const inTurn = await bothHandled();
    await inTurn.process.apply({ kind: "withdraw", task: inTurn.b1.id, user: "u2" });
    assert.equal(inTurn.process.state.milestone?.name, "A", "b1's handling moved it from A: back to A");
    await inTurn.process.apply({ kind: "withdraw", task: inTurn.a1.id, user: "u1" });
    assert.equal(inTurn.process.state.milestone?.name, "Applied");
  });

  it("reaches a join's milestone when the join fires, not when its first branch arrives", async () => {
    const joined = compile({
      schema: { fields: [] },
      graph: {
        nodes: [
          { kind: "start", code: "s", milestone: { name: "Applied", percent: 10 } },
          { kind: "parallel", code: "split" },
          { kind: "task", code: "a", assignees: [{ accounts: ["u1"] }] },
          { kind: "task", code: "b", assignees: [{ accounts: ["u2"] }] },
          { kind: "join", code: "both", split: "split", milestone: { name: "Agreed", percent: 80 } },
          { kind: "task", code: "file", assignees: [{ accounts: ["u3"] }] },
          { kind: "end", code: "done" },
        ],
        edges: [
          { from: "s", to: "split" },
          { from: "split", to: "a" },
          { from: "split", to: "b" },
          { from: "a", to: "both" },
          { from: "b", to: "both" },
          { from: "both", to: "file" },
          { from: "file", to: "done" },
        ],
      },
    });
    const process = new MemoryProcess(joined, {}, "alice");
    await process.start();
    await process.handleStep("s");
    await process.handleStep("a");
    assert.equal(process.state.milestone?.percent, 10, "one branch of two has arrived");
    await process.handleStep("b");
    assert.equal(process.state.milestone?.percent, 80);
  });

  it("runs sequential countersigns in turn and lets any other action decide at once", async () => {
    const sequential = compile({
      schema: { fields: [] },
      graph: {
        nodes: [
          { kind: "start", code: "s" },
          {
            kind: "task",
            code: "sign",
            mode: "sequential",
            assignees: [{ accounts: ["u1", "u2", "u3"] }],
            actions: [
              { id: 1, code: "agree", name: "Agree" },
              { id: 2, code: "veto", name: "Veto" },
            ],
          },
          { kind: "end", code: "yes" },
          { kind: "end", code: "no" },
        ],
        edges: [
          { from: "s", to: "sign" },
          { from: "sign", to: "yes", action: "agree" },
          { from: "sign", to: "no", action: "veto" },
        ],
      },
    });
    const process = new MemoryProcess(sequential, {}, "alice");
    await process.start();
    await process.handleStep("s");
    assert.deepEqual(
      process.todo().map((task) => task.candidates[0]),
      ["u1"],
    );
    await process.handleStep("sign", "agree");
    assert.deepEqual(
      process.todo().map((task) => task.candidates[0]),
      ["u2"],
    );
    // u2 takes back an agreement that only gave u3 the turn: u3 waits again.
    const [u2] = process.todo("sign");
    await process.handleStep("sign", "agree");
    await process.apply({ kind: "withdraw", task: u2!.id, user: "u2" });
    assert.deepEqual(
      process.todo().map((task) => task.candidates[0]),
      ["u2"],
    );
    await process.handleStep("sign", "veto");
    assert.equal(process.state.status, "done");
    assert.equal(process.state.tasks.find((task) => task.candidates[0] === "u3")!.status, "cancelled");
  });

  it("forks one branch per row of a list and addresses each with its split path", async () => {
    const dynamic = compile({
      schema: {
        fields: [{ name: "items", type: "list", fields: [{ name: "owner", type: "user" }] }],
      },
      graph: {
        nodes: [
          { kind: "start", code: "s" },
          { kind: "dynamicParallel", code: "each", list: "items" },
          { kind: "task", code: "check", assignees: [{ accounts: ["checker"] }], allowSystemUser: true },
          { kind: "join", code: "all", split: "each" },
          { kind: "end", code: "e" },
        ],
        edges: [
          { from: "s", to: "each" },
          { from: "each", to: "check" },
          { from: "check", to: "all" },
          { from: "all", to: "e" },
        ],
      },
    });
    const process = new MemoryProcess(dynamic, {}, "alice", {
      items: [{ owner: "a" }, { owner: "b" }, { owner: "c" }],
    });
    await process.start();
    await process.handleStep("s");
    assert.equal(process.todo("check").length, 3);
    assert.throws(
      () => taskOfStep(dynamic, process.state, "check"),
      /3 to-do tasks at step check: give splitPath/,
    );
    const second = taskOfStep(dynamic, process.state, "check", "1");
    assert.equal(second.branch, "/each@0.1");
    for (const path of ["1", "0", "2"]) {
      const task = taskOfStep(dynamic, process.state, "check", path);
      await process.apply({ kind: "handle", task: task.id, handler: null, actualUser: null });
    }
    assert.equal(process.state.status, "done");
  });

  it("sends the process where nextSteps says, with nextUsers as its candidates", async () => {
    const process = await start({ days: 9, reason: "x", reviewers: [] });
    await process.handleStep("apply");
    const department = process.todo("department")[0]!;
    await refusal(
      process.apply({
        kind: "handle",
        task: department.id,
        handler: "carol",
        actualUser: null,
        actionCode: "approve",
        nextSteps: ["dean"],
        nextUsers: ["zoe"],
      }),
      "NEXT_STEPS_INVALID",
    );
    await process.apply({
      kind: "handle",
      task: department.id,
      handler: "carol",
      actualUser: null,
      actionCode: "approve",
      nextSteps: ["record"],
      nextUsers: ["zoe"],
    });
    assert.deepEqual(
      process.todo().map((task) => [task.node, task.candidates]),
      [["record", ["zoe"]]],
    );
    assert.equal(
      process.state.milestone?.name,
      "Recorded",
      "the step jumped to is reached, with its milestone",
    );
  });

  it("suspends, refuses handling while suspended, resumes, and kills with every open task cancelled", async () => {
    const process = await start({ days: 5, reason: "x", reviewers: ["bob"] });
    await process.handleStep("apply");
    await process.handleStep("department", "approve");
    await process.apply({ kind: "suspend", user: "carol" });
    await refusal(process.handleStep("dean"), "PROCESS_SUSPENDED");
    await refusal(process.apply({ kind: "suspend", user: "carol" }), "PROCESS_SUSPENDED");
    await process.apply({ kind: "resume", user: "carol" });
    const killed = await process.apply({ kind: "kill", user: "carol", remark: "withdrawn by the student" });
    assert.equal(process.state.status, "killed");
    assert.equal(process.todo().length, 0);
    assert.deepEqual(killed.events.filter((event) => event.type === "todo.withdrawn").length, 2);
    assert.equal(killed.activities[0]!.tags, "INSTANCE_KILL");
    await refusal(process.apply({ kind: "kill", user: "carol" }), "PROCESS_ENDED");
  });

  it("waits at a subprocess step until the child ends", async () => {
    const parent = compile({
      schema: { fields: [{ name: "days", type: "number" }] },
      graph: {
        nodes: [
          { kind: "start", code: "s" },
          { kind: "subprocess", code: "child", workflow: "leave", data: { days: "days" } },
          { kind: "end", code: "e" },
        ],
        edges: [
          { from: "s", to: "child" },
          { from: "child", to: "e" },
        ],
      },
    });
    const process = new MemoryProcess(parent, {}, "alice", { days: 4 });
    await process.start();
    const entered = await process.handleStep("s");
    assert.deepEqual(
      entered.children.map((child) => [child.workflow, child.data]),
      [["leave", { days: 4 }]],
    );
    const waiting = process.state.tasks.find((task) => task.status === "subprocess")!;
    // Suspended meanwhile, the parent records the child's end, and goes on past it when resumed.
    await process.apply({ kind: "suspend", user: "alice" });
    const ended = await process.apply({ kind: "childEnded", task: waiting.id, status: "done" });
    assert.deepEqual(ended.events, [{ type: "subprocess.ended", task: waiting.id, status: "done" }]);
    assert.equal(process.state.status, "suspended");
    await process.apply({ kind: "resume", user: "alice" });
    assert.equal(process.state.status, "done");
  });
});

describe("the engine's directory questions", () => {
  const workflow = compile(leaveRequest);
  const contextWith = (answers: [string, string[]][]) => {
    let ids = 0;
    return { now: 1_700_000_000_000, newId: () => `t${++ids}`, answers: new Map(answers) };
  };

  it("asks what only the directory knows as data, and decides the same command once it is answered", () => {
    const data = { days: 2, reason: "x" };
    const started = applyCommand(
      workflow,
      newProcessState("alice", data),
      { kind: "start", owner: "alice", data, actor: "alice" },
      contextWith([]),
    );
    assert.equal(started.kind, "result", "the first step is the owner's: nothing to ask");
    const state = started.result.state;
    const submit = { kind: "handle", task: state.tasks[0]!.id, handler: "alice", actualUser: null } as const;
    const asked = applyCommand(workflow, state, submit, contextWith([]));
    const question = { codes: [], positions: [], initiatorPosts: ["head"], initiator: "alice" };
    assert.deepEqual(asked, { kind: "questions", questions: [question] });
    const decided = applyCommand(workflow, state, submit, contextWith([[questionKey(question), ["carol"]]]));
    assert.equal(decided.kind, "result");
    assert.deepEqual(
      decided.result.tasksCreated.map((task) => [task.node, task.candidates]),
      [["department", ["carol"]]],
    );
  });
});
