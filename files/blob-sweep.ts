import type { Sql } from "../runtime/database.ts";
import type { FileStorage } from "../runtime/storage/file-storage.ts";
import { takeUnusedBlobs } from "./file-store.ts";

/**
 * Removes up to `batch` contents no file has used for an hour (deleted or replaced files, uploads
 * that were not kept): their rows, then their storage. Several sweeps may run; each takes
 * different rows. The answer is how many were removed.
 */
export async function sweepUnusedBlobs(
  deps: { sql: Sql; storage: FileStorage },
  batch: number,
): Promise<number> {
  const keys = await takeUnusedBlobs(deps.sql, batch);
  for (const key of keys) await deps.storage.remove(key);
  return keys.length;
}
