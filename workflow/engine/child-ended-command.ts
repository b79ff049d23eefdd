import type { EngineCommand } from "./engine-command.ts";
import { goOnPastChild } from "./graph-walk.ts";
import type { Run } from "./run-state.ts";

/** A sub-process ended: its step in the parent is done, and the parent goes on past it unless suspended. */
export function childEnded(run: Run, command: Extract<EngineCommand, { kind: "childEnded" }>): void {
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
  if (run.state.status === "doing") goOnPastChild(run, task);
}
