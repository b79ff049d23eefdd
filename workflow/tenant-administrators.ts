import type { Bootstrap, GranteeList } from "../contracts/bootstrap.ts";
import { tenantIdOf } from "../identity/tenants.ts";
import type { BootstrapEntry } from "../runtime/bootstrap.ts";
import type { SectionExport } from "../runtime/bootstrap-export.ts";
import type { Queryable } from "../runtime/database.ts";
import { granteeList, listedGranteesOf, replaceGranteeList } from "./app-access.ts";
import { tenantNamed } from "./workflow-admin.ts";

/** The most accounts and positions a tenant's list of administrators holds. */
const ADMINISTRATORS_MAX = 1000;

/**
 * A tenant's administrators are the holders of `enterprise` W: they grant and revoke access to
 * positions (7.3, 7.4) with their own user tokens. The operator names them (bootstrap file, admin
 * API, console) by account or position; a position's holders change with the directory.
 */
const enterpriseOf = (tenantId: string) => ({ tenantId, scope: "enterprise" as const, object: tenantId });

/** Replaces the operator's list of the tenant's administrators; grants made otherwise stay. */
export async function replaceTenantAdministrators(
  sql: Queryable,
  tenantId: string,
  list: GranteeList,
): Promise<void> {
  await replaceGranteeList(sql, enterpriseOf(tenantId), "administrators", "W", granteeList(list));
}

/** The operator's list of the tenant's administrators. */
export async function tenantAdministrators(sql: Queryable, tenantId: string) {
  const { accounts, positions } = await listedGranteesOf(
    sql,
    enterpriseOf(tenantId),
    "W",
    ADMINISTRATORS_MAX,
  );
  return { accounts, positions };
}

/** The admin API's and the console's view: the list of the tenant named by its domain. */
export async function administratorsOfDomain(sql: Queryable, domain: string) {
  const tenant = await tenantNamed(sql, domain);
  return { tenant: tenant.domain, ...(await tenantAdministrators(sql, tenant.id)) };
}

/** The admin API's and the console's change: replaces the list of the tenant named by its domain. */
export async function setAdministratorsOfDomain(sql: Queryable, domain: string, list: GranteeList) {
  const tenant = await tenantNamed(sql, domain);
  await replaceTenantAdministrators(sql, tenant.id, list);
  return { tenant: tenant.domain, ...(await tenantAdministrators(sql, tenant.id)) };
}

/** The bootstrap file's `tenantAdministrators`, as entries applied after the users they name. */
export function tenantAdministratorBootstrapEntries(bootstrap: Bootstrap): BootstrapEntry[] {
  return bootstrap.tenantAdministrators.map((entry) => ({
    kind: "tenant-administrators",
    key: entry.tenant,
    value: entry,
    async apply(tx: Queryable) {
      const tenantId = await tenantIdOf(tx, entry.tenant, "tenantAdministrators");
      await replaceTenantAdministrators(tx, tenantId, entry);
    },
  }));
}

export const tenantAdministratorSectionExport: SectionExport = {
  section: "tenantAdministrators",
  async *entries(tx, tenants) {
    for (const tenant of tenants) {
      const list = await listedGranteesOf(tx, enterpriseOf(tenant.id), "W", ADMINISTRATORS_MAX);
      if (list.disabled || list.accounts.length + list.positions.length === 0) continue;
      yield {
        key: tenant.domain,
        entry: { tenant: tenant.domain, accounts: list.accounts, positions: list.positions },
      };
    }
  },
};
