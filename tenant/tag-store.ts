import type { BootstrapTag } from "../contracts/tenant-data.ts";
import type { Queryable } from "../runtime/database.ts";

/** A tenant tag as spec 001 gives it. */
export interface TagRow {
  id: string;
  name: string;
  description: string | null;
  index: number;
  palette: string | null;
  visible: boolean;
}

const TAG_COLUMNS = "id, name, description, index, palette, visible";

export type TagFields = Omit<BootstrapTag, "tenant">;

/** Creates the tag or brings it up to date, by its name. */
export async function upsertTag(sql: Queryable, tenantId: string, tag: TagFields): Promise<TagRow> {
  const [row] = await sql<TagRow[]>`
    insert into tenant_tags (tenant_id, name, description, index, palette, visible)
    values (${tenantId}, ${tag.name}, ${tag.description ?? null}, ${tag.index}, ${tag.palette ?? null}, ${tag.visible})
    on conflict (tenant_id, name) do update set
      description = excluded.description, index = excluded.index, palette = excluded.palette,
      visible = excluded.visible, updated_at = now()
    returning ${sql.unsafe(TAG_COLUMNS)}`;
  return row!;
}

/** Removes the tag by name; undefined when the tenant has none of that name. */
export async function deleteTag(sql: Queryable, tenantId: string, name: string): Promise<TagRow | undefined> {
  const [row] = await sql<TagRow[]>`
    delete from tenant_tags where tenant_id = ${tenantId} and name = ${name}
    returning ${sql.unsafe(TAG_COLUMNS)}`;
  return row;
}

export async function tagCount(sql: Queryable, tenantId: string): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    select count(*)::int as count from tenant_tags where tenant_id = ${tenantId}`;
  return row!.count;
}

/** A page of the tenant's tags in their `index` order, each row with the tenant's count. */
export async function tagPage(
  sql: Queryable,
  tenantId: string,
  start: number,
  limit: number,
): Promise<(TagRow & { total: number })[]> {
  return sql<(TagRow & { total: number })[]>`
    select ${sql.unsafe(TAG_COLUMNS)}, count(*) over ()::int as total from tenant_tags
    where tenant_id = ${tenantId} order by index, name offset ${start} limit ${limit}`;
}

/** The tag a 9.1 names: by its id or its name. */
export async function tagByIdOrName(
  sql: Queryable,
  tenantId: string,
  key: string,
  isId: boolean,
): Promise<TagRow | undefined> {
  const [row] = await sql<TagRow[]>`
    select ${sql.unsafe(TAG_COLUMNS)} from tenant_tags
    where tenant_id = ${tenantId} and ${isId ? sql`(id = ${key}::uuid or name = ${key})` : sql`name = ${key}`}
    order by (name = ${key}) desc limit 1`;
  return row;
}

/** Which of `names` are the tenant's tags. */
export async function existingTagNames(
  sql: Queryable,
  tenantId: string,
  names: readonly string[],
): Promise<Set<string>> {
  const rows = await sql<{ name: string }[]>`
    select name from tenant_tags where tenant_id = ${tenantId} and name = any(${names as string[]}::text[])`;
  return new Set(rows.map((row) => row.name));
}
