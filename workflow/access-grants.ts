import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import { parsePosition, requireKnownPosition } from "../directory/positions.ts";
import type { Queryable } from "../runtime/database.ts";
import {
  type AccessView,
  accessesOf,
  deleteGrants,
  type Grantee,
  type GrantObject,
  type GrantView,
  grantsOnObject,
  holdsGrant,
  insertGrant,
  mayManagePosition,
  type Permission,
} from "./access-grant-store.ts";
import { subjectOf, type WorkflowCaller } from "./workflow-caller.ts";
import { namedUser } from "./workflow-tenants.ts";

export { GRANT_SCOPES, PERMISSIONS } from "./access-grant-store.ts";

/** The source of the grants 7.3 writes; the user who wrote each is kept with it. */
const ACCESS_SOURCE = "access";

/** 7.3 and 7.4's grantee: a user (`code`, account or id) or a position, exactly one. */
export type GranteeParameter = { code: string } | { position: string };

/** An access as 1.7 and 7.1 answer it: `position` only for scope `position`, `via` only through a position. */
function accessEntity(access: AccessView) {
  const { position, via, ...rest } = access;
  return { ...rest, ...(position ? { position } : {}), ...(via ? { via } : {}) };
}

/**
 * Refuses a user who is not an administrator of the caller's tenant (W on its `enterprise`); a sys
 * token acts for its tenant already.
 */
export async function requireTenantAdministrator(sql: Queryable, caller: WorkflowCaller): Promise<void> {
  if (caller.sys) return;
  const on = {
    tenantId: caller.tenantId,
    test: caller.test,
    scope: "enterprise" as const,
    object: caller.tenantId,
  };
  if (!(await holdsGrant(sql, on, caller.userId!, ["W"])))
    throw new WorkflowRefusal("NOT_AN_ADMINISTRATOR", "the user is not an administrator of the tenant");
}

/** 1.7 and 7.1: the user's accesses, given to them and through the positions they hold now. */
export async function userAccesses(sql: Queryable, caller: WorkflowCaller, named: string | undefined) {
  const userId = await subjectOf(sql, caller, named);
  return (await accessesOf(sql, caller.tenantId, caller.test, userId)).map(accessEntity);
}

/** The position 7.2-7.4 act on; spec 001 serves scope `position` only. */
function positionObject(caller: WorkflowCaller, scope: string, object: string) {
  if (scope !== "position")
    throw new WorkflowRefusal("NOT_SUPPORTED", `scope ${scope}: 7.2-7.4 serve scope position only`);
  const position = parsePosition(object);
  const on: GrantObject = {
    tenantId: caller.tenantId,
    test: caller.test,
    scope: "position",
    object: `${position.dept}:${position.post}`,
  };
  return { position, on };
}

/**
 * Refused, changing nothing, unless the caller's user is a tenant administrator (`enterprise` W)
 * or holds one of the permissions on the position.
 */
async function requireManager(
  sql: Queryable,
  caller: WorkflowCaller,
  position: { dept: string; post: string },
  permissions: readonly Permission[],
) {
  const allowed = await mayManagePosition(
    sql,
    caller.tenantId,
    caller.test,
    caller.userId!,
    position,
    permissions,
  );
  if (!allowed) {
    throw new WorkflowRefusal(
      "NOT_AN_ADMINISTRATOR",
      `the user is neither a tenant administrator nor holds ${permissions.join(" or ")} on ${position.dept}:${position.post}`,
    );
  }
}

async function granteeOf(
  sql: Queryable,
  caller: WorkflowCaller,
  grantee: GranteeParameter,
): Promise<Grantee> {
  if ("code" in grantee) return { userId: await namedUser(sql, caller.tenantId, grantee.code) };
  return parsePosition(grantee.position);
}

/**
 * 7.2: who may manage the position: the users given a permission on it and, with
 * `includePositions`, the positions too. For tenant administrators and those holding R or W on it.
 */
export async function positionAccessList(
  sql: Queryable,
  caller: WorkflowCaller,
  scope: string,
  object: string,
  includePositions: boolean,
): Promise<GrantView[]> {
  const { position, on } = positionObject(caller, scope, object);
  await requireManager(sql, caller, position, ["R", "W"]);
  return grantsOnObject(sql, on, includePositions);
}

/** 7.3: gives the user or the position the permission on the position; answers the grants on it now. */
export async function grantPositionAccess(
  sql: Queryable,
  caller: WorkflowCaller,
  scope: string,
  object: string,
  grant: { grantee: GranteeParameter; permission: Permission },
): Promise<GrantView[]> {
  const { position, on } = positionObject(caller, scope, object);
  const grantee = await granteeOf(sql, caller, grant.grantee);
  await requireManager(sql, caller, position, ["W"]);
  // A grant on or to a position the directory lacks is a typo more often than a plan.
  await requireKnownPosition(sql, caller.tenantId, position);
  if ("post" in grantee) await requireKnownPosition(sql, caller.tenantId, grantee);
  await insertGrant(sql, on, grantee, grant.permission, { source: ACCESS_SOURCE, grantedBy: caller.userId! });
  return grantsOnObject(sql, on, true);
}

/**
 * 7.4: takes the user's or the position's permissions on the position away (only `permission`
 * when given); answers the grants on it now.
 */
export async function revokePositionAccess(
  sql: Queryable,
  caller: WorkflowCaller,
  scope: string,
  object: string,
  revoke: { grantee: GranteeParameter; permission?: Permission | undefined },
): Promise<GrantView[]> {
  const { position, on } = positionObject(caller, scope, object);
  const grantee = await granteeOf(sql, caller, revoke.grantee);
  await requireManager(sql, caller, position, ["W"]);
  await deleteGrants(sql, on, grantee, revoke.permission);
  return grantsOnObject(sql, on, true);
}
