import type { GranteeList as BootstrapGranteeList } from "../contracts/bootstrap.ts";
import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import type { Queryable } from "../runtime/database.ts";
import {
  type GranteeList,
  listedGrantees,
  type Permission,
  replaceListedGrants,
} from "./access-grant-store.ts";

/**
 * Who may do what with a workflow app, as grants of scope `workflow` on it: W administers it (4.3,
 * 4.4, 4.12), R views its processes (4.3, 4.4), X starts it (2.1, 3.2, 4.10; an app with no X grant
 * is started by everyone in the tenant). An administrator may view as well.
 */
export const APP_ACCESS = ["admin", "guest"] as const;
export type AppAccess = (typeof APP_ACCESS)[number];

/** The permissions that grant an access: viewing is granted by W or R, administering by W only. */
export function permissionsGranting(access: AppAccess): Permission[] {
  return access === "admin" ? ["W"] : ["W", "R"];
}

/** The operator's lists of an app (bootstrap file, admin API, console) and the permission each gives. */
export const APP_LISTS = { administrators: "W", guests: "R", starters: "X" } as const;
export type AppList = keyof typeof APP_LISTS;

/** A list as the bootstrap file writes it: accounts, or accounts and positions `dept:post`. */
export function granteeList(list: readonly string[] | BootstrapGranteeList): GranteeList {
  const { accounts, positions } = Array.isArray(list)
    ? { accounts: list as readonly string[], positions: [] }
    : (list as BootstrapGranteeList);
  return {
    accounts: [...accounts],
    positions: positions.map((position) => {
      const [dept, post] = position.split(":");
      return { dept: dept!.trim(), post: post!.trim() };
    }),
  };
}

/**
 * Replaces what the operator's list gave before on an object; rows written otherwise (7.3) stay.
 * An account the tenant does not have, or has disabled, is refused, naming it.
 */
export async function replaceGranteeList(
  sql: Queryable,
  on: { tenantId: string; scope: "workflow" | "enterprise"; object: string },
  name: string,
  permission: Permission,
  list: GranteeList,
): Promise<void> {
  const { missing } = await replaceListedGrants(sql, on, permission, list);
  if (missing.length > 0)
    throw new PlatformError(
      ErrorCode.InvalidArgument,
      `${name}: no account ${missing.join(", ")} in the tenant`,
    );
}

/** The list the operator gave: its accounts (and whether any is disabled) and positions, at most `limit`. */
export async function listedGranteesOf(
  sql: Queryable,
  on: { tenantId: string; scope: "workflow" | "enterprise"; object: string },
  permission: Permission,
  limit: number,
): Promise<{ accounts: string[]; positions: string[]; disabled: boolean; more: boolean }> {
  const rows = await listedGrantees(sql, on, permission, limit + 1);
  const kept = rows.slice(0, limit);
  return {
    accounts: kept.flatMap((row) => (row.account === null ? [] : [row.account])),
    positions: kept.flatMap((row) => (row.dept === null ? [] : [`${row.dept}:${row.post}`])),
    disabled: kept.some((row) => row.disabled),
    more: rows.length > limit,
  };
}
