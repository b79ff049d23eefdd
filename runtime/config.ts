import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { z } from "zod";
import { DEFAULT_JSON_MAX_DEPTH } from "../contracts/json-nesting.ts";
import { boolean, hostList, integer, milliseconds, secretKey, timeZone, url } from "./config-values.ts";

/**
 * Connections per process: twice the cores and one more, at most 10 (HikariCP's pool-sizing rule).
 * A process keeps about that many statements running at once and postgres.js pipelines the rest
 * onto busy connections; where Postgres shares the host, more backends only take turns on its
 * cores and preempt the process that feeds them (on 2 cores, 5 connections instead of 10 gave the
 * workflow benchmark 15% more approvals and a lower start p99).
 */
function defaultPoolSize(): number {
  return Math.min(10, 2 * availableParallelism() + 1);
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const LOG_FORMATS = ["auto", "json", "pretty"] as const;

/** Variables whose values are credentials: a configuration error names them without their value. */
const SECRET_VARIABLES = new Set([
  "ADMIN_TOKEN",
  "METRICS_TOKEN",
  "SIGN_P12_PASSPHRASE",
  "FILES_S3_SECRET_ACCESS_KEY",
  "CALLBACK_SECRET_KEY",
]);

/**
 * Every environment variable the platform reads, with its default, by the capability it sets up
 * (the tables of docs/configuration.md follow the same groups). Empty values count as unset.
 */
export const ENVIRONMENT = {
  process: {
    DATA_DIR: z.string().min(1).default("./data"),
    LOG_LEVEL: z.enum(LOG_LEVELS, `one of ${LOG_LEVELS.join(", ")}`).default("info"),
    LOG_FORMAT: z.enum(LOG_FORMATS, `one of ${LOG_FORMATS.join(", ")}`).default("auto"),
    BOOTSTRAP_FILE: z.string().min(1).optional(),
    SHUTDOWN_TIMEOUT_MS: integer(0, 600_000).default(25_000),
    WORKER_CONCURRENCY: integer(1, 1000).optional(),
    /** Heap of a thread that parses a document (a PDF to seal, an export to render), in MB. */
    DOCUMENT_THREAD_HEAP_MB: integer(16, 65_536).default(256),
    /** Longest one document may keep its thread; at most four fifths of the job's own timeout. */
    DOCUMENT_THREAD_TIMEOUT_MS: integer(100, 600_000).default(45_000),
  },
  http: {
    PORT: integer(0, 65535, " (0 picks a free port)").default(8080),
    HOST: z.string().min(1).default("0.0.0.0"),
    /** The address clients reach the platform at, used in links it hands out. */
    PUBLIC_URL: url(["http", "https"]).optional(),
    BODY_LIMIT_BYTES: integer(1024, 1024 ** 3).default(1024 * 1024),
    /** How deep arrays and objects may nest in JSON a client sends (bodies, parameters, form fields). */
    JSON_MAX_DEPTH: integer(2, 1000).default(DEFAULT_JSON_MAX_DEPTH),
    /** Proxies in front of the gateway whose X-Forwarded-For is believed: the client is that many hops back. */
    TRUST_PROXY_HOPS: integer(0, 10).default(0),
  },
  database: {
    DATABASE_URL: url(["postgres", "postgresql"]).optional(),
    DATABASE_POOL_SIZE: integer(1, 200).default(defaultPoolSize()),
  },
  broker: {
    AMQP_URL: url(["amqp", "amqps"]).optional(),
  },
  operations: {
    /** Operator token for the admin API; unset, the admin API answers 404. */
    ADMIN_TOKEN: z.string().min(32, "a string of at least 32 characters").optional(),
    /** Bearer token a scraper of `/metrics` must send; unset, `/metrics` answers 401 unless METRICS_PUBLIC. */
    METRICS_TOKEN: z.string().min(16, "a string of at least 16 characters").optional(),
    /** Serve `/metrics` without a token (only where no one untrusted reaches it); ignored with METRICS_TOKEN. */
    METRICS_PUBLIC: boolean().default(false),
    /** A worker process serves `/metrics` and `/healthz` on this port; unset, it serves nothing. */
    METRICS_PORT: integer(1, 65535).optional(),
  },
  oauth: {
    ACCESS_TOKEN_TTL_SECONDS: integer(60, 86_400).default(3600),
    REFRESH_TOKEN_TTL_SECONDS: integer(300, 31_536_000).default(2_592_000),
    AUTHORIZATION_CODE_TTL_SECONDS: integer(10, 600).default(60),
    /** Failed sign-ins of one account of one tenant before it is locked out (and the console's, per address). */
    LOGIN_MAX_FAILURES: integer(1, 1000).default(5),
    /** The first lockout of an account or an address; each further failed sign-in doubles it. */
    LOGIN_FIRST_LOCKOUT_SECONDS: integer(1, 86_400).default(30),
    /** The longest lockout (and the console's lockout, and the window its failures are counted in). */
    LOGIN_LOCKOUT_SECONDS: integer(1, 86_400).default(900),
    /** Failed sign-ins from one client address, whatever the account, within an hour before it is locked out. */
    LOGIN_ADDRESS_MAX_FAILURES: integer(1, 100_000).default(100),
  },
  notify: {
    /** Delays between delivery attempts of notifications, in milliseconds. */
    NOTIFY_RETRY_DELAYS_MS: milliseconds("5000,30000,300000").default([5_000, 30_000, 300_000]),
    /** How long one delivery may take before it counts as a failed attempt. */
    NOTIFY_SEND_TIMEOUT_MS: integer(100, 600_000).default(60_000),
    /** How often workers look for delivery tasks whose job was lost. */
    NOTIFY_SWEEP_INTERVAL_MS: integer(100, 3_600_000).default(15_000),
    /** A delivery task still pending after this long has lost its job (its publish never happened). */
    NOTIFY_PENDING_AGE_SECONDS: integer(1, 86_400).default(30),
  },
  push: {
    /** How long a push subscription (`/message/sub`) is held when nothing is there for it. */
    PUSH_HOLD_MS: integer(100, 120_000).default(25_000),
    /** Held polls and streams one gateway holds at once; more are refused with 503. */
    PUSH_MAX_HELD: integer(1, 1_000_000).default(20_000),
    /** Held polls and streams of one user on one gateway; more are refused with 429. */
    PUSH_MAX_HELD_PER_USER: integer(1, 1000).default(8),
    /** How often a push stream (`/message/stream`) sends a comment, so proxies keep it open. */
    PUSH_STREAM_HEARTBEAT_MS: integer(100, 300_000).default(15_000),
    /** The longest a push stream stays open (less when its token expires sooner); the client reconnects. */
    PUSH_STREAM_MAX_MS: integer(1000, 86_400_000).default(3_600_000),
    /** How long push messages are kept. */
    PUSH_RETENTION_SECONDS: integer(60, 31_536_000).default(7 * 86_400),
    /** How many push messages each user keeps at most, their newest. */
    PUSH_MAX_PER_USER: integer(1, 1_000_000).default(1000),
    /** How often each gateway deletes push messages past their age or count. */
    PUSH_PRUNE_INTERVAL_MS: integer(100, 86_400_000).default(60_000),
  },
  files: {
    /** Where uploads and results live; a volume shared by the gateway and the workers when distributed. */
    FILES_DIR: z.string().min(1).optional(),
    /** The origin file URLs handed out are built on, so user files can be served from one of their own. */
    FILE_PUBLIC_URL: url(["http", "https"]).optional(),
    /** An S3-compatible bucket for files instead of FILES_DIR, and how to reach it. */
    FILES_S3_BUCKET: z.string().min(3).max(63).optional(),
    FILES_S3_ENDPOINT: url(["http", "https"]).optional(),
    FILES_S3_REGION: z.string().min(1).default("us-east-1"),
    FILES_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    FILES_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /** Bucket in the path rather than the host name, as MinIO and most compatible servers want. */
    FILES_S3_FORCE_PATH_STYLE: boolean().default(true),
    /** Largest file the file service takes, checked while the upload streams in. */
    FILE_MAX_UPLOAD_BYTES: integer(1024, 1024 ** 4).default(1024 ** 3),
    /** Wrong file tokens for one file from one client address before that address is locked out of it. */
    FILE_TOKEN_MAX_FAILURES: integer(1, 1000).default(10),
    FILE_TOKEN_LOCKOUT_SECONDS: integer(1, 86_400).default(900),
  },
  sign: {
    /** Largest PDF the signature API takes, checked while the upload streams in. */
    SIGN_MAX_UPLOAD_BYTES: integer(1024, 1024 ** 3).default(100 * 1024 * 1024),
    /** How long the gateway waits for a sign worker's answer. */
    SIGN_TIMEOUT_MS: integer(1000, 600_000).default(60_000),
    /** `pades`: sealed PDFs also carry a PAdES signature; `none`: the seal image only. */
    SIGN_SIGNATURE: z.enum(["pades", "none"], "one of pades, none").default("pades"),
    /** PKCS#12 file of the signing certificate; unset, a self-signed one is made under DATA_DIR at first start. */
    SIGN_P12_FILE: z.string().min(1).optional(),
    SIGN_P12_PASSPHRASE: z.string().optional(),
    /** Most pages a PDF to seal may have. */
    SIGN_MAX_PAGES: integer(1, 1_000_000).default(2000),
    /** How deep a PDF to seal may nest arrays and dictionaries, and its page tree. */
    SIGN_MAX_NESTING: integer(4, 10_000).default(100),
    /** What a PDF to seal's compressed streams, images aside, may inflate to together. */
    SIGN_MAX_INFLATED_BYTES: integer(1024 * 1024, 1024 ** 4).default(256 * 1024 * 1024),
  },
  export: {
    /** Hosts export templates may be fetched from, comma separated; `*.example.edu` for subdomains. */
    EXPORT_TEMPLATE_HOSTS: hostList().optional(),
    EXPORT_TEMPLATE_MAX_BYTES: integer(1024, 1024 ** 3).default(20 * 1024 * 1024),
    /** Bytes a template's entries may inflate to together, those of archives inside it included. */
    EXPORT_ARCHIVE_MAX_BYTES: integer(1024, 2 ** 32 - 1).default(100 * 1024 * 1024),
    /** Times its compressed size a template's entry may inflate to, once past 1 MiB. */
    EXPORT_ARCHIVE_MAX_RATIO: integer(1, 1100).default(100),
    /** Entries of a template, those of archives inside it included (ZIP64 is refused, so at most 65535). */
    EXPORT_ARCHIVE_MAX_ENTRIES: integer(1, 65_535).default(10_000),
    /** How long the gateway waits for an export worker (template fetch and rendering). */
    EXPORT_TIMEOUT_MS: integer(1000, 600_000).default(60_000),
    /** Time zone of dates filled into documents (`${when:yyyy-MM-dd HH:mm}`); default the host's. */
    EXPORT_TIME_ZONE: timeZone().optional(),
    /** LibreOffice's `soffice` for PDF and image exports. */
    EXPORT_SOFFICE: z.string().min(1).default("soffice"),
    /** A Python with LibreOffice's UNO bindings (Debian's python3-uno is for /usr/bin/python3). */
    EXPORT_OFFICE_PYTHON: z.string().min(1).default("/usr/bin/python3"),
    /** Longest one document conversion may take before LibreOffice is restarted. */
    EXPORT_CONVERT_TIMEOUT_MS: integer(1000, 600_000).default(30_000),
    /** Start LibreOffice when an export worker starts, not at its first PDF or image export. */
    EXPORT_OFFICE_PREWARM: boolean().default(false),
  },
  feed: {
    /** A feed run whose worker has not been heard from for this long is taken over by another. */
    FEED_RUN_STALE_SECONDS: integer(2, 3600).default(60),
  },
  workflow: {
    /** Outbox events every relay subscriber has accepted are deleted once this old. */
    WORKFLOW_EVENTS_RETAIN_SECONDS: integer(0, 315_360_000).default(604_800),
  },
  callbacks: {
    /** The key the apps' callback signing secrets are encrypted under; unset, one made in DATA_DIR. */
    CALLBACK_SECRET_KEY: secretKey().optional(),
    /** Hosts whose internal addresses callbacks may reach; public addresses need no listing. */
    CALLBACK_ALLOWED_HOSTS: hostList().optional(),
    /** Delays before each retry of a callback, in milliseconds; it is tried one time more than there are delays. */
    CALLBACK_RETRY_DELAYS_MS: milliseconds("5000,30000,120000,600000,3600000").default([
      5_000, 30_000, 120_000, 600_000, 3_600_000,
    ]),
    /** How long one post may take, connecting and the whole answer, before it counts as failed. */
    CALLBACK_TIMEOUT_MS: integer(100, 120_000).default(10_000),
    /** Posts one worker process has under way at once, over every receiver. */
    CALLBACK_CONCURRENCY: integer(1, 1000).default(16),
    /** Posts one worker process has under way at once to one host and port. */
    CALLBACK_HOST_CONCURRENCY: integer(1, 100).default(2),
    /** How often a worker looks for callbacks that have become due. */
    CALLBACK_POLL_INTERVAL_MS: integer(10, 60_000).default(1000),
  },
};

/** The names of every variable the platform reads. */
export const ENVIRONMENT_VARIABLES: readonly string[] = Object.values(ENVIRONMENT).flatMap(Object.keys);

const environmentSchema = z.object({
  ...ENVIRONMENT.process,
  ...ENVIRONMENT.http,
  ...ENVIRONMENT.database,
  ...ENVIRONMENT.broker,
  ...ENVIRONMENT.operations,
  ...ENVIRONMENT.oauth,
  ...ENVIRONMENT.notify,
  ...ENVIRONMENT.push,
  ...ENVIRONMENT.files,
  ...ENVIRONMENT.sign,
  ...ENVIRONMENT.export,
  ...ENVIRONMENT.feed,
  ...ENVIRONMENT.workflow,
  ...ENVIRONMENT.callbacks,
});

/** Where an S3-compatible bucket is and how to sign in to it. */
export interface S3Options {
  bucket: string;
  endpoint: string | undefined;
  region: string;
  /** Unset: the AWS SDK's usual credential chain (environment, instance role…). */
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export interface Config {
  http: {
    host: string;
    port: number;
    publicUrl: string;
    bodyLimitBytes: number;
    jsonMaxDepth: number;
    /** How many proxies' X-Forwarded-For entries name the client, counted from the gateway. */
    trustProxyHops: number;
  };
  dataDir: string;
  /** Unset: the embedded PGlite database under `dataDir`. */
  database: { url: string | undefined; poolSize: number };
  /** Unset: the in-process broker. */
  broker: { url: string | undefined };
  /** `format`: `auto` is pretty at a terminal, JSON otherwise. */
  log: { level: (typeof LOG_LEVELS)[number]; format: (typeof LOG_FORMATS)[number] };
  bootstrapFile: string | undefined;
  shutdownTimeoutMs: number;
  /** Overrides the concurrency of every job kind in a worker process. */
  workerConcurrency: number | undefined;
  /** Limits of the threads documents are parsed on, each document's own. */
  documentThreads: { heapMb: number; timeoutMs: number };
  oauth: {
    issuer: string;
    accessTokenTtlSeconds: number;
    refreshTokenTtlSeconds: number;
    authorizationCodeTtlSeconds: number;
    loginMaxFailures: number;
    loginFirstLockoutSeconds: number;
    loginLockoutSeconds: number;
    loginAddressMaxFailures: number;
  };
  adminToken: string | undefined;
  /** `open`: `/metrics` without a token, by the operator's choice; neither set, it is closed. */
  metrics: { token: string | undefined; open: boolean; port: number | undefined };
  filesDir: string;
  files: {
    /** Where file URLs point (`<publicUrl>/file/<id>`); PUBLIC_URL unless FILE_PUBLIC_URL says otherwise. */
    publicUrl: string;
    maxUploadBytes: number;
    /** Wrong file tokens per file and client address before a lockout, and how long it lasts. */
    tokenMaxFailures: number;
    tokenLockoutSeconds: number;
    /** Unset: files live under `filesDir`. */
    s3: S3Options | undefined;
  };
  sign: {
    maxUploadBytes: number;
    timeoutMs: number;
    signature: "pades" | "none";
    p12File: string | undefined;
    p12Passphrase: string;
    maxPages: number;
    maxNesting: number;
    maxInflatedBytes: number;
  };
  export: {
    templateHosts: string[];
    templateMaxBytes: number;
    /** What a template may inflate to, checked before it is parsed. */
    archive: { maxBytes: number; maxRatio: number; maxEntries: number };
    timeoutMs: number;
    timeZone: string;
    soffice: string;
    officePython: string;
    convertTimeoutMs: number;
    officePrewarm: boolean;
  };
  feed: { staleRunSeconds: number };
  /** `eventsRetainSeconds`: how long the outbox keeps events its relay delivered. */
  workflow: { eventsRetainSeconds: number };
  callbacks: CallbackConfig;
  notify: {
    retryDelaysMs: number[];
    sendTimeoutMs: number;
    sweepIntervalMs: number;
    pendingAgeSeconds: number;
  };
  push: {
    holdMs: number;
    maxHeld: number;
    maxHeldPerUser: number;
    streamHeartbeatMs: number;
    streamMaxMs: number;
    retentionSeconds: number;
    maxPerUser: number;
    pruneIntervalMs: number;
  };
}

/** Messenger callbacks: their signing secrets' key, where they may go, and how they are posted. */
export interface CallbackConfig {
  /** 32 bytes; unset, the key file under `dataDir` (made at first need). */
  secretKey: Buffer | undefined;
  allowedHosts: string[];
  retryDelaysMs: number[];
  timeoutMs: number;
  concurrency: number;
  hostConcurrency: number;
  pollIntervalMs: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

/**
 * Reads the configuration from the environment. Wrong values throw one error naming every wrong
 * variable, one line each, so an operator fixes them in one round.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(
    ENVIRONMENT_VARIABLES.map((key) => [key, env[key]?.trim()]).filter(
      ([, value]) => value !== undefined && value !== "",
    ),
  );
  const parsed = environmentSchema.safeParse(present);
  if (!parsed.success) {
    const lines = new Map<string, string>();
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0]);
      if (lines.has(variable)) continue;
      const given = SECRET_VARIABLES.has(variable)
        ? "a value that is not shown"
        : JSON.stringify(withoutPassword(present[variable]));
      lines.set(
        variable,
        `Invalid environment variable ${variable}: expected ${issue.message}, got ${given}`,
      );
    }
    throw new ConfigError(ENVIRONMENT_VARIABLES.flatMap((variable) => lines.get(variable) ?? []).join("\n"));
  }
  const e = parsed.data;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/$/, "");
  return {
    http: {
      host: e.HOST,
      port: e.PORT,
      publicUrl,
      bodyLimitBytes: e.BODY_LIMIT_BYTES,
      jsonMaxDepth: e.JSON_MAX_DEPTH,
      trustProxyHops: e.TRUST_PROXY_HOPS,
    },
    dataDir: resolve(e.DATA_DIR),
    database: { url: e.DATABASE_URL, poolSize: e.DATABASE_POOL_SIZE },
    broker: { url: e.AMQP_URL },
    log: { level: e.LOG_LEVEL, format: e.LOG_FORMAT },
    bootstrapFile: e.BOOTSTRAP_FILE,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    documentThreads: { heapMb: e.DOCUMENT_THREAD_HEAP_MB, timeoutMs: e.DOCUMENT_THREAD_TIMEOUT_MS },
    oauth: {
      // The canonical form of the URL, with its trailing slash, as OAuth clients compare it.
      issuer: `${publicUrl}/`,
      accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
      refreshTokenTtlSeconds: e.REFRESH_TOKEN_TTL_SECONDS,
      authorizationCodeTtlSeconds: e.AUTHORIZATION_CODE_TTL_SECONDS,
      loginMaxFailures: e.LOGIN_MAX_FAILURES,
      loginFirstLockoutSeconds: e.LOGIN_FIRST_LOCKOUT_SECONDS,
      loginLockoutSeconds: e.LOGIN_LOCKOUT_SECONDS,
      loginAddressMaxFailures: e.LOGIN_ADDRESS_MAX_FAILURES,
    },
    adminToken: e.ADMIN_TOKEN,
    metrics: { token: e.METRICS_TOKEN, open: e.METRICS_PUBLIC, port: e.METRICS_PORT },
    filesDir: resolve(e.FILES_DIR ?? `${e.DATA_DIR}/files`),
    files: {
      publicUrl: (e.FILE_PUBLIC_URL ?? publicUrl).replace(/\/$/, ""),
      maxUploadBytes: e.FILE_MAX_UPLOAD_BYTES,
      tokenMaxFailures: e.FILE_TOKEN_MAX_FAILURES,
      tokenLockoutSeconds: e.FILE_TOKEN_LOCKOUT_SECONDS,
      s3: e.FILES_S3_BUCKET
        ? {
            bucket: e.FILES_S3_BUCKET,
            endpoint: e.FILES_S3_ENDPOINT,
            region: e.FILES_S3_REGION,
            accessKeyId: e.FILES_S3_ACCESS_KEY_ID,
            secretAccessKey: e.FILES_S3_SECRET_ACCESS_KEY,
            forcePathStyle: e.FILES_S3_FORCE_PATH_STYLE,
          }
        : undefined,
    },
    sign: {
      maxUploadBytes: e.SIGN_MAX_UPLOAD_BYTES,
      timeoutMs: e.SIGN_TIMEOUT_MS,
      signature: e.SIGN_SIGNATURE,
      p12File: e.SIGN_P12_FILE ? resolve(e.SIGN_P12_FILE) : undefined,
      p12Passphrase: e.SIGN_P12_PASSPHRASE ?? "",
      maxPages: e.SIGN_MAX_PAGES,
      maxNesting: e.SIGN_MAX_NESTING,
      maxInflatedBytes: e.SIGN_MAX_INFLATED_BYTES,
    },
    export: {
      templateHosts: e.EXPORT_TEMPLATE_HOSTS ?? [],
      templateMaxBytes: e.EXPORT_TEMPLATE_MAX_BYTES,
      archive: {
        maxBytes: e.EXPORT_ARCHIVE_MAX_BYTES,
        maxRatio: e.EXPORT_ARCHIVE_MAX_RATIO,
        maxEntries: e.EXPORT_ARCHIVE_MAX_ENTRIES,
      },
      timeoutMs: e.EXPORT_TIMEOUT_MS,
      timeZone: e.EXPORT_TIME_ZONE ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
      soffice: e.EXPORT_SOFFICE,
      officePython: e.EXPORT_OFFICE_PYTHON,
      convertTimeoutMs: e.EXPORT_CONVERT_TIMEOUT_MS,
      officePrewarm: e.EXPORT_OFFICE_PREWARM,
    },
    feed: { staleRunSeconds: e.FEED_RUN_STALE_SECONDS },
    workflow: { eventsRetainSeconds: e.WORKFLOW_EVENTS_RETAIN_SECONDS },
    callbacks: {
      secretKey: e.CALLBACK_SECRET_KEY,
      allowedHosts: e.CALLBACK_ALLOWED_HOSTS ?? [],
      retryDelaysMs: e.CALLBACK_RETRY_DELAYS_MS,
      timeoutMs: e.CALLBACK_TIMEOUT_MS,
      concurrency: e.CALLBACK_CONCURRENCY,
      hostConcurrency: e.CALLBACK_HOST_CONCURRENCY,
      pollIntervalMs: e.CALLBACK_POLL_INTERVAL_MS,
    },
    notify: {
      retryDelaysMs: e.NOTIFY_RETRY_DELAYS_MS,
      sendTimeoutMs: e.NOTIFY_SEND_TIMEOUT_MS,
      sweepIntervalMs: e.NOTIFY_SWEEP_INTERVAL_MS,
      pendingAgeSeconds: e.NOTIFY_PENDING_AGE_SECONDS,
    },
    push: {
      holdMs: e.PUSH_HOLD_MS,
      maxHeld: e.PUSH_MAX_HELD,
      maxHeldPerUser: e.PUSH_MAX_HELD_PER_USER,
      streamHeartbeatMs: e.PUSH_STREAM_HEARTBEAT_MS,
      streamMaxMs: e.PUSH_STREAM_MAX_MS,
      retentionSeconds: e.PUSH_RETENTION_SECONDS,
      maxPerUser: e.PUSH_MAX_PER_USER,
      pruneIntervalMs: e.PUSH_PRUNE_INTERVAL_MS,
    },
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
