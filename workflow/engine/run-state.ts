import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type {
  BranchState,
  Milestone,
  ProcessState,
  TaskState,
  TaskStatus,
  TaskTrail,
} from "../process-state.ts";
import type { CompiledWorkflow } from "./compiled-workflow.ts";
import type { DirectoryAnswers } from "./directory-questions.ts";
import type { ActivityRecord, ChildToStart, EngineEvent, EngineResult } from "./engine-result.ts";

/** What the engine is given besides the process: the time, new ids and the directory's answers so far. */
export interface EngineContext {
  now: number;
  newId(): string;
  answers: DirectoryAnswers;
}

/** The trail a handling starts, from the milestone the process is at. */
export function emptyTrail(milestone: Milestone | null): TaskTrail {
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

/** The statuses of a task that is not finished. */
export const OPEN: ReadonlySet<TaskStatus> = new Set(["todo", "waiting", "subprocess"]);

/** One command being applied to a draft of the state, with what changed. */
export class Run {
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

/** Refuses a command unless the process is `wanted`, naming what it is instead. */
export function requireStatus(run: Run, wanted: "doing" | "suspended"): void {
  const { status } = run.state;
  if (status === wanted) return;
  if (status === "done" || status === "killed")
    throw new WorkflowRefusal("PROCESS_ENDED", `the process has ended (${status})`);
  if (status === "suspended") throw new WorkflowRefusal("PROCESS_SUSPENDED", "the process is suspended");
  throw new WorkflowRefusal("PROCESS_NOT_SUSPENDED", "the process is not suspended");
}

/** Ends the process, noting it in the trail of the task being handled. */
export function finish(run: Run, status: "done" | "killed"): void {
  run.state.status = status;
  if (run.trail) run.trail.ended = true;
  run.events.push({ type: "process.ended", status });
}
