import { bootstrapEntries } from "../gateway/bootstrap-sections.ts";
import { setApplicationEnabled, setUserEnabled } from "../identity/access-control.ts";
import { rotateSigningKey } from "../identity/access-tokens.ts";
import { newApplicationSecret } from "../identity/application-admin.ts";
import { applyBootstrap, readBootstrapFile } from "../runtime/bootstrap.ts";
import { ConfigError, loadConfig } from "../runtime/config.ts";
import { openDatabase } from "../runtime/database.ts";
import { createLogger } from "../runtime/logger.ts";
import { migrate } from "../runtime/migrations.ts";
import { runMain } from "../runtime/process-main.ts";

const USAGE = `Usage:
  npm run admin -- apply <bootstrap.json>            create or update tenants, applications and users
  npm run admin -- new-secret <application-id>       print a new secret for an application (shown once)
  npm run admin -- rotate-signing-key                retire the token signing key and make a new one
  npm run admin -- disable-application <id>          stop an application: no tokens, and its tokens refused
  npm run admin -- enable-application <id>           let it work again
  npm run admin -- disable-user <account@domain>     stop an account: no sign-in, and its tokens refused
  npm run admin -- enable-user <account@domain>      let it work again`;

const WITH_ARGUMENT = new Set([
  "apply",
  "new-secret",
  "disable-application",
  "enable-application",
  "disable-user",
  "enable-user",
]);

// `npm run admin -- …`: the operators' commands, on the database the environment names.
runMain(async () => {
  const [command = "", argument] = process.argv.slice(2);
  const valid = command === "rotate-signing-key" || (WITH_ARGUMENT.has(command) && argument);
  if (!valid) throw new ConfigError(USAGE);
  const config = loadConfig();
  const log = createLogger({
    ...config.log,
    level: config.log.level === "info" ? "warn" : config.log.level,
    name: "admin",
  });
  const bootstrap = command === "apply" ? await readBootstrapFile(argument!) : undefined;
  const db = await openDatabase(config, log);
  try {
    await migrate(db.sql, log);
    if (bootstrap) {
      await applyBootstrap(db.sql, bootstrap, log, "all", bootstrapEntries);
      await db.changes.announce({ kind: "configuration" });
      process.stdout.write(`applied ${argument}\n`);
    } else if (command === "rotate-signing-key") {
      await rotateSigningKey(db.sql);
      process.stdout.write("signing key rotated; gateways switch to it within a minute\n");
    } else if (command === "new-secret") {
      const secret = await newApplicationSecret(db, argument!);
      if (!secret) throw new ConfigError(`No application ${argument}`);
      process.stdout.write(`${secret}\n`);
    } else if (command.endsWith("-application")) {
      const enabled = command === "enable-application";
      if (!(await setApplicationEnabled(db, argument!, enabled)))
        throw new ConfigError(`No application ${argument}`);
      process.stdout.write(`application ${argument} ${enabled ? "enabled" : "disabled"}\n`);
    } else {
      const enabled = command === "enable-user";
      const at = argument!.lastIndexOf("@");
      if (at <= 0) throw new ConfigError(`${argument}: name the account as account@domain`);
      const [account, domain] = [argument!.slice(0, at), argument!.slice(at + 1)];
      if (!(await setUserEnabled(db, domain, account, enabled)))
        throw new ConfigError(`No account ${account} in tenant ${domain}`);
      process.stdout.write(`account ${argument} ${enabled ? "enabled" : "disabled"}\n`);
    }
  } finally {
    await db.close();
  }
});
