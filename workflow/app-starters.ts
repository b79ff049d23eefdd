import type { GranteeList } from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Database, Queryable } from "../runtime/database.ts";
import { APP_LISTS, granteeList, listedGranteesOf, replaceGranteeList } from "./app-access.ts";
import { workflowAppByIdOrCode, workflowAppPage } from "./app-store.ts";
import { tenantAdministrators } from "./tenant-administrators.ts";
import { tenantNamed } from "./workflow-admin.ts";

/** The most apps the operator's view of a tenant's access lists shows. */
const APPS_SHOWN = 200;

/** The operator's view of who may do what in a tenant: its administrators, and each app's starters. */
export async function tenantAccessLists(sql: Queryable, domain: string) {
  const tenant = await tenantNamed(sql, domain);
  const apps = await workflowAppPage(sql, tenant.id, null, APPS_SHOWN);
  const starters = [];
  for (const app of apps) {
    const on = { tenantId: tenant.id, scope: "workflow" as const, object: app.id };
    const { accounts, positions } = await listedGranteesOf(sql, on, APP_LISTS.starters, 1000);
    starters.push({ code: app.code, name: app.name, accounts, positions });
  }
  return {
    tenant: tenant.domain,
    administrators: await tenantAdministrators(sql, tenant.id),
    apps: starters,
  };
}

/** Replaces the operator's list of an app's starters (none: everyone in the tenant starts it). */
export async function setAppStarters(db: Database, domain: string, code: string, list: GranteeList) {
  const tenant = await tenantNamed(db.sql, domain);
  const app = await workflowAppByIdOrCode(db.sql, tenant.id, code);
  if (!app) throw new PlatformError(ErrorCode.NotFound, `no workflow app ${code} in ${domain}`);
  const on = { tenantId: tenant.id, scope: "workflow" as const, object: app.id };
  await replaceGranteeList(db.sql, on, "starters", APP_LISTS.starters, granteeList(list));
}
