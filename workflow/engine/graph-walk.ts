import type { TaskNode } from "../../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { ACTION_NAME, holds } from "../../contracts/workflow-expression.ts";
import type { TaskState } from "../process-state.ts";
import { emptyTrail, finish, type Run } from "./run-state.ts";

/**
 * The data a node in `branch` reads: the process's, and in a branch of a dynamic split the fields
 * of its row besides (the innermost row's fields win over those of the same name further out).
 */
function dataOf(run: Run, branch: string): Record<string, unknown> {
  const own = branch === "" ? undefined : run.state.branches.find((candidate) => candidate.path === branch);
  if (!own) return run.state.data;
  const outer = dataOf(run, own.parent);
  if (own.item === null) return outer;
  const split = run.workflow.node(own.split);
  const rows = split.kind === "dynamicParallel" ? outer[split.list] : undefined;
  const row = Array.isArray(rows) ? rows[own.item] : undefined;
  return row && typeof row === "object" && !Array.isArray(row)
    ? { ...outer, ...(row as Record<string, unknown>) }
    : outer;
}

/** Follows the edge out of a node that matches the action taken and the data. */
function route(run: Run, from: string, branch: string, action: string | null): string {
  const edges = run.workflow.outgoing.get(from) ?? [];
  if (edges.length === 1 && !edges[0]!.edge.action && !edges[0]!.condition) return edges[0]!.edge.to;
  const scope = { ...dataOf(run, branch), [ACTION_NAME]: action };
  const chosen =
    edges.find(
      ({ edge, condition }) =>
        !edge.default && (!edge.action || edge.action === action) && (!condition || holds(condition, scope)),
    ) ?? edges.find(({ edge }) => edge.default);
  if (!chosen) {
    throw new WorkflowRefusal(
      "NO_ROUTE",
      `no edge out of ${from} matches the action ${action ?? "(none)"} and the data`,
    );
  }
  return chosen.edge.to;
}

/** Leaves a node along the edge that matches, and enters what follows. */
export async function leave(run: Run, from: string, branch: string, action: string | null): Promise<void> {
  await enter(run, route(run, from, branch, action), branch, action);
}

/** The nodes one command may enter, across all its branches: far above any graph that comes to rest. */
const MAX_ENTERED_NODES = 10_000;

/** Steps through nodes until the path waits: at a task, a join still missing branches, a subprocess, or an end. */
async function enter(run: Run, code: string, branch: string, action: string | null): Promise<void> {
  // A loop whose every task is skipped for want of a handler never waits; neither may a command.
  if (++run.entered > MAX_ENTERED_NODES)
    throw new WorkflowRefusal("NO_ROUTE", `the flow does not come to rest after ${code}`);
  const node = run.workflow.node(code);
  // A join's milestone is reached when it fires, not when its first branch arrives.
  if (node.kind !== "join") run.setMilestone(node.milestone);
  switch (node.kind) {
    case "start":
      throw new WorkflowRefusal("NO_ROUTE", `an edge leads into the start ${code}`);
    case "task":
      await enterTask(run, node, branch);
      return;
    case "exclusive":
      await enter(run, route(run, code, branch, action), branch, action);
      return;
    case "parallel": {
      const fork = forkName(run, code);
      const edges = run.workflow.outgoing.get(code) ?? [];
      const paths = edges.map((_, i) => `${branch}/${fork}.${i}`);
      for (const path of paths) {
        run.newBranch({
          path,
          parent: branch,
          split: code,
          fork: `${branch}/${fork}`,
          item: null,
          status: "active",
        });
      }
      for (const [i, { edge }] of edges.entries()) await enter(run, edge.to, paths[i]!, action);
      return;
    }
    case "dynamicParallel": {
      const rows = dataOf(run, branch)[node.list];
      const count = Array.isArray(rows) ? rows.length : 0;
      const join = run.workflow.joinOf.get(code)!;
      if (count === 0) {
        run.setMilestone(run.workflow.node(join).milestone);
        await leave(run, join, branch, action);
        return;
      }
      const fork = forkName(run, code);
      const next = run.workflow.outgoing.get(code)![0]!.edge.to;
      const paths = Array.from({ length: count }, (_, i) => `${branch}/${fork}.${i}`);
      for (const [item, path] of paths.entries()) {
        run.newBranch({
          path,
          parent: branch,
          split: code,
          fork: `${branch}/${fork}`,
          item,
          status: "active",
        });
      }
      for (const path of paths) await enter(run, next, path, action);
      return;
    }
    case "join": {
      const own = run.state.branches.find((candidate) => candidate.path === branch);
      if (!own || own.split !== node.split)
        throw new WorkflowRefusal("NO_ROUTE", `join ${code} reached outside the branches of ${node.split}`);
      run.changeBranch(own, { status: "arrived" });
      run.trail?.arrived.push(own.path);
      const siblings = run.state.branches.filter((candidate) => candidate.fork === own.fork);
      if (siblings.every((sibling) => sibling.status === "arrived")) {
        for (const sibling of siblings) {
          run.changeBranch(sibling, { status: "joined" });
          run.trail?.joined.push(sibling.path);
        }
        run.setMilestone(node.milestone);
        await leave(run, code, own.parent, action);
      }
      return;
    }
    case "subprocess": {
      const task = run.newTask(code, branch, {
        status: "subprocess",
        candidates: [],
        group: run.context.newId(),
      });
      const data: Record<string, unknown> = {};
      const scope = dataOf(run, branch);
      for (const [childField, parentField] of Object.entries(node.data))
        data[childField] = scope[parentField] ?? null;
      run.children.push({ task: task.id, workflow: node.workflow, data });
      run.activity({
        tags: "SUBPROCESS_START",
        description: `${code}: starts a process of ${node.workflow}`,
        user: null,
        task: task.id,
      });
      return;
    }
    case "end":
      if (branch !== "")
        throw new WorkflowRefusal("NO_ROUTE", `end ${code} reached inside a parallel branch`);
      finish(run, "done");
      return;
  }
}

/** A new forking's name: the split's code and how many times it forked before in this process. */
function forkName(run: Run, split: string): string {
  const earlier = new Set(
    run.state.branches.filter((branch) => branch.split === split).map((branch) => branch.fork),
  );
  return `${split}@${earlier.size}`;
}

/** Creates a task step's tasks for the users its rules name (or `override`), or passes a step nobody handles. */
export async function enterTask(
  run: Run,
  node: TaskNode,
  branch: string,
  override?: string[],
): Promise<void> {
  const facts = { owner: run.state.owner, data: dataOf(run, branch), handlers: run.handlers() };
  const users = override ?? (await run.context.resolve(node.assignees, facts));
  if (users.length === 0) {
    if (node.whenNobody === "refuse")
      throw new WorkflowRefusal("NO_ASSIGNEE", `step ${node.code} has nobody to handle it`);
    run.activity({
      tags: "TASK_SKIP",
      description: `${node.code}: nobody to handle it, passed`,
      user: null,
      task: null,
    });
    await leave(run, node.code, branch, run.workflow.actionsOf(node.code)[0]!.code);
    return;
  }
  const group = run.context.newId();
  const expiresAt = node.expiresInSeconds ? run.context.now + node.expiresInSeconds * 1000 : null;
  const members = node.mode === "any" ? [users] : users.map((user) => [user]);
  for (const [turn, candidates] of members.entries()) {
    const waiting = node.mode === "sequential" && turn > 0;
    const task = run.newTask(node.code, branch, {
      candidates,
      group,
      turn,
      status: waiting ? "waiting" : "todo",
      expiresAt,
    });
    if (!waiting) run.events.push({ type: "todo.created", task: task.id, users: candidates });
  }
  if (node.cc && node.cc.length > 0) {
    const cc = await run.context.resolve(node.cc, facts);
    if (cc.length > 0) run.events.push({ type: "cc", task: null, node: node.code, users: cc });
  }
}

/** Leaves a finished subprocess step along the edge its child's outcome (`done`, `killed`) matches. */
export async function goOnPastChild(run: Run, task: TaskState): Promise<void> {
  run.trail = emptyTrail(run.state.milestone);
  await leave(run, task.node, task.branch, task.action);
  // Written with the step, so that a later `resume` does not go on past it a second time.
  run.changeTask(task, { trail: run.endTrail() });
}
