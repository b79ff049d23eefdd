import {
  type Assignee,
  DEFAULT_ACTION,
  type TaskNode,
  type WorkflowAction,
  type WorkflowDefinition,
  type WorkflowEdge,
  type WorkflowNode,
} from "../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { ACTION_NAME, type Expression, holds, parseExpression } from "../contracts/workflow-expression.ts";
import {
  type BranchState,
  dynamicIndexes,
  type Milestone,
  type ProcessState,
  type TaskState,
  type TaskStatus,
  type TaskTrail,
} from "./process-state.ts";

/**
 * The engine: a rule that takes a process's rows and a command and returns the rows to write, the
 * activities and outbox events to record, or a refusal. It touches no database, clock or broker:
 * the time, new ids and the directory's answer to "who holds this position" come in `EngineContext`.
 */

/** Facts an assignee rule may depend on. */
export interface AssignmentFacts {
  owner: string;
  data: Record<string, unknown>;
  /** The latest handler of each step so far. */
  handlers: ReadonlyMap<string, string>;
}

export interface EngineContext {
  now: number;
  newId(): string;
  /** The users an assignee rule names, in a stable order, without duplicates. */
  resolve(assignees: readonly Assignee[], facts: AssignmentFacts): Promise<string[]>;
}

export type ActivityTag = "INSTANCE_KILL" | "INSTANCE_WITHDRAW" | "INSTANCE_ADMIN";

export interface ActivityRecord {
  category: "INSTANCE" | "MESSENGER" | "NOTIFICATION" | "DATABINDING";
  level: "VERBOSE" | "INFO" | "WARNING";
  tags: ActivityTag | string;
  description: string;
  user: string | null;
  task: string | null;
  /** About a step marked hidden: shown only where hidden steps are. */
  hidden?: boolean;
}

/** An outbox event: what push, notifications and messenger callbacks learn of. */
export type EngineEvent =
  | { type: "todo.created"; task: string; users: string[] }
  | { type: "todo.withdrawn"; task: string; users: string[] }
  | { type: "todo.done"; task: string; user: string }
  | { type: "cc"; task: string | null; node: string; users: string[] }
  | { type: "process.started" }
  | { type: "process.ended"; status: "done" | "killed" }
  | { type: "process.suspended" }
  | { type: "process.resumed" }
  | { type: "compensate" }
  | { type: "subprocess.ended"; task: string; status: "done" | "killed" }
  | { type: "task.reassigned"; task: string; users: string[] };

export interface ChildToStart {
  task: string;
  workflow: string;
  data: Record<string, unknown>;
}

/** What a command does: rows to insert or update, and what to record and start. */
export interface EngineResult {
  state: ProcessState;
  tasksCreated: TaskState[];
  tasksChanged: TaskState[];
  branchesCreated: BranchState[];
  branchesChanged: BranchState[];
  activities: ActivityRecord[];
  events: EngineEvent[];
  /** Subprocess steps entered: a child process to start for each. */
  children: ChildToStart[];
  /** Child processes to kill with this one. */
  childrenToKill: string[];
}

export type EngineCommand =
  | {
      kind: "start";
      owner: string;
      firstAssignee?: string;
      entrance?: string;
      data: Record<string, unknown>;
      actor: string | null;
    }
  | {
      kind: "handle";
      task: string;
      /** On whose behalf it is handled (a candidate, or the system user as `null`). */
      handler: string | null;
      /** Who did it (a delegate, a pickup's collector); the handler when nobody else. */
      actualUser: string | null;
      actionCode?: string;
      actionId?: number;
      remark?: string;
      thing?: string;
      /** 4.5's override of where the process goes next: one step and its users. */
      nextSteps?: string[];
      nextUsers?: string[];
      /** The caller may act for any candidate (a sys token naming the user, or the system user). */
      asSystem?: boolean;
    }
  | { kind: "withdraw"; task: string; user: string }
  | { kind: "suspend"; user: string | null; remark?: string }
  | { kind: "resume"; user: string | null }
  | { kind: "kill"; user: string | null; remark?: string }
  | { kind: "childEnded"; task: string; status: "done" | "killed" }
  | { kind: "reassign"; task: string; candidates: string[]; user: string | null };

/** The code of the system user in activities: a sys token acting without naming a user. */
const SYSTEM = null;

/** A definition prepared for running: nodes and edges indexed, conditions parsed once. */
export class CompiledWorkflow {
  readonly nodes = new Map<string, WorkflowNode>();
  readonly outgoing = new Map<string, { edge: WorkflowEdge; condition: Expression | null }[]>();
  readonly dynamicSplits = new Set<string>();
  readonly joinOf = new Map<string, string>();

  constructor(readonly definition: WorkflowDefinition) {
    for (const node of definition.graph.nodes) {
      this.nodes.set(node.code, node);
      if (node.kind === "dynamicParallel") this.dynamicSplits.add(node.code);
      if (node.kind === "join") this.joinOf.set(node.split, node.code);
    }
    for (const edge of definition.graph.edges) {
      const list = this.outgoing.get(edge.from) ?? [];
      list.push({ edge, condition: edge.condition ? parseExpression(edge.condition) : null });
      this.outgoing.set(edge.from, list);
    }
  }

  node(code: string): WorkflowNode {
    const node = this.nodes.get(code);
    if (!node) throw new Error(`no node ${code}`);
    return node;
  }

  actionsOf(code: string): WorkflowAction[] {
    const node = this.node(code);
    const actions = node.kind === "task" || node.kind === "start" ? node.actions : undefined;
    return actions && actions.length > 0 ? actions : [DEFAULT_ACTION];
  }
}

function emptyTrail(milestone: Milestone | null): TaskTrail {
  return {
    created: [],
    cancelled: [],
    activated: [],
    forked: [],
    arrived: [],
    joined: [],
    ended: false,
    milestoneBefore: milestone,
  };
}

const OPEN: ReadonlySet<TaskStatus> = new Set(["todo", "waiting", "subprocess"]);

/** One command being applied to a draft of the state, with what changed. */
class Run {
  readonly state: ProcessState;
  private readonly createdTasks = new Set<string>();
  private readonly changedTasks = new Set<string>();
  private readonly createdBranches = new Set<string>();
  private readonly changedBranches = new Set<string>();
  readonly activities: ActivityRecord[] = [];
  readonly events: EngineEvent[] = [];
  readonly children: ChildToStart[] = [];
  readonly childrenToKill: string[] = [];
  /** The trail of the task being handled, collecting what its handling does. */
  trail: TaskTrail | null = null;
  /** Nodes entered by this command, bounded so that a flow that never comes to rest is refused. */
  entered = 0;

  constructor(
    readonly workflow: CompiledWorkflow,
    state: ProcessState,
    readonly context: EngineContext,
  ) {
    this.state = structuredClone(state);
  }

  task(id: string): TaskState {
    const task = this.state.tasks.find((candidate) => candidate.id === id);
    if (!task) throw new WorkflowRefusal("TASK_NOT_FOUND", `no task ${id} in this process`);
    return task;
  }

  changeTask(task: TaskState, change: Partial<TaskState>): void {
    Object.assign(task, change);
    if (!this.createdTasks.has(task.id)) this.changedTasks.add(task.id);
  }

  changeBranch(branch: BranchState, change: Partial<BranchState>): void {
    Object.assign(branch, change);
    if (!this.createdBranches.has(branch.path)) this.changedBranches.add(branch.path);
  }

  activity(record: Omit<ActivityRecord, "category" | "level"> & Partial<ActivityRecord>): void {
    const node = record.task ? this.state.tasks.find((task) => task.id === record.task)?.node : undefined;
    const step = node ? this.workflow.nodes.get(node) : undefined;
    const hidden = step?.kind === "task" && step.hidden === true;
    this.activities.push({ category: "INSTANCE", level: "INFO", hidden, ...record });
  }

  setMilestone(milestone: Milestone | undefined): void {
    if (milestone) this.state.milestone = { name: milestone.name, percent: milestone.percent };
  }

  /** Ends the trail of the task being handled, noting the milestone it left the process at. */
  endTrail(): TaskTrail {
    const trail = { ...this.trail!, milestoneAfter: this.state.milestone };
    this.trail = null;
    return trail;
  }

  /** Marks a task cancelled, tells its candidates it left their to-do, and notes it in the trail. */
  cancel(task: TaskState): void {
    if (!OPEN.has(task.status)) return;
    this.trail?.cancelled.push({ id: task.id, status: task.status });
    if (task.status === "todo")
      this.events.push({ type: "todo.withdrawn", task: task.id, users: task.candidates });
    if (task.status === "subprocess" && task.child) this.childrenToKill.push(task.child);
    this.changeTask(task, { status: "cancelled" });
  }

  handlers(): Map<string, string> {
    const handlers = new Map<string, string>();
    const done = this.state.tasks
      .filter((task) => task.status === "done" && task.handler)
      .sort((a, b) => (a.handledAt ?? 0) - (b.handledAt ?? 0));
    for (const task of done) handlers.set(task.node, task.handler!);
    return handlers;
  }

  newTask(node: string, branch: string, fields: Partial<TaskState>): TaskState {
    const task: TaskState = {
      id: this.context.newId(),
      node,
      branch,
      status: "todo",
      candidates: [],
      group: "",
      turn: 0,
      handler: null,
      actualUser: null,
      action: null,
      remark: null,
      thing: null,
      assignedAt: this.context.now,
      handledAt: null,
      expiresAt: null,
      trail: null,
      child: null,
      ...fields,
    };
    this.state.tasks.push(task);
    this.createdTasks.add(task.id);
    this.trail?.created.push(task.id);
    return task;
  }

  newBranch(branch: BranchState): void {
    this.state.branches.push(branch);
    this.createdBranches.add(branch.path);
    this.trail?.forked.push(branch.path);
  }

  result(): EngineResult {
    const tasks = new Map(this.state.tasks.map((task) => [task.id, task]));
    const branches = new Map(this.state.branches.map((branch) => [branch.path, branch]));
    return {
      state: this.state,
      tasksCreated: [...this.createdTasks].map((id) => tasks.get(id)!),
      tasksChanged: [...this.changedTasks].map((id) => tasks.get(id)!),
      branchesCreated: [...this.createdBranches].map((path) => branches.get(path)!),
      branchesChanged: [...this.changedBranches].map((path) => branches.get(path)!),
      activities: this.activities,
      events: this.events,
      children: this.children,
      childrenToKill: this.childrenToKill,
    };
  }
}

/** Applies a command to a process; a refusal throws `WorkflowRefusal` and changes nothing. */
export async function applyCommand(
  workflow: CompiledWorkflow,
  state: ProcessState,
  command: EngineCommand,
  context: EngineContext,
): Promise<EngineResult> {
  const run = new Run(workflow, state, context);
  switch (command.kind) {
    case "start":
      await start(run, command);
      break;
    case "handle":
      await handle(run, command);
      break;
    case "withdraw":
      withdraw(run, command);
      break;
    case "suspend":
      requireStatus(run, "doing");
      run.state.status = "suspended";
      run.events.push({ type: "process.suspended" });
      run.activity({
        tags: "INSTANCE_SUSPEND",
        description: command.remark ? `suspended: ${command.remark}` : "suspended",
        user: command.user,
        task: null,
      });
      break;
    case "resume":
      await resume(run, command);
      break;
    case "kill":
      kill(run, command.user, command.remark);
      break;
    case "childEnded":
      await childEnded(run, command);
      break;
    case "reassign":
      reassign(run, command);
      break;
  }
  return run.result();
}

/** An empty process about to be started. */
export function newProcessState(owner: string, data: Record<string, unknown>): ProcessState {
  return { status: "doing", owner, data, milestone: null, tasks: [], branches: [] };
}

function requireStatus(run: Run, wanted: "doing" | "suspended"): void {
  const { status } = run.state;
  if (status === wanted) return;
  if (status === "done" || status === "killed")
    throw new WorkflowRefusal("PROCESS_ENDED", `the process has ended (${status})`);
  if (status === "suspended") throw new WorkflowRefusal("PROCESS_SUSPENDED", "the process is suspended");
  throw new WorkflowRefusal("PROCESS_NOT_SUSPENDED", "the process is not suspended");
}

async function start(run: Run, command: Extract<EngineCommand, { kind: "start" }>): Promise<void> {
  const entries = run.workflow.definition.graph.nodes.filter((node) => node.kind === "start");
  const entry = command.entrance
    ? entries.find((node) => node.code === command.entrance && node.kind === "start" && node.automatic)
    : entries.find((node) => node.kind === "start" && !node.automatic);
  if (!entry) {
    throw new WorkflowRefusal(
      "UNKNOWN_ENTRANCE",
      command.entrance
        ? `the workflow has no automatic entry ${command.entrance}`
        : "the workflow has no default entry",
    );
  }
  run.events.push({ type: "process.started" });
  run.activity({
    tags: "INSTANCE_START",
    description: `started at ${entry.code}`,
    user: command.actor,
    task: null,
  });
  const first = run.newTask(entry.code, "", {
    candidates: [command.firstAssignee ?? command.owner],
    group: run.context.newId(),
  });
  run.setMilestone(entry.milestone);
  run.events.push({ type: "todo.created", task: first.id, users: first.candidates });
}

function chooseAction(
  run: Run,
  task: TaskState,
  command: Extract<EngineCommand, { kind: "handle" }>,
): WorkflowAction {
  const actions = run.workflow.actionsOf(task.node);
  if (command.actionId !== undefined) {
    const byId = actions.find((action) => action.id === command.actionId);
    if (!byId)
      throw new WorkflowRefusal("UNKNOWN_ACTION", `step ${task.node} has no action ${command.actionId}`);
    return byId;
  }
  if (command.actionCode !== undefined) {
    const byCode = actions.find((action) => action.code === command.actionCode);
    if (!byCode)
      throw new WorkflowRefusal("UNKNOWN_ACTION", `step ${task.node} has no action ${command.actionCode}`);
    return byCode;
  }
  if (actions.length > 1) {
    throw new WorkflowRefusal(
      "ACTION_REQUIRED",
      `step ${task.node} offers several actions (${actions.map((a) => a.code).join(", ")}): name one`,
    );
  }
  return actions[0]!;
}

async function handle(run: Run, command: Extract<EngineCommand, { kind: "handle" }>): Promise<void> {
  const task = run.task(command.task);
  if (task.status !== "todo") {
    if (run.state.status === "done" || run.state.status === "killed") requireStatus(run, "doing");
    throw new WorkflowRefusal(
      "TASK_ALREADY_HANDLED",
      `task ${task.id} is not to be handled (${task.status})`,
    );
  }
  requireStatus(run, "doing");
  const node = run.workflow.node(task.node);
  if (command.handler === SYSTEM) {
    if (!(node.kind === "task" && node.allowSystemUser)) {
      throw new WorkflowRefusal(
        "SYSTEM_USER_NOT_ALLOWED",
        `step ${task.node} may not be handled by the system user`,
      );
    }
  } else if (
    !task.candidates.includes(command.handler) &&
    !(command.asSystem && node.kind === "task" && node.allowSystemUser)
  ) {
    throw new WorkflowRefusal("NOT_A_CANDIDATE", `the user may not handle task ${task.id}`);
  }
  const action = chooseAction(run, task, command);
  if (action.remarkRequired && !command.remark?.trim()) {
    throw new WorkflowRefusal("REMARK_REQUIRED", `action ${action.code} of step ${task.node} needs a remark`);
  }
  if (node.kind === "task" && node.requiresThing && !command.thing) {
    throw new WorkflowRefusal("THING_REQUIRED", `step ${task.node} needs the item collected (thing)`);
  }
  if ((command.nextSteps === undefined) !== (command.nextUsers === undefined)) {
    throw new WorkflowRefusal(
      "NEXT_STEPS_INVALID",
      "nextSteps and nextUsers are given together or not at all",
    );
  }
  if (node.kind === "start") requireFields(run);

  run.trail = emptyTrail(run.state.milestone);
  run.changeTask(task, {
    status: "done",
    handler: command.handler,
    actualUser: command.actualUser ?? command.handler,
    action: action.code,
    remark: command.remark ?? null,
    thing: command.thing ?? null,
    handledAt: run.context.now,
  });
  run.events.push({ type: "todo.done", task: task.id, user: command.actualUser ?? command.handler ?? "" });
  run.activity({
    tags: "TASK_HANDLE",
    description: `${task.node}: ${action.name}${command.remark ? ` (${command.remark})` : ""}`,
    user: command.actualUser ?? command.handler,
    task: task.id,
  });

  if (stepStillOpen(run, task, action)) {
    if (command.nextSteps)
      throw new WorkflowRefusal("NEXT_STEPS_INVALID", `step ${task.node} waits for its other members`);
    task.trail = run.endTrail();
    return;
  }
  if (command.nextSteps && command.nextUsers) {
    await jumpTo(run, task, command.nextSteps, command.nextUsers);
  } else {
    await leave(run, task.node, task.branch, action.code);
  }
  task.trail = run.endTrail();
}

/** Fields the form marks required must hold a value when the initiator submits the first step. */
function requireFields(run: Run): void {
  for (const field of run.workflow.definition.schema.fields) {
    const value = run.state.data[field.name];
    if (
      field.required &&
      (value === undefined || value === null || value === "" || (Array.isArray(value) && value.length === 0))
    ) {
      throw new WorkflowRefusal("DATA_INVALID", `the field ${field.name} is required`);
    }
  }
}

/**
 * A countersign step stays open until each member has handled it with its first (agreeing) action;
 * any other action decides the step at once, and the members who have not handled it are cancelled.
 */
function stepStillOpen(run: Run, task: TaskState, action: WorkflowAction): boolean {
  const members = run.state.tasks.filter((other) => other.group === task.group && other.id !== task.id);
  const open = members.filter((member) => OPEN.has(member.status));
  if (open.length === 0) return false;
  const agreeing = run.workflow.actionsOf(task.node)[0]!;
  if (action.code !== agreeing.code) {
    for (const member of open) run.cancel(member);
    return false;
  }
  const next = open.filter((member) => member.status === "waiting").sort((a, b) => a.turn - b.turn)[0];
  if (next && !open.some((member) => member.status === "todo")) {
    run.changeTask(next, { status: "todo", assignedAt: run.context.now });
    run.trail?.activated.push(next.id);
    run.events.push({ type: "todo.created", task: next.id, users: next.candidates });
  }
  return true;
}

/** 4.5's `nextSteps`/`nextUsers`: the next step chosen by the caller instead of the graph. */
async function jumpTo(run: Run, from: TaskState, steps: string[], users: string[]): Promise<void> {
  if (steps.length !== 1) throw new WorkflowRefusal("NEXT_STEPS_INVALID", "nextSteps names exactly one step");
  if (users.length === 0)
    throw new WorkflowRefusal("NEXT_STEPS_INVALID", "nextUsers names at least one user");
  const target = steps[0]!;
  if (!routableSteps(run.workflow, from.node).has(target)) {
    throw new WorkflowRefusal("NEXT_STEPS_INVALID", `step ${target} does not follow step ${from.node}`);
  }
  const node = run.workflow.node(target) as TaskNode;
  run.setMilestone(node.milestone);
  await enterTask(run, node, from.branch, users);
}

/** The task steps reachable from a step through exclusive choices only: where nextSteps may jump. */
export function routableSteps(workflow: CompiledWorkflow, from: string): Set<string> {
  const steps = new Set<string>();
  const seen = new Set<string>();
  const queue = (workflow.outgoing.get(from) ?? []).map(({ edge }) => edge.to);
  while (queue.length > 0) {
    const code = queue.pop()!;
    if (seen.has(code)) continue;
    seen.add(code);
    const node = workflow.node(code);
    if (node.kind === "task") steps.add(code);
    else if (node.kind === "exclusive")
      queue.push(...(workflow.outgoing.get(code) ?? []).map(({ edge }) => edge.to));
  }
  return steps;
}

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
async function leave(run: Run, from: string, branch: string, action: string | null): Promise<void> {
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

async function enterTask(run: Run, node: TaskNode, branch: string, override?: string[]): Promise<void> {
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

function finish(run: Run, status: "done" | "killed"): void {
  run.state.status = status;
  if (run.trail) run.trail.ended = true;
  run.events.push({ type: "process.ended", status });
}

function kill(run: Run, user: string | null, remark?: string): void {
  if (run.state.status === "done" || run.state.status === "killed") requireStatus(run, "doing");
  for (const task of run.state.tasks) run.cancel(task);
  for (const branch of run.state.branches)
    if (branch.status === "active") run.changeBranch(branch, { status: "cancelled" });
  finish(run, "killed");
  run.activity({
    tags: "INSTANCE_KILL",
    level: "WARNING",
    description: remark ? `killed: ${remark}` : "killed",
    user,
    task: null,
  });
}

async function childEnded(run: Run, command: Extract<EngineCommand, { kind: "childEnded" }>): Promise<void> {
  const task = run.task(command.task);
  if (task.status !== "subprocess") return;
  run.changeTask(task, { status: "done", handledAt: run.context.now, action: command.status });
  run.events.push({ type: "subprocess.ended", task: task.id, status: command.status });
  run.activity({
    tags: "SUBPROCESS_END",
    description: `${task.node}: the child process ${command.status === "done" ? "ended" : "was killed"}`,
    user: null,
    task: task.id,
  });
  // A suspended parent does not move: the task is finished without a trail, and `resume` goes on past it.
  if (run.state.status === "doing") await goOnPastChild(run, task);
}

/** Leaves a finished subprocess step along the edge its child's outcome (`done`, `killed`) matches. */
async function goOnPastChild(run: Run, task: TaskState): Promise<void> {
  run.trail = emptyTrail(run.state.milestone);
  await leave(run, task.node, task.branch, task.action);
  // Written with the step, so that a later `resume` does not go on past it a second time.
  run.changeTask(task, { trail: run.endTrail() });
}

/** Resumes a suspended process, going on past the sub-processes that ended while it was suspended. */
async function resume(run: Run, command: Extract<EngineCommand, { kind: "resume" }>): Promise<void> {
  requireStatus(run, "suspended");
  run.state.status = "doing";
  run.events.push({ type: "process.resumed" });
  run.activity({ tags: "INSTANCE_RESUME", description: "resumed", user: command.user, task: null });
  const endedMeanwhile = run.state.tasks.filter(
    (task) =>
      task.status === "done" &&
      task.trail === null &&
      run.workflow.nodes.get(task.node)?.kind === "subprocess",
  );
  for (const task of endedMeanwhile) {
    if (run.state.status !== "doing") break;
    await goOnPastChild(run, task);
  }
}

function sameMilestone(a: Milestone | null, b: Milestone | null): boolean {
  return a?.name === b?.name && a?.percent === b?.percent;
}

/**
 * Whether a handling left its step: created the next tasks or reached a join. Giving the next
 * member of a sequential countersign its turn does not leave the step.
 */
function leftTheStep(trail: TaskTrail | null): boolean {
  return trail !== null && (trail.created.length > 0 || trail.arrived.length > 0 || trail.ended);
}

/**
 * 4.8: the handler takes a done task back while nothing it led to has been handled: what its
 * handling created is cancelled, what it cancelled or forked is restored, and it is to-do again.
 */
function withdraw(run: Run, command: Extract<EngineCommand, { kind: "withdraw" }>): void {
  const task = run.task(command.task);
  requireStatus(run, "doing");
  if (task.status !== "done" || !task.trail) {
    throw new WorkflowRefusal(
      "WITHDRAW_NOT_ALLOWED",
      `task ${task.id} is not handled, so there is nothing to take back`,
    );
  }
  if (task.handler !== command.user && task.actualUser !== command.user) {
    throw new WorkflowRefusal("WITHDRAW_NOT_ALLOWED", "only the user who handled a task may take it back");
  }
  const trail = task.trail;
  const created = trail.created.map((id) => run.task(id));
  const activated = trail.activated.map((id) => run.task(id));
  const moved = [...created, ...activated].find((other) => other.status === "done" || other.child !== null);
  if (moved) {
    throw new WorkflowRefusal(
      "WITHDRAW_NOT_ALLOWED",
      `task ${task.id} led to task ${moved.id}, which has been handled since`,
    );
  }
  const joined = trail.arrived.find(
    (path) =>
      !trail.joined.includes(path) &&
      run.state.branches.find((branch) => branch.path === path)?.status === "joined",
  );
  if (joined) {
    throw new WorkflowRefusal(
      "WITHDRAW_NOT_ALLOWED",
      `the branches task ${task.id} brought to their join have gone on past it since`,
    );
  }
  // A countersign completed by another member's handling went on from there, whenever that was.
  const completer = run.state.tasks.find(
    (other) =>
      other.group === task.group &&
      other.id !== task.id &&
      other.status === "done" &&
      leftTheStep(other.trail),
  );
  if (completer)
    throw new WorkflowRefusal(
      "WITHDRAW_NOT_ALLOWED",
      `task ${completer.id}, another member of the step, completed it after task ${task.id}`,
    );

  for (const other of created) run.cancel(other);
  for (const other of activated) {
    if (other.status === "todo")
      run.events.push({ type: "todo.withdrawn", task: other.id, users: other.candidates });
    run.changeTask(other, { status: "waiting" });
  }
  for (const { id, status } of trail.cancelled) {
    const other = run.task(id);
    run.changeTask(other, { status });
    if (status === "todo") run.events.push({ type: "todo.created", task: other.id, users: other.candidates });
  }
  for (const path of trail.forked) {
    const branch = run.state.branches.find((candidate) => candidate.path === path);
    if (branch) run.changeBranch(branch, { status: "cancelled" });
  }
  for (const path of trail.joined) {
    const branch = run.state.branches.find((candidate) => candidate.path === path);
    if (branch) run.changeBranch(branch, { status: "arrived" });
  }
  for (const path of trail.arrived) {
    const branch = run.state.branches.find((candidate) => candidate.path === path);
    if (branch) run.changeBranch(branch, { status: "active" });
  }
  // The milestone goes back unless something else has moved it since (another branch's handling).
  if (sameMilestone(run.state.milestone, trail.milestoneAfter ?? run.state.milestone))
    run.state.milestone = trail.milestoneBefore;
  run.changeTask(task, {
    status: "todo",
    handler: null,
    actualUser: null,
    action: null,
    remark: null,
    thing: null,
    handledAt: null,
    trail: null,
  });
  run.events.push({ type: "todo.created", task: task.id, users: task.candidates });
  run.activity({
    tags: "INSTANCE_WITHDRAW",
    description: `${task.node}: taken back`,
    user: command.user,
    task: task.id,
  });
}

/** 4.7: the candidates of a to-do task replaced. */
function reassign(run: Run, command: Extract<EngineCommand, { kind: "reassign" }>): void {
  const task = run.task(command.task);
  requireStatus(run, "doing");
  if (task.status !== "todo" && task.status !== "waiting") {
    throw new WorkflowRefusal(
      "TASK_ALREADY_HANDLED",
      `task ${task.id} is not to be handled (${task.status})`,
    );
  }
  if (command.candidates.length === 0)
    throw new WorkflowRefusal("NO_ASSIGNEE", "a task needs at least one candidate");
  if (task.status === "todo")
    run.events.push({ type: "todo.withdrawn", task: task.id, users: task.candidates });
  run.changeTask(task, { candidates: [...new Set(command.candidates)] });
  if (task.status === "todo")
    run.events.push({ type: "todo.created", task: task.id, users: task.candidates });
  run.events.push({ type: "task.reassigned", task: task.id, users: task.candidates });
  run.activity({
    tags: "INSTANCE_ADMIN",
    description: `${task.node}: candidates changed`,
    user: command.user,
    task: task.id,
  });
}

/** The to-do task of a step that 4.5's `submit` addresses, by step code and `splitPath`. */
export function taskOfStep(
  workflow: CompiledWorkflow,
  state: ProcessState,
  step: string,
  splitPath?: string,
): TaskState {
  let open = state.tasks.filter((task) => task.node === step && task.status === "todo");
  if (splitPath !== undefined) {
    if (!/^\d+(\/\d+)*$/.test(splitPath))
      throw new WorkflowRefusal("SPLIT_PATH_INVALID", "splitPath is written x or x/y");
    const wanted = splitPath.split("/").map(Number);
    open = open.filter((task) => {
      const indexes = dynamicIndexes(task.branch, workflow.dynamicSplits);
      return indexes.length === wanted.length && indexes.every((index, i) => index === wanted[i]);
    });
  }
  if (open.length !== 1) {
    throw new WorkflowRefusal(
      open.length === 0 ? "TASK_NOT_FOUND" : "STEP_NOT_UNIQUE",
      open.length === 0
        ? `no to-do task at step ${step}`
        : `${open.length} to-do tasks at step ${step}: give splitPath`,
    );
  }
  return open[0]!;
}
