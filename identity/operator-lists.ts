import type { Queryable } from "../runtime/database.ts";
import { type ApplicationRecord, applicationPage } from "./application-store.ts";
import { type TenantRecord, tenantByDomain, tenantPage } from "./tenant-store.ts";
import { type UserRecord, userPage } from "./user-store.ts";

export type { ApplicationRecord, TenantRecord, UserRecord };

/*
 * The operators' lists of tenants, applications and accounts: by their keys after `after`, at most
 * `limit` rows, never a secret or a hash. A list of a tenant named by a domain no tenant has is
 * undefined.
 */

interface ListPage {
  after: string | null;
  limit: number;
}

export async function tenantList(sql: Queryable, page: ListPage): Promise<TenantRecord[]> {
  return tenantPage(sql, page.after, page.limit);
}

/** The applications (those of the tenant `tenant` when given), by id. */
export async function applicationList(
  sql: Queryable,
  page: ListPage & { tenant?: string | undefined },
): Promise<ApplicationRecord[] | undefined> {
  const { tenant, after, limit } = page;
  if (tenant === undefined) return applicationPage(sql, { after, limit });
  const found = await tenantByDomain(sql, tenant);
  return found ? applicationPage(sql, { tenantId: found.id, after, limit }) : undefined;
}

/** The accounts of the tenant `tenant` by account, those starting with `keyword` (any case) when given. */
export async function accountList(
  sql: Queryable,
  page: ListPage & { tenant: string; keyword?: string | undefined },
): Promise<UserRecord[] | undefined> {
  const { tenant, after, limit, keyword } = page;
  const found = await tenantByDomain(sql, tenant);
  return found ? userPage(sql, found.id, { after, limit, keyword }) : undefined;
}
