import { applyCommand } from "./engine/apply-command.ts";
import type { CompiledWorkflow } from "./engine/compiled-workflow.ts";
import { type DirectoryQuestion, questionKey } from "./engine/directory-questions.ts";
import type { EngineCommand } from "./engine/engine-command.ts";
import type { EngineResult } from "./engine/engine-result.ts";
import type { DecidedCommand } from "./process-journal.ts";
import type { ProcessState } from "./process-state.ts";

/** Looks a question of the engine's up in a directory: its enabled users, codes' first, then holders. */
export type DirectoryLookup = (question: DirectoryQuestion) => string[] | Promise<string[]>;

/**
 * Applies a command, looking up the directory questions the engine returns and applying it again
 * with the answers until it is decided: one look-up for each step that needs the directory.
 * Answers the result, and the command with all it was decided by, for the process's journal.
 */
export async function applyWithDirectory(
  workflow: CompiledWorkflow,
  state: ProcessState,
  command: EngineCommand,
  context: { now: number; newId(): string },
  lookUp: DirectoryLookup,
): Promise<{ result: EngineResult; decided: DecidedCommand }> {
  const answers = new Map<string, string[]>();
  const ids = replayedIds(context.newId);
  for (;;) {
    const outcome = applyCommand(workflow, state, command, { now: context.now, newId: ids.next, answers });
    if (outcome.kind === "result") {
      const decided = { command, now: context.now, ids: ids.given(), answers: [...answers] };
      return { result: outcome.result, decided };
    }
    const found = await Promise.all(outcome.questions.map(lookUp));
    for (const [i, question] of outcome.questions.entries()) answers.set(questionKey(question), found[i]!);
    ids.rewind();
  }
}

/**
 * Ids that a run started again hands out again, in the same order: each run repeats the one before
 * up to its question, so a command's rows get the ids they would have had without it.
 */
function replayedIds(newId: () => string): { next(): string; rewind(): void; given(): string[] } {
  const given: string[] = [];
  let at = 0;
  return {
    next: () => {
      if (at === given.length) given.push(newId());
      return given[at++]!;
    },
    rewind: () => {
      at = 0;
    },
    given: () => given.slice(0, at),
  };
}
