import { sweepUnusedBlobs } from "../../files/blob-sweep.ts";
import type { Sql } from "../../runtime/database.ts";
import type { Logger } from "../../runtime/logger.ts";
import { runPeriodically } from "../../runtime/periodic-task.ts";
import type { FileStorage } from "../../runtime/storage/file-storage.ts";

const BATCH = 500;

/**
 * Removes content no file uses any more (deleted or replaced files, uploads that were not kept),
 * an hour after its last use. Several sweepers may run; each takes different rows.
 */
export function startBlobSweeper(
  deps: { sql: Sql; storage: FileStorage; log: Logger },
  intervalMs: number,
): () => void {
  const sweep = async () => {
    const removed = await sweepUnusedBlobs(deps, BATCH);
    if (removed > 0) deps.log.info({ removed }, "removed unused file contents");
  };
  return runPeriodically(sweep, intervalMs, deps.log, "blob sweep");
}
