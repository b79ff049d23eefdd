import type { EngineCommand } from "./engine-command.ts";
import { type Run, requireStatus } from "./run-state.ts";

/** Holds a process: its tasks stay as they are, and nothing moves until it is resumed. */
export function suspend(run: Run, command: Extract<EngineCommand, { kind: "suspend" }>): void {
  requireStatus(run, "doing");
  run.state.status = "suspended";
  run.events.push({ type: "process.suspended" });
  run.activity({
    tags: "INSTANCE_SUSPEND",
    description: command.remark ? `suspended: ${command.remark}` : "suspended",
    user: command.user,
    task: null,
  });
}
