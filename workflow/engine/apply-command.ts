import type { ProcessState } from "../process-state.ts";
import { childEnded } from "./child-ended-command.ts";
import type { CompiledWorkflow } from "./compiled-workflow.ts";
import { type DirectoryQuestion, OpenQuestions } from "./directory-questions.ts";
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
 * the time and new ids come in `EngineContext`, and what only the directory knows (who holds a
 * position, which accounts exist) is asked as data, the way a state machine returns its actions:
 * the caller looks the questions up and applies the command again with the answers.
 */

/** What a command comes to: its result, or the directory questions to answer before it can be decided. */
export type CommandOutcome =
  | { kind: "result"; result: EngineResult }
  | { kind: "questions"; questions: DirectoryQuestion[] };

/** Applies a command to a process; a refusal throws `WorkflowRefusal` and changes nothing. */
export function applyCommand(
  workflow: CompiledWorkflow,
  state: ProcessState,
  command: EngineCommand,
  context: EngineContext,
): CommandOutcome {
  const run = new Run(workflow, state, context);
  try {
    runCommand(run, command);
  } catch (error) {
    if (error instanceof OpenQuestions) return { kind: "questions", questions: error.questions };
    throw error;
  }
  return { kind: "result", result: run.result() };
}

function runCommand(run: Run, command: EngineCommand): void {
  switch (command.kind) {
    case "start":
      start(run, command);
      break;
    case "handle":
      handle(run, command);
      break;
    case "withdraw":
      withdraw(run, command);
      break;
    case "suspend":
      suspend(run, command);
      break;
    case "resume":
      resume(run, command);
      break;
    case "kill":
      kill(run, command.user, command.remark);
      break;
    case "childEnded":
      childEnded(run, command);
      break;
    case "reassign":
      reassign(run, command);
      break;
  }
}

/** An empty process about to be started. */
export function newProcessState(owner: string, data: Record<string, unknown>): ProcessState {
  return { status: "doing", owner, data, milestone: null, tasks: [], branches: [] };
}
