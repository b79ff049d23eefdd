import type { Broker } from "../../contracts/broker.ts";
import { ErrorCode, PlatformError } from "../../contracts/errors.ts";
import {
  type JobDefinition,
  type JobName,
  type JobPayload,
  type JobResult,
  jobCatalogue,
  type RequestJobName,
} from "../../contracts/jobs.ts";

export interface EnqueueOptions {
  /** Stable id of the message (the row it works on); defaults to a random one. */
  messageId?: string;
  /** The member queue of a queue family: an external channel's name for `notifyExternal`. */
  member?: string;
}

/**
 * How producers hand work to workers, named by job kind and typed from the catalogue: a payload
 * that does not fit its kind, or an answer read as another type, does not compile.
 */
export interface JobClient {
  /** The catalogue with the operator's delays and timeouts; this process's consumers use it too. */
  readonly catalogue: typeof jobCatalogue;
  /** Resolves once the broker has taken the job; fails fast when the broker is unreachable. */
  enqueue<Name extends JobName>(
    name: Name,
    payload: JobPayload<Name>,
    options?: EnqueueOptions,
  ): Promise<void>;
  /** Runs a request/reply job and waits, within the kind's timeout, for the worker's checked answer. */
  call<Name extends RequestJobName>(name: Name, payload: JobPayload<Name>): Promise<JobResult<Name>>;
}

export function createJobClient(broker: Broker, catalogue: typeof jobCatalogue = jobCatalogue): JobClient {
  const definition = (name: JobName): JobDefinition => catalogue[name];
  return {
    catalogue,
    async enqueue(name, payload, options = {}) {
      const job = definition(name);
      if (Boolean(job.family) !== (options.member !== undefined)) {
        throw new Error(`job ${name}: a member queue is ${job.family ? "required" : "not allowed"}`);
      }
      const queue = options.member === undefined ? job.queue : `${job.queue}.${options.member}`;
      await broker.publish(queue, payload, { messageId: options.messageId });
    },
    async call(name, payload) {
      const job = definition(name);
      const reply = await broker.request(job.queue, payload, { timeoutMs: job.timeoutMs });
      const checked = job.result?.safeParse(reply);
      if (!checked?.success) {
        throw new PlatformError(
          ErrorCode.Internal,
          `the ${job.queue} worker's answer does not fit its job kind`,
        );
      }
      return checked.data as JobResult<typeof name>;
    },
  };
}
