import type { ExportJob } from "../contracts/export.ts";
import type { FileOwner } from "../files/file-record.ts";
import { recordStoredContent } from "../files/stored-files.ts";
import type { JobClient } from "../runtime/broker/job-client.ts";
import type { Sql } from "../runtime/database.ts";
import { timeOrderedId } from "../runtime/time-ordered-id.ts";

/** An export's output kept as a file of the file service: its id, and the page an image shows. */
export interface ExportedFile {
  id: string;
  page?: number;
}

/**
 * Runs an export on an `export` worker (request/reply, within EXPORT_TIMEOUT_MS), then keeps each
 * output as a file of the file service, the caller's, named for the format (and the page, for
 * images); the outputs stay where the worker stored them.
 */
export async function exportToFiles(
  deps: { sql: Sql; jobs: Pick<JobClient, "call"> },
  job: ExportJob,
  owner: FileOwner,
): Promise<ExportedFile[]> {
  const result = await deps.jobs.call("export", job);
  const files: ExportedFile[] = [];
  for (const output of result.outputs) {
    const id = timeOrderedId();
    await recordStoredContent(deps.sql, {
      id,
      name: output.page === undefined ? `export.${job.format}` : `export-${output.page}.${job.format}`,
      mime: result.mime,
      stored: output,
      owner,
    });
    files.push(output.page === undefined ? { id } : { id, page: output.page });
  }
  return files;
}
