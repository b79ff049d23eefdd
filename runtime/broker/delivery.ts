import type {
  DeliveryContext,
  HandlerOutcome,
  MessageHandler,
  QueueDefinition,
} from "../../contracts/broker.ts";

/** Quorum queues dead-letter a message handed out this many times without an ack (a consumer crash loop). */
export const REDELIVERY_LIMIT = 20;

export function maxAttempts(definition: QueueDefinition): number {
  return definition.retryDelaysMs.length + 1;
}

/** Runs a handler under its timeout; a throw or a timeout counts as a retry. */
export async function runHandler(
  handler: MessageHandler,
  message: unknown,
  context: Omit<DeliveryContext, "signal">,
  options: { timeoutMs: number; stopSignal: AbortSignal },
): Promise<HandlerOutcome> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let onStop: (() => void) | undefined;
  const interrupted = new Promise<HandlerOutcome>((resolve) => {
    timer = setTimeout(() => {
      controller.abort(new Error("job timed out"));
      resolve({ outcome: "retry", reason: `timed out after ${options.timeoutMs} ms` });
    }, options.timeoutMs);
    onStop = () => {
      controller.abort(new Error("consumer stopped"));
      resolve({ outcome: "retry", reason: "consumer stopped" });
    };
    options.stopSignal.addEventListener("abort", onStop, { once: true });
  });
  try {
    return await Promise.race([handler(message, { ...context, signal: controller.signal }), interrupted]);
  } catch (error) {
    return { outcome: "retry", reason: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
    if (onStop) options.stopSignal.removeEventListener("abort", onStop);
  }
}

export type NextStep =
  | { step: "ack"; reply?: unknown }
  | { step: "retry"; delayMs: number; nextAttempt: number }
  | { step: "dead"; reason: string; outcome: HandlerOutcome };

/** Decides what becomes of a message once its handler has spoken. */
export function nextStep(outcome: HandlerOutcome, attempt: number, definition: QueueDefinition): NextStep {
  if (outcome.outcome === "done") return { step: "ack", reply: outcome.reply };
  if (outcome.outcome === "retry" && attempt < maxAttempts(definition)) {
    return { step: "retry", delayMs: definition.retryDelaysMs[attempt - 1] ?? 0, nextAttempt: attempt + 1 };
  }
  const reason =
    outcome.outcome === "retry" ? `gave up after ${attempt} attempts: ${outcome.reason}` : outcome.reason;
  return { step: "dead", reason, outcome };
}
