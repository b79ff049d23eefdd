import type { jobCatalogue } from "../contracts/jobs.ts";
import { type ExportDeps, exportDocument } from "./export/export-document.ts";
import { type FeedDeps, syncFeed } from "./feed/sync-feed.ts";
import { makeThumbnails, type ThumbnailDeps } from "./files/make-thumbnails.ts";
import type { JobHandlers } from "./job-runner.ts";
import { type DeliveryDeps, deliverTasks } from "./notify/deliver-tasks.ts";
import { type SignDeps, signDocument } from "./sign/sign-document.ts";

export interface JobHandlerDeps {
  delivery: DeliveryDeps;
  thumbnails: ThumbnailDeps;
  export: ExportDeps;
  feed: FeedDeps;
  /** Only processes that consume the `sign` queue load a signing certificate. */
  sign: SignDeps | undefined;
}

/** The one handler of every job kind in the catalogue this process can run, built once at start. */
export function createJobHandlers(deps: JobHandlerDeps): Partial<JobHandlers<typeof jobCatalogue>> {
  const deliver = deliverTasks(deps.delivery);
  return {
    notifyEmail: deliver,
    notifySms: deliver,
    notifyApp: deliver,
    notifyMsgappTemplate: deliver,
    notifyExternal: deliver,
    filesThumbs: makeThumbnails(deps.thumbnails),
    export: exportDocument(deps.export),
    feedSync: syncFeed(deps.feed),
    ...(deps.sign ? { sign: signDocument(deps.sign) } : {}),
  };
}
