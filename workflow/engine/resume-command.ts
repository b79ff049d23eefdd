import type { EngineCommand } from "./engine-command.ts";
import { goOnPastChild } from "./graph-walk.ts";
import { type Run, requireStatus } from "./run-state.ts";

/** Resumes a suspended process, going on past the sub-processes that ended while it was suspended. */
export function resume(run: Run, command: Extract<EngineCommand, { kind: "resume" }>): void {
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
    goOnPastChild(run, task);
  }
}
