import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { TENANT_MEMBERSHIPS_MAX } from "../contracts/tenant-data.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import {
  deleteMembership,
  type MembershipFields,
  type MembershipRow,
  membershipByIdOrProvider,
  membershipCount,
  membershipPage,
  upsertMembership,
} from "./membership-store.ts";
import { mayBeId, pageWithTotal } from "./record-lookup.ts";

export type { MembershipFields, MembershipRow } from "./membership-store.ts";

/** Creates or changes a membership of the tenant; a tenant keeps at most TENANT_MEMBERSHIPS_MAX. */
export async function putMembership(
  sql: Queryable,
  tenantId: string,
  membership: MembershipFields,
): Promise<MembershipRow> {
  const known = await membershipByIdOrProvider(sql, tenantId, membership.provider, false);
  if (!known && (await membershipCount(sql, tenantId)) >= TENANT_MEMBERSHIPS_MAX)
    throw new PlatformError(ErrorCode.Conflict, `a tenant has at most ${TENANT_MEMBERSHIPS_MAX} memberships`);
  return upsertMembership(sql, tenantId, membership);
}

export function removeMembership(
  sql: Queryable,
  tenantId: string,
  provider: string,
): Promise<MembershipRow | undefined> {
  return deleteMembership(sql, tenantId, provider);
}

/** A page of the tenant's memberships by provider, and how many it has. */
export async function membershipsOf(
  sql: Queryable,
  tenantId: string,
  page: { start: number; limit: number },
): Promise<{ memberships: MembershipRow[]; total: number }> {
  const rows = await membershipPage(sql, tenantId, page.start, page.limit);
  const count = () => membershipCount(sql, tenantId);
  const { items, total } = await pageWithTotal<MembershipRow>(rows, page.start, count);
  return { memberships: items, total };
}

/** 9.1's membership, by id or provider name (whatever its case), or a refusal. */
export async function membershipNamed(sql: Queryable, tenantId: string, key: string): Promise<MembershipRow> {
  const found = await membershipByIdOrProvider(sql, tenantId, key, mayBeId(key));
  if (!found) throw new WorkflowRefusal("MEMBERSHIP_NOT_FOUND", `the tenant has no membership ${key}`);
  return found;
}
