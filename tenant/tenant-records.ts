import type { Queryable } from "../runtime/database.ts";
import { membershipNamed, membershipsOf } from "./memberships.ts";
import { settingView, settingViews } from "./settings.ts";
import { tagNamed, tagsOf } from "./tags.ts";

/** The kinds of record spec 001 9.1 and 9.5 read. */
export const TENANT_RECORD_TYPES = ["membership", "tag", "setting"] as const;
export type TenantRecordType = (typeof TENANT_RECORD_TYPES)[number];

/** 9.1: one record of the tenant, by id or name (a membership by its provider's name, whatever its case). */
export async function tenantRecord(
  sql: Queryable,
  tenantId: string,
  type: TenantRecordType,
  key: string,
): Promise<unknown> {
  if (type === "tag") return tagNamed(sql, tenantId, key);
  if (type === "membership") return membershipNamed(sql, tenantId, key);
  return settingView(sql, tenantId, key);
}

/**
 * 9.5: the tenant's records of a kind, tags in their `index` order, memberships by provider, each
 * a page with the count; settings, a handful, whole (total 0, as an unpaged answer's).
 */
export async function tenantRecords(
  sql: Queryable,
  tenantId: string,
  type: TenantRecordType,
  page: { start: number; limit: number },
): Promise<{ entities: unknown[]; total: number }> {
  if (type === "tag") {
    const { tags, total } = await tagsOf(sql, tenantId, page);
    return { entities: tags, total };
  }
  if (type === "membership") {
    const { memberships, total } = await membershipsOf(sql, tenantId, page);
    return { entities: memberships, total };
  }
  return { entities: await settingViews(sql, tenantId), total: 0 };
}
