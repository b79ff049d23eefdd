import type { Logger } from "./logger.ts";

/**
 * Runs `task` every `intervalMs`, never two runs at once, a failure logged and retried at the next
 * tick. The timer does not keep the process alive. Returns the function that stops it.
 */
export function runPeriodically(
  task: () => Promise<void>,
  intervalMs: number,
  log: Logger,
  what: string,
): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch((error: unknown) => log.warn({ err: (error as Error).message }, `${what} failed`))
      .finally(() => {
        running = false;
      });
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
