import { type Logger, pino } from "pino";
import { type LogFormat, prettyDestination, resolveLogFormat } from "./log-format.ts";

export type { Logger };

/**
 * Fields that may carry credentials; pino replaces their values before a line is written. Log
 * objects are built field by field (never from a raw request), so exact paths suffice, and wildcard
 * paths would cost more than the rest of a log line.
 */
const REDACTED_PATHS = [
  "password",
  "secret",
  "token",
  "access_token",
  "refresh_token",
  "client_secret",
  "authorization",
  "headers.authorization",
  "headers.cookie",
  "query.access_token",
];

export function createLogger(options: { level: string; name: string; format?: "auto" | LogFormat }): Logger {
  const pretty = resolveLogFormat(options.format ?? "json", process.stdout) === "pretty";
  const destination = pretty ? prettyDestination(process.stdout) : undefined;
  return pino(
    {
      name: options.name,
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
      base: { pid: process.pid },
      // Epoch milliseconds: an ISO date string costs a third of a log line.
      timestamp: pino.stdTimeFunctions.epochTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
}
