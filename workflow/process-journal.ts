import { isDeepStrictEqual } from "node:util";
import { applyCommand, newProcessState } from "./engine/apply-command.ts";
import type { CompiledWorkflow } from "./engine/compiled-workflow.ts";
import type { EngineCommand } from "./engine/engine-command.ts";
import type { ProcessState } from "./process-state.ts";

/**
 * A process's journal: every write of the engine's state to it, in revision order. A command is
 * kept with everything it was decided by (the time, the ids it handed out, the directory's
 * answers), so the engine, a pure rule, decides it again the same way; a data change (3.3) is
 * kept as the data it left. Replaying the journal from an empty process must give the rows the
 * store holds: the consistency check's strongest rule.
 */

/** A command with what the engine decided it by. */
export interface DecidedCommand {
  command: EngineCommand;
  /** The engine's clock, milliseconds. */
  now: number;
  /** The new ids, in the order the engine took them. */
  ids: string[];
  /** The directory's answers, by question key. */
  answers: [string, string[]][];
}

/** One write of the process's state; `revision` is the process's revision it left. */
export type JournalEntry = { revision: number } & (
  | { kind: "command"; decided: DecidedCommand }
  | { kind: "data"; data: Record<string, unknown> }
);

/** The state a journal replays to, or why it cannot be replayed. */
export type Replayed = { state: ProcessState } | { failure: string };

/**
 * Applies the journal's entries from an empty process. `childOf` gives a task's sub-process as the
 * store links it, which the engine reads but a command does not write: the link is made in the
 * same transaction as the command that entered the step, before any other command can run.
 */
export function replayJournal(
  workflow: CompiledWorkflow,
  entries: readonly JournalEntry[],
  childOf: (taskId: string) => string | null,
): Replayed {
  const first = entries[0];
  if (first?.kind !== "command" || first.decided.command.kind !== "start" || first.revision !== 0)
    return { failure: "the journal does not begin with the start" };
  let state = newProcessState(first.decided.command.owner, first.decided.command.data);
  for (const [at, entry] of entries.entries()) {
    if (entry.revision !== at) return { failure: `the journal has no write of revision ${at}` };
    if (entry.kind === "data") {
      state = { ...state, data: entry.data };
      continue;
    }
    const { command, now, ids, answers } = entry.decided;
    const given = ids[Symbol.iterator]();
    const linked = { ...state, tasks: state.tasks.map((task) => ({ ...task, child: childOf(task.id) })) };
    let outcome: ReturnType<typeof applyCommand>;
    try {
      outcome = applyCommand(workflow, linked, command, {
        now,
        newId: () => given.next().value ?? `missing-id-${at}`,
        answers: new Map(answers),
      });
    } catch (error) {
      return {
        failure: `revision ${at} (${command.kind}) is refused when replayed: ${(error as Error).message}`,
      };
    }
    if (outcome.kind === "questions")
      return {
        failure: `revision ${at} (${command.kind}) asks the directory what its journal does not answer`,
      };
    state = outcome.result.state;
  }
  return { state };
}

/** The first way two states of a process differ, or undefined when they agree. */
export function stateDifference(replayed: ProcessState, stored: ProcessState): string | undefined {
  const a = comparable(replayed);
  const b = comparable(stored);
  for (const field of ["status", "owner", "milestone", "data"] as const)
    if (!isDeepStrictEqual(a[field], b[field])) return `its ${field}`;
  const storedTasks = new Map(b.tasks.map((task) => [task.id, task]));
  if (a.tasks.length !== b.tasks.length)
    return `its tasks: ${a.tasks.length} replayed, ${b.tasks.length} stored`;
  for (const task of a.tasks) {
    const other = storedTasks.get(task.id);
    if (!other) return `task ${task.id}, which the store lacks`;
    if (!isDeepStrictEqual(task, other)) return `task ${task.id}`;
  }
  const byPath = (x: { path: string }, y: { path: string }) => x.path.localeCompare(y.path);
  if (!isDeepStrictEqual(a.branches.sort(byPath), b.branches.sort(byPath))) return "its branches";
  return undefined;
}

/** The state as JSON gives it back (absent and undefined fields as null), child links left out. */
function comparable(state: ProcessState): ProcessState {
  const plain = JSON.parse(JSON.stringify(state, (_, value) => (value === undefined ? null : value)));
  for (const task of plain.tasks) delete task.child;
  return plain;
}
