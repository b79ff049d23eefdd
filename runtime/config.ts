import { resolve } from "node:path";
import { z } from "zod";

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

function integer(min: number, max: number, note = "") {
  const expected = `an integer from ${min} to ${max}${note}`;
  return z
    .string()
    .regex(/^\d+$/, expected)
    .transform(Number)
    .pipe(z.number().min(min, expected).max(max, expected));
}

function url(protocols: readonly string[]) {
  const expected = `a URL starting with ${protocols.map((p) => `${p}://`).join(" or ")}`;
  return z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol.replace(/:$/, ""));
    } catch {
      return false;
    }
  }, expected);
}

/** Every environment variable the platform reads, with its default. Empty values count as unset. */
const environmentSchema = z.object({
  PORT: integer(0, 65535, " (0 picks a free port)").default(8080),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** The address clients reach the platform at, used in links it hands out. */
  PUBLIC_URL: url(["http", "https"]).optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: url(["postgres", "postgresql"]).optional(),
  DATABASE_POOL_SIZE: integer(1, 200).default(10),
  AMQP_URL: url(["amqp", "amqps"]).optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, `one of ${LOG_LEVELS.join(", ")}`).default("info"),
  BOOTSTRAP_FILE: z.string().min(1).optional(),
  BODY_LIMIT_BYTES: integer(1024, 1024 ** 3).default(1024 * 1024),
  SHUTDOWN_TIMEOUT_MS: integer(0, 600_000).default(25_000),
  WORKER_CONCURRENCY: integer(1, 1000).optional(),
});

export interface Config {
  http: { host: string; port: number; publicUrl: string; bodyLimitBytes: number };
  dataDir: string;
  /** Unset: the embedded PGlite database under `dataDir`. */
  database: { url: string | undefined; poolSize: number };
  /** Unset: the in-process broker. */
  broker: { url: string | undefined };
  log: { level: (typeof LOG_LEVELS)[number] };
  bootstrapFile: string | undefined;
  shutdownTimeoutMs: number;
  /** Overrides the concurrency of every job kind in a worker process. */
  workerConcurrency: number | undefined;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Reads the configuration from the environment; a wrong value throws one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    Object.keys(environmentSchema.shape)
      .map((key) => [key, env[key]?.trim()])
      .filter(([, value]) => value !== undefined && value !== ""),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0]);
    throw new ConfigError(
      `Invalid environment variable ${variable}: expected ${issue.message}, got ${JSON.stringify(withoutPassword(present[variable]))}`,
    );
  }
  const e = parsed.data;
  return {
    http: {
      host: e.HOST,
      port: e.PORT,
      publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, ""),
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
    },
    dataDir: resolve(e.DATA_DIR),
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE },
    broker: { url: e.AMQP_URL },
    log: { level: e.LOG_LEVEL },
    bootstrapFile: e.BOOTSTRAP_FILE,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    workerConcurrency: e.WORKER_CONCURRENCY,
  };
}

/** A URL's password must not reach the log through a configuration error. */
function withoutPassword(value: string | undefined): string | undefined {
  if (value === undefined) return value;
  try {
    const parsed = new URL(value);
    if (!parsed.password) return value;
    parsed.password = "***";
    return parsed.toString();
  } catch {
    return value;
  }
}
