import { type Logger, pino } from "pino";

export type { Logger };

/** Field paths that may carry credentials; pino replaces their values before a line is written. */
const REDACTED_PATHS = [
  "password",
  "secret",
  "token",
  "access_token",
  "refresh_token",
  "client_secret",
  "authorization",
  "*.password",
  "*.secret",
  "*.token",
  "*.access_token",
  "*.refresh_token",
  "*.client_secret",
  "*.authorization",
  "headers.authorization",
  "headers.cookie",
];

export function createLogger(options: { level: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level,
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
  });
}
