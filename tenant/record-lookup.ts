/** Whether a 9.1 key may be a record's id (a GUID) rather than its name. */
export function mayBeId(key: string): boolean {
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(key);
}

/**
 * A page of rows each carrying the full count, as the records and the count: a page past the end
 * has no row to carry it, so it is counted apart.
 */
export async function pageWithTotal<T>(
  rows: readonly (T & { total: number })[],
  start: number,
  count: () => Promise<number>,
): Promise<{ items: T[]; total: number }> {
  const total = rows[0]?.total ?? (start > 0 ? await count() : 0);
  return { items: rows.map(({ total: _, ...row }) => row as unknown as T), total };
}
