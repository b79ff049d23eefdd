import type { Queryable } from "../runtime/database.ts";
import { compiledVersion } from "./app-store.ts";
import type { Inconsistency } from "./consistency-store.ts";
import { journaledProcesses, readJournals } from "./journal-store.ts";
import { replayJournal, stateDifference } from "./process-journal.ts";
import { readProcessesWithState } from "./process-store.ts";

/** Processes whose journals one check replays at most: the most recently changed. */
export const MAX_REPLAYED = 10_000;
/** Processes replayed per read. */
const PAGE = 200;

/**
 * The engine's replay of each process's journal against the rows the store holds: a write missing
 * from the journal or made twice, a command the engine decides otherwise today, rows that are not
 * what the commands make. Processes written before the journal existed are left out.
 */
export async function replayInconsistencies(
  sql: Queryable,
  processIds: readonly string[] | null,
): Promise<Inconsistency[]> {
  const found: Inconsistency[] = [];
  const ids = await journaledProcesses(sql, processIds, MAX_REPLAYED);
  for (let start = 0; start < ids.length; start += PAGE) {
    const page = ids.slice(start, start + PAGE);
    // The rows first: a journal read after them holds every write they show, and maybe later ones.
    const stored = await readProcessesWithState(sql, page);
    const journals = await readJournals(sql, page);
    for (const { process, state } of stored) {
      const workflow = await compiledVersion(sql, process.versionId);
      const children = new Map(state.tasks.map((task) => [task.id, task.child]));
      const journal = (journals.get(process.id) ?? []).filter((entry) => entry.revision <= process.revision);
      if (journal.length !== process.revision + 1) {
        const rule = `a journal of ${journal.length} writes for revision ${process.revision}`;
        found.push({ processId: process.id, rule });
        continue;
      }
      const replayed = replayJournal(workflow, journal, (task) => children.get(task) ?? null);
      if ("failure" in replayed) {
        found.push({ processId: process.id, rule: `the journal does not replay: ${replayed.failure}` });
        continue;
      }
      const difference = stateDifference(replayed.state, state);
      if (difference)
        found.push({ processId: process.id, rule: `the journal replays to other rows: ${difference}` });
    }
  }
  return found;
}
