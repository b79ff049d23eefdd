import { type BootstrapSeal, bootstrapSchema } from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { tenantByDomain } from "../identity/tenants.ts";
import { applyBootstrap } from "../runtime/bootstrap.ts";
import type { ControlChanges } from "../runtime/control-changes.ts";
import type { Queryable, Sql } from "../runtime/database.ts";
import type { Logger } from "../runtime/logger.ts";
import { sealBootstrapEntries } from "./seal-bootstrap.ts";
import type { SealCache } from "./seal-cache.ts";
import { deleteSeal, sealImageByCode } from "./seal-store.ts";

export { type SealKey, type SealRecord, sealPage } from "./seal-store.ts";

/**
 * The operators' work on seals: each named by its code and its tenant's domain (none for a
 * platform-wide seal); one uploaded as the bootstrap file's seals are applied, one withdrawn, one's
 * image read. A change clears this process's cache of seals at once; the others' follow within
 * its few seconds.
 */

/** What was not there when a seal was looked up: the tenant named, or the seal. */
export type SealMissing = { missing: "tenant" | "seal" };

/** The API's not-found for what a seal's operation missed: the tenant named, or the seal of it. */
export function missingSealError(
  { missing }: SealMissing,
  code: string,
  tenant: string | undefined,
): PlatformError {
  const what = missing === "tenant" ? `tenant ${tenant}` : `seal ${code}${tenant ? ` of ${tenant}` : ""}`;
  return new PlatformError(ErrorCode.NotFound, `no ${what}`);
}

/** What changing seals needs: the database, this process's cache of them, and a log. */
export interface SealChangeDeps {
  sql: Sql;
  seals: SealCache;
  log: Logger;
}

/** The id of the tenant a seal is named under; null for a platform-wide seal, undefined for no such tenant. */
async function ownerOf(sql: Queryable, tenant: string | undefined): Promise<string | null | undefined> {
  if (tenant === undefined) return null;
  return (await tenantByDomain(sql, tenant))?.id;
}

/** The PNG of the seal `code` of the tenant of that domain, else the platform-wide one. */
export async function sealImageOf(
  sql: Queryable,
  code: string,
  tenant: string | undefined,
): Promise<{ image: Buffer } | SealMissing> {
  const owner = await ownerOf(sql, tenant);
  if (owner === undefined) return { missing: "tenant" };
  const seal = await sealImageByCode(sql, code, owner);
  return seal ? { image: seal.image } : { missing: "seal" };
}

/** Withdraws the seal: applications can no longer use it. */
export async function withdrawSeal(
  deps: Pick<SealChangeDeps, "sql" | "seals">,
  code: string,
  tenant: string | undefined,
): Promise<{ withdrawn: true } | SealMissing> {
  const owner = await ownerOf(deps.sql, tenant);
  if (owner === undefined) return { missing: "tenant" };
  const deleted = await deleteSeal(deps.sql, code, owner);
  deps.seals.clear();
  return deleted ? { withdrawn: true } : { missing: "seal" };
}

/**
 * Creates the seal or brings it up to date (a changed one gets a new version), as the bootstrap
 * file's seals are applied, and announces the change. A `ConfigError` says why the entry was
 * refused (an image that is no PNG, a tenant that does not exist).
 */
export async function uploadSeal(
  deps: SealChangeDeps & { changes: ControlChanges },
  seal: BootstrapSeal,
): Promise<void> {
  const bootstrap = bootstrapSchema.parse({ seals: [seal] });
  await applyBootstrap(deps.sql, bootstrap, deps.log, "all", sealBootstrapEntries);
  deps.seals.clear();
  await deps.changes.announce({ kind: "configuration" });
}
