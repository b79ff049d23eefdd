import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { Broker } from "../contracts/broker.ts";
import { jobCatalogue, withOperatorPolicy } from "../contracts/jobs.ts";
import { applyBootstrap, type BootstrapEntry, readBootstrapFile } from "./bootstrap.ts";
import { EmbeddedBroker } from "./broker/embedded-broker.ts";
import { createJobClient, type JobClient } from "./broker/job-client.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./database.ts";
import type { EmbeddedPostgres } from "./embedded-postgres.ts";
import { LiveChannels } from "./live-channels.ts";
import { createLogger, type Logger } from "./logger.ts";
import { migrate } from "./migrations.ts";
import type { FileStorage } from "./storage/file-storage.ts";
import { openFileStorage } from "./storage/open-storage.ts";

/** The connections every process kind shares: logger, database (migrated), broker and file storage. */
export interface Platform {
  config: Config;
  /** The bootstrap file, read by every process; the gateway applies it. */
  bootstrap: Bootstrap | undefined;
  /** The notification channels as configured now. */
  channels: LiveChannels;
  log: Logger;
  db: Database;
  broker: Broker;
  /** Jobs for the workers, by kind, with the operator's delays and timeouts. */
  jobs: JobClient;
  /** Uploads and results, shared by the gateway and the workers. */
  storage: FileStorage;
}

export async function openPlatform(
  config: Config,
  processName: string,
  options: {
    applyBootstrap: boolean;
    /** The embedded database, when the caller started it already. */
    embeddedDatabase?: Promise<EmbeddedPostgres>;
    /** Entries of the bootstrap sections whose statements live outside the runtime (workflow apps). */
    bootstrapEntries?: (bootstrap: Bootstrap) => BootstrapEntry[];
  },
): Promise<Platform> {
  const log = createLogger({ ...config.log, name: processName });
  const bootstrap = config.bootstrapFile ? await readBootstrapFile(config.bootstrapFile) : undefined;
  const db = await openDatabase(config, log, options.embeddedDatabase);
  let channels: LiveChannels;
  try {
    await migrate(db.sql, log);
    if (bootstrap && options.applyBootstrap) {
      const applied = await applyBootstrap(db.sql, bootstrap, log, "changed", options.bootstrapEntries);
      // Processes already running (workers started first) follow what the file changed.
      if (applied > 0) await db.changes.announce({ kind: "configuration" });
    }
    channels = await LiveChannels.open(db.sql, db.changes, log);
  } catch (error) {
    await db.close();
    throw error;
  }
  const broker = config.broker.url
    ? await startRabbitMq(config.broker.url, processName, log)
    : new EmbeddedBroker(log);
  log.info({ database: db.kind, broker: broker.kind }, "platform connections open");
  const catalogue = withOperatorPolicy(jobCatalogue, {
    delivery: { retryDelaysMs: config.notify.retryDelaysMs, timeoutMs: config.notify.sendTimeoutMs },
    signTimeoutMs: config.sign.timeoutMs,
    exportTimeoutMs: config.export.timeoutMs,
  });
  const jobs = createJobClient(broker, catalogue);
  return { config, bootstrap, channels, log, db, broker, jobs, storage: await openFileStorage(config) };
}

/** Loaded only where it runs: the embedded mode never needs amqplib. */
async function startRabbitMq(url: string, connectionName: string, log: Logger): Promise<Broker> {
  const { RabbitMqBroker } = await import("./broker/rabbitmq-broker.ts");
  return RabbitMqBroker.start({ url, connectionName }, log);
}
