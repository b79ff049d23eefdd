import { rotateSigningKey } from "../gateway/oauth/access-tokens.ts";
import { applyBootstrap, readBootstrapFile } from "../runtime/bootstrap.ts";
import { ConfigError, loadConfig } from "../runtime/config.ts";
import { openDatabase } from "../runtime/database.ts";
import { createLogger } from "../runtime/logger.ts";
import { migrate } from "../runtime/migrations.ts";
import { runMain } from "../runtime/process-main.ts";
import { rotateApplicationSecret } from "../runtime/store/application-secrets.ts";
import { workflowBootstrapEntries } from "../workflow/workflow-deployment.ts";

const USAGE = `Usage:
  npm run admin -- apply <bootstrap.json>        create or update tenants, applications and users
  npm run admin -- new-secret <application-id>   print a new secret for an application (shown once)
  npm run admin -- rotate-signing-key            retire the token signing key and make a new one`;

// `npm run admin -- …`: the operators' commands, on the database the environment names.
runMain(async () => {
  const [command, argument] = process.argv.slice(2);
  const valid =
    command === "rotate-signing-key" || ((command === "apply" || command === "new-secret") && argument);
  if (!valid) throw new ConfigError(USAGE);
  const config = loadConfig();
  const log = createLogger({ level: config.log.level === "info" ? "warn" : config.log.level, name: "admin" });
  const bootstrap = command === "apply" ? await readBootstrapFile(argument!) : undefined;
  const db = await openDatabase(config, log);
  try {
    await migrate(db.sql, log);
    if (bootstrap) {
      await applyBootstrap(db.sql, bootstrap, log, "all", workflowBootstrapEntries);
      process.stdout.write(`applied ${argument}\n`);
    } else if (command === "rotate-signing-key") {
      await rotateSigningKey(db.sql);
      process.stdout.write("signing key rotated; gateways switch to it within a minute\n");
    } else {
      const secret = await rotateApplicationSecret(db.sql, argument!);
      if (!secret) throw new ConfigError(`No application ${argument}`);
      process.stdout.write(`${secret}\n`);
    }
  } finally {
    await db.close();
  }
});
