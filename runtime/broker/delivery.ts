import type {
  DeliveryContext,
  HandlerOutcome,
  MessageHandler,
  QueueDefinition,
  ReplyEnvelope,
} from "../../contracts/broker.ts";
import type { ErrorCode } from "../../contracts/errors.ts";
import { jobDuration, jobsHandled, jobsInProgress, jobsRedelivered } from "../platform-metrics.ts";

/** Quorum queues dead-letter a message handed out this many times without an ack (a consumer crash loop). */
export const REDELIVERY_LIMIT = 20;

export function maxAttempts(definition: QueueDefinition): number {
  return definition.retryDelaysMs.length + 1;
}

/** One handler call: its outcome settles once, by the handler, its timeout, or the consumer stopping. */
class HandlerRun implements DeliveryContext {
  private controller: AbortController | undefined;
  private abortReason: Error | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resolveOutcome!: (outcome: HandlerOutcome) => void;
  settled = false;
  readonly messageId: string;
  readonly attempt: number;
  readonly maxAttempts: number;
  readonly redelivered: boolean;
  readonly replayed: boolean;
  readonly outcome = new Promise<HandlerOutcome>((resolve) => {
    this.resolveOutcome = resolve;
  });

  constructor(context: Omit<DeliveryContext, "signal">) {
    this.messageId = context.messageId;
    this.attempt = context.attempt;
    this.maxAttempts = context.maxAttempts;
    this.redelivered = context.redelivered;
    this.replayed = context.replayed;
  }

  /** Made on first use: most handlers never look at it, and an AbortController is not free. */
  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.abortReason && !this.controller.signal.aborted) this.controller.abort(this.abortReason);
    return this.controller.signal;
  }

  startTimer(timeoutMs: number, onTimeout: () => void): void {
    this.timer = setTimeout(onTimeout, timeoutMs);
  }

  abort(reason: string): void {
    this.abortReason = new Error(reason);
    this.controller?.abort(this.abortReason);
  }

  settle(outcome: HandlerOutcome): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.resolveOutcome(outcome);
    return true;
  }
}

/**
 * The handlers running on one consumer, each under its timeout. A throw or a timeout counts as a
 * retry; stopping the consumer aborts them all. Each run ends in the step to take with its message,
 * counted in the job metrics unless the consumer stopped under it.
 */
export class RunningHandlers {
  private readonly running = new Set<HandlerRun>();

  constructor(private readonly definition: QueueDefinition) {}

  run(
    handler: MessageHandler,
    message: unknown,
    context: Omit<DeliveryContext, "signal">,
    timeoutMs: number,
  ): Promise<NextStep> {
    const run = new HandlerRun(context);
    this.running.add(run);
    const queue = this.definition.name;
    if (context.redelivered) jobsRedelivered.inc([queue]);
    jobsInProgress.set(queue, (jobsInProgress.get(queue) ?? 0) + 1);
    void run.outcome.then(() => jobsInProgress.set(queue, jobsInProgress.get(queue)! - 1));
    const started = performance.now();
    const finish = (outcome: HandlerOutcome) => {
      if (!run.settle(outcome)) return;
      this.running.delete(run);
      jobDuration.observe([queue], (performance.now() - started) / 1000);
      jobsHandled.inc([queue, stepOutcome(nextStep(outcome, context.attempt, this.definition))]);
    };
    const retry = (error: unknown) =>
      finish({ outcome: "retry", reason: error instanceof Error ? error.message : String(error) });
    run.startTimer(timeoutMs, () => {
      run.abort("job timed out");
      finish({ outcome: "retry", reason: `timed out after ${timeoutMs} ms` });
    });
    try {
      // The run is the handler's context: its fields, and the abort signal made on demand.
      handler(message, run).then(finish, retry);
    } catch (error) {
      retry(error);
    }
    return run.outcome.then((outcome) => nextStep(outcome, context.attempt, this.definition));
  }

  /** Aborts every running handler; their outcomes no longer count. */
  abortAll(reason: string): void {
    for (const run of this.running) {
      run.abort(reason);
      run.settle({ outcome: "retry", reason });
    }
    this.running.clear();
  }
}

function stepOutcome(step: NextStep): "done" | "refused" | "retry" | "dead" {
  if (step.step === "ack") return step.refused ? "refused" : "done";
  return step.step;
}

export type NextStep =
  | { step: "ack"; reply?: unknown; refused?: { reason: string; code: ErrorCode } }
  | { step: "retry"; delayMs: number; nextAttempt: number }
  | { step: "dead"; reason: string; outcome: HandlerOutcome };

/** Decides what becomes of a message once its handler has spoken. */
export function nextStep(outcome: HandlerOutcome, attempt: number, definition: QueueDefinition): NextStep {
  if (outcome.outcome === "done") return { step: "ack", reply: outcome.reply };
  if (outcome.outcome === "refused") {
    return { step: "ack", refused: { reason: outcome.reason, code: outcome.code } };
  }
  if (outcome.outcome === "retry" && attempt < maxAttempts(definition)) {
    return { step: "retry", delayMs: definition.retryDelaysMs[attempt - 1] ?? 0, nextAttempt: attempt + 1 };
  }
  const reason =
    outcome.outcome === "retry" ? `gave up after ${attempt} attempts: ${outcome.reason}` : outcome.reason;
  return { step: "dead", reason, outcome };
}

/** The answer a request/reply caller gets once a step is final; none while a retry is pending. */
export function replyFor(step: NextStep): ReplyEnvelope | undefined {
  if (step.step === "ack") {
    if (step.refused) return { ok: false, error: step.refused.reason, code: step.refused.code };
    return { ok: true, value: step.reply ?? null };
  }
  if (step.step === "retry") return undefined;
  const code = step.outcome.outcome === "fail" ? step.outcome.code : undefined;
  return code ? { ok: false, error: step.reason, code } : { ok: false, error: step.reason };
}
