import { WorkflowRefusal } from "../../contracts/workflow-errors.ts";
import type { EngineCommand } from "./engine-command.ts";
import type { Run } from "./run-state.ts";

/** Starts a process at its default entry or a named automatic one, the first step in the owner's to-do. */
export function start(run: Run, command: Extract<EngineCommand, { kind: "start" }>): void {
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
