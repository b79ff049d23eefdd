import type { TaskNode } from "../../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import { ACTION_NAME, holds } from "../../contracts/workflow-expression.ts";
import type { TaskState } from "../process-state.ts";
import { assignedUsers, type DirectoryQuestion, OpenQuestions } from "./directory-questions.ts";
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

/** A node a path goes on to: its code, the branch it is entered in, and the action that led there. */
interface Visit {
  code: string;
  branch: string;
  action: string | null;
}

/** The visit that leaves a node along the edge that matches. */
function next(run: Run, from: string, branch: string, action: string | null): Visit {
  return { code: route(run, from, branch, action), branch, action };
}

/** Leaves a node along the edge that matches, and walks on until every path waits. */
export function leave(run: Run, from: string, branch: string, action: string | null): void {
  walk(run, [next(run, from, branch, action)]);
}

/** Creates a task step's tasks for `override`'s users (or its rules'), and walks on if it is passed. */
export function enterTask(run: Run, node: TaskNode, branch: string, override?: string[]): void {
  walk(run, taskEntered(run, node, branch, override));
}

/**
 * Enters nodes, the next one on top of a stack, in the order a depth-first walk enters them, until
 * every path waits. A stack, not recursion: a chain of thousands of passed steps must not use up
 * the call stack.
 */
function walk(run: Run, visits: Visit[]): void {
  const pending = visits.reverse();
  for (let visit = pending.pop(); visit; visit = pending.pop()) pending.push(...enter(run, visit).reverse());
}

/** The nodes one command may enter, across all its branches: far above any graph that comes to rest. */
const MAX_ENTERED_NODES = 10_000;

/**
 * Enters a node and says where its path goes on: nowhere when it waits, at a task, a join still
 * missing branches, a subprocess, or an end.
 */
function enter(run: Run, { code, branch, action }: Visit): Visit[] {
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
      return taskEntered(run, node, branch);
    case "exclusive":
      return [next(run, code, branch, action)];
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
      return edges.map(({ edge }, i) => ({ code: edge.to, branch: paths[i]!, action }));
    }
    case "dynamicParallel": {
      const rows = dataOf(run, branch)[node.list];
      const count = Array.isArray(rows) ? rows.length : 0;
      const join = run.workflow.joinOf.get(code)!;
      if (count === 0) {
        run.setMilestone(run.workflow.node(join).milestone);
        return [next(run, join, branch, action)];
      }
      const fork = forkName(run, code);
      const body = run.workflow.outgoing.get(code)![0]!.edge.to;
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
      return paths.map((path) => ({ code: body, branch: path, action }));
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
        return [next(run, code, own.parent, action)];
      }
      return [];
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
      return [];
    }
    case "end":
      if (branch !== "")
        throw new WorkflowRefusal("NO_ROUTE", `end ${code} reached inside a parallel branch`);
      finish(run, "done");
      return [];
  }
}

/** A new forking's name: the split's code and how many times it forked before in this process. */
function forkName(run: Run, split: string): string {
  const earlier = new Set(
    run.state.branches.filter((branch) => branch.split === split).map((branch) => branch.fork),
  );
  return `${split}@${earlier.size}`;
}

/** A task step's tasks for the users its rules name (or `override`); a step nobody handles is passed. */
function taskEntered(run: Run, node: TaskNode, branch: string, override?: string[]): Visit[] {
  const facts = { owner: run.state.owner, data: dataOf(run, branch), handlers: run.handlers() };
  const asked: DirectoryQuestion[] = [];
  const users = override ?? assignedUsers(node.assignees, facts, run.context.answers, asked);
  // Asked with the assignees, so that both cost the caller one look-up, not one after the other.
  const cc = node.cc && node.cc.length > 0 ? assignedUsers(node.cc, facts, run.context.answers, asked) : [];
  if (users === undefined || cc === undefined) throw new OpenQuestions(asked);
  if (users.length === 0) {
    if (node.whenNobody === "refuse")
      throw new WorkflowRefusal("NO_ASSIGNEE", `step ${node.code} has nobody to handle it`);
    run.activity({
      tags: "TASK_SKIP",
      description: `${node.code}: nobody to handle it, passed`,
      user: null,
      task: null,
    });
    return [next(run, node.code, branch, run.workflow.actionsOf(node.code)[0]!.code)];
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
  if (cc.length > 0) run.events.push({ type: "cc", task: null, node: node.code, users: cc });
  return [];
}

/** Leaves a finished subprocess step along the edge its child's outcome (`done`, `killed`) matches. */
export function goOnPastChild(run: Run, task: TaskState): void {
  run.trail = emptyTrail(run.state.milestone);
  leave(run, task.node, task.branch, task.action);
  // Written with the step, so that a later `resume` does not go on past it a second time.
  run.changeTask(task, { trail: run.endTrail() });
}
