import type { DestinationStream } from "pino";

/** How log lines are written: JSON for collectors, or readable lines for a person at a terminal. */
export type LogFormat = "json" | "pretty";

/** `auto` is pretty when the output is a terminal, JSON otherwise (a file, a pipe, a collector). */
export function resolveLogFormat(setting: "auto" | LogFormat, output: { isTTY?: boolean }): LogFormat {
  if (setting !== "auto") return setting;
  return output.isTTY ? "pretty" : "json";
}

const LEVEL_COLOURS: Record<string, string> = {
  fatal: "\x1b[41m",
  error: "\x1b[31m",
  warn: "\x1b[33m",
  info: "\x1b[32m",
  debug: "\x1b[36m",
  trace: "\x1b[90m",
};
const RESET = "\x1b[0m";
const DIM = "\x1b[2m";
/** Fields every line carries, shown in the line's head rather than among its details. */
const HEAD_FIELDS = new Set(["level", "time", "pid", "name", "msg", "hostname"]);

function detail(value: unknown): string {
  if (typeof value === "string") return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One JSON log line as `12:03:04.567 INFO  platform: serving url=http://localhost:8080`. */
export function prettyLine(json: string, colours: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json;
  }
  const level = String(entry.level ?? "info");
  const time = typeof entry.time === "number" ? new Date(entry.time).toISOString().slice(11, 23) : "";
  const label = level.toUpperCase().padEnd(5);
  const head = colours
    ? `${DIM}${time}${RESET} ${LEVEL_COLOURS[level] ?? ""}${label}${RESET}`
    : `${time} ${label}`;
  const details: string[] = [];
  let stack: string | undefined;
  for (const [key, value] of Object.entries(entry)) {
    if (HEAD_FIELDS.has(key) || value === undefined) continue;
    if (key === "err" && value && typeof value === "object" && "stack" in value) {
      stack = String((value as { stack: unknown }).stack);
      continue;
    }
    details.push(`${colours ? DIM : ""}${key}=${colours ? RESET : ""}${detail(value)}`);
  }
  const line = `${head} ${entry.name ?? ""}: ${entry.msg ?? ""}${details.length ? ` ${details.join(" ")}` : ""}\n`;
  return stack ? `${line}${stack.replace(/^/gm, "    ")}\n` : line;
}

/** A pino destination writing each line to `output` in the readable form. */
export function prettyDestination(output: NodeJS.WriteStream): DestinationStream {
  const colours = output.isTTY === true;
  return {
    write(line: string) {
      output.write(prettyLine(line, colours));
    },
  };
}
