import { makeFileThumbnails, type ThumbnailDeps } from "../../files/file-thumbnails.ts";
import type { JobContext, JobOutcome } from "../job-runner.ts";

/** The `files.thumbs` job: the thumbnails a file asks for, from its current content. */
export function makeThumbnails(deps: ThumbnailDeps) {
  return async ({ fileId }: { fileId: string }, context: JobContext): Promise<JobOutcome> => {
    await makeFileThumbnails(deps, fileId, context.log);
    return { outcome: "done" };
  };
}
