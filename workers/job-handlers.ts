import type { jobCatalogue } from "../contracts/jobs.ts";
import type { JobHandlers } from "./job-runner.ts";
import { type DeliveryDeps, deliverTasks } from "./notify/deliver-tasks.ts";

export type JobHandlerDeps = DeliveryDeps;

/** The one handler of every job kind in the catalogue, built once at start. */
export function createJobHandlers(deps: JobHandlerDeps): JobHandlers<typeof jobCatalogue> {
  const deliver = deliverTasks(deps);
  return {
    notifyEmail: deliver,
    notifySms: deliver,
    notifyApp: deliver,
    notifyMsgappTemplate: deliver,
    notifyExternal: deliver,
  };
}
