import type { jobCatalogue } from "../contracts/jobs.ts";
import type { JobHandlers } from "./job-runner.ts";

/** The one handler of every job kind in the catalogue. */
export const jobHandlers: JobHandlers<typeof jobCatalogue> = {};
