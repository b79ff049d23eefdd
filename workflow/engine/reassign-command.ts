import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type { EngineCommand } from "./engine-command.ts";
import { type Run, requireStatus } from "./run-state.ts";

/** 4.7: the candidates of a to-do task replaced. */
export function reassign(run: Run, command: Extract<EngineCommand, { kind: "reassign" }>): void {
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
