import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { Broker } from "../contracts/broker.ts";
import { jobCatalogue, withOperatorPolicy } from "../contracts/jobs.ts";
import { applyBootstrap, type BootstrapEntries, readBootstrapFile } from "./bootstrap.ts";
import { EmbeddedBroker } from "./broker/embedded-broker.ts";
import { createJobClient, type JobClient } from "./broker/job-client.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./database.ts";
import type { EmbeddedPostgres } from "./embedded-postgres.ts";
import { createLogger, type Logger } from "./logger.ts";
import { migrate } from "./migrations.ts";
import type { FileStorage } from "./storage/file-storage.ts";
import { openFileStorage } from "./storage/open-storage.ts";

/** The connections every process kind shares: logger, database (migrated), broker and file storage. */
export interface Platform {
  config: Config;
  /** The bootstrap file, read by every process; the gateway applies it. */
  bootstrap: Bootstrap | undefined;
  log: Logger;
  db: Database;
  broker: Broker;
  /** Jobs for the workers, by kind, with the operator's delays and timeouts. */
  jobs: JobClient;
  /** Uploads and results, shared by the gateway and the workers. */
  storage: FileStorage;
}

export interface PlatformOptions {
  /** The bootstrap file's entries, when this process applies it (the gateway does). */
  applyBootstrap?: BootstrapEntries;
  /** The embedded database, when the caller started it already. */
  embeddedDatabase?: Promise<EmbeddedPostgres>;
}

/** Opens the platform's connections and readies its database: `connectPlatform`, then its `ready`. */
export async function openPlatform(
  config: Config,
  processName: string,
  options: PlatformOptions,
): Promise<Platform> {
  const { platform, ready } = await connectPlatform(config, processName, options);
  await ready();
  return platform;
}

/**
 * The platform's parts, made without a query: a process makes what needs no data (its routes)
 * while an embedded database starts, then calls `ready`, which migrates the database, applies the
 * bootstrap file (`applyBootstrap`). Nothing may query before it resolves.
 */
export async function connectPlatform(
  config: Config,
  processName: string,
  options: PlatformOptions,
): Promise<{ platform: Platform; ready(): Promise<void> }> {
  const log = createLogger({ ...config.log, name: processName });
  const bootstrap = config.bootstrapFile ? await readBootstrapFile(config.bootstrapFile) : undefined;
  const db = await openDatabase(config, log, options.embeddedDatabase);
  let broker: Broker;
  let storage: FileStorage;
  try {
    broker = config.broker.url
      ? await startRabbitMq(config.broker.url, processName, log)
      : new EmbeddedBroker(log);
    storage = await openFileStorage(config);
  } catch (error) {
    await db.close();
    throw error;
  }
  const catalogue = withOperatorPolicy(jobCatalogue, {
    delivery: { retryDelaysMs: config.notify.retryDelaysMs, timeoutMs: config.notify.sendTimeoutMs },
    signTimeoutMs: config.sign.timeoutMs,
    exportTimeoutMs: config.export.timeoutMs,
  });
  const jobs = createJobClient(broker, catalogue);
  const platform = { config, bootstrap, log, db, broker, jobs, storage };
  async function ready(): Promise<void> {
    try {
      await migrate(db.sql, log);
      if (bootstrap && options.applyBootstrap) {
        const applied = await applyBootstrap(db.sql, bootstrap, log, "changed", options.applyBootstrap);
        // Processes already running (workers started first) follow what the file changed.
        if (applied > 0) await db.changes.announce({ kind: "configuration" });
      }
    } catch (error) {
      await broker.close();
      await db.close();
      throw error;
    }
    log.info({ database: db.kind, broker: broker.kind }, "platform connections open");
  }
  return { platform, ready };
}

/** Loaded only where it runs: the embedded mode never needs amqplib. */
async function startRabbitMq(url: string, connectionName: string, log: Logger): Promise<Broker> {
  const { RabbitMqBroker } = await import("./broker/rabbitmq-broker.ts");
  return RabbitMqBroker.start({ url, connectionName }, log);
}
