import type { Queryable } from "../runtime/database.ts";

/** Whose code tables: a tenant's, in one data mode. */
export interface CodeTablesKey {
  tenantId: string;
  test: boolean;
}

/** An item of a code table as spec 001 gives it. */
export interface CodeItemRow {
  id: string;
  name: string;
  code: string;
  parentCode: string | null;
  description: string | null;
  index: number;
  attributes: Record<string, string>;
}

/** One item of a table: where it is, and its code. */
export interface CodeItemAddress extends CodeTablesKey {
  table: string;
  code: string;
}

export interface CodeItemFields {
  name: string;
  parentCode?: string | null | undefined;
  description?: string | null | undefined;
  index?: number | undefined;
  attributes?: Record<string, string> | undefined;
}

/** The one item of a table a statement is about. */
function theItem(sql: Queryable, item: CodeItemAddress) {
  return sql`tenant_id = ${item.tenantId} and test = ${item.test} and table_code = ${item.table} and code = ${item.code}`;
}

const ITEM_COLUMNS = `id, name, code, parent_code as "parentCode", description, index, attributes`;

/** Which uniqueness a write broke: the code in its table, or the name in the tenant. */
export type CodeItemClash = "code" | "name";

/** The clash a failed write met, or undefined for any other failure. */
export function codeItemClash(error: unknown): CodeItemClash | undefined {
  const { code, constraint_name: constraint } = error as { code?: string; constraint_name?: string };
  if (code !== "23505") return undefined;
  return constraint === "code_items_code" ? "code" : constraint === "code_items_name" ? "name" : undefined;
}

export async function insertCodeItem(
  sql: Queryable,
  at: CodeItemAddress,
  item: CodeItemFields,
): Promise<CodeItemRow> {
  const [row] = await sql<CodeItemRow[]>`
    insert into code_items (tenant_id, test, table_code, code, name, parent_code, description, index, attributes)
    values (${at.tenantId}, ${at.test}, ${at.table}, ${at.code}, ${item.name}, ${item.parentCode ?? null},
            ${item.description ?? null}, ${item.index ?? 0}, ${sql.json(item.attributes ?? {})})
    returning ${sql.unsafe(ITEM_COLUMNS)}`;
  return row!;
}

export async function codeItem(sql: Queryable, item: CodeItemAddress): Promise<CodeItemRow | undefined> {
  const [row] = await sql<CodeItemRow[]>`
    select ${sql.unsafe(ITEM_COLUMNS)} from code_items
    where ${theItem(sql, item)}`;
  return row;
}

/** A page of a table's items in their `index` order, each row with the table's count. */
export async function codeItemPage(
  sql: Queryable,
  key: CodeTablesKey,
  table: string,
  start: number,
  limit: number,
): Promise<(CodeItemRow & { total: number })[]> {
  return sql<(CodeItemRow & { total: number })[]>`
    select ${sql.unsafe(ITEM_COLUMNS)}, count(*) over ()::int as total from code_items
    where tenant_id = ${key.tenantId} and test = ${key.test} and table_code = ${table}
    order by index, code offset ${start} limit ${limit}`;
}

/** Changes the fields given (a null clears one); undefined when the item does not exist. */
export async function updateCodeItem(
  sql: Queryable,
  item: CodeItemAddress,
  changes: Partial<CodeItemFields>,
): Promise<CodeItemRow | undefined> {
  const set = (column: string, value: unknown) =>
    value === undefined ? sql`` : sql`${sql(column)} = ${value as never},`;
  const [row] = await sql<CodeItemRow[]>`
    update code_items set
      ${set("name", changes.name)} ${set("parent_code", changes.parentCode)}
      ${set("description", changes.description)} ${set("index", changes.index)}
      ${changes.attributes === undefined ? sql`` : sql`attributes = ${sql.json(changes.attributes)},`}
      updated_at = now()
    where ${theItem(sql, item)}
    returning ${sql.unsafe(ITEM_COLUMNS)}`;
  return row;
}

export async function deleteCodeItem(
  sql: Queryable,
  item: CodeItemAddress,
): Promise<CodeItemRow | undefined> {
  const [row] = await sql<CodeItemRow[]>`
    delete from code_items
    where ${theItem(sql, item)}
    returning ${sql.unsafe(ITEM_COLUMNS)}`;
  return row;
}
