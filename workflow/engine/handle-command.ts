import type { TaskNode, WorkflowAction } from "../../contracts/workflow-definition.ts";
import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type { TaskState } from "../process-state.ts";
import type { EngineCommand } from "./engine-command.ts";
import { routableSteps } from "./engine-queries.ts";
import { enterTask, leave } from "./graph-walk.ts";
import { emptyTrail, OPEN, type Run, requireStatus } from "./run-state.ts";

/** The code of the system user in activities: a sys token acting without naming a user. */
const SYSTEM = null;

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

/** 3.1: a candidate (or the system user) handles a to-do task with one of its step's actions. */
export function handle(run: Run, command: Extract<EngineCommand, { kind: "handle" }>): void {
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
    jumpTo(run, task, command.nextSteps, command.nextUsers);
  } else {
    leave(run, task.node, task.branch, action.code);
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
function jumpTo(run: Run, from: TaskState, steps: string[], users: string[]): void {
  if (steps.length !== 1) throw new WorkflowRefusal("NEXT_STEPS_INVALID", "nextSteps names exactly one step");
  if (users.length === 0)
    throw new WorkflowRefusal("NEXT_STEPS_INVALID", "nextUsers names at least one user");
  const target = steps[0]!;
  if (!routableSteps(run.workflow, from.node).has(target)) {
    throw new WorkflowRefusal("NEXT_STEPS_INVALID", `step ${target} does not follow step ${from.node}`);
  }
  const node = run.workflow.node(target) as TaskNode;
  run.setMilestone(node.milestone);
  enterTask(run, node, from.branch, users);
}
