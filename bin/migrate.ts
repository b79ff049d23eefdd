import { loadConfig } from "../runtime/config.ts";
import { openDatabase } from "../runtime/database.ts";
import { createLogger } from "../runtime/logger.ts";
import { migrate } from "../runtime/migrations.ts";
import { runMain } from "../runtime/process-main.ts";

// `npm run migrate`: applies pending migrations and exits.
runMain(async () => {
  const config = loadConfig();
  const log = createLogger({ ...config.log, name: "migrate" });
  const db = await openDatabase(config, log);
  try {
    const applied = await migrate(db.sql, log);
    log.info({ applied }, applied.length > 0 ? "migrations applied" : "database already up to date");
  } finally {
    await db.close();
  }
});
