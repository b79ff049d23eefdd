import type { Queryable } from "../runtime/database.ts";
import { type Inconsistency, readInconsistencies } from "./consistency-store.ts";

export type { Inconsistency };

/** Findings one check answers at most: enough to see what went wrong, bounded however much did. */
export const MAX_INCONSISTENCIES = 1000;

/**
 * Whether the processes' rows agree with each other: tasks with to-do rows and candidates,
 * processes with their open tasks, end times and inbox rows, handled tasks with their activities,
 * and (for processes whose events are kept) the outbox with all of them, no task handled more
 * often than it became a to-do. Empty when all is well. For operators after an incident, and for
 * the fault scenarios that restart or kill what runs the engine.
 */
export function checkConsistency(
  sql: Queryable,
  processIds: readonly string[] | null = null,
): Promise<Inconsistency[]> {
  return readInconsistencies(sql, processIds, MAX_INCONSISTENCIES);
}
