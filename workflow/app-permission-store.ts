import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Queryable } from "../runtime/database.ts";

/**
 * Who administers a workflow app (manages it and its processes) and who is its guest (views its
 * processes): rows of `workflow_app_permissions`, one per app, user and role, so the access grants
 * of 7.x can add and take away single rows. An administrator may view as well: the `guest` lists
 * (4.3, 4.4) hold the apps a user administers too.
 */
export const APP_ACCESS = ["admin", "guest"] as const;
export type AppAccess = (typeof APP_ACCESS)[number];

/** The roles that grant an access: viewing is granted by either role, managing by `admin` only. */
export function rolesGranting(access: AppAccess): AppAccess[] {
  return access === "admin" ? ["admin"] : ["admin", "guest"];
}

/**
 * The bootstrap file's list of an app's administrators or guests: the rows the file wrote before
 * are replaced by these accounts; rows written by other means stay. An account the tenant does not
 * have (or has disabled) is refused, naming it.
 */
export async function replaceListedPermissions(
  sql: Queryable,
  tenantId: string,
  appId: string,
  role: AppAccess,
  accounts: readonly string[],
  source = "bootstrap",
): Promise<void> {
  const wanted = [...new Set(accounts)];
  const rows = await sql<{ id: string; account: string }[]>`
    select id, account from users
    where tenant_id = ${tenantId} and not disabled and account = any(${wanted}::text[])`;
  const missing = wanted.filter((account) => !rows.some((row) => row.account === account));
  if (missing.length > 0) {
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `${role === "admin" ? "administrators" : "guests"}: no account ${missing.join(", ")} in the tenant`,
    );
  }
  await sql`
    delete from workflow_app_permissions
    where app_id = ${appId} and role = ${role} and source = ${source}
      and user_id <> all(${rows.map((row) => row.id)}::uuid[])`;
  if (rows.length === 0) return;
  await sql`
    insert into workflow_app_permissions (app_id, user_id, tenant_id, role, source)
    select ${appId}, id, ${tenantId}, ${role}, ${source} from unnest(${rows.map((row) => row.id)}::uuid[]) as id
    on conflict (app_id, role, user_id) do nothing`;
}

/** 4.12: the administrators of an app, by account. */
export async function appAdministrators(sql: Queryable, appId: string) {
  return sql<{ id: string; name: string; account: string; email: string | null; phone: string | null }[]>`
    select u.id, u.name, u.account, u.email, u.phone
    from workflow_app_permissions p join users u on u.id = p.user_id
    where p.app_id = ${appId} and p.role = 'admin' and not u.disabled
    order by u.account`;
}

/** Whether the user administers the app (`admin`), or may view its processes (`guest`: administrators too). */
export async function hasAppAccess(
  sql: Queryable,
  appId: string,
  userId: string,
  access: AppAccess,
): Promise<boolean> {
  const [row] = await sql<{ yes: boolean }[]>`
    select exists (select from workflow_app_permissions
                   where app_id = ${appId} and user_id = ${userId} and role = any(${rolesGranting(access)}::text[])) as yes`;
  return row!.yes;
}

/** The apps the user administers or may view (as a guest). */
export async function appsViewedBy(sql: Queryable, userId: string): Promise<string[]> {
  const rows = await sql<{ appId: string }[]>`
    select distinct app_id as "appId" from workflow_app_permissions
    where user_id = ${userId} and role = any(${rolesGranting("guest")}::text[])`;
  return rows.map((row) => row.appId);
}

/** The accounts the bootstrap file listed in a role of an app, by account, and whether each is disabled. */
export async function listedAccounts(sql: Queryable, appId: string, role: AppAccess, limit: number) {
  return sql<{ account: string; disabled: boolean }[]>`
    select u.account, u.disabled
    from workflow_app_permissions p join users u on u.id = p.user_id
    where p.app_id = ${appId} and p.role = ${role} and p.source = 'bootstrap'
    order by u.account limit ${limit}`;
}
