import type { Queryable } from "../runtime/database.ts";
import type { DecidedCommand, JournalEntry } from "./process-journal.ts";

/**
 * The processes with a journal from their start, most recently changed first: at most `limit`,
 * among `processIds` when given.
 */
export async function journaledProcesses(
  sql: Queryable,
  processIds: readonly string[] | null,
  limit: number,
): Promise<string[]> {
  const ids = processIds as string[] | null;
  const rows = await sql<{ id: string }[]>`
    select p.id from workflow_processes p
    where (${ids}::uuid[] is null or p.id = any(${ids}::uuid[]))
      and exists (select from workflow_journal j where j.process_id = p.id and j.revision = 0)
    order by p.updated_at desc, p.id
    limit ${limit}`;
  return rows.map((row) => row.id);
}

/** The journals of these processes, each in revision order. */
export async function readJournals(
  sql: Queryable,
  processIds: readonly string[],
): Promise<Map<string, JournalEntry[]>> {
  const rows = await sql<{ processId: string; revision: number; kind: "command" | "data"; body: unknown }[]>`
    select process_id as "processId", revision, kind, body from workflow_journal
    where process_id = any(${processIds as string[]}::uuid[])
    order by process_id, revision`;
  const journals = new Map<string, JournalEntry[]>();
  for (const { processId, revision, kind, body } of rows) {
    const entry: JournalEntry =
      kind === "command"
        ? { revision, kind, decided: body as DecidedCommand }
        : { revision, kind, data: body as Record<string, unknown> };
    const journal = journals.get(processId);
    if (journal) journal.push(entry);
    else journals.set(processId, [entry]);
  }
  return journals;
}
