import type { Logger } from "./logger.ts";

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. A second signal, or a stop that overruns
 * `timeoutMs` plus a grace period, exits at once.
 */
export function stopOnSignal(log: Logger, timeoutMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, "second signal: exiting without finishing the shutdown");
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, "shutting down: draining requests and jobs");
    setTimeout(() => {
      log.error("shutdown overran its timeout; exiting");
      process.exit(1);
    }, timeoutMs + 5000).unref();
    stop().then(
      () => {
        log.info("stopped");
        process.exit(0);
      },
      (error: unknown) => {
        log.error({ err: error }, "shutdown failed");
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}
