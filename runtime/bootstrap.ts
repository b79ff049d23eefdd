import { readFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Bootstrap, bootstrapSchema } from "../contracts/bootstrap.ts";
import { ConfigError } from "./config.ts";
import type { Sql } from "./database.ts";
import { upsertApplication } from "./directory/applications.ts";
import { upsertFeed } from "./directory/feeds.ts";
import { upsertSeal } from "./directory/seals.ts";
import { tenantByDomain, upsertTenant } from "./directory/tenants.ts";
import { upsertUser } from "./directory/users.ts";
import type { Logger } from "./logger.ts";

const BOOTSTRAP_LOCK = 7_301_002;

/** Reads and validates the bootstrap file; a wrong file throws one line naming the field. */
export async function readBootstrapFile(path: string): Promise<Bootstrap> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new ConfigError(`BOOTSTRAP_FILE ${path} cannot be read: ${(error as NodeJS.ErrnoException).code}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`BOOTSTRAP_FILE ${path} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = bootstrapSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const at = issue.path.length > 0 ? issue.path.join(".") : "(top level)";
    throw new ConfigError(`BOOTSTRAP_FILE ${path}: ${at}: ${issue.message}`);
  }
  const bootstrap = parsed.data;
  for (const seal of bootstrap.seals) {
    if (seal.image.startsWith("data:")) continue;
    // A seal image named by path is read now, relative to the bootstrap file.
    const file = resolve(dirname(path), seal.image);
    const bytes = await readFile(file).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(
        `BOOTSTRAP_FILE ${path}: seal ${seal.code}: ${file} cannot be read: ${error.code}`,
      );
    });
    seal.image = `data:image/png;base64,${bytes.toString("base64")}`;
  }
  return bootstrap;
}

/** Creates or updates what the bootstrap file lists, in one transaction; running it again changes nothing. */
export async function applyBootstrap(sql: Sql, bootstrap: Bootstrap, log: Logger): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${BOOTSTRAP_LOCK})`;
    for (const tenant of bootstrap.tenants) await upsertTenant(tx, tenant);
    for (const application of bootstrap.applications) await upsertApplication(tx, application);
    for (const user of bootstrap.users) await upsertUser(tx, user);
    for (const seal of bootstrap.seals) {
      const tenant = seal.tenant ? await tenantByDomain(tx, seal.tenant) : undefined;
      if (seal.tenant && !tenant) throw new ConfigError(`seal ${seal.code}: no tenant ${seal.tenant}`);
      await upsertSeal(tx, seal, tenant?.id ?? null);
    }
    for (const feed of bootstrap.feeds) await upsertFeed(tx, feed);
  });
  log.info(
    {
      tenants: bootstrap.tenants.length,
      applications: bootstrap.applications.length,
      users: bootstrap.users.length,
      seals: bootstrap.seals.length,
      feeds: bootstrap.feeds.length,
    },
    "bootstrap file applied",
  );
}
