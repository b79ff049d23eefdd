import type { Queryable } from "../runtime/database.ts";
import { type Inconsistency, readInconsistencies } from "./consistency-store.ts";
import { replayInconsistencies } from "./journal-replay.ts";

export type { Inconsistency };

/** Findings one check answers at most: enough to see what went wrong, bounded however much did. */
export const MAX_INCONSISTENCIES = 1000;

/**
 * Whether the processes' rows agree with each other: tasks with to-do rows and candidates,
 * processes with their open tasks, end times and inbox rows, handled tasks with their activities,
 * and (for processes whose events are kept) the outbox with all of them, no task handled more
 * often than it became a to-do; and each process's rows are what the engine makes of its journal
 * (journal-replay.ts). Empty when all is well. For operators after an incident, and for the fault
 * scenarios that restart or kill what runs the engine.
 */
export async function checkConsistency(
  sql: Queryable,
  processIds: readonly string[] | null = null,
): Promise<Inconsistency[]> {
  const found = await readInconsistencies(sql, processIds, MAX_INCONSISTENCIES);
  const replayed = await replayInconsistencies(sql, processIds);
  return [...found, ...replayed].slice(0, MAX_INCONSISTENCIES);
}
