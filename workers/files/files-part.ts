import { loadedOnFirstJob, workerPart } from "../worker-part.ts";
import { startBlobSweeper } from "./blob-sweeper.ts";

/** How often a `files.thumbs` worker looks for file contents no file uses any more. */
const BLOB_SWEEP_INTERVAL_MS = 10 * 60_000;

/** Thumbnails, and the sweep of contents no file uses any more. */
export const filesPart = workerPart({
  jobs: ["filesThumbs"],
  async start({ platform }) {
    const { db, storage, log } = platform;
    return {
      handlers: {
        filesThumbs: loadedOnFirstJob(async () =>
          (await import("./make-thumbnails.ts")).makeThumbnails({ sql: db.sql, storage }),
        ),
      },
      periodicTasks: [() => startBlobSweeper({ sql: db.sql, storage, log }, BLOB_SWEEP_INTERVAL_MS)],
    };
  },
});
