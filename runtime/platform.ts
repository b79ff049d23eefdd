import type { Bootstrap } from "../contracts/bootstrap.ts";
import type { Broker } from "../contracts/broker.ts";
import { applyBootstrap, readBootstrapFile } from "./bootstrap.ts";
import { EmbeddedBroker } from "./broker/embedded-broker.ts";
import { RabbitMqBroker } from "./broker/rabbitmq-broker.ts";
import type { Config } from "./config.ts";
import { type Database, openDatabase } from "./database.ts";
import { createLogger, type Logger } from "./logger.ts";
import { migrate } from "./migrations.ts";
import type { FileStorage } from "./storage/file-storage.ts";
import { openFileStorage } from "./storage/open-storage.ts";

/** The connections every process kind shares: logger, database (migrated), broker and file storage. */
export interface Platform {
  config: Config;
  /** The bootstrap file, read by every process (workers take their channel plugins from it). */
  bootstrap: Bootstrap | undefined;
  log: Logger;
  db: Database;
  broker: Broker;
  /** Uploads and results, shared by the gateway and the workers. */
  storage: FileStorage;
}

export async function openPlatform(
  config: Config,
  processName: string,
  options: { applyBootstrap: boolean },
): Promise<Platform> {
  const log = createLogger({ level: config.log.level, name: processName });
  const bootstrap = config.bootstrapFile ? await readBootstrapFile(config.bootstrapFile) : undefined;
  const db = await openDatabase(config, log);
  try {
    await migrate(db.sql, log);
    if (bootstrap && options.applyBootstrap) await applyBootstrap(db.sql, bootstrap, log);
  } catch (error) {
    await db.close();
    throw error;
  }
  const broker = config.broker.url
    ? await RabbitMqBroker.start({ url: config.broker.url, connectionName: processName }, log)
    : new EmbeddedBroker(log);
  log.info({ database: db.kind, broker: broker.kind }, "platform connections open");
  return { config, bootstrap, log, db, broker, storage: await openFileStorage(config) };
}
