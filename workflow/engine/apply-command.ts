import type { ProcessState } from "../process-state.ts";
import { childEnded } from "./child-ended-command.ts";
import type { CompiledWorkflow } from "./compiled-workflow.ts";
import type { EngineCommand } from "./engine-command.ts";
import type { EngineResult } from "./engine-result.ts";
import { handle } from "./handle-command.ts";
import { kill } from "./kill-command.ts";
import { reassign } from "./reassign-command.ts";
import { resume } from "./resume-command.ts";
import { type EngineContext, Run } from "./run-state.ts";
import { start } from "./start-command.ts";
import { suspend } from "./suspend-command.ts";
import { withdraw } from "./withdraw-command.ts";

/**
 * The engine: a rule that takes a process's rows and a command and returns the rows to write, the
 * activities and outbox events to record, or a refusal. It touches no database, clock or broker:
 * the time, new ids and the directory's answer to "who holds this position" come in `EngineContext`.
 */

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
      suspend(run, command);
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
