import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { tenantByDomain } from "../identity/tenants.ts";
import type { Queryable } from "../runtime/database.ts";
import type { SealCache } from "./seal-cache.ts";
import { deleteSeal } from "./seal-store.ts";

/**
 * Withdraws the seal `code` of the tenant `tenant` (its domain), or the platform-wide one when no
 * tenant is named; the gateway's cache forgets every seal, so no request signs with it again.
 */
export async function withdrawSeal(
  deps: { sql: Queryable; seals: SealCache },
  code: string,
  tenant: string | undefined,
): Promise<void> {
  const owner = tenant ? await tenantByDomain(deps.sql, tenant) : undefined;
  if (tenant && !owner) throw new PlatformError(ErrorCode.NotFound, `no tenant ${tenant}`);
  const deleted = await deleteSeal(deps.sql, code, owner?.id ?? null);
  deps.seals.clear();
  if (!deleted)
    throw new PlatformError(ErrorCode.NotFound, `no seal ${code}${tenant ? ` of ${tenant}` : ""}`);
}
