import { ConfigError } from "../runtime/config.ts";
import type { Queryable } from "../runtime/database.ts";
import { tenantByDomain } from "./tenant-store.ts";

export {
  type Tenant,
  tenantByDomain,
  tenantReminder,
  tenantSettings,
  tenantStatistics,
  tenantsCountingStatistics,
  tenantsNotifying,
  writeTenantSetting,
} from "./tenant-store.ts";

/** The id of the tenant an entry of the bootstrap file names; a missing tenant names the entry. */
export async function tenantIdOf(tx: Queryable, domain: string, entry: string): Promise<string> {
  const tenant = await tenantByDomain(tx, domain);
  if (!tenant) throw new ConfigError(`${entry}: no tenant with domain ${domain}`);
  return tenant.id;
}
