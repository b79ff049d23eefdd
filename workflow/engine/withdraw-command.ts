import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type { Milestone, TaskTrail } from "../process-state.ts";
import type { EngineCommand } from "./engine-command.ts";
import { type Run, requireStatus } from "./run-state.ts";

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
export function withdraw(run: Run, command: Extract<EngineCommand, { kind: "withdraw" }>): void {
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
