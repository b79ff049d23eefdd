import { ErrorCode, PlatformError } from "../contracts/errors.ts";
import { TENANT_TAGS_MAX } from "../contracts/tenant-data.ts";
import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import { mayBeId, pageWithTotal } from "./record-lookup.ts";
import {
  deleteTag,
  existingTagNames,
  type TagFields,
  type TagRow,
  tagByIdOrName,
  tagCount,
  tagPage,
  upsertTag,
} from "./tag-store.ts";

export type { TagFields, TagRow } from "./tag-store.ts";

/** Creates or changes a tag of the tenant; a tenant keeps at most TENANT_TAGS_MAX of them. */
export async function putTag(sql: Queryable, tenantId: string, tag: TagFields): Promise<TagRow> {
  const known = await existingTagNames(sql, tenantId, [tag.name]);
  if (known.size === 0 && (await tagCount(sql, tenantId)) >= TENANT_TAGS_MAX)
    throw new PlatformError(ErrorCode.Conflict, `a tenant has at most ${TENANT_TAGS_MAX} tags`);
  return upsertTag(sql, tenantId, tag);
}

export function removeTag(sql: Queryable, tenantId: string, name: string): Promise<TagRow | undefined> {
  return deleteTag(sql, tenantId, name);
}

/** A page of the tenant's tags in their `index` order, and how many it has. */
export async function tagsOf(
  sql: Queryable,
  tenantId: string,
  page: { start: number; limit: number },
): Promise<{ tags: TagRow[]; total: number }> {
  const rows = await tagPage(sql, tenantId, page.start, page.limit);
  const { items, total } = await pageWithTotal<TagRow>(rows, page.start, () => tagCount(sql, tenantId));
  return { tags: items, total };
}

/** 9.1's tag, by id or name, or a refusal. */
export async function tagNamed(sql: Queryable, tenantId: string, key: string): Promise<TagRow> {
  const tag = await tagByIdOrName(sql, tenantId, key, mayBeId(key));
  if (!tag) throw new WorkflowRefusal("TAG_NOT_FOUND", `the tenant has no tag ${key}`);
  return tag;
}

/** Refuses the names that are not tags of the tenant, naming the first. */
export async function checkTenantTags(
  sql: Queryable,
  tenantId: string,
  names: readonly string[],
): Promise<void> {
  if (names.length === 0) return;
  const known = await existingTagNames(sql, tenantId, names);
  const unknown = names.find((name) => !known.has(name));
  if (unknown !== undefined) throw new WorkflowRefusal("TAG_NOT_FOUND", `the tenant has no tag ${unknown}`);
}

/**
 * An app's tags (comma-separated, as spec 001 writes them): a tenant that keeps tags holds its apps
 * to them, refusing a name that is not one; a tenant without tags leaves them free.
 */
export async function checkAppTags(sql: Queryable, tenantId: string, tags: string): Promise<void> {
  const names = [...new Set(tags.split(",").map((name) => name.trim()))].filter(Boolean);
  if (names.length === 0 || (await tagCount(sql, tenantId)) === 0) return;
  await checkTenantTags(sql, tenantId, names);
}
