import type { JobName, JobResult, ParsedJobPayload } from "../contracts/jobs.ts";
import type { LiveChannels } from "../notifications/live-channels.ts";
import type { Config } from "../runtime/config.ts";
import type { Platform } from "../runtime/platform.ts";
import type { JobHandler } from "./job-runner.ts";

/** A handler for each of these kinds, typed from the catalogue: payload in, answer out. */
export type PlatformJobHandlers<Name extends JobName> = {
  [Kind in Name]: JobHandler<ParsedJobPayload<Kind>, JobResult<Kind>>;
};

/** What a worker folder's part is started with. */
export interface PartContext {
  config: Config;
  platform: Platform;
  /** The notification channels as configured now. */
  channels: LiveChannels;
}

/** A worker folder's part as a process runs it. */
export interface StartedPart<Name extends JobName> {
  handlers: PlatformJobHandlers<Name>;
  /** Started once the consumers are; each returns its stop. */
  periodicTasks?: readonly (() => () => void)[];
  /** Closes what the handlers hold open, once the consumers have stopped. */
  close?(): Promise<void>;
}

/**
 * What one worker folder contributes: the job kinds it handles and how to start them. A process
 * starts the part when it consumes a queue of any of its kinds, and only then; a part with no
 * kinds (the outbox relay's) runs in every process that runs jobs.
 */
export interface WorkerPart<Name extends JobName> {
  jobs: readonly Name[];
  start(context: PartContext): Promise<StartedPart<Name>>;
}

/** Declares a part, its kinds inferred from `jobs`. */
export function workerPart<const Name extends JobName>(part: WorkerPart<Name>): WorkerPart<Name> {
  return part;
}

/**
 * A handler whose module is imported at its first job. The PDF, image, office and spreadsheet
 * libraries behind sealing, exports and thumbnails take seconds to load, which every start would
 * otherwise wait for. An import that fails is tried again at the next job.
 */
export function loadedOnFirstJob<Payload, Result>(
  load: () => Promise<JobHandler<Payload, Result>>,
): JobHandler<Payload, Result> {
  let loading: Promise<JobHandler<Payload, Result>> | undefined;
  return async (payload, context) => {
    loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return (await loading)(payload, context);
  };
}
