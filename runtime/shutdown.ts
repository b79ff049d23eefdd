import type { Logger } from "./logger.ts";

/**
 * A signal this soon after the first is the same request arriving twice: a terminal's Ctrl-C
 * reaches both npm and the platform, and npm forwards it to the platform again.
 */
const SAME_REQUEST_MS = 1000;

/**
 * Runs `stop` once on SIGTERM or SIGINT, then exits. A second signal, or a stop that overruns
 * `timeoutMs` plus a grace period, exits at once.
 */
export function stopOnSignal(log: Logger, timeoutMs: number, stop: () => Promise<void>): void {
  let firstSignalAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (firstSignalAt !== undefined) {
      if (Date.now() - firstSignalAt < SAME_REQUEST_MS) return;
      log.warn({ signal }, "second signal: exiting without finishing the shutdown");
      process.exit(1);
    }
    firstSignalAt = Date.now();
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
