import { spawnEmbeddedPostgresThread, startEmbeddedPostgres } from "../runtime/embedded-postgres.ts";

// `npm start`: the gateway and every worker in one process; embedded database and broker unless configured.

// First of all: PGlite loads on the embedded database's thread while the platform's modules load
// here. A configuration that names a database server ends the thread unused.
const databaseThread = spawnEmbeddedPostgresThread();
const { runMain } = await import("../runtime/process-main.ts");

runMain(async () => {
  const { loadConfig } = await import("../runtime/config.ts");
  const config = loadConfig();
  let embeddedDatabase: ReturnType<typeof startEmbeddedPostgres> | undefined;
  if (config.database.url) {
    await databaseThread.worker.terminate();
  } else {
    embeddedDatabase = startEmbeddedPostgres(config.dataDir, databaseThread);
    // Handled where it is awaited; this keeps a failure before then from counting as unhandled.
    embeddedDatabase.catch(() => {});
  }
  const [{ startAllInOne }, { stopOnSignal }] = await Promise.all([
    import("./processes.ts"),
    import("../runtime/shutdown.ts"),
  ]);
  const running = await startAllInOne(config, embeddedDatabase);
  stopOnSignal(running.platform.log, config.shutdownTimeoutMs, running.stop);
});
