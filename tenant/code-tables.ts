import { WorkflowRefusal } from "../contracts/workflow-errors.ts";
import type { Queryable } from "../runtime/database.ts";
import {
  type CodeItemAddress,
  type CodeItemFields,
  type CodeItemRow,
  codeItem,
  codeItemClash,
  codeItemPage,
  deleteCodeItem,
  insertCodeItem,
  updateCodeItem,
} from "./code-store.ts";
import { pageWithTotal } from "./record-lookup.ts";

export type { CodeItemAddress, CodeItemFields, CodeItemRow } from "./code-store.ts";

/** 9.6's GET with `*`: every item of the table. */
export const ALL_ITEMS = "*";

/** The refusal of a write that broke a uniqueness: the code in its table, the name in the tenant. */
async function refusingClashes<T>(
  write: () => Promise<T>,
  item: CodeItemAddress,
  name: string | undefined,
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const clash = codeItemClash(error);
    if (clash === "code")
      throw new WorkflowRefusal("CODE_TAKEN", `table ${item.table} has an item ${item.code} already`);
    if (clash === "name")
      throw new WorkflowRefusal("NAME_TAKEN", `another item of the tenant is named ${name}`);
    throw error;
  }
}

function missing(item: CodeItemAddress): WorkflowRefusal {
  return new WorkflowRefusal("CODE_NOT_FOUND", `table ${item.table} has no item ${item.code}`);
}

/** 9.6 PUT: a new item of the table. */
export function createCodeItem(sql: Queryable, item: CodeItemAddress, fields: CodeItemFields) {
  if (item.code === ALL_ITEMS) throw new WorkflowRefusal("DATA_INVALID", "code: `*` stands for every item");
  return refusingClashes(() => insertCodeItem(sql, item, fields), item, fields.name);
}

/** 9.6 GET: one item, or with `*` a page of the table's items in their `index` order. */
export async function readCodeItems(
  sql: Queryable,
  item: CodeItemAddress,
  page: { start: number; limit: number },
): Promise<{ items: CodeItemRow[]; total: number }> {
  if (item.code !== ALL_ITEMS) {
    const found = await codeItem(sql, item);
    if (!found) throw missing(item);
    return { items: [found], total: 0 };
  }
  const rows = await codeItemPage(sql, item, item.table, page.start, page.limit);
  const count = async () => (await codeItemPage(sql, item, item.table, 0, 1))[0]?.total ?? 0;
  return pageWithTotal<CodeItemRow>(rows, page.start, count);
}

/** 9.6 POST: changes the fields given. */
export async function changeCodeItem(
  sql: Queryable,
  item: CodeItemAddress,
  changes: Partial<CodeItemFields>,
): Promise<CodeItemRow> {
  const changed = await refusingClashes(() => updateCodeItem(sql, item, changes), item, changes.name);
  if (!changed) throw missing(item);
  return changed;
}

/** 9.6 DELETE: removes the item, answering what it was. */
export async function removeCodeItem(sql: Queryable, item: CodeItemAddress): Promise<CodeItemRow> {
  const removed = await deleteCodeItem(sql, item);
  if (!removed) throw missing(item);
  return removed;
}
